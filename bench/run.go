package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Limits on Options, so that a typo cannot turn a benchmark into an
// unbounded or runaway loop.
const (
	maxConns       = 4096
	maxDuration    = 10 * time.Minute // ceiling when only MaxRequests bounds a run
	defaultTimeout = 5 * time.Second
	// errorBackoff keeps a worker whose server is gone from spinning a core
	// on instant "connection refused" errors.
	errorBackoff = time.Millisecond
)

// Target is one thing to load: a loopback address and the request to send.
type Target struct {
	Name string
	// Addr is host:port; the host must be or resolve only to loopback IPs.
	Addr string
	// Build fills one request: method, URI, headers and body. Run calls it
	// once, copies the result into each worker's own request and resends that
	// request unchanged, so Build costs nothing per request. The Host header
	// defaults to Addr. Body streams are refused (they cannot be resent).
	Build func(req *fasthttp.Request)
	// Vary, if set, changes a worker's request before each send (a write
	// benchmark needs a new resource name each time). It is called from
	// every worker goroutine at once, each with its own request.
	Vary func(req *fasthttp.Request)
	// Step, if set, is one operation of several requests (a receive then a
	// delete), sent in place of the single request: each worker calls it
	// (after Vary) with its own connection, request and response, and counts
	// one operation per call, its latency the whole step's. It returns the
	// operation's status (the first non-2xx answer's, else the last one's)
	// or the transport error; ErrEmpty says the step found nothing to do
	// (an empty receive): counted in Result.Empty, not as an operation.
	// Like Vary it is called from every worker goroutine at once.
	// Options.MaxRequests counts steps, empty ones included.
	Step func(c Doer, req *fasthttp.Request, resp *fasthttp.Response) (status int, err error)
}

// Doer sends one request on a worker's connection and waits for its answer.
type Doer interface {
	Do(req *fasthttp.Request, resp *fasthttp.Response) error
}

// ErrEmpty, returned by a Target's Step, says that the step did no
// operation, e.g. a receive found the queue empty.
var ErrEmpty = errors.New("bench: step found nothing to do")

// Options bounds and shapes a run. At least one of Duration and MaxRequests
// must be set; the run stops at whichever comes first.
type Options struct {
	// Conns is the number of keep-alive connections, each driven by its own
	// goroutine with one request in flight (no pipelining).
	Conns int
	// Duration of the measured window (after Warmup). Zero means "until
	// MaxRequests", with a ceiling of 10 minutes.
	Duration time.Duration
	// MaxRequests bounds the measured requests (warm-up ones do not count).
	MaxRequests int64
	// Warmup is sent before the measured window and not counted.
	Warmup time.Duration
	// Timeout bounds each request's read and write; zero means 5s.
	Timeout time.Duration
}

// Result is what one run measured. Requests counts responses received in the
// measured window, whatever their status (as wrk does); TransportErrors are
// requests that got no response and are not in Requests. Latencies are of
// responses only. With a Step, each is an operation of several requests.
type Result struct {
	Name     string
	Requests int64
	// Empty counts the steps that returned ErrEmpty in the window; they are
	// not in Requests.
	Empty           int64
	TransportErrors int64
	Non2xx          int64
	Statuses        map[int]int64
	// FirstError is the first transport error seen, to explain the count.
	FirstError error
	Elapsed    time.Duration
	RPS        float64
	Mean       time.Duration
	P50        time.Duration
	P90        time.Duration
	P99        time.Duration
	Max        time.Duration
}

// Errors is TransportErrors plus Non2xx.
func (r Result) Errors() int64 { return r.TransportErrors + r.Non2xx }

// worker is one connection's goroutine state. Everything it records is its
// own until the run ends, so the hot loop takes no locks.
type worker struct {
	hist      histogram
	statuses  [600]int64 // index = status code; anything else goes to other
	other     int64
	requests  int64
	empty     int64
	non2xx    int64
	transport int64
	firstErr  error
}

