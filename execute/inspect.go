package execute

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"
)

// The request inspector keeps the last executed requests to deployed APIs
// with their pipeline trace, for the dashboard. Executors record a trace
// only for the requests Sample admits, so a load test pays one atomic load
// per request and nothing else.

// MaxTracesPerSecond caps how many requests are traced per second, over
// every API together.
const MaxTracesPerSecond = 100

// The bounds of one trace, so that a large body or many headers cannot
// make the ring large: a trace holds at most MaxTraceLog +
// maxTraceSteps*MaxTraceDetail + maxTraceHeaders*(maxHeaderName+
// MaxTraceDetail) + 4*MaxTraceDetail bytes of text (~ 70 KiB; a typical
// trace ~ 2-4 KiB, see TestInspectorEntrySize).
const (
	// MaxTraceDetail bounds a step's Detail, a header value, the path,
	// the query string, the API name and the route (bytes).
	MaxTraceDetail = 1 << 10
	// MaxTraceLog bounds the execution log (bytes).
	MaxTraceLog = 16 << 10
	// maxTraceSteps, maxTraceHeaders and maxHeaderName bound the lists
	// and a header's name.
	maxTraceSteps   = 16
	maxTraceHeaders = 32
	maxHeaderName   = 256
)

// Truncated ends a text cut to its bound.
const Truncated = " [TRUNCATED]"

// The step names, in pipeline order. Not every request has every step: a
// step is recorded only when the request reached it and the method has
// what it checks (no "api key" step for a method without a key).
const (
	StepRoute               = "route"
	StepAuthorizer          = "authorizer"
	StepAPIKey              = "api key"
	StepThrottle            = "throttle"
	StepValidator           = "validator"
	StepRequestTemplate     = "request template"
	StepIntegration         = "integration"
	StepIntegrationResponse = "integration response"
	StepResponseTemplate    = "response template"
	StepResponse            = "response"
)

// The admission decisions of Trace.Decision.
const (
	DecisionAdmitted      = "admitted"
	DecisionThrottled     = "throttled"
	DecisionQuotaExceeded = "quota exceeded"
	DecisionForbidden     = "forbidden"
	DecisionUnauthorized  = "unauthorized"
	DecisionMissingKey    = "missing key"
)

// Trace is one executed request and its way through the pipeline. Once
// added to an Inspector it is never changed: readers share it.
type Trace struct {
	RequestID string `json:"requestId"`
	// Kind is "REST" or "HTTP".
	Kind    string `json:"kind"`
	APIID   string `json:"apiId"`
	APIName string `json:"apiName"`
	Account string `json:"account"`
	Region  string `json:"region"`
	Stage   string `json:"stage"`
	Method  string `json:"method"`
	// Path is the request's path after the stage, raw; RawQuery its query
	// string without "?".
	Path     string `json:"path"`
	RawQuery string `json:"rawQuery"`
	// Route is the matched resource path (REST) or route key (HTTP); ""
	// when none matched.
	Route  string `json:"route"`
	Status int    `json:"status"`
	// Latency and IntegrationLatency are nanoseconds in JSON.
	Latency            time.Duration `json:"latency"`
	IntegrationLatency time.Duration `json:"integrationLatency"`
	Received           time.Time     `json:"received"`
	APIKeyID           string        `json:"apiKeyId"`
	UsagePlanID        string        `json:"usagePlanId"`
	// Decision is the gateway's admission decision: the first check that
	// refused the request (authorizer, API key, throttle: Decision*
	// constants), "admitted" when every check passed (a throttle that is
	// counted but not enforced admits), "" when the request stopped
	// before a decision (no route, a configuration error).
	Decision string `json:"decision"`
	// ErrorType is x-amzn-ErrorType when the gateway failed the request.
	ErrorType       string      `json:"errorType"`
	Steps           []TraceStep `json:"steps"`
	ResponseHeaders []NameValue `json:"responseHeaders"`
	// Log is the execution log (REST: as TestInvokeMethod writes it).
	Log string `json:"log"`
}

