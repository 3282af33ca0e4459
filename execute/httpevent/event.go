package httpevent

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/jsonread"
)

// Param is one name and value: a path parameter, a stage variable, a JWT
// claim.
type Param struct{ Name, Value string }

// JWT is what a JWT authorizer admitted a request with.
type JWT struct {
	// Claims are the token's claims as the event carries them, each value
	// as text, in the order given.
	Claims []Param
	// Scopes are the token's scopes; nil is written as null (AWS does so
	// on a route without authorizationScopes).
	Scopes []string
}

// Request is what a function-proxy event is built from: one request to a
// route with an AWS_PROXY integration, as the HTTP API executor resolved
// it. The executor fills one per request (it may pool them: Reset empties
// one); nothing here is kept after the call that reads it, and strings and
// slices may alias the executor's buffers.
type Request struct {
	// Version is the integration's payloadFormatVersion: "1.0", else 2.0.
	Version string
	// RouteKey is the matched route's key: "GET /items/{id}" or "$default".
	RouteKey string
	// Method is the request's method.
	Method string
	// RawPath is the 2.0 event's rawPath and requestContext.http.path: the
	// request path with a named stage's prefix ("/dev/items"), never
	// "$default". AWS gives it percent-decoded (a sent /a%20b arrives as
	// "/a b"; hotsock/voker vokerhttp/testdata/ingress-paths.json, captured
	// live): the executor decodes it.
	RawPath string
	// Path is the 1.0 event's path and requestContext.path: the path as
	// RawPath, but as the client addressed it through an API mapping
	// (docs: "Use format 1.0 and path to access the API mapping").
	Path string
	// Resource is the 1.0 event's resource and requestContext.resourcePath:
	// the route's path ("/items/{id}"); "" writes Path (the $default route).
	Resource string
	// RawQuery is the query string as sent, without the "?".
	RawQuery string
	// Headers are the request's headers as the function is to see them,
	// names as sent (the events lowercase them), in order. The executor
	// adds the ones the gateway adds (see AddForwarded).
	Headers execute.Headers
	// Body is the request body.
	Body []byte
	// PathParams are the route's path parameters, as the executor matched
	// them.
	PathParams []Param
	// StageVariables are the stage's variables, in the order to write them
	// (sorted, say, once per deployment).
	StageVariables []Param
	AccountID      string
	APIID          string
	// Stage is the stage's name, "$default" included.
	Stage string
	// DomainName is the host the request addressed; DomainPrefix its
	// first label ("" derives it from DomainName).
	DomainName, DomainPrefix string
	// RequestID is the request's id (apigw-requestid); ExtendedRequestID
	// the 1.0 event's extendedRequestId ("" writes RequestID).
	RequestID, ExtendedRequestID string
	// SourceIP is the client's address; Protocol the request's ("HTTP/1.1").
	SourceIP, Protocol string
	// Received is when the request arrived.
	Received time.Time
	// JWT is set when a JWT authorizer admitted the request.
	JWT *JWT
	// Lambda is set when a Lambda authorizer admitted the request: its
	// answer (the context goes to requestContext.authorizer), and
	// AuthorizerLatency how long its call took (1.0's integrationLatency).
	Lambda            *AuthorizerAnswer
	AuthorizerLatency time.Duration
}

// Reset empties r for reuse, keeping its slices' room.
func (r *Request) Reset() {
	*r = Request{Headers: r.Headers[:0], PathParams: r.PathParams[:0], StageVariables: r.StageVariables[:0]}
}

// timeLayout is requestContext.time's and requestTime's format (CLF).
const timeLayout = "02/Jan/2006:15:04:05 -0700"