// Run loads t with o.Conns connections and returns what it measured. It
// returns early, with the partial result and ctx's error, if ctx ends.
//
// Each connection is its own fasthttp.HostClient with MaxConns 1, driven by
// one goroutine in a closed loop (send, wait for the response, send again).
// Separate clients keep the goroutines off a shared pool lock, and a closed
// loop without pipelining is what SDK clients do, so the figure is the
// server's, not the client's.
func Run(ctx context.Context, t Target, o Options) (Result, error) {
	res := Result{Name: t.Name}
	if err := o.check(); err != nil {
		return res, err
	}
	if t.Build == nil {
		return res, errors.New("bench: Target.Build is nil")
	}
	addr, err := loopbackAddr(ctx, t.Addr)
	if err != nil {
		return res, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	duration := o.Duration
	if duration <= 0 {
		duration = maxDuration
	}

	tmpl := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(tmpl)
	t.Build(tmpl)
	if tmpl.IsBodyStream() {
		return res, errors.New("bench: Target.Build set a body stream; use SetBody")
	}
	if len(tmpl.Header.Host()) == 0 && len(tmpl.URI().Host()) == 0 {
		tmpl.SetHost(t.Addr)
	}

	var (
		stop   atomic.Bool
		issued atomic.Int64 // measured requests started, for MaxRequests
		wg     sync.WaitGroup
	)
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()

	workers := make([]*worker, o.Conns)
	// All times are offsets on the monotonic clock from base, so each check
	// in the loop is one clock read and an integer compare.
	base := time.Now()
	measureFrom := o.Warmup
	stopAt := measureFrom + duration
	for i := range workers {
		w := &worker{}
		workers[i] = w
		hc := &fasthttp.HostClient{
			Addr:                          addr,
			MaxConns:                      1,
			ReadTimeout:                   timeout,
			WriteTimeout:                  timeout,
			MaxIdemponentCallAttempts:     1, // a retry would hide an error and add its latency
			NoDefaultUserAgentHeader:      true,
			DisableHeaderNamesNormalizing: true,
			DisablePathNormalizing:        true,
			MaxIdleConnDuration:           time.Minute,
		}
		req := fasthttp.AcquireRequest()
		tmpl.CopyTo(req)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer fasthttp.ReleaseRequest(req)
			// Close our side now so the server sees the connection end with
			// the run and can shut down without waiting for its idle timeout.
			defer hc.CloseIdleConnections()
			w.loop(hc, req, t.Vary, t.Step, base, measureFrom, stopAt, o.MaxRequests, &issued, &stop)
		}()
	}
	wg.Wait()
	end := time.Since(base)

	res.Elapsed = max(min(end, stopAt)-measureFrom, 0)
	var h histogram
	res.Statuses = make(map[int]int64)
	for _, w := range workers {
		h.merge(&w.hist)
		res.Requests += w.requests
		res.Empty += w.empty
		res.Non2xx += w.non2xx
		res.TransportErrors += w.transport
		if res.FirstError == nil {
			res.FirstError = w.firstErr
		}
		for code, n := range w.statuses {
			if n > 0 {
				res.Statuses[code] += n
			}
		}
		if w.other > 0 {
			res.Statuses[0] += w.other
		}
	}
	if res.Elapsed > 0 {
		res.RPS = float64(res.Requests) / res.Elapsed.Seconds()
	}
	res.Mean = time.Duration(h.mean())
	res.P50 = time.Duration(h.quantile(0.50))
	res.P90 = time.Duration(h.quantile(0.90))
	res.P99 = time.Duration(h.quantile(0.99))
	res.Max = time.Duration(h.max)
	if res.TransportErrors > 0 {
		slog.Default().With("component", "bench").Debug("transport errors",
			"target", t.Name, "count", res.TransportErrors, "first", res.FirstError)
	}
	return res, ctx.Err()
}

// loop sends requests until stopAt, MaxRequests or stop. A request is counted
// only if it started at or after measureFrom and finished before stopAt, so
// warm-up traffic and requests cut by the end of the window are left out.
func (w *worker) loop(hc *fasthttp.HostClient, req *fasthttp.Request, vary func(*fasthttp.Request),
	step func(Doer, *fasthttp.Request, *fasthttp.Response) (int, error), base time.Time,
	measureFrom, stopAt time.Duration, maxReq int64, issued *atomic.Int64, stop *atomic.Bool) {
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	now := time.Since(base)
	for !stop.Load() && now < stopAt {
		start := now
		measured := start >= measureFrom
		if measured && maxReq > 0 && issued.Add(1) > maxReq {
			stop.Store(true)
			return
		}
		if vary != nil {
			vary(req)
		}
		var code int
		var err error
		if step != nil {
			code, err = step(hc, req, resp)
		} else {
			err = hc.Do(req, resp)
			code = resp.StatusCode()
		}
		now = time.Since(base)
		if errors.Is(err, ErrEmpty) {
			if measured && now < stopAt {
				w.empty++
			}
			continue
		}
		if now >= stopAt || !measured {
			if err != nil {
				time.Sleep(errorBackoff)
				now = time.Since(base)
			}
			continue
		}
		if err != nil {
			w.transport++
			if w.firstErr == nil {
				w.firstErr = err
			}
			time.Sleep(errorBackoff)
			now = time.Since(base)
			continue
		}
		w.requests++
		w.hist.record(uint64(now - start))
		if code < 200 || code > 299 {
			w.non2xx++
		}
		if code >= 0 && code < len(w.statuses) {
			w.statuses[code]++
		} else {
			w.other++
		}
	}
}

func (o Options) check() error {
	switch {
	case o.Conns < 1 || o.Conns > maxConns:
		return fmt.Errorf("bench: Conns %d out of range 1..%d", o.Conns, maxConns)
	case o.Duration <= 0 && o.MaxRequests <= 0:
		return errors.New("bench: set Duration or MaxRequests, or the run has no end")
	case o.Duration > maxDuration:
		return fmt.Errorf("bench: Duration %s above %s", o.Duration, maxDuration)
	case o.Warmup < 0 || o.Warmup > maxDuration:
		return fmt.Errorf("bench: Warmup %s out of range 0..%s", o.Warmup, maxDuration)
	case o.MaxRequests < 0:
		return fmt.Errorf("bench: MaxRequests %d is negative", o.MaxRequests)
	}
	return nil
}