// TraceStep is one step of the pipeline: Name is one of the Step*
// constants, Outcome a short word ("matched", "allowed", "passed",
// "throttled"...), Detail what the step saw or made.
type TraceStep struct {
	Name     string        `json:"name"`
	Outcome  string        `json:"outcome"`
	Detail   string        `json:"detail"`
	Duration time.Duration `json:"duration"`
}

// NameValue is a header field of a trace.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TraceFilter selects traces. Zero fields select all.
type TraceFilter struct {
	APIID, Stage string
	// Status is a status class: 2, 4 or 5 (2xx, 4xx, 5xx); 0: any.
	Status int
	// Limit bounds the answer; 0: all the ring holds.
	Limit int
}

// Inspector is a bounded ring of the newest traces. A nil *Inspector is
// off: every method does nothing.
type Inspector struct {
	// window is the sampling window: the second (Unix, low 32 bits) in the
	// high half, the traces taken in it in the low half.
	window atomic.Uint64
	seq    atomic.Uint64

	mu   sync.Mutex
	ring []*Trace
	next int // where the next trace goes
	n    int // how many the ring holds
}

// NewInspector returns a ring of capacity traces; nil (off) when capacity
// is not positive.
func NewInspector(capacity int) *Inspector {
	if capacity <= 0 {
		return nil
	}
	return &Inspector{ring: make([]*Trace, capacity)}
}

// Sample reports whether the current request should be traced: true for
// at most MaxTracesPerSecond requests a second. It takes no lock, and once
// the second's share is taken it only loads.
func (in *Inspector) Sample() bool {
	if in == nil {
		return false
	}
	return in.sampleAt(time.Now().Unix())
}

// SampleAt is Sample for a request that arrived at t (zero: now): the
// executors pass the arrival time the front stamped, which spares a clock
// read (~50 ns on a VM) per request.
func (in *Inspector) SampleAt(t time.Time) bool {
	if in == nil {
		return false
	}
	if t.IsZero() {
		t = time.Now()
	}
	return in.sampleAt(t.Unix())
}

func (in *Inspector) sampleAt(unix int64) bool {
	sec := uint64(uint32(unix))
	for {
		w := in.window.Load()
		if w>>32 != sec {
			if in.window.CompareAndSwap(w, sec<<32|1) {
				return true
			}
			continue
		}
		if w&0xffffffff >= MaxTracesPerSecond {
			return false
		}
		if in.window.CompareAndSwap(w, w+1) {
			return true
		}
	}
}

// Add bounds t's texts (MaxTraceDetail, MaxTraceLog) and puts it in the
// ring, dropping the oldest when full. Add takes t: the caller must not
// change it afterwards.
func (in *Inspector) Add(t *Trace) {
	if in == nil || t == nil {
		return
	}
	t.bound()
	in.mu.Lock()
	in.ring[in.next] = t
	in.next = (in.next + 1) % len(in.ring)
	if in.n < len(in.ring) {
		in.n++
	}
	in.mu.Unlock()
	in.seq.Add(1)
}

