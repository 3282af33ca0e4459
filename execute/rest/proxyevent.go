package rest

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
)

// appendProxyEvent appends the event a Lambda proxy integration sends
// (payload format 1.0, docs/apigateway-execution.md §4, recorded R-04, L-06
// and X-04) to dst. With methodArn set it is a REQUEST authorizer's event
// instead (§2.3): type and methodArn first, no body, no authorizer. The
// event is written straight into dst, in AWS's member order; empty
// collections are null.
func (inv *invocation) appendProxyEvent(dst []byte, methodArn string) []byte {
	req := inv.req
	authorizerEvent := methodArn != ""
	dst = append(dst, '{')
	if authorizerEvent {
		dst = append(dst, `"type":"REQUEST","methodArn":`...)
		dst = awswire.AppendString(dst, methodArn)
		dst = append(dst, ',')
	}
	dst = append(dst, `"resource":`...)
	dst = awswire.AppendString(dst, inv.eventResource())
	dst = append(dst, `,"path":`...)
	dst = awswire.AppendString(dst, eventPath(req.Path))
	dst = append(dst, `,"httpMethod":`...)
	dst = awswire.AppendString(dst, req.Method)
	dst = appendHeaderViews(dst, inv.eventHeaderList())
	dst = inv.appendQueryViews(dst)
	dst = append(dst, `,"pathParameters":`...)
	if len(inv.match.Params) == 0 {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '{')
		for i, p := range inv.match.Params {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = awswire.AppendString(dst, p.Name)
			dst = append(dst, ':')
			dst = awswire.AppendString(dst, p.Value)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"stageVariables":`...)
	dst = inv.appendStringMap(dst, inv.vars)
	dst = append(dst, `,"requestContext":`...)
	dst = inv.appendRequestContext(dst, !authorizerEvent)
	if !authorizerEvent {
		dst = inv.appendEventBody(dst)
	}
	return append(dst, '}')
}

// eventResource is the resource path template ("/{proxy+}"), the path
// itself when no method was matched (TestInvokeAuthorizer).
func (inv *invocation) eventResource() string {
	if inv.m != nil {
		return inv.m.resourcePath
	}
	return eventPath(inv.req.Path)
}

// eventPath is the event's path: the stage stripped, one leading slash
// however many the client sent, a trailing one kept.
func eventPath(p string) string {
	i := 0
	for i < len(p) && p[i] == '/' {
		i++
	}
	if i == 0 {
		return "/" + p
	}
	return p[i-1:]
}

// eventHeaderList is the request's headers as a function sees them: hop
// headers dropped, Authorization and User-Agent spelled so, then the trace
// header and X-Forwarded-For, -Port and -Proto that the gateway adds.
func (inv *invocation) eventHeaderList() execute.Headers {
	req := inv.req
	h := inv.eventHeaders[:0]
	forwarded := ""
	for _, f := range req.Headers {
		switch name := f.Name; {
		case execute.IsHopHeader(name), strings.EqualFold(name, "X-Amzn-Trace-Id"),
			strings.EqualFold(name, "X-Forwarded-Port"), strings.EqualFold(name, "X-Forwarded-Proto"):
			continue
		case strings.EqualFold(name, "X-Forwarded-For"):
			forwarded = f.Value
			continue
		case strings.EqualFold(name, "Authorization"):
			f.Name = "Authorization"
		case strings.EqualFold(name, "User-Agent"):
			f.Name = "User-Agent"
		}
		h = append(h, f)
	}
	h = append(h, execute.Header{Name: "X-Amzn-Trace-Id", Value: inv.traceHeader()})
	switch {
	case forwarded == "":
		forwarded = req.SourceIP
	case req.SourceIP != "":
		forwarded += ", " + req.SourceIP
	}
	if forwarded != "" {
		h = append(h, execute.Header{Name: "X-Forwarded-For", Value: forwarded})
	}
	h = append(h, execute.Header{Name: "X-Forwarded-Port", Value: hostPort(req.Host)},
		execute.Header{Name: "X-Forwarded-Proto", Value: "http"})
	inv.eventHeaders = h
	return h
}

// hostPort is the port a Host header names, 80 when it names none.
func hostPort(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") && i+1 < len(host) {
		return host[i+1:]
	}
	return "80"
}

// seenBefore reports whether h[i]'s name occurs earlier in h.
func seenBefore(h execute.Headers, i int) bool {
	for _, f := range h[:i] {
		if strings.EqualFold(f.Name, h[i].Name) {
			return true
		}
	}
	return false
}

// appendHeaderViews appends "headers" (the last value of each name,
// spelled as first seen) and "multiValueHeaders" (every value).
func appendHeaderViews(dst []byte, h execute.Headers) []byte {
	if len(h) == 0 {
		return append(dst, `,"headers":null,"multiValueHeaders":null`...)
	}
	dst = append(dst, `,"headers":{`...)
	n := 0
	for i, f := range h {
		if seenBefore(h, i) {
			continue
		}
		last := f.Value
		for _, g := range h[i+1:] {
			if strings.EqualFold(g.Name, f.Name) {
				last = g.Value
			}
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = awswire.AppendString(dst, f.Name)
		dst = append(dst, ':')
		dst = awswire.AppendString(dst, last)
	}
	dst = append(dst, `},"multiValueHeaders":{`...)
	n = 0
	for i, f := range h {
		if seenBefore(h, i) {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = awswire.AppendString(dst, f.Name)
		dst = append(dst, ":["...)
		dst = awswire.AppendString(dst, f.Value)
		for _, g := range h[i+1:] {
			if strings.EqualFold(g.Name, f.Name) {
				dst = append(dst, ',')
				dst = awswire.AppendString(dst, g.Value)
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendQueryViews appends "queryStringParameters" (last values) and
// "multiValueQueryStringParameters" (every value), form-decoded.
func (inv *invocation) appendQueryViews(dst []byte) []byte {
	q := inv.queryParams()
	if len(q) == 0 {
		return append(dst, `,"queryStringParameters":null,"multiValueQueryStringParameters":null`...)
	}
	dst = append(dst, `,"queryStringParameters":{`...)
	for i, p := range q {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = awswire.AppendString(dst, p.Name)
		dst = append(dst, ':')
		dst = awswire.AppendString(dst, p.Last())
	}
	dst = append(dst, `},"multiValueQueryStringParameters":{`...)
	for i, p := range q {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = awswire.AppendString(dst, p.Name)
		dst = append(dst, ":["...)
		for j, v := range p.Values {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = awswire.AppendString(dst, v)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendStringMap appends m as a JSON object sorted by key, null when
// empty.
func (inv *invocation) appendStringMap(dst []byte, m map[string]string) []byte {
	if len(m) == 0 {
		return append(dst, "null"...)
	}
	keys := inv.keys[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	inv.keys = keys
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = awswire.AppendString(dst, k)
		dst = append(dst, ':')
		dst = awswire.AppendString(dst, m[k])
	}
	return append(dst, '}')
}

// appendNullable appends s as a JSON string, null when empty.
func appendNullable(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return awswire.AppendString(dst, s)
}

// appendRequestContext appends requestContext: $context as a function
// sees it, with the authorizer's principal and context when one ran and
// withAuthorizer.
func (inv *invocation) appendRequestContext(dst []byte, withAuthorizer bool) []byte {
	req := inv.req
	dst = append(dst, `{"accountId":`...)
	dst = awswire.AppendString(dst, inv.scope.Account)
	dst = append(dst, `,"apiId":`...)
	dst = awswire.AppendString(dst, req.APIID)
	if a := inv.auth; a != nil && withAuthorizer {
		dst = append(dst, `,"authorizer":`...)
		dst = a.appendEventAuthorizer(dst, inv.authLatency.Milliseconds())
	}
	dst = append(dst, `,"deploymentId":`...)
	dst = appendNullable(dst, inv.depID)
	host := execute.HostName(req.Host)
	prefix, _, _ := strings.Cut(host, ".")
	dst = append(dst, `,"domainName":`...)
	dst = awswire.AppendString(dst, host)
	dst = append(dst, `,"domainPrefix":`...)
	dst = awswire.AppendString(dst, prefix)
	dst = append(dst, `,"extendedRequestId":`...)
	dst = awswire.AppendString(dst, inv.extendedRequestID())
	dst = append(dst, `,"httpMethod":`...)
	dst = awswire.AppendString(dst, req.Method)
	dst = append(dst, `,"identity":{"accessKey":null,"accountId":null`...)
	if inv.apiKey != "" {
		dst = append(dst, `,"apiKey":`...)
		dst = awswire.AppendString(dst, inv.apiKey)
		dst = append(dst, `,"apiKeyId":`...)
		dst = awswire.AppendString(dst, inv.apiKeyID)
	}
	dst = append(dst, `,"caller":null,"cognitoAuthenticationProvider":null,"cognitoAuthenticationType":null,`+
		`"cognitoIdentityId":null,"cognitoIdentityPoolId":null,"principalOrgId":null,"sourceIp":`...)
	dst = appendNullable(dst, req.SourceIP)
	dst = append(dst, `,"user":null,"userAgent":`...)
	dst = appendNullable(dst, inv.userAgent())
	dst = append(dst, `,"userArn":null},"path":`...)
	dst = append(dst, '"', '/')
	dst = appendJSONText(dst, req.Stage)
	dst = appendJSONText(dst, req.Path)
	dst = append(dst, `","protocol":`...)
	dst = awswire.AppendString(dst, req.Protocol)
	dst = append(dst, `,"requestId":`...)
	dst = awswire.AppendString(dst, req.RequestID)
	dst = append(dst, `,"requestTime":"`...)
	dst = req.Received.UTC().AppendFormat(dst, requestTimeLayout)
	dst = append(dst, `","requestTimeEpoch":`...)
	dst = strconv.AppendInt(dst, req.Received.UnixMilli(), 10)
	dst = append(dst, `,"resourceId":`...)
	if inv.m != nil {
		dst = awswire.AppendString(dst, inv.m.resourceID)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"resourcePath":`...)
	dst = awswire.AppendString(dst, inv.eventResource())
	dst = append(dst, `,"stage":`...)
	dst = awswire.AppendString(dst, req.Stage)
	return append(dst, '}')
}

// appendEventBody appends body (null when empty) and isBase64Encoded: a
// body whose Content-Type is a binary media type goes base64-encoded;
// text that is not UTF-8 is read as API Gateway reads text (B-01).
func (inv *invocation) appendEventBody(dst []byte) []byte {
	body := inv.req.Body
	if len(body) == 0 {
		return append(dst, `,"body":null,"isBase64Encoded":false`...)
	}
	if ct, ok := inv.req.Headers.Get("Content-Type"); ok && isBinary(inv.dep.binary, mediaType(ct)) {
		dst = append(dst, `,"body":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, body)
		return append(dst, `","isBase64Encoded":true`...)
	}
	if !utf8.Valid(body) {
		body = validUTF8(body)
	}
	dst = append(dst, `,"body":`...)
	dst = awswire.AppendString(dst, unsafe.String(unsafe.SliceData(body), len(body)))
	return append(dst, `,"isBase64Encoded":false`...)
}
