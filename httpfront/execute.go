package httpfront

import (
	"bytes"
	"fmt"
	"net/netip"
	"runtime/debug"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/execute"
)

// Requests to deployed APIs arrive in four forms (docs/apigateway-execution.md §1); each
// names the API, the stage and the path after the stage:
//
//	http://{id}.execute-api.{anything}/{stage}/{path}
//	/restapis/{id}/{stage}/_user_request_/{path}
//	/_aws/execute-api/{id}/{stage}/{path}
//	/_cloud/execute-api/{id}/{stage}/{path}
//
// They are recognised before routing: a control-plane path never starts
// like them, and the host form must win over every route.

var (
	executeHost    = []byte(".execute-api.")
	prefixRestAPIs = []byte("/restapis/")
	userRequest    = []byte("_user_request_")
	prefixAWSExec  = []byte("/_aws/execute-api/")
	prefixCloud    = []byte("/_cloud/execute-api/")
)

// executeTarget is where an execute-api request goes.
type executeTarget struct {
	apiID, stage, path, region []byte
}

// classifyExecute recognises an execute-api request by its host or path.
func classifyExecute(host, path []byte) (executeTarget, bool) {
	if i := indexFold(host, executeHost); i > 0 {
		t := executeTarget{apiID: host[:i]}
		// {id}-vpce-{endpoint}: the private-endpoint form names the API
		// first.
		if j := bytes.Index(t.apiID, []byte("-vpce-")); j > 0 {
			t.apiID = t.apiID[:j]
		}
		rest := host[i+len(executeHost):]
		if j := bytes.IndexByte(rest, '.'); j > 0 {
			if _, ok := region(rest[:j]); ok {
				t.region = rest[:j]
			}
		}
		t.stage, t.path = splitStage(path)
		return t, true
	}
	var rest []byte
	switch {
	case bytes.HasPrefix(path, prefixRestAPIs):
		rest = path[len(prefixRestAPIs):]
		id, after, ok := cutSegment(rest)
		if !ok {
			return executeTarget{}, false
		}
		stage, after, ok := cutSegment(trimSlash(after))
		if !ok || len(stage) == 0 {
			return executeTarget{}, false
		}
		marker, tail, _ := cutSegment(trimSlash(after))
		if !bytes.Equal(marker, userRequest) {
			return executeTarget{}, false
		}
		return executeTarget{apiID: id, stage: stage, path: tail}, true
	case bytes.HasPrefix(path, prefixAWSExec):
		rest = path[len(prefixAWSExec):]
	case bytes.HasPrefix(path, prefixCloud):
		rest = path[len(prefixCloud):]
	default:
		return executeTarget{}, false
	}
	id, after, _ := cutSegment(rest)
	if len(id) == 0 {
		return executeTarget{}, false
	}
	t := executeTarget{apiID: id}
	t.stage, t.path = splitStage(after)
	return t, true
}

// cutSegment splits "a/b/c" into "a" and "/b/c" (the rest keeps its
// slash); ok is false when p is empty.
func cutSegment(p []byte) (seg, rest []byte, ok bool) {
	if len(p) == 0 {
		return nil, nil, false
	}
	if i := bytes.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:], true
	}
	return p, nil, true
}

// trimSlash drops one leading slash.
func trimSlash(p []byte) []byte {
	if len(p) > 0 && p[0] == '/' {
		return p[1:]
	}
	return p
}

// splitStage reads "/{stage}/{path}": slashes before the stage do not
// count; the path keeps its leading slash.
func splitStage(p []byte) (stage, path []byte) {
	for len(p) > 0 && p[0] == '/' {
		p = p[1:]
	}
	stage, path, _ = cutSegment(p)
	return stage, path
}

// indexFold is bytes.Index ignoring ASCII case of s.
func indexFold(s, sep []byte) int {
	n := len(sep)
	for i := 0; i+n <= len(s); i++ {
		if s[i] == sep[0] && bytes.EqualFold(s[i:i+n], sep) {
			return i
		}
	}
	return -1
}

// executeExchange is one request and response handed to the data plane,
// reused through a pool.
type executeExchange struct {
	req  execute.Request
	resp execute.Response
	id   [36]byte
	ip   [64]byte
}

var exchanges = sync.Pool{New: func() any { return new(executeExchange) }}

var (
	headerAuthorizationSigV4 = []byte("AWS4-HMAC-SHA256")
	querySignature           = []byte("X-Amz-Signature")
)

