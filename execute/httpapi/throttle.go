package httpapi

import (
	"strings"
	"time"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/metrics"
	"github.com/cloudemu/emulator/throttle"
)

// bucketKey names a route's throttle: one bucket per API, stage and route
// key, shared by every client (HTTP APIs have no usage plans).
type bucketKey struct {
	account, region, api, stage, route string
}

// throttle takes the request from the route's bucket (the stage's
// routeSettings for the route, else its defaultRouteSettings; none: no
// stage limit) and the account's. A refusal is counted always and
// answered 429 only when enforcing.
func (inv *invocation) throttle() bool {
	now := inv.req.Received
	if c := inv.ex.o.ThrottleClock; c != nil {
		now = c()
	}
	var l throttle.Levels
	if lim, ok := routeLimits(inv.stage, inv.route.key); ok {
		l.Stage = inv.routeBucket(lim, now)
	}
	l.Account = inv.accountBucket(now)
	d, level := l.Take(now)
	if d == throttle.Admitted {
		if inv.tr != nil {
			inv.tr.Decision = execute.DecisionAdmitted
			inv.traceStep(execute.StepThrottle, "admitted", "")
		}
		return true
	}
	inv.metric.Reject(false)
	if !inv.ex.o.EnforceThrottle {
		if inv.tr != nil {
			inv.tr.Decision = execute.DecisionAdmitted
			inv.traceStep(execute.StepThrottle, "throttled (not enforced)", "refused by the "+level.String()+" limit")
		}
		return true
	}
	if inv.tr != nil {
		inv.tr.Decision = execute.DecisionThrottled
		inv.traceStep(execute.StepThrottle, "throttled", "refused by the "+level.String()+" limit")
	}
	inv.message(429, "Too Many Requests")
	return false
}

// routeLimits are the stage's limits for a route key.
func routeLimits(st *apigatewayv2.Stage, key string) (throttle.Limits, bool) {
	rs := st.RouteSettings[key]
	if rs == nil || (rs.ThrottlingRateLimit == nil && rs.ThrottlingBurstLimit == nil) {
		rs = st.DefaultRouteSettings
	}
	if rs == nil || (rs.ThrottlingRateLimit == nil && rs.ThrottlingBurstLimit == nil) {
		return throttle.Limits{}, false
	}
	l := throttle.DefaultLimits()
	if rs.ThrottlingRateLimit != nil {
		l.Rate = *rs.ThrottlingRateLimit
	}
	if rs.ThrottlingBurstLimit != nil {
		l.Burst = int64(*rs.ThrottlingBurstLimit)
	}
	return l, true
}

// routeBucket is the route's bucket, re-sized when the stage's settings
// changed since it was made.
func (inv *invocation) routeBucket(l throttle.Limits, now time.Time) *throttle.Bucket {
	k := bucketKey{inv.scope.Account, inv.scope.Region, inv.api.API.APIID, inv.stage.StageName, inv.route.key}
	b, ok := inv.ex.buckets.Load(k)
	if !ok {
		b, _ = inv.ex.buckets.LoadOrCompute(k, func() *throttle.Bucket { return throttle.NewBucket(l, now.UnixNano()) })
	}
	if b.Limits() != l {
		b.SetLimits(l, now.UnixNano())
	}
	return b
}

func (inv *invocation) accountBucket(now time.Time) *throttle.Bucket {
	if f := inv.ex.o.AccountBucket; f != nil {
		return f(inv.scope, inv.ex.o.AccountLimits, now)
	}
	b, ok := inv.ex.accounts.Load(inv.scope)
	if !ok {
		b, _ = inv.ex.accounts.LoadOrCompute(inv.scope, func() *throttle.Bucket {
			return throttle.NewBucket(inv.ex.o.AccountLimits, now.UnixNano())
		})
	}
	return b
}

// metricsCache keeps a route's series handle for the stage it was last
// recorded under, so that recording costs no lookup.
type metricsCache struct {
	p atomicRoute
}

// routeMetric is the request's series: the route under its stage.
func (inv *invocation) routeMetric() metrics.Route {
	m := inv.ex.o.Metrics
	if m == nil {
		return metrics.Route{}
	}
	gen := m.Generation()
	if h := inv.route.metrics.p.Load(); h != nil && h.gen == gen && h.stage == inv.stage.StageName {
		return h.route
	}
	method, _, ok := strings.Cut(inv.route.key, " ")
	if !ok {
		method = "ANY" // $default
	}
	r := m.Of(inv.scope.Account, inv.scope.Region).HTTPRoute(inv.api.API.APIID, inv.stage.StageName, method, inv.route.key)
	inv.route.metrics.p.Store(&metricsHandle{gen: gen, stage: inv.stage.StageName, route: r})
	return r
}

// stageMetric is the series of a request that matched no route: the
// stage's coarser sets only.
func (inv *invocation) stageMetric() metrics.Route {
	m := inv.ex.o.Metrics
	if m == nil {
		return metrics.Route{}
	}
	return m.Of(inv.scope.Account, inv.scope.Region).HTTPRoute(inv.api.API.APIID, inv.stage.StageName, "", "")
}

// record counts the request in its series.
func (inv *invocation) record(integration time.Duration) {
	if !inv.metric.Valid() {
		return
	}
	now := inv.ex.o.Now()
	at := inv.req.Received
	if at.IsZero() {
		at = now
	}
	inv.metric.Record(inv.resp.Status, now.Sub(at), integration, at)
}