// AppendEvent appends the event a function-proxy integration sends for r
// (payload format r.Version) to dst, and returns it. Members are written
// in the order of AWS's documented events; 2.0 leaves out what is empty
// (cookies, queryStringParameters, pathParameters, stageVariables, body;
// recorded: aws-lambda-go events/testdata/apigw-v2-request-no-authorizer.json),
// 1.0 writes null instead.
func AppendEvent(dst []byte, r *Request) []byte {
	if r.Version == "1.0" {
		return appendEventV1(dst, r)
	}
	return appendEventV2(dst, r)
}

// appendEventV2 writes payload format 2.0 (docs:
// http-api-develop-integrations-lambda, "2.0").
func appendEventV2(dst []byte, r *Request) []byte {
	dst = append(dst, `{"version":"2.0","routeKey":`...)
	dst = appendStartV2(dst, r)
	dst = append(dst, `,"requestContext":`...)
	dst = appendContextV2(dst, r, true)
	b64 := r.bodyIsBase64()
	dst = appendBody(dst, r, b64, false)
	if len(r.PathParams) > 0 {
		dst = append(dst, `,"pathParameters":`...)
		dst = appendParams(dst, r.PathParams)
	}
	dst = appendBase64Flag(dst, b64)
	if len(r.StageVariables) > 0 {
		dst = append(dst, `,"stageVariables":`...)
		dst = appendParams(dst, r.StageVariables)
	}
	return append(dst, '}')
}

// appendStartV2 writes the 2.0 members from routeKey's value to
// queryStringParameters, which the authorizer event shares.
func appendStartV2(dst []byte, r *Request) []byte {
	dst = awswire.AppendString(dst, r.RouteKey)
	dst = append(dst, `,"rawPath":`...)
	dst = awswire.AppendString(dst, r.RawPath)
	dst = append(dst, `,"rawQueryString":`...)
	dst = awswire.AppendString(dst, r.RawQuery)
	dst = appendCookies(dst, r.Headers)
	dst = append(dst, `,"headers":`...)
	dst = appendJoinedHeaders(dst, r.Headers)
	if _, _, _, ok := nextPair(r.RawQuery); ok {
		dst = append(dst, `,"queryStringParameters":`...)
		dst = appendJoinedQuery(dst, r.RawQuery)
	}
	return dst
}

// isCookie reports a Cookie header: 2.0 moves them to "cookies".
func isCookie(name string) bool { return len(name) == 6 && strings.EqualFold(name, "Cookie") }

// appendCookies writes "cookies": every Cookie header's cookies, split on
// ";" (recorded: "Cookie: session=abc123; theme=dark" →
// ["session=abc123","theme=dark"], hotsock/voker apigwv2-request.json);
// nothing when there are none.
func appendCookies(dst []byte, h execute.Headers) []byte {
	n := 0
	for _, f := range h {
		if !isCookie(f.Name) {
			continue
		}
		v := f.Value
		for v != "" {
			c := v
			if i := strings.IndexByte(v, ';'); i >= 0 {
				c, v = v[:i], v[i+1:]
			} else {
				v = ""
			}
			c = strings.Trim(c, " \t")
			if c == "" {
				continue
			}
			if n == 0 {
				dst = append(dst, `,"cookies":[`...)
			} else {
				dst = append(dst, ',')
			}
			n++
			dst = awswire.AppendString(dst, c)
		}
	}
	if n > 0 {
		dst = append(dst, ']')
	}
	return dst
}