// List returns the traces f selects, newest first.
func (in *Inspector) List(f TraceFilter) []*Trace {
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	var out []*Trace
	for i := 1; i <= in.n; i++ {
		t := in.ring[(in.next-i+len(in.ring))%len(in.ring)]
		if (f.APIID != "" && t.APIID != f.APIID) || (f.Stage != "" && t.Stage != f.Stage) ||
			(f.Status != 0 && t.Status/100 != f.Status) {
			continue
		}
		out = append(out, t)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out
}

// Get returns the trace of a request id, if the ring still holds it.
func (in *Inspector) Get(id string) (*Trace, bool) {
	if in == nil {
		return nil, false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for i := 1; i <= in.n; i++ {
		if t := in.ring[(in.next-i+len(in.ring))%len(in.ring)]; t.RequestID == id {
			return t, true
		}
	}
	return nil, false
}

// Len is how many traces the ring holds.
func (in *Inspector) Len() int {
	if in == nil {
		return 0
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.n
}

// Cap is how many traces the ring can hold.
func (in *Inspector) Cap() int {
	if in == nil {
		return 0
	}
	return len(in.ring)
}

// Seq counts the changes to the ring: every Add, and every Reset (so that a
// live view refreshes after one too).
func (in *Inspector) Seq() uint64 {
	if in == nil {
		return 0
	}
	return in.seq.Load()
}

// Reset empties the ring (an emulator reset).
func (in *Inspector) Reset() {
	if in == nil {
		return
	}
	in.mu.Lock()
	clear(in.ring)
	in.next, in.n = 0, 0
	in.mu.Unlock()
	in.seq.Add(1)
}

// bound cuts t's texts and lists to their bounds.
func (t *Trace) bound() {
	t.Path = TruncateText(t.Path, MaxTraceDetail)
	t.RawQuery = TruncateText(t.RawQuery, MaxTraceDetail)
	t.APIName = TruncateText(t.APIName, MaxTraceDetail)
	t.Route = TruncateText(t.Route, MaxTraceDetail)
	t.Log = TruncateText(t.Log, MaxTraceLog)
	if len(t.Steps) > maxTraceSteps {
		t.Steps = t.Steps[:maxTraceSteps:maxTraceSteps]
	}
	for i := range t.Steps {
		t.Steps[i].Detail = TruncateText(t.Steps[i].Detail, MaxTraceDetail)
	}
	if len(t.ResponseHeaders) > maxTraceHeaders {
		t.ResponseHeaders = t.ResponseHeaders[:maxTraceHeaders:maxTraceHeaders]
	}
	for i := range t.ResponseHeaders {
		h := &t.ResponseHeaders[i]
		h.Name, h.Value = TruncateText(h.Name, maxHeaderName), TruncateText(h.Value, MaxTraceDetail)
	}
}

// Size approximates the bytes t holds: its structure, its texts and its
// lists.
func (t *Trace) Size() int {
	if t == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*t)) + len(t.RequestID) + len(t.Kind) + len(t.APIID) + len(t.APIName) +
		len(t.Account) + len(t.Region) + len(t.Stage) + len(t.Method) + len(t.Path) + len(t.RawQuery) +
		len(t.Route) + len(t.APIKeyID) + len(t.UsagePlanID) + len(t.Decision) + len(t.ErrorType) + len(t.Log)
	n += cap(t.Steps) * int(unsafe.Sizeof(TraceStep{}))
	for _, s := range t.Steps {
		n += len(s.Name) + len(s.Outcome) + len(s.Detail)
	}
	n += cap(t.ResponseHeaders) * int(unsafe.Sizeof(NameValue{}))
	for _, h := range t.ResponseHeaders {
		n += len(h.Name) + len(h.Value)
	}
	return n
}

// TruncateText cuts s to at most max bytes (at a character boundary),
// ending it with Truncated when cut.
func TruncateText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(Truncated)
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	var b strings.Builder
	b.Grow(cut + len(Truncated))
	b.WriteString(s[:cut])
	b.WriteString(Truncated)
	return b.String()
}

// Source is the selection pattern as configured ("" for none), for traces.
func (p SelectionPattern) Source() string {
	if p.re == nil {
		return ""
	}
	s := p.re.String()
	return strings.TrimSuffix(strings.TrimPrefix(s, "^(?:"), ")$")
}

// NewTrace starts the trace of req, received at at. The request's strings
// alias the front's buffers, so the trace keeps copies.
func NewTrace(req *Request, kind string, at time.Time, steps int) *Trace {
	return &Trace{RequestID: strings.Clone(req.RequestID), Kind: kind, APIID: strings.Clone(req.APIID),
		Region: strings.Clone(req.Region), Stage: KeepText(req.Stage), Method: KeepText(req.Method), Path: KeepText(req.Path),
		RawQuery: KeepText(req.RawQuery), Received: at, Steps: make([]TraceStep, 0, steps)}
}

// KeepText copies s for a trace, cut to MaxTraceDetail.
func KeepText(s string) string {
	if len(s) > MaxTraceDetail {
		return TruncateText(s, MaxTraceDetail)
	}
	return strings.Clone(s)
}
