package execute

import (
	"errors"
	"sync/atomic"
	"time"
)

// BackendRequest is an integration request to an HTTP backend.
type BackendRequest struct {
	Method  string
	URL     string
	Headers Headers
	Body    []byte
	// Timeout bounds the whole exchange (the integration's
	// timeoutInMillis).
	Timeout time.Duration
	// InsecureSkipVerify accepts any TLS certificate (the integration's
	// tlsConfig.insecureSkipVerification).
	InsecureSkipVerify bool
}

// BackendResponse is what the backend answered. Its slices belong to the
// response until it is released.
type BackendResponse struct {
	Status  int
	Headers Headers
	Body    []byte
}

// Backend errors, as the gateway responses tell them apart.
var (
	// ErrBackendTimeout: no full answer within the timeout (504,
	// INTEGRATION_TIMEOUT).
	ErrBackendTimeout = errors.New("execute: the backend did not answer in time")
	// ErrBackendUnreachable: no connection, or a broken one
	// (INTEGRATION_FAILURE).
	ErrBackendUnreachable = errors.New("execute: the backend could not be reached")
	// ErrBackendMalformed: the backend answered what is not HTTP, a
	// truncated answer, or one over the response size limit.
	ErrBackendMalformed = errors.New("execute: the backend's answer is not a valid HTTP response")
)

// Backend sends integration requests to HTTP backends. The front provides
// it (a pooled client with keep-alive and bounded connections per host),
// so that the data plane knows no HTTP library. Do MUST be safe for
// concurrent use and MUST return within the request's timeout; its errors
// are ErrBackendTimeout, ErrBackendUnreachable, ErrBackendMalformed, or
// another error for a URL that cannot be requested.
type Backend interface {
	Do(req *BackendRequest, resp *BackendResponse) error
}

// Admission caps how many executions run at once: past the cap a request
// is refused at once (429) rather than queued without bound, as NATS sheds
// load.
type Admission struct {
	limit    int64
	inFlight atomic.Int64
}

// NewAdmission returns a cap of limit executions at once (0: no cap).
func NewAdmission(limit int) *Admission { return &Admission{limit: int64(limit)} }

// Enter admits one execution; the caller MUST call Leave when admitted.
func (a *Admission) Enter() bool {
	n := a.inFlight.Add(1)
	if a.limit > 0 && n > a.limit {
		a.inFlight.Add(-1)
		return false
	}
	return true
}

// Leave ends one admitted execution.
func (a *Admission) Leave() { a.inFlight.Add(-1) }

// InFlight is how many executions run now.
func (a *Admission) InFlight() int64 { return a.inFlight.Load() }
