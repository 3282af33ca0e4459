package httpapi

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/execute"
)

// integrate calls the route's integration and writes its answer.
func (inv *invocation) integrate() {
	in := inv.route.integration
	if in == nil {
		inv.ex.log.Info("route has no integration", "requestId", inv.requestID, "route", inv.route.key)
		inv.traceStep(execute.StepIntegration, "error", "the route has no integration")
		inv.message(500, "Internal Server Error")
		return
	}
	switch in.kind {
	case "HTTP_PROXY":
		inv.httpProxy(in)
	case "AWS_PROXY":
		inv.function(in)
	default:
		// AWS service integrations (integrationSubtype) and private
		// integrations are not run (README, "What is not emulated").
		inv.ex.log.Info("integration type not run", "requestId", inv.requestID, "type", in.kind)
		if inv.tr != nil {
			inv.traceStep(execute.StepIntegration, "error", in.kind+" integrations are not emulated")
		}
		inv.message(500, "Internal Server Error")
	}
}

// httpProxy sends the request on to an HTTP backend (HTTP_PROXY) with the
// integration's request mappings, and passes its answer back with the
// response mappings of its status.
func (inv *invocation) httpProxy(in *integration) {
	req := inv.req
	bq := &inv.backendReq
	bq.Method = in.method
	if bq.Method == "" || bq.Method == "ANY" {
		bq.Method = req.Method
	}
	bq.Body = req.Body
	bq.Timeout = in.timeout
	for _, h := range req.Headers {
		if execute.IsHopHeader(h.Name) || strings.EqualFold(h.Name, "Host") || strings.EqualFold(h.Name, "X-Amzn-Trace-Id") ||
			strings.EqualFold(h.Name, "Forwarded") {
			continue
		}
		bq.Headers = append(bq.Headers, h)
	}
	bq.Headers = append(bq.Headers,
		execute.Header{Name: "Forwarded", Value: "by=" + req.Host + ";for=" + req.SourceIP + ";host=" + req.Host + ";proto=http"},
		execute.Header{Name: "X-Amzn-Trace-Id", Value: inv.traceHeader()})

	target, ok := inv.targetURL(in)
	if !ok {
		inv.ex.log.Info("integration URI is not an http(s) URL", "requestId", inv.requestID, "uri", in.uri)
		if inv.tr != nil {
			inv.traceStep(execute.StepIntegration, "invalid endpoint", "HTTP_PROXY "+target)
		}
		inv.message(500, "Internal Server Error")
		return
	}
	if len(in.request) > 0 {
		target = inv.mapRequest(in, target)
	}
	bq.URL = target

	inv.integrationStart = inv.ex.o.Now()
	err := inv.ex.o.Backend.Do(bq, &inv.br)
	inv.integrationLatency = inv.ex.o.Now().Sub(inv.integrationStart)
	if inv.tr != nil {
		outcome, detail := strconv.Itoa(inv.br.Status), "HTTP_PROXY "+bq.Method+" "+bq.URL
		if err != nil {
			outcome, detail = "failed", detail+": "+err.Error()
			if errors.Is(err, execute.ErrBackendTimeout) {
				outcome = "timeout"
			}
		}
		inv.traceIntegration(outcome, detail)
	}
	switch {
	case err == nil:
	case errors.Is(err, execute.ErrBackendTimeout):
		inv.message(503, "Service Unavailable")
		return
	default:
		inv.ex.log.Info("integration request failed", "requestId", inv.requestID, "url", bq.URL, "error", err)
		inv.message(500, "Internal Server Error")
		return
	}
	inv.backendResp = &inv.br
	resp := inv.resp
	resp.Reset()
	resp.Status = inv.br.Status
	for _, h := range inv.br.Headers {
		if isHopByHop(h.Name) || strings.EqualFold(h.Name, "Content-Length") {
			continue
		}
		resp.Headers = append(resp.Headers, h)
	}
	inv.mapResponse(in)
	resp.Headers = append(resp.Headers, execute.Header{Name: "apigw-requestid", Value: inv.requestID})
	resp.Body = append(resp.Body, inv.br.Body...)
}

// isHopByHop reports a response header that belongs to one connection
// (RFC 9110 §7.6.1), which a proxy does not pass on.
func isHopByHop(name string) bool {
	for _, h := range [...]string{"Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade", "TE", "Trailer"} {
		if strings.EqualFold(name, h) {
			return true
		}
	}
	return false
}

// mapResponse applies the integration's responseParameters for the
// backend's status.
func (inv *invocation) mapResponse(in *integration) {
	ms := in.response[inv.resp.Status]
	resp := inv.resp
	for _, m := range ms {
		v, found := inv.render(m.value)
		switch m.target {
		case "statuscode":
			if code, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && found && code >= 100 && code <= 599 {
				resp.Status = code
			}
		case "header":
			resp.Headers = applyHeader(resp.Headers, m, v, found)
		}
	}
}

