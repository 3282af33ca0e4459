package httpapi

import (
	"log/slog"
	"time"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/metrics"
	"github.com/cloudemu/emulator/throttle"
)

// Options configure an Executor.
type Options struct {
	// APIs is the v2 service whose published snapshots are run.
	APIs *apigatewayv2.Service
	// Backend sends HTTP_PROXY integration requests.
	Backend execute.Backend
	// Functions runs function integrations and Lambda authorizers (nil:
	// they answer 500).
	Functions execute.Function
	// Admission caps executions in flight (nil: no cap).
	Admission *execute.Admission
	Log       *slog.Logger
	Now       func() time.Time
	// EnforceThrottle answers a throttled request with 429; without it
	// requests are counted and decided, and run anyway.
	EnforceThrottle bool
	// AccountLimits are each account's (per region) limits; zero: AWS's
	// defaults.
	AccountLimits throttle.Limits
	// ThrottleClock is the time throttles are taken at; nil: when the
	// request arrived.
	ThrottleClock func() time.Time
	// Metrics records one request of each resolved API and stage.
	Metrics *metrics.Regions
}

// Executor runs requests against deployed HTTP APIs. It is safe for
// concurrent use.
type Executor struct {
	o Options
}

// New returns an executor.
func New(o Options) *Executor {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Admission == nil {
		o.Admission = execute.NewAdmission(0)
	}
	return &Executor{o: o}
}

// Serve implements execute.Handler.
func (e *Executor) Serve(req *execute.Request, resp *execute.Response) {
	notFound(req, resp)
}

// notFound is HTTP APIs' answer to no stage or no route.
func notFound(req *execute.Request, resp *execute.Response) {
	resp.Reset()
	resp.Status = 404
	resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"},
		execute.Header{Name: "apigw-requestid", Value: req.RequestID})
	resp.Body = append(resp.Body, `{"message":"Not Found"}`...)
}