// serveExecute adapts an execute-api request to the data plane and writes
// what it answers.
func (s *Server) serveExecute(ctx *fasthttp.RequestCtx, t executeTarget) {
	x := exchanges.Get().(*executeExchange)
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic while executing a request", "requestId", x.req.RequestID,
				"path", string(truncate(ctx.Request.URI().PathOriginal(), 256)), "panic", fmt.Sprint(r),
				"stack", string(debug.Stack()))
			ctx.Response.Reset()
			ctx.Response.Header.DisableNormalizing()
			ctx.SetStatusCode(500)
			ctx.Response.Header.Set("Content-Type", "application/json")
			ctx.Response.Header.Set("x-amzn-ErrorType", "InternalServerErrorException")
			ctx.Response.Header.Set("x-amzn-RequestId", x.req.RequestID)
			ctx.SetBodyString(`{"message": "Internal server error"}`)
		}
		x.req = execute.Request{Headers: x.req.Headers[:0]}
		x.resp.Reset()
		if cap(x.resp.Body) > 1<<20 {
			x.resp.Body = nil
		}
		exchanges.Put(x)
	}()
	req := s.fillRequest(ctx, t, x)

	ended := s.resets.ended.Load()
	s.execute.Serve(req, &x.resp)
	if x.resp.Status >= 500 && s.resets.begun.Load() != ended {
		// A reset ran while it did (or was running as it began) and may
		// have taken away what it was using (the function it invoked, the
		// API it found): once the reset has ended, it gets what a request
		// after the reset gets, rather than a 5xx of a state that is gone.
		s.resets.waitEnded()
		x.resp.Reset()
		s.execute.Serve(s.fillRequest(ctx, t, x), &x.resp)
	}

	h := &ctx.Response.Header
	h.DisableNormalizing()
	ctx.SetStatusCode(x.resp.Status)
	for _, f := range x.resp.Headers {
		h.Add(f.Name, f.Value)
	}
	ctx.SetBody(x.resp.Body)
}

// fillRequest reads ctx into x's request, aliasing ctx's buffers.
func (s *Server) fillRequest(ctx *fasthttp.RequestCtx, t executeTarget, x *executeExchange) *execute.Request {
	req := &x.req
	req.APIID, req.Stage, req.Path = b2s(t.apiID), b2s(t.stage), b2s(t.path)
	req.Region = b2s(t.region)
	req.Method = b2s(ctx.Method())
	req.RawQuery = b2s(ctx.URI().QueryString())
	req.Headers = appendRequestHeaders(req.Headers[:0], &ctx.Request.Header)
	req.Body = ctx.Request.Body()
	req.Host = b2s(ctx.Host())
	if ip, ok := netip.AddrFromSlice(ctx.RemoteIP()); ok {
		req.SourceIP = b2s(ip.Unmap().AppendTo(x.ip[:0]))
	}
	req.Protocol = "HTTP/1.1"
	if !ctx.Request.Header.IsHTTP11() {
		req.Protocol = "HTTP/1.0"
	}
	req.RequestID = b2s(s.ids.Append(x.id[:0]))
	// fasthttp stamped the time it began serving the request.
	if req.Received = ctx.Time(); req.Received.IsZero() {
		req.Received = time.Now()
	}
	req.Signed = bytes.HasPrefix(ctx.Request.Header.PeekBytes(headerAuthorization), headerAuthorizationSigV4) ||
		len(ctx.QueryArgs().PeekBytes(querySignature)) > 0

	return req
}

// appendRequestHeaders lists the request's headers with their names as the
// client spelled them when fasthttp kept the raw block, else as fasthttp
// normalised them.
func appendRequestHeaders(dst execute.Headers, h *fasthttp.RequestHeader) execute.Headers {
	if raw := h.RawHeaders(); len(raw) > 0 {
		for len(raw) > 0 {
			line := raw
			if i := bytes.IndexByte(raw, '\n'); i >= 0 {
				line, raw = raw[:i], raw[i+1:]
			} else {
				raw = nil
			}
			line = bytes.TrimRight(line, "\r")
			k, v, ok := bytes.Cut(line, []byte(":"))
			if !ok || len(k) == 0 {
				continue
			}
			dst = append(dst, execute.Header{Name: b2s(k), Value: b2s(bytes.TrimSpace(v))})
		}
		return dst
	}
	for k, v := range h.All() {
		dst = append(dst, execute.Header{Name: b2s(k), Value: b2s(v)})
	}
	return dst
}