// targetURL is the integration URI with stage variables and path
// variables ({name}, a greedy one {proxy}) filled in and the request's
// query string; a $default route adds the request's path to it.
func (inv *invocation) targetURL(in *integration) (string, bool) {
	uri := in.uri
	if strings.Contains(uri, "${stageVariables.") {
		uri = execute.SubstituteStageVariables(uri, inv.stage.StageVariables)
	}
	if strings.IndexByte(uri, '{') >= 0 {
		uri = inv.fillPathVariables(uri)
	}
	if !in.validURI || uri != in.uri {
		if !execute.ValidEndpoint(uri) {
			return "", false
		}
	}
	switch {
	case inv.route.method == "" && inv.path != "/": // $default: the whole path goes on
		uri = joinPath(uri, inv.path)
	case !hasPath(uri):
		uri = joinPath(uri, "/")
	}
	if q := inv.req.RawQuery; q != "" {
		if strings.IndexByte(uri, '?') >= 0 {
			uri += "&" + q
		} else {
			uri += "?" + q
		}
	}
	return uri, true
}

// joinPath puts path (starting with "/") after the path of uri, before its
// query.
func joinPath(uri, path string) string {
	query := ""
	if i := strings.IndexByte(uri, '?'); i >= 0 {
		uri, query = uri[:i], uri[i:]
	}
	if !hasPath(uri) {
		return uri + path + query
	}
	return strings.TrimSuffix(uri, "/") + path + query
}

// hasPath reports whether an absolute URL has a path: the host of
// "http://host" or "http://host?q" ends at no slash.
func hasPath(uri string) bool {
	rest := uri[strings.Index(uri, "//")+2:]
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.IndexByte(rest, '/') >= 0
}

// mapRequest applies the integration's requestParameters to the backend
// request: headers and query parameters appended, overwritten or removed
// (the others left as the client sent them), the path overwritten.
func (inv *invocation) mapRequest(in *integration, target string) string {
	bq := &inv.backendReq
	base, query, _ := strings.Cut(target, "?")
	for _, m := range in.request {
		v, found := inv.render(m.value)
		switch m.target {
		case "header":
			bq.Headers = applyHeader(bq.Headers, m, v, found)
		case "querystring":
			query = editQuery(query, m, v, found)
		case "path":
			if m.action == "overwrite" && found {
				if !strings.HasPrefix(v, "/") {
					v = "/" + v
				}
				base = origin(base) + (&url.URL{Path: v}).EscapedPath()
			}
		}
	}
	if query == "" {
		return base
	}
	return base + "?" + query
}

// origin is "scheme://host[:port]" of an absolute URL without query.
func origin(u string) string {
	rest := u[strings.Index(u, "//")+2:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return u[:len(u)-len(rest)+i]
	}
	return u
}

// editQuery applies one querystring mapping to a raw query: the
// parameters of other names stay as they were sent.
func editQuery(raw string, m mapping, v string, found bool) string {
	if m.action != "remove" && !found {
		return raw
	}
	if m.action == "remove" || m.action == "overwrite" {
		var kept []string
		for _, pair := range strings.Split(raw, "&") {
			name, _, _ := strings.Cut(pair, "=")
			if n, err := url.QueryUnescape(name); pair == "" || (err == nil && n == m.name) || name == m.name {
				continue
			}
			kept = append(kept, pair)
		}
		raw = strings.Join(kept, "&")
	}
	if m.action == "remove" {
		return raw
	}
	pair := url.QueryEscape(m.name) + "=" + url.QueryEscape(v)
	if raw == "" {
		return pair
	}
	return raw + "&" + pair
}

// applyHeader applies one header mapping.
func applyHeader(h execute.Headers, m mapping, v string, found bool) execute.Headers {
	switch {
	case m.action == "remove":
		return h.Del(m.name)
	case !found:
		return h
	case m.action == "overwrite":
		return h.Set(m.name, v)
	case m.action == "append":
		if cur, ok := h.Get(m.name); ok {
			return h.Set(m.name, cur+","+v)
		}
		return append(h, execute.Header{Name: m.name, Value: v})
	}
	return h
}

// fillPathVariables replaces {name} (and {name+}) in a URI with the
// request's path variables.
func (inv *invocation) fillPathVariables(uri string) string {
	return execute.FillPlaceholders(uri, func(name string) (string, bool) {
		for k, n := range inv.route.vars {
			if n == name && k < len(inv.vals) {
				return inv.vals[k], true
			}
		}
		return "", false
	})
}

func (inv *invocation) queryParams() []execute.QueryParam {
	if !inv.queryDone {
		inv.queryDone = true
		inv.query = execute.ParseQuery(inv.req.RawQuery)
	}
	return inv.query
}

// traceHeader is the X-Amzn-Trace-Id the integration gets, made once.
func (inv *invocation) traceHeader() string {
	if inv.traceID == "" {
		client, _ := inv.req.Headers.Get("X-Amzn-Trace-Id")
		inv.traceID = execute.TraceHeader(client, inv.req.Received)
	}
	return inv.traceID
}
