package httpevent

import (
	"strings"

	"github.com/cloudemu/emulator/execute"
)

// AddForwarded appends h to dst as an HTTP API passes a request's headers
// on, with the ones the gateway adds, and returns dst: x-amzn-trace-id
// (traceID, instead of the client's), x-forwarded-for (the client's list,
// then sourceIP), x-forwarded-port and x-forwarded-proto (port and proto,
// instead of the client's). Recorded: aws-lambda-go
// events/testdata/apigw-v2-request-no-authorizer.json and hotsock/voker
// vokerhttp/testdata/apigwv2-request.json carry all four, with content-length
// and host as the client sent them. An empty traceID, port or proto adds
// no header of that name.
func AddForwarded(dst, h execute.Headers, sourceIP, port, proto, traceID string) execute.Headers {
	forwarded := ""
	for _, f := range h {
		switch {
		case strings.EqualFold(f.Name, "X-Amzn-Trace-Id"), strings.EqualFold(f.Name, "X-Forwarded-Port"),
			strings.EqualFold(f.Name, "X-Forwarded-Proto"):
			continue
		case strings.EqualFold(f.Name, "X-Forwarded-For"):
			if forwarded == "" {
				forwarded = f.Value
			} else {
				forwarded += ", " + f.Value
			}
			continue
		}
		dst = append(dst, f)
	}
	switch {
	case forwarded == "":
		forwarded = sourceIP
	case sourceIP != "":
		forwarded += ", " + sourceIP
	}
	if traceID != "" {
		dst = append(dst, execute.Header{Name: "x-amzn-trace-id", Value: traceID})
	}
	if forwarded != "" {
		dst = append(dst, execute.Header{Name: "x-forwarded-for", Value: forwarded})
	}
	if port != "" {
		dst = append(dst, execute.Header{Name: "x-forwarded-port", Value: port})
	}
	if proto != "" {
		dst = append(dst, execute.Header{Name: "x-forwarded-proto", Value: proto})
	}
	return dst
}