// appendJoinedHeaders writes 2.0's headers: names lowercased, a repeated
// name's values joined with "," (recorded: x-voker-probe "first,second"),
// Cookie headers left out (they are "cookies").
func appendJoinedHeaders(dst []byte, h execute.Headers) []byte {
	var lead [shortList]bool
	var next [shortList]int32
	g := linkHeaders(h, lead[:], next[:])
	dst = append(dst, '{')
	n := 0
	for i, f := range h {
		if !g.lead[i] || isCookie(f.Name) {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = awswire.AppendLowerString(dst, f.Name)
		dst = append(dst, ':', '"')
		dst = awswire.AppendStringContent(dst, f.Value)
		for j := g.next[i]; j >= 0; j = g.next[j] {
			dst = append(dst, ',')
			dst = awswire.AppendStringContent(dst, h[j].Value)
		}
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

// appendJoinedQuery writes 2.0's queryStringParameters: names and values
// form-decoded, a repeated name's values joined with "," (recorded:
// repeat=one&repeat=two → "one,two").
func appendJoinedQuery(dst []byte, raw string) []byte {
	var room [shortList]pair
	ps := splitQuery(room[:0], raw)
	var lead [shortList]bool
	var next [shortList]int32
	g := linkQuery(ps, lead[:], next[:])
	dst = append(dst, '{')
	n := 0
	for i, p := range ps {
		if !g.lead[i] {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, '"')
		dst = appendDecoded(dst, p.name)
		dst = append(dst, `":"`...)
		dst = appendDecoded(dst, p.value)
		for j := g.next[i]; j >= 0; j = g.next[j] {
			dst = append(dst, ',')
			dst = appendDecoded(dst, ps[j].value)
		}
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

// appendParams writes ps as a JSON object.
func appendParams(dst []byte, ps []Param) []byte {
	dst = append(dst, '{')
	for i, p := range ps {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = awswire.AppendString(dst, p.Name)
		dst = append(dst, ':')
		dst = awswire.AppendString(dst, p.Value)
	}
	return append(dst, '}')
}

// domainPrefix is the request's domainPrefix.
func (r *Request) domainPrefix() string {
	if r.DomainPrefix != "" {
		return r.DomainPrefix
	}
	prefix, _, _ := strings.Cut(r.DomainName, ".")
	return prefix
}

func (r *Request) userAgent() string {
	ua, _ := r.Headers.Get("User-Agent")
	return ua
}

// appendContextV2 writes 2.0's requestContext, with the authorizer's
// section when one admitted the request and withAuthorizer.
func appendContextV2(dst []byte, r *Request, withAuthorizer bool) []byte {
	dst = append(dst, `{"accountId":`...)
	dst = awswire.AppendString(dst, r.AccountID)
	dst = append(dst, `,"apiId":`...)
	dst = awswire.AppendString(dst, r.APIID)
	if withAuthorizer {
		switch {
		case r.JWT != nil:
			dst = append(dst, `,"authorizer":{"jwt":`...)
			dst = appendJWT(dst, r.JWT)
			dst = append(dst, '}')
		case r.Lambda != nil:
			// docs: http-api-develop-integrations-lambda, "authorizer":
			// {"lambda": {...the authorizer's context...}}.
			dst = append(dst, `,"authorizer":{"lambda":`...)
			if ctx, ok := r.Lambda.context(); ok {
				dst = append(dst, ctx...)
			} else {
				dst = append(dst, '{', '}')
			}
			dst = append(dst, '}')
		}
	}
	dst = append(dst, `,"domainName":`...)
	dst = awswire.AppendString(dst, r.DomainName)
	dst = append(dst, `,"domainPrefix":`...)
	dst = awswire.AppendString(dst, r.domainPrefix())
	dst = append(dst, `,"http":{"method":`...)
	dst = awswire.AppendString(dst, r.Method)
	dst = append(dst, `,"path":`...)
	dst = awswire.AppendString(dst, r.RawPath)
	dst = append(dst, `,"protocol":`...)
	dst = awswire.AppendString(dst, r.Protocol)
	dst = append(dst, `,"sourceIp":`...)
	dst = awswire.AppendString(dst, r.SourceIP)
	dst = append(dst, `,"userAgent":`...)
	dst = awswire.AppendString(dst, r.userAgent())
	dst = append(dst, `},"requestId":`...)
	dst = awswire.AppendString(dst, r.RequestID)
	dst = append(dst, `,"routeKey":`...)
	dst = awswire.AppendString(dst, r.RouteKey)
	dst = append(dst, `,"stage":`...)
	dst = awswire.AppendString(dst, r.Stage)
	dst = append(dst, `,"time":"`...)
	dst = r.Received.UTC().AppendFormat(dst, timeLayout)
	dst = append(dst, `","timeEpoch":`...)
	dst = strconv.AppendInt(dst, r.Received.UnixMilli(), 10)
	return append(dst, '}')
}

// appendJWT writes {"claims":{...},"scopes":[...]|null}.
func appendJWT(dst []byte, j *JWT) []byte {
	dst = append(dst, `{"claims":`...)
	dst = appendParams(dst, j.Claims)
	dst = append(dst, `,"scopes":`...)
	if j.Scopes == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, s := range j.Scopes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = awswire.AppendString(dst, s)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// isText reports whether an HTTP API passes a body of this Content-Type to
// a function as text: text/*, application/json, application/xml and
// application/javascript, parameters aside. Every other type, and none,
// is base64-encoded, application/x-www-form-urlencoded included (checked
// against AWS: ministackorg/ministack#766; recorded:
// application/octet-stream → base64, floci-io/floci#2172).
func isText(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.TrimSpace(mt)
	if len(mt) > 5 && strings.EqualFold(mt[:5], "text/") {
		return true
	}
	return strings.EqualFold(mt, "application/json") || strings.EqualFold(mt, "application/xml") ||
		strings.EqualFold(mt, "application/javascript")
}

// bodyIsBase64 reports whether the event carries r's body base64-encoded.
func (r *Request) bodyIsBase64() bool {
	if len(r.Body) == 0 {
		return false
	}
	ct, _ := r.Headers.Get("Content-Type")
	return !isText(ct)
}

// appendBody writes "body": the body as text, or base64-encoded (b64);
// when empty, null (withNull, 1.0) or nothing (2.0).
func appendBody(dst []byte, r *Request, b64, withNull bool) []byte {
	switch {
	case len(r.Body) == 0:
		if withNull {
			dst = append(dst, `,"body":null`...)
		}
		return dst
	case b64:
		dst = append(dst, `,"body":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, r.Body)
		return append(dst, '"')
	}
	dst = append(dst, `,"body":`...)
	// The body is only read here: the string does not outlive the call.
	return awswire.AppendString(dst, unsafe.String(unsafe.SliceData(r.Body), len(r.Body)))
}

func appendBase64Flag(dst []byte, b64 bool) []byte {
	if b64 {
		return append(dst, `,"isBase64Encoded":true`...)
	}
	return append(dst, `,"isBase64Encoded":false`...)
}

// appendEventV1 writes payload format 1.0 as HTTP APIs send it (docs:
// http-api-develop-integrations-lambda, "1.0"): REST's event plus
// "version", header names lowercased as in 2.0, requestContext.authorizer
// always present.
func appendEventV1(dst []byte, r *Request) []byte {
	dst = append(dst, `{"version":"1.0"`...)
	dst = appendStartV1(dst, r)
	dst = append(dst, `,"requestContext":`...)
	dst = appendContextV1(dst, r, true)
	dst = append(dst, `,"pathParameters":`...)
	dst = appendParamsOrNull(dst, r.PathParams)
	dst = append(dst, `,"stageVariables":`...)
	dst = appendParamsOrNull(dst, r.StageVariables)
	b64 := r.bodyIsBase64()
	dst = appendBody(dst, r, b64, true)
	dst = appendBase64Flag(dst, b64)
	return append(dst, '}')
}

// appendStartV1 writes the 1.0 members from resource to
// multiValueQueryStringParameters, which the authorizer event shares.
func appendStartV1(dst []byte, r *Request) []byte {
	dst = append(dst, `,"resource":`...)
	dst = awswire.AppendString(dst, r.resource())
	dst = append(dst, `,"path":`...)
	dst = awswire.AppendString(dst, r.Path)
	dst = append(dst, `,"httpMethod":`...)
	dst = awswire.AppendString(dst, r.Method)
	dst = appendHeaderViews(dst, r.Headers)
	return appendQueryViews(dst, r.RawQuery)
}

func (r *Request) resource() string {
	if r.Resource != "" {
		return r.Resource
	}
	return r.Path
}

func appendParamsOrNull(dst []byte, ps []Param) []byte {
	if len(ps) == 0 {
		return append(dst, "null"...)
	}
	return appendParams(dst, ps)
}

// appendHeaderViews writes 1.0's "headers" (each name's last value, as the
// docs' 1.0 example has Header2 "value2" of ["value1","value2"]) and
// "multiValueHeaders" (every value), names lowercased; null when none.
func appendHeaderViews(dst []byte, h execute.Headers) []byte {
	if len(h) == 0 {
		return append(dst, `,"headers":null,"multiValueHeaders":null`...)
	}
	var lead [shortList]bool
	var next [shortList]int32
	g := linkHeaders(h, lead[:], next[:])
	dst = append(dst, `,"headers":{`...)
	n := 0
	for i, f := range h {
		if !g.lead[i] {
			continue
		}
		last := i
		for j := g.next[i]; j >= 0; j = g.next[j] {
			last = int(j)
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = awswire.AppendLowerString(dst, f.Name)
		dst = append(dst, ':')
		dst = awswire.AppendString(dst, h[last].Value)
	}
	dst = append(dst, `},"multiValueHeaders":{`...)
	n = 0
	for i, f := range h {
		if !g.lead[i] {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = awswire.AppendLowerString(dst, f.Name)
		dst = append(dst, ":["...)
		dst = awswire.AppendString(dst, f.Value)
		for j := g.next[i]; j >= 0; j = g.next[j] {
			dst = append(dst, ',')
			dst = awswire.AppendString(dst, h[j].Value)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendQueryViews writes 1.0's "queryStringParameters" (each name's first
// value, as the docs' 1.0 example has parameter1 "value1" of
// ["value1","value2"]; REST APIs keep the last) and
// "multiValueQueryStringParameters"; null when none.
func appendQueryViews(dst []byte, raw string) []byte {
	var room [shortList]pair
	ps := splitQuery(room[:0], raw)
	if len(ps) == 0 {
		return append(dst, `,"queryStringParameters":null,"multiValueQueryStringParameters":null`...)
	}
	var lead [shortList]bool
	var next [shortList]int32
	g := linkQuery(ps, lead[:], next[:])
	dst = append(dst, `,"queryStringParameters":{`...)
	n := 0
	for i, p := range ps {
		if !g.lead[i] {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, '"')
		dst = appendDecoded(dst, p.name)
		dst = append(dst, `":"`...)
		dst = appendDecoded(dst, p.value)
		dst = append(dst, '"')
	}
	dst = append(dst, `},"multiValueQueryStringParameters":{`...)
	n = 0
	for i, p := range ps {
		if !g.lead[i] {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, '"')
		dst = appendDecoded(dst, p.name)
		dst = append(dst, `":["`...)
		dst = appendDecoded(dst, p.value)
		for j := g.next[i]; j >= 0; j = g.next[j] {
			dst = append(dst, `","`...)
			dst = appendDecoded(dst, ps[j].value)
		}
		dst = append(dst, `"]`...)
	}
	return append(dst, '}')
}

// appendContextV1 writes 1.0's requestContext (docs' 1.0 example):
// REST's, with authorizer always present, resourceId the route key (null
// for $default) and the id as extendedRequestId too.
func appendContextV1(dst []byte, r *Request, withAuthorizer bool) []byte {
	dst = append(dst, `{"accountId":`...)
	dst = awswire.AppendString(dst, r.AccountID)
	dst = append(dst, `,"apiId":`...)
	dst = awswire.AppendString(dst, r.APIID)
	if withAuthorizer {
		dst = append(dst, `,"authorizer":`...)
		dst = appendAuthorizerV1(dst, r)
	}
	dst = append(dst, `,"domainName":`...)
	dst = awswire.AppendString(dst, r.DomainName)
	dst = append(dst, `,"domainPrefix":`...)
	dst = awswire.AppendString(dst, r.domainPrefix())
	dst = append(dst, `,"extendedRequestId":`...)
	if r.ExtendedRequestID != "" {
		dst = awswire.AppendString(dst, r.ExtendedRequestID)
	} else {
		dst = awswire.AppendString(dst, r.RequestID)
	}
	dst = append(dst, `,"httpMethod":`...)
	dst = awswire.AppendString(dst, r.Method)
	dst = append(dst, `,"identity":{"accessKey":null,"accountId":null,"caller":null,`+
		`"cognitoAuthenticationProvider":null,"cognitoAuthenticationType":null,"cognitoIdentityId":null,`+
		`"cognitoIdentityPoolId":null,"principalOrgId":null,"sourceIp":`...)
	dst = awswire.AppendString(dst, r.SourceIP)
	dst = append(dst, `,"user":null,"userAgent":`...)
	dst = awswire.AppendString(dst, r.userAgent())
	dst = append(dst, `,"userArn":null},"path":`...)
	dst = awswire.AppendString(dst, r.Path)
	dst = append(dst, `,"protocol":`...)
	dst = awswire.AppendString(dst, r.Protocol)
	dst = append(dst, `,"requestId":`...)
	dst = awswire.AppendString(dst, r.RequestID)
	dst = append(dst, `,"requestTime":"`...)
	dst = r.Received.UTC().AppendFormat(dst, timeLayout)
	dst = append(dst, `","requestTimeEpoch":`...)
	dst = strconv.AppendInt(dst, r.Received.UnixMilli(), 10)
	dst = append(dst, `,"resourceId":`...)
	if r.RouteKey == "" || r.RouteKey == "$default" {
		dst = append(dst, "null"...)
	} else {
		dst = awswire.AppendString(dst, r.RouteKey)
	}
	dst = append(dst, `,"resourcePath":`...)
	dst = awswire.AppendString(dst, r.resource())
	dst = append(dst, `,"stage":`...)
	dst = awswire.AppendString(dst, r.Stage)
	return append(dst, '}')
}

// appendAuthorizerV1 writes 1.0's requestContext.authorizer: the JWT's
// claims and scopes ({"claims":null,"scopes":null} when no authorizer ran,
// docs' 1.0 example; claims unnested, awsdocs/amazon-api-gateway-developer-guide#113),
// or a Lambda authorizer's principal, call latency and context, as REST
// APIs carry them.
func appendAuthorizerV1(dst []byte, r *Request) []byte {
	switch {
	case r.JWT != nil:
		return appendJWT(dst, r.JWT)
	case r.Lambda != nil:
		dst = append(dst, '{')
		if r.Lambda.PrincipalID != "" {
			dst = append(dst, `"principalId":`...)
			dst = awswire.AppendString(dst, r.Lambda.PrincipalID)
			dst = append(dst, ',')
		}
		dst = append(dst, `"integrationLatency":`...)
		dst = strconv.AppendInt(dst, r.AuthorizerLatency.Milliseconds(), 10)
		if ctx, ok := r.Lambda.context(); ok {
			it := jsonread.NewIter(ctx)
			for {
				k, v, ok := it.Next()
				if !ok {
					break
				}
				if jsonread.KeyIs(k, "principalId") || jsonread.KeyIs(k, "integrationLatency") {
					continue
				}
				dst = append(dst, ',')
				dst = append(dst, k...)
				dst = append(dst, ':')
				dst = append(dst, v...)
			}
		}
		return append(dst, '}')
	}
	return append(dst, `{"claims":null,"scopes":null}`...)
}
