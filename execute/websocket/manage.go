package websocket

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
)

// Serve implements execute.Handler for the requests to a WebSocket API
// that are not upgrades: the @connections management API
// (awswire/models/botocore/apigatewaymanagementapi), and 426 for
// anything else. Signatures are not checked.
func (x *Executor) Serve(req *execute.Request, resp *execute.Response) {
	resp.Reset()
	id, ok := connectionPath(req.Path)
	if !ok && isConnectionsPath(req.Path) {
		resp.Headers = append(resp.Headers, execute.Header{Name: "x-amzn-RequestId", Value: req.RequestID})
		manageError(resp, 403, "ForbiddenException", `{"message":"Forbidden"}`)
		return
	}
	if !ok {
		resp.Status = 426
		resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"},
			execute.Header{Name: "Upgrade", Value: "websocket"},
			execute.Header{Name: "x-amzn-RequestId", Value: req.RequestID})
		resp.Body = append(resp.Body, `{"message":"Upgrade Required"}`...)
		return
	}
	resp.Headers = append(resp.Headers, execute.Header{Name: "x-amzn-RequestId", Value: req.RequestID})
	if req.Method != "POST" && req.Method != "GET" && req.Method != "DELETE" {
		manageError(resp, 403, "ForbiddenException", `{"message":"Forbidden"}`)
		return
	}
	if _, ok := x.resolve(req.APIID, req.Region, req.Stage); !ok {
		manageError(resp, 403, "ForbiddenException", `{"message":"Forbidden"}`)
		return
	}
	c, ok := x.conns.Load(id)
	// A connection id belongs to one API.
	if !ok || !strings.EqualFold(c.apiID, req.APIID) {
		manageError(resp, 410, "GoneException", `{}`)
		return
	}
	s := c.sock()
	switch req.Method {
	case "POST":
		if len(req.Body) > x.limits.MessageBytes {
			manageError(resp, 413, "PayloadTooLargeException", `{"message":"Message too long"}`)
			return
		}
		data := append([]byte(nil), req.Body...)
		switch err := s.Send(data, !utf8.Valid(data)); err {
		case nil:
			c.touch(x.now())
			resp.Status = 200
		case ErrBusy:
			manageError(resp, 429, "LimitExceededException", `{}`)
		default:
			manageError(resp, 410, "GoneException", `{}`)
		}
	case "GET":
		if s.Closing() {
			manageError(resp, 410, "GoneException", `{}`)
			return
		}
		resp.Status = 200
		resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"})
		b := append(resp.Body, `{"connectedAt":"`...)
		b = c.connectedAt.UTC().AppendFormat(b, isoMillis)
		b = append(b, `","identity":{"sourceIp":`...)
		b = awswire.AppendString(b, c.sourceIP)
		b = append(b, `,"userAgent":`...)
		b = awswire.AppendString(b, c.userAgent)
		b = append(b, `},"lastActiveAt":"`...)
		b = c.LastActive().UTC().AppendFormat(b, isoMillis)
		resp.Body = append(b, `"}`...)
	case "DELETE":
		if s.Close(1000, "") != nil {
			manageError(resp, 410, "GoneException", `{}`)
			return
		}
		resp.Status = 204
	}
}

const isoMillis = "2006-01-02T15:04:05.000Z"

func manageError(resp *execute.Response, status int, code, body string) {
	resp.Status = status
	resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"},
		execute.Header{Name: "x-amzn-ErrorType", Value: code})
	resp.Body = append(resp.Body[:0], body...)
}

// isConnectionsPath reports a path under "/@connections" (or its
// escaped spelling), well formed or not.
func isConnectionsPath(p string) bool {
	p = strings.TrimLeft(p, "/")
	seg, _, _ := strings.Cut(p, "/")
	return seg == "@connections" || strings.EqualFold(seg, "%40connections")
}

// connectionPath reads "/@connections/{id}" (the SDK escapes the "@" and
// the id's "=").
func connectionPath(p string) (string, bool) {
	p = strings.TrimPrefix(p, "/")
	seg, rest, ok := strings.Cut(p, "/")
	if !ok || (seg != "@connections" && !strings.EqualFold(seg, "%40connections")) {
		return "", false
	}
	rest = strings.TrimSuffix(rest, "/")
	id, err := url.PathUnescape(rest)
	if err != nil || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	return id, true
}
