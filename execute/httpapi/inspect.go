package httpapi

import (
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/execute"
)

// The request inspector's side of the executor: a request the inspector
// samples gets a Trace of its steps (no execution log: HTTP APIs have
// none), added when it ends. The request's strings alias the front's
// buffers, so everything kept is copied.

func (inv *invocation) beginTrace() {
	req := inv.req
	at := req.Received
	if at.IsZero() {
		at = inv.ex.o.Now()
	}
	inv.tr = execute.NewTrace(req, "HTTP", at, 6)
}

// traceStep records a step; callers whose arguments allocate check inv.tr
// first.
func (inv *invocation) traceStep(name, outcome, detail string) {
	if inv.tr == nil {
		return
	}
	inv.tr.Steps = append(inv.tr.Steps, execute.TraceStep{Name: name, Outcome: outcome, Detail: execute.KeepText(detail)})
}

// traceAuth records the authorizer's decision (ok: it admitted).
func (inv *invocation) traceAuth(ok bool) {
	a := inv.route.auth
	kind := "Lambda"
	if a.jwt {
		kind = "JWT"
	}
	detail := kind + " authorizer " + a.id
	if inv.authCached {
		detail += ", from the cache"
	}
	outcome := "allowed"
	if !ok {
		switch inv.resp.Status {
		case 401:
			outcome, inv.tr.Decision = "unauthorized", execute.DecisionUnauthorized
		case 403:
			outcome, inv.tr.Decision = "denied", execute.DecisionForbidden
		default:
			outcome = "error"
		}
	}
	inv.tr.Steps = append(inv.tr.Steps, execute.TraceStep{Name: execute.StepAuthorizer, Outcome: outcome,
		Detail: detail, Duration: inv.auth.latency})
}

// traceIntegration records an integration's call: outcome its status or
// failure, detail what was called.
func (inv *invocation) traceIntegration(outcome, detail string) {
	inv.tr.Steps = append(inv.tr.Steps, execute.TraceStep{Name: execute.StepIntegration, Outcome: outcome,
		Detail: execute.KeepText(detail), Duration: inv.integrationLatency})
}

// endTrace completes the trace with the response and adds it.
func (inv *invocation) endTrace() {
	t := inv.tr
	if t == nil {
		return
	}
	resp := inv.resp
	if api := inv.api; api != nil {
		t.APIID, t.APIName = api.API.APIID, api.API.Name
		t.Account, t.Region = inv.scope.Account, inv.scope.Region
	}
	if inv.stage != nil {
		// The path the stage serves: a $default stage serves the first
		// segment too.
		t.Stage, t.Path = inv.stage.StageName, execute.KeepText(inv.path)
	}
	if inv.route != nil {
		t.Route = inv.route.key
	}
	t.Status = resp.Status
	t.IntegrationLatency = inv.integrationLatency
	t.Latency = inv.ex.o.Now().Sub(t.Received)
	t.Steps = append(t.Steps, execute.TraceStep{Name: execute.StepResponse, Outcome: strconv.Itoa(resp.Status)})
	if len(resp.Headers) > 0 {
		t.ResponseHeaders = make([]execute.NameValue, len(resp.Headers))
		for i, h := range resp.Headers {
			t.ResponseHeaders[i] = execute.NameValue{Name: strings.Clone(h.Name), Value: execute.KeepText(h.Value)}
		}
	}
	inv.tr = nil
	inv.ex.o.Inspector.Add(t)
}
