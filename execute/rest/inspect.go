package rest

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cloudemu/emulator/execute"
)

// The request inspector's side of the executor: a request the inspector
// samples gets a Trace (structured steps) and the execution log
// TestInvokeMethod writes, both added to the inspector when it ends. The
// request's strings alias the front's buffers, so everything kept is
// copied.

// beginTrace starts tracing the request.
func (inv *invocation) beginTrace() {
	req := inv.req
	at := req.Received
	if at.IsZero() {
		at = inv.ex.now()
	}
	inv.tr = execute.NewTrace(req, "REST", at, 10)
	inv.log = &testLog{max: execute.MaxTraceLog}
	inv.log.start(at, req.RequestID)
}

// traceStep records a step. Callers whose arguments cost an allocation
// check inv.tr first.
func (inv *invocation) traceStep(name, outcome, detail string) {
	inv.traceTimed(name, outcome, detail, 0)
}

func (inv *invocation) traceTimed(name, outcome, detail string, d time.Duration) {
	if inv.tr == nil {
		return
	}
	inv.tr.Steps = append(inv.tr.Steps, execute.TraceStep{Name: name, Outcome: outcome, Detail: execute.KeepText(detail), Duration: d})
}

// traceDecision records the gateway's admission decision.
func (inv *invocation) traceDecision(d string) {
	if inv.tr != nil {
		inv.tr.Decision = d
	}
}

// traceRoute records the route step and the method request, as
// TestInvokeMethod's log opens.
func (inv *invocation) traceRoute() {
	req := inv.req
	if inv.m == nil {
		inv.traceStep(execute.StepRoute, "no match", req.Method+" "+req.Path)
		inv.trace("Missing Authentication Token: no method matches " + req.Method + " " + req.Path)
		return
	}
	inv.traceStep(execute.StepRoute, "matched", inv.m.httpMethod+" "+inv.m.resourcePath)
	path := req.Path
	if path == "" {
		path = "/"
	}
	inv.trace("HTTP Method: " + req.Method + ", Resource Path: " + path)
	inv.trace("Method request path: " + javaParams(inv.match.Params))
	inv.trace("Method request query string: " + javaQuery(inv.queryParams()))
	inv.trace("Method request headers: " + javaHeaders(maskedHeaders(req.Headers)))
	inv.trace("Method request body before transformations: " + string(req.Body))
}

// maskedHeaders are the request's headers with the API key masked: the
// dashboard shows the log to whoever opens it (javaHeaders masks
// Authorization).
func maskedHeaders(h execute.Headers) execute.Headers {
	i := slices.IndexFunc(h, func(f execute.Header) bool { return strings.EqualFold(f.Name, "x-api-key") })
	if i < 0 {
		return h
	}
	out := slices.Clone(h)
	for i := range out {
		if strings.EqualFold(out[i].Name, "x-api-key") {
			out[i].Value = maskKey(out[i].Value)
		}
	}
	return out
}

// traceAuthorizer records the authorizer step of a CUSTOM method: e is
// what the authorizer (or its policy) decided, nil when it allowed.
func (inv *invocation) traceAuthorizer(a *authorizer, e *gatewayError) {
	if inv.tr == nil {
		return
	}
	detail := "authorizer " + a.id + " (" + a.kind + ")"
	if inv.auth != nil {
		detail += ", principal " + inv.auth.principalID
	}
	if inv.authCached {
		detail += ", from the cache"
	}
	outcome := "allowed"
	switch e {
	case nil:
	case errUnauthorized:
		outcome = "unauthorized"
		inv.tr.Decision = execute.DecisionUnauthorized
	case errExplicitDeny, errImplicitDeny:
		outcome = "denied"
		if e == errExplicitDeny {
			detail += ", explicit deny"
		}
		inv.tr.Decision = execute.DecisionForbidden
	default:
		outcome = "error"
		detail += ": " + e.errorType
	}
	inv.traceTimed(execute.StepAuthorizer, outcome, detail, inv.authLatency)
}

// maskKey shows an API key as the execution log does: its last four
// characters.
func maskKey(v string) string {
	if len(v) <= 4 {
		return strings.Repeat("*", len(v))
	}
	return strings.Repeat("*", len(v)-4) + v[len(v)-4:]
}

