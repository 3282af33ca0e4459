package httpapi

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"strings"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpevent"
)

// function calls a function integration (AWS_PROXY, payload format 1.0 or
// 2.0) and writes its answer: 500 Internal Server Error for a function
// that failed or answered something that is no response, 503 for one that
// did not answer within the integration's timeout.
func (inv *invocation) function(in *integration) {
	fns := inv.ex.o.Functions
	if fns == nil || in.function == "" {
		inv.ex.log.Info("function integration cannot be called", "requestId", inv.requestID, "uri", in.uri)
		inv.traceStep(execute.StepIntegration, "error", "no function runtime, or no function in the URI")
		inv.message(500, "Internal Server Error")
		return
	}
	fn := in.function
	if strings.Contains(fn, "${stageVariables.") {
		fn = execute.SubstituteStageVariables(fn, inv.stage.StageVariables)
	}
	ev := inv.event(in.version)
	if len(in.request) > 0 {
		inv.mapEvent(in, ev)
	}
	inv.payload = httpevent.AppendEvent(inv.payload[:0], ev)

	ctx, cancel := context.WithTimeout(inv.ctx, in.timeout)
	defer cancel()
	inv.integrationStart = inv.ex.o.Now()
	reply, err := fns.Invoke(ctx, inv.scope, fn, inv.payload, in.timeout)
	inv.integrationLatency = inv.ex.o.Now().Sub(inv.integrationStart)
	if inv.tr != nil {
		outcome, detail := "200", "AWS_PROXY lambda "+fn+" (payload "+in.version+")"
		switch {
		case err != nil && (errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil):
			outcome = "timeout"
		case err != nil:
			outcome, detail = "failed", detail+": "+err.Error()
		case reply.Error != "":
			detail += ": function error " + reply.Error
		}
		inv.traceIntegration(outcome, detail)
	}
	switch {
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil):
		inv.message(503, "Service Unavailable")
		return
	case err != nil:
		inv.ex.log.Info("function integration failed", "requestId", inv.requestID, "function", fn, "error", err)
		inv.message(500, "Internal Server Error")
		return
	}
	resp := inv.resp
	resp.Reset()
	if err := httpevent.ReadResponse(in.version, reply, resp); err != nil {
		if !errors.Is(err, httpevent.ErrFunction) {
			inv.ex.log.Info("function answer is not a response", "requestId", inv.requestID, "function", fn, "error", err)
		}
		inv.message(500, "Internal Server Error")
		return
	}
	if len(in.response) > 0 {
		// $response.* sources read the function's answer.
		inv.br.Status, inv.br.Headers, inv.br.Body = resp.Status, append(inv.br.Headers[:0], resp.Headers...), resp.Body
		inv.backendResp = &inv.br
		inv.mapResponse(in)
	}
	resp.Headers = append(resp.Headers, execute.Header{Name: "apigw-requestid", Value: inv.requestID})
}

// mapEvent applies the integration's requestParameters to the event, as
// they apply to what an HTTP backend is sent: its headers, query string
// and path.
func (inv *invocation) mapEvent(in *integration, ev *httpevent.Request) {
	for _, m := range in.request {
		v, found := inv.render(m.value)
		switch m.target {
		case "header":
			ev.Headers = applyHeader(ev.Headers, m, v, found)
		case "querystring":
			ev.RawQuery = editQuery(ev.RawQuery, m, v, found)
		case "path":
			if m.action == "overwrite" && found {
				if !strings.HasPrefix(v, "/") {
					v = "/" + v
				}
				ev.RawPath, ev.Path = v, v
			}
		}
	}
}

// event fills the request's event description for payload format
// version.
func (inv *invocation) event(version string) *httpevent.Request {
	req := inv.req
	ev := &inv.ev
	ev.Reset()
	ev.Version = version
	ev.RouteKey = inv.route.key
	ev.Method = req.Method
	ev.RawPath = decodePath(inv.rawPath)
	ev.Path = ev.RawPath
	if _, path, ok := strings.Cut(inv.route.key, " "); ok {
		ev.Resource = path
	}
	ev.RawQuery = req.RawQuery
	ev.Headers = httpevent.AddForwarded(ev.Headers, req.Headers, req.SourceIP, inv.port(), "http", inv.traceHeader())
	ev.Body = req.Body
	for i, name := range inv.route.vars {
		if i < len(inv.vals) {
			ev.PathParams = append(ev.PathParams, httpevent.Param{Name: name, Value: decodePath(inv.vals[i])})
		}
	}
	ev.StageVariables = inv.stageVariables(ev.StageVariables)
	ev.AccountID, ev.APIID, ev.Stage = inv.scope.Account, inv.api.API.APIID, inv.stage.StageName
	ev.DomainName = execute.HostName(req.Host)
	ev.RequestID = inv.requestID
	ev.SourceIP, ev.Protocol = req.SourceIP, req.Protocol
	ev.Received = req.Received
	if inv.auth.jwt != nil {
		ev.JWT = &inv.jwtEvent
		inv.jwtEvent.Claims = inv.jwtEvent.Claims[:0]
		for _, n := range inv.auth.jwt.ClaimNames {
			inv.jwtEvent.Claims = append(inv.jwtEvent.Claims, httpevent.Param{Name: n, Value: inv.auth.jwt.Claims[n]})
		}
		inv.jwtEvent.Scopes = inv.auth.jwt.Scopes
	}
	if inv.auth.lambda != nil {
		ev.Lambda = inv.auth.lambda
		ev.AuthorizerLatency = inv.auth.latency
	}
	return ev
}

// stageVariables lists the stage's variables in name order.
func (inv *invocation) stageVariables(dst []httpevent.Param) []httpevent.Param {
	vars := inv.stage.StageVariables
	if len(vars) == 0 {
		return dst
	}
	for k, v := range vars {
		dst = append(dst, httpevent.Param{Name: k, Value: v})
	}
	sort.Slice(dst, func(i, j int) bool { return dst[i].Name < dst[j].Name })
	return dst
}

// port is the port the request addressed (the Host header's), "80"
// without one.
func (inv *invocation) port() string {
	if p := execute.HostPort(inv.req.Host); p != "" {
		return p
	}
	return "80"
}

// decodePath percent-decodes a path as HTTP APIs hand it to functions; a
// malformed escape is kept as sent.
func decodePath(p string) string {
	if strings.IndexByte(p, '%') < 0 {
		return p
	}
	if d, err := url.PathUnescape(p); err == nil {
		return d
	}
	return p
}