// traceKey records the API key step.
func (inv *invocation) traceKey(outcome, decision, detail string) {
	if inv.tr == nil {
		return
	}
	inv.tr.Decision = decision
	inv.traceStep(execute.StepAPIKey, outcome, detail)
}

// endTrace completes the trace with the response and adds it to the
// inspector.
func (inv *invocation) endTrace() {
	t := inv.tr
	if t == nil {
		return
	}
	resp := inv.resp
	if api := inv.api; api != nil {
		t.APIID, t.APIName = api.API.ID, api.API.Name
		t.Account, t.Region = inv.scope.Account, inv.scope.Region
	}
	if inv.m != nil {
		t.Route = inv.m.resourcePath
	}
	t.Status = resp.Status
	t.IntegrationLatency = inv.integrationLatency
	t.Latency = inv.ex.now().Sub(t.Received)
	detail := ""
	if e := inv.err; e != nil {
		t.ErrorType = e.errorType
		detail = "gateway response " + e.responseType
		if e.responseType == "" {
			detail = "gateway response"
		}
		detail += ": " + e.message
	} else if inv.api == nil {
		t.ErrorType, _ = resp.Headers.Get("x-amzn-ErrorType")
		t.ErrorType = strings.Clone(t.ErrorType)
	}
	inv.traceStep(execute.StepResponse, strconv.Itoa(resp.Status), detail)
	if len(resp.Headers) > 0 {
		t.ResponseHeaders = make([]execute.NameValue, len(resp.Headers))
		for i, h := range resp.Headers {
			t.ResponseHeaders[i] = execute.NameValue{Name: strings.Clone(h.Name), Value: execute.KeepText(h.Value)}
		}
	}
	inv.trace("Method completed with status: " + strconv.Itoa(resp.Status))
	t.Log = inv.log.text()
	inv.tr, inv.log = nil, nil
	inv.ex.inspector.Add(t)
}

// traceHTTP records an HTTP or HTTP_PROXY integration's call.
func (inv *invocation) traceHTTP(integ *integration, br *execute.BackendRequest, err error) {
	outcome := strconv.Itoa(inv.backendResp.Status)
	switch {
	case err == nil:
	case errors.Is(err, execute.ErrBackendTimeout):
		outcome = "timeout"
	case errors.Is(err, execute.ErrBackendUnreachable):
		outcome = "unreachable"
	case errors.Is(err, execute.ErrBackendMalformed):
		outcome = "malformed answer"
	default:
		outcome = "failed"
	}
	detail := integ.kind + " " + br.Method + " " + br.URL
	if err != nil {
		detail += ": " + err.Error()
	}
	inv.traceTimed(execute.StepIntegration, outcome, detail, inv.integrationLatency)
}

// traceFunction records a function integration's call.
func (inv *invocation) traceFunction(integ *integration, name string, reply FunctionReply, timedOut bool, err error) {
	outcome, detail := "200", integ.kind+" lambda "+name
	switch {
	case timedOut:
		outcome = "timeout"
	case err != nil:
		outcome, detail = "failed", detail+": "+err.Error()
	case reply.Error != "":
		detail += ": function error " + reply.Error + ": " + execute.FunctionErrorMessage(reply.Payload)
	}
	inv.traceTimed(execute.StepIntegration, outcome, detail, inv.integrationLatency)
}

// traceSelection records the integration response selected for the
// selection value (ir nil: none).
func (inv *invocation) traceSelection(ir *integrationResponse, selection string) {
	if ir == nil {
		inv.traceStep(execute.StepIntegrationResponse, "no match", "selection value "+strconv.Quote(selection)+
			": no pattern matches and there is no default response")
		return
	}
	detail := "status " + ir.statusCode + ", selection value " + strconv.Quote(selection)
	if p := ir.pattern.Source(); p != "" {
		detail += ", pattern " + strconv.Quote(p)
	} else {
		detail += ", the default response"
	}
	inv.traceStep(execute.StepIntegrationResponse, "selected", detail)
}

// traceResponseTemplate records the response template's output.
func (inv *invocation) traceResponseTemplate(t *template, out string, err error, d time.Duration) {
	switch {
	case err != nil:
		inv.traceTimed(execute.StepResponseTemplate, "failed", err.Error(), d)
	case t.static:
		inv.traceTimed(execute.StepResponseTemplate, "static", string(t.out), d)
	default:
		inv.traceTimed(execute.StepResponseTemplate, "rendered", out, d)
	}
}
