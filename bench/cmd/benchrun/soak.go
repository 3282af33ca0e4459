package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/bench"
)

// soakFlags are the flags of "benchrun soak".
type soakFlags struct {
	emulator       string
	duration       time.Duration
	rate           string // requests a second, or "auto"
	conns          int
	sample         time.Duration
	out            string
	faults         string
	resetEvery     time.Duration
	probe          time.Duration
	fraction       float64
	maxGrowth      float64 // percent
	memSlackMiB    float64
	goroutineSlack float64
	ready          time.Duration
	function       string // auto or none
}

func (f *soakFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` to start (required)")
	fs.DurationVar(&f.duration, "duration", 10*time.Minute, "how long to soak")
	fs.StringVar(&f.rate, "rate", "auto", "target `requests/s` of the whole mix, or auto: -fraction of the capacity a closed-loop burst of -probe measures first")
	fs.IntVar(&f.conns, "conns", 32, "connections, one worker each: at most this many requests in flight")
	fs.DurationVar(&f.sample, "sample", 10*time.Second, "sampling interval of the CSV")
	fs.StringVar(&f.out, "out", ".", "`directory` for soak.csv and soak.png")
	fs.StringVar(&f.faults, "faults", "", "faults to inject, `name=share,...` of the HTTP_PROXY requests ("+
		strings.Join(backendFaults, ", ")+") or of the function proxy's ("+strings.Join(functionFaults, ", ")+
		"); their non-2xx answers are expected")
	fs.DurationVar(&f.resetEvery, "reset-every", 30*time.Second, "POST /_emulator/reset this often, then re-create the fixtures (0: never)")
	fs.DurationVar(&f.probe, "probe", 15*time.Second, "length of the closed-loop capacity burst of -rate auto")
	fs.Float64Var(&f.fraction, "fraction", 0.8, "share of the measured capacity that -rate auto soaks at")
	fs.Float64Var(&f.maxGrowth, "max-growth", 5, "largest growth, in `percent`, of RSS, live heap and goroutines from the second minute to the last")
	fs.Float64Var(&f.memSlackMiB, "mem-slack", 1, "`MiB` allowed on top of -max-growth for RSS and live heap")
	fs.Float64Var(&f.goroutineSlack, "goroutine-slack", 10, "goroutines allowed on top of -max-growth")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long the emulator may take to answer its health check")
	fs.StringVar(&f.function, "function", "auto", "the function proxy of the mix: auto (python3, else node, else none) or none")
}

// maxSoakRate bounds -rate: well above what loopback serves on any machine.
const maxSoakRate = 1e6

// parseRate returns the fixed rate, or 0 for auto.
func (f *soakFlags) parseRate() (float64, error) {
	if f.rate == "auto" {
		return 0, nil
	}
	r, err := strconv.ParseFloat(f.rate, 64)
	if err != nil || !(r > 0 && r <= maxSoakRate) {
		return 0, fmt.Errorf("benchrun: -rate %q: want auto or requests/s in (0, %g]", f.rate, maxSoakRate)
	}
	return r, nil
}

func (f *soakFlags) check() error {
	if _, err := f.parseRate(); err != nil {
		return err
	}
	switch {
	case f.emulator == "":
		return errors.New("benchrun: soak needs -emulator BIN")
	case f.conns < 1 || f.conns > 1024:
		return fmt.Errorf("benchrun: -conns %d out of range 1..1024", f.conns)
	case f.sample < 100*time.Millisecond:
		return fmt.Errorf("benchrun: -sample %s below 100ms", f.sample)
	case f.duration < 3*f.sample || f.duration > 24*time.Hour:
		return fmt.Errorf("benchrun: -duration %s: want at least 3 samples (-sample %s) and at most 24h", f.duration, f.sample)
	case f.resetEvery != 0 && f.resetEvery < time.Second:
		return fmt.Errorf("benchrun: -reset-every %s: want 0 (never) or at least 1s", f.resetEvery)
	case f.probe < 2*time.Second || f.probe > 10*time.Minute:
		return fmt.Errorf("benchrun: -probe %s out of range [2s, 10m]", f.probe)
	case !(f.fraction > 0 && f.fraction <= 1):
		return fmt.Errorf("benchrun: -fraction %g out of range (0, 1]", f.fraction)
	case f.function != "auto" && f.function != "none":
		return fmt.Errorf("benchrun: -function %q: want auto or none", f.function)
	case !(f.maxGrowth >= 0) || !(f.memSlackMiB >= 0) || !(f.goroutineSlack >= 0):
		return errors.New("benchrun: -max-growth, -mem-slack and -goroutine-slack must not be negative")
	}
	return nil
}

// The classes an answer falls in.
const (
	classOK        = iota // 2xx
	classRacing           // a 4xx to a request that raced a reset: expected
	classThrottled        // a 429 to the throttled key: expected
	classFault            // a non-2xx to a request that asked for a fault: expected
	class4xx              // any other answer that is neither 2xx nor 5xx
	class5xx              // a 5xx that no fault asked for
	classTransport        // no answer: a timeout or a dropped connection
	numClasses
)

// classify sorts one answer (status, or err when there was none).
func classify(status int, err error, racing, throttled bool, fault string) int {
	switch {
	case err != nil:
		return classTransport
	case status >= 200 && status <= 299:
		return classOK
	case fault != "":
		return classFault
	case throttled && status == fasthttp.StatusTooManyRequests:
		return classThrottled
	case racing && status >= 400 && status <= 499:
		return classRacing
	case status >= 500:
		return class5xx
	}
	return class4xx
}

// latSub is the latency histogram's sub-buckets per power of two of
// microseconds (values off by at most 1/latSub).
const latSub = 16

// latHist is a log-linear histogram of latencies in microseconds.
type latHist struct {
	counts [64 * latSub]uint64
	n      uint64
}

func latIndex(us uint64) int {
	if us < latSub {
		return int(us)
	}
	shift := bits.Len64(us) - 5 // us>>shift lands in [latSub, 2*latSub)
	return (shift+1)*latSub + int(us>>uint(shift)) - latSub
}

// latMid is the middle of bucket i's values.
func latMid(i int) uint64 {
	if i < latSub {
		return uint64(i)
	}
	shift := uint(i/latSub - 1)
	lo := uint64(i%latSub+latSub) << shift
	return lo + (uint64(1)<<shift)/2
}

func (h *latHist) record(d time.Duration) {
	h.counts[latIndex(uint64(max(d, 0)/time.Microsecond))]++
	h.n++
}

func (h *latHist) merge(o *latHist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

func (h *latHist) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := max(uint64(math.Ceil(q*float64(h.n))), 1)
	var seen uint64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			return time.Duration(latMid(i)) * time.Microsecond
		}
	}
	return 0
}

// tally is what one worker recorded since the last sample.
type tally struct {
	classes [numClasses]int64
	lat     latHist
}

func (t *tally) add(o *tally) {
	for i, n := range o.classes {
		t.classes[i] += n
	}
	t.lat.merge(&o.lat)
}

func (t *tally) requests() int64 {
	var n int64
	for _, c := range t.classes {
		n += c
	}
	return n
}

// expected is what the soak expects not to be 2xx.
func (t *tally) expected() int64 {
	return t.classes[classRacing] + t.classes[classThrottled] + t.classes[classFault]
}

// soakSample is one row of the CSV.
type soakSample struct {
	Elapsed    time.Duration // nominal: the sample's tick
	Requests   int64
	RPS        float64
	Classes    [numClasses]int64
	Missed     int64 // sends the pacer could not start: every worker was busy
	P50, P99   time.Duration
	RSS        int64
	HeapAlloc  uint64
	HeapLive   uint64
	Goroutines int
	Resets     int64 // so far
}

// soaker is one soak against one emulator.
type soaker struct {
	addr    string
	log     *slog.Logger
	backend string
	fn      *soakFunction
	faults  faultPlan
	ops     []soakOp
	weights int

	fix     atomic.Pointer[soakFixtures]
	resets  atomic.Uint64 // resets started
	seq     atomic.Uint64 // unique names
	fnSem   chan struct{}
	handles chan sqsHandle

	workers []*soakWorker
	missed  atomic.Int64
	// fnBusy counts function proxy requests sent as ExecuteMock because
	// soakFunctionPool invocations were in flight.
	fnBusy atomic.Int64
	// reported bounds the unexpected answers logged.
	reported atomic.Int32

	// quiet is held by a reset and the fixtures' re-creation, and by a
	// sample's reading; resetEnd (unix ns) is when the last reset ended.
	// A sample waits for both, so that a reset's passing goroutines and
	// garbage are not what it reads.
	quiet    sync.Mutex
	resetEnd atomic.Int64

	resetMu    sync.Mutex
	resetTimes []time.Duration
	resetErrs  []error
}

// soakWorker is one connection and its goroutine's state.
type soakWorker struct {
	s    *soaker
	rng  *rand.Rand
	hc   *fasthttp.HostClient
	req  *fasthttp.Request
	resp *fasthttp.Response

	mu  sync.Mutex
	cur tally
}

// requestTimeout bounds every request of the mix: far above any answer
// the emulator should take, so that hitting it is a hang.
const requestTimeout = 30 * time.Second

func newSoaker(addr, backend string, fn *soakFunction, faults faultPlan, conns int, log *slog.Logger) *soaker {
	s := &soaker{addr: addr, log: log, backend: backend, fn: fn, faults: faults,
		fnSem: make(chan struct{}, soakFunctionPool), handles: make(chan sqsHandle, 1024)}
	for _, op := range soakOps() {
		if op.function && fn == nil {
			continue
		}
		s.ops = append(s.ops, op)
		s.weights += op.weight
	}
	for i := range conns {
		s.workers = append(s.workers, &soakWorker{
			s:   s,
			rng: rand.New(rand.NewPCG(uint64(i)+1, uint64(time.Now().UnixNano()))),
			hc: &fasthttp.HostClient{
				Addr:                      addr,
				MaxConns:                  1,
				ReadTimeout:               requestTimeout,
				WriteTimeout:              requestTimeout,
				MaxIdemponentCallAttempts: 1, // a retry would hide an error
				NoDefaultUserAgentHeader:  true,
				// Below the emulator's 60 s idle timeout, so that a slow
				// rate never sends on a connection the server is closing.
				MaxIdleConnDuration: 10 * time.Second,
			},
			req:  fasthttp.AcquireRequest(),
			resp: fasthttp.AcquireResponse(),
		})
	}
	return s
}

func (s *soaker) close() {
	for _, w := range s.workers {
		w.hc.CloseIdleConnections()
		fasthttp.ReleaseRequest(w.req)
		fasthttp.ReleaseResponse(w.resp)
	}
}

// pick draws an op by weight.
func (s *soaker) pick(rng *rand.Rand) *soakOp {
	n := rng.IntN(s.weights)
	for i := range s.ops {
		if n < s.ops[i].weight {
			return &s.ops[i]
		}
		n -= s.ops[i].weight
	}
	return &s.ops[len(s.ops)-1]
}

// one sends one request of the mix and records its class and latency.
func (w *soakWorker) one() {
	fx := w.s.fix.Load()
	op := w.s.pick(w.rng)
	w.req.Reset()
	w.resp.Reset()
	sr := op.build(w, fx)
	start := time.Now()
	err := w.hc.DoTimeout(w.req, w.resp, requestTimeout)
	lat := time.Since(start)
	status := w.resp.StatusCode()
	if err == nil && status >= 200 && status <= 299 && sr.after != nil {
		sr.after(w.resp.Body())
	}
	if sr.release != nil {
		sr.release()
	}
	racing := fx.gen != w.s.resets.Load()
	c := classify(status, err, racing, sr.throttled, sr.fault)
	w.mu.Lock()
	w.cur.classes[c]++
	w.cur.lat.record(lat)
	w.mu.Unlock()
	if c >= class4xx && w.s.reported.Add(1) <= maxReported {
		w.s.log.Warn("unexpected answer", "op", op.name, "status", status, "err", err, "racing_reset", racing,
			"method", string(w.req.Header.Method()), "path", string(w.req.URI().Path()),
			"error_type", string(w.resp.Header.Peek("X-Amzn-Errortype")), "body", truncate(string(w.resp.Body()), 300))
	}
}

// maxReported is how many unexpected answers are logged.
const maxReported = 20

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// take returns what every worker recorded since the last take.
func (s *soaker) take() tally {
	var t tally
	for _, w := range s.workers {
		w.mu.Lock()
		t.add(&w.cur)
		w.cur = tally{}
		w.mu.Unlock()
	}
	return t
}

// refixture creates the fixtures of the current generation.
func (s *soaker) refixture() error {
	fx, err := setupSoakFixtures(s.addr, s.backend, s.fn, s.resets.Load())
	if err != nil {
		return err
	}
	s.fix.Store(fx)
	return nil
}

// reset starts a new generation, resets the emulator and re-creates the
// fixtures. Requests in flight meanwhile race it. A failed reset is
// recorded (the soak fails on it); a failed re-creation ends the soak.
func (s *soaker) reset() error {
	s.quiet.Lock()
	defer func() {
		s.resetEnd.Store(time.Now().UnixNano())
		s.quiet.Unlock()
	}()
	s.resets.Add(1)
	start := time.Now()
	err := call(s.addr, "POST", "/_emulator/reset", "", 200, nil)
	s.resetMu.Lock()
	s.resetTimes = append(s.resetTimes, time.Since(start))
	if err != nil {
		s.resetErrs = append(s.resetErrs, err)
	}
	s.resetMu.Unlock()
	if err != nil {
		s.log.Warn("reset failed", "err", err)
	}
	// Handles of the old queue would only be refused.
	for len(s.handles) > 0 {
		<-s.handles
	}
	if err := s.refixture(); err != nil {
		return fmt.Errorf("re-creating the fixtures after reset %d: %w", s.resets.Load(), err)
	}
	return nil
}

// closedLoop runs every worker back to back for warmup+d and returns the
// requests a second completed after warmup, and what they were.
func (s *soaker) closedLoop(ctx context.Context, warmup, d time.Duration) (float64, tally) {
	var wg sync.WaitGroup
	deadline := time.Now().Add(warmup + d)
	for _, w := range s.workers {
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(deadline) {
				w.one()
			}
		})
	}
	time.Sleep(warmup)
	s.take()
	start := time.Now()
	wg.Wait()
	t := s.take()
	return float64(t.requests()) / time.Since(start).Seconds(), t
}

// resetSettle is how long after a reset the sampler waits, at most a
// quarter of the sample interval.
const resetSettle = 500 * time.Millisecond

// quietRead runs read when no reset has run for settle, waiting 5 s at
// most for that.
func (s *soaker) quietRead(ctx context.Context, settle time.Duration, read func() error) error {
	for deadline := time.Now().Add(5 * time.Second); ; {
		s.quiet.Lock()
		if time.Since(time.Unix(0, s.resetEnd.Load())) >= settle || !time.Now().Before(deadline) || ctx.Err() != nil {
			defer s.quiet.Unlock()
			return read()
		}
		s.quiet.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
}

// emuProbe reads the emulator's process figures.
type emuProbe struct {
	pid    int
	addr   string
	hc     *fasthttp.HostClient
	exited func() bool
}

// debugRuntime is the part of /_emulator/debug/health a sample reads.
type debugRuntime struct {
	HeapAlloc, HeapLive uint64
	Goroutines          int
}

func parseDebugRuntime(status int, body []byte) (debugRuntime, error) {
	if status != fasthttp.StatusOK {
		return debugRuntime{}, fmt.Errorf("debug health: %d %.200s (is EMULATOR_DEBUG=true honoured?)", status, body)
	}
	var doc struct {
		Runtime struct {
			Goroutines *int `json:"goroutines"`
			Memory     struct {
				HeapAllocBytes *uint64 `json:"heapAllocBytes"`
				HeapLiveBytes  *uint64 `json:"heapLiveBytes"`
			} `json:"memory"`
		} `json:"runtime"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return debugRuntime{}, fmt.Errorf("debug health: %w", err)
	}
	m := doc.Runtime.Memory
	if m.HeapAllocBytes == nil || doc.Runtime.Goroutines == nil {
		return debugRuntime{}, errors.New("debug health: no runtime.memory.heapAllocBytes or runtime.goroutines")
	}
	r := debugRuntime{HeapAlloc: *m.HeapAllocBytes, Goroutines: *doc.Runtime.Goroutines}
	// An emulator without heapLiveBytes: the allocated heap, which swings
	// with the garbage between collections, is the closest figure.
	r.HeapLive = r.HeapAlloc
	if m.HeapLiveBytes != nil && *m.HeapLiveBytes > 0 {
		r.HeapLive = *m.HeapLiveBytes
	}
	return r, nil
}

func (p *emuProbe) read() (int64, debugRuntime, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("/_emulator/debug/health")
	req.SetHost(p.addr)
	if err := p.hc.DoTimeout(req, resp, requestTimeout); err != nil {
		return 0, debugRuntime{}, fmt.Errorf("debug health: %w", err)
	}
	rt, err := parseDebugRuntime(resp.StatusCode(), resp.Body())
	if err != nil {
		return 0, rt, err
	}
	rss, err := bench.ProcRSS(p.pid)
	return rss, rt, err
}

// soakRun is what a soak measured.
type soakRun struct {
	Samples    []soakSample
	Total      tally
	Missed     int64
	FnBusy     int64
	Elapsed    time.Duration
	Rate       float64
	FatalErr   error // what ended the soak early
	ResetEvery time.Duration
	// ProbeUnexpected counts the unexpected answers of -rate auto's
	// capacity burst.
	ProbeUnexpected int64
}

// run drives the mix at rate for d: a pacer hands out sends on schedule
// (open loop) to the workers through a queue of len(workers), counting as
// missed those that find it full; a sampler writes a row every interval;
// resets run every resetEvery.
func (s *soaker) run(ctx context.Context, probe *emuProbe, rate float64, d, interval, resetEvery time.Duration,
	row func(soakSample) error) soakRun {
	res := soakRun{Rate: rate, ResetEvery: resetEvery}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sends := make(chan struct{}, len(s.workers))
	var wg sync.WaitGroup
	for _, w := range s.workers {
		wg.Go(func() {
			for range sends {
				w.one()
			}
		})
	}
	start := time.Now()
	end := start.Add(d)
	var bg sync.WaitGroup
	if resetEvery > 0 {
		bg.Go(func() {
			// Half a sample off the sampler's ticks, so that a reset and a
			// sample seldom meet.
			next := start.Add(resetEvery + interval/2)
			t := time.NewTimer(time.Until(next))
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				if time.Until(end) < resetEvery/4 {
					return // too late for the fixtures to matter
				}
				if err := s.reset(); err != nil {
					cancel(err)
					return
				}
				for next = next.Add(resetEvery); time.Until(next) <= 0; next = next.Add(resetEvery) {
					// a reset longer than resetEvery: skip the missed ones
				}
				t.Reset(time.Until(next))
			}
		})
	}
	// The pacer.
	bg.Go(func() {
		defer close(sends)
		var issued int64
		timer := time.NewTimer(0)
		defer timer.Stop()
		for {
			now := time.Now()
			if !now.Before(end) || ctx.Err() != nil {
				return
			}
			due := int64(now.Sub(start).Seconds() * rate)
			for ; issued < due; issued++ {
				select {
				case sends <- struct{}{}:
				default:
					s.missed.Add(1)
				}
			}
			next := start.Add(time.Duration(float64(issued+1) / rate * float64(time.Second)))
			wait := min(max(time.Until(next), 200*time.Microsecond), 50*time.Millisecond)
			timer.Reset(wait)
			select {
			case <-ctx.Done():
			case <-timer.C:
			}
		}
	})
	// The sampler: rows at start+k*interval, and a last one once the
	// workers are done.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	last := start
	var lastMissed int64
	sampleAt := func(nominal time.Duration) error {
		now := time.Now()
		t := s.take()
		res.Total.add(&t)
		missed := s.missed.Load()
		smp := soakSample{Elapsed: nominal, Requests: t.requests(), Classes: t.classes, Missed: missed - lastMissed,
			P50: t.lat.quantile(0.50), P99: t.lat.quantile(0.99), Resets: int64(s.resets.Load())}
		lastMissed = missed
		if secs := now.Sub(last).Seconds(); secs > 0 {
			smp.RPS = float64(smp.Requests) / secs
		}
		last = now
		var rss int64
		var rt debugRuntime
		err := s.quietRead(ctx, min(resetSettle, interval/4), func() (err error) {
			rss, rt, err = probe.read()
			return err
		})
		if err != nil {
			if probe.exited() {
				err = fmt.Errorf("the emulator exited: %w", err)
			}
			return err
		}
		smp.RSS, smp.HeapAlloc, smp.HeapLive, smp.Goroutines = rss, rt.HeapAlloc, rt.HeapLive, rt.Goroutines
		res.Samples = append(res.Samples, smp)
		return row(smp)
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	// A row is labelled with the tick it was taken at; a tick missed while
	// a sample waited out a reset leaves no row.
	var lastNominal time.Duration
	for {
		select {
		case <-done:
			res.Elapsed = time.Since(start)
			cancel(nil)
			bg.Wait()
			nominal := min(res.Elapsed.Round(interval), d)
			if nominal <= lastNominal {
				nominal = lastNominal + interval
			}
			if context.Cause(ctx) != context.Canceled {
				res.FatalErr = context.Cause(ctx)
			}
			if err := sampleAt(nominal); err != nil && res.FatalErr == nil {
				res.FatalErr = err
			}
			res.Missed, res.FnBusy = s.missed.Load(), s.fnBusy.Load()
			return res
		case <-tick.C:
			nominal := time.Since(start).Round(interval)
			if nominal <= lastNominal || nominal >= d {
				continue // the last row waits for the workers to finish
			}
			lastNominal = nominal
			if err := sampleAt(nominal); err != nil {
				cancel(err)
			}
		}
	}
}

// soakBounds are the growth bounds of the verdict.
type soakBounds struct {
	MaxGrowth      float64 // percent
	MemSlack       float64 // bytes
	GoroutineSlack float64
}

// trendWindows are the windows whose means the verdict compares: the
// second minute and the last, or for a run shorter than 3 minutes its
// second and last thirds. Resets make memory a saw tooth; a window longer
// than the reset period is cut to a whole number of periods, so that both
// windows hold the same teeth. A sample at Elapsed t covers
// (t-interval, t]; it is in a window (from, to] when from < t <= to.
func trendWindows(total, resetEvery time.Duration) (second, last [2]time.Duration) {
	w := time.Minute
	if total < 3*time.Minute {
		w = total / 3
	}
	if resetEvery > 0 && w >= resetEvery {
		w = w / resetEvery * resetEvery
	}
	return [2]time.Duration{w, 2 * w}, [2]time.Duration{total - w, total}
}

// trend is one figure's means over the two windows.
type trend struct {
	Name         string
	Second, Last float64
	Bound        float64 // largest acceptable Last
	Unit         string  // "MiB" or ""
}

func (t trend) ok() bool { return t.Last <= t.Bound }

func (t trend) String() string {
	f := func(v float64) string {
		if t.Unit == "MiB" {
			return fmt.Sprintf("%.1f MiB", v/(1<<20))
		}
		return fmt.Sprintf("%.1f", v)
	}
	growth := 0.0
	if t.Second > 0 {
		growth = (t.Last - t.Second) / t.Second * 100
	}
	verdict := "ok"
	if !t.ok() {
		verdict = "GROWING"
	}
	return fmt.Sprintf("%s: %s in the second window, %s in the last (%+.1f%%; bound %s): %s", t.Name, f(t.Second), f(t.Last), growth, f(t.Bound), verdict)
}

// soakVerdict is the pass/fail decision and its reasons.
type soakVerdict struct {
	Trends  []trend
	Reasons []string // why it failed; empty when it passed
}

func (v soakVerdict) pass() bool { return len(v.Reasons) == 0 }

// judgeSoak decides: no unexpected answer, no failed reset, no fatal
// error, and RSS, live heap and goroutines of the last window within the
// bounds of the second's.
func judgeSoak(r soakRun, resetErrs int, b soakBounds) soakVerdict {
	var v soakVerdict
	if r.FatalErr != nil {
		v.Reasons = append(v.Reasons, "the soak ended early: "+r.FatalErr.Error())
	}
	for _, c := range []struct {
		class int
		what  string
	}{{class5xx, "unexpected 5xx"}, {class4xx, "unexpected 4xx (or other non-2xx)"}, {classTransport, "transport errors (timeouts, dropped connections)"}} {
		if n := r.Total.classes[c.class]; n > 0 {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%d %s", n, c.what))
		}
	}
	if r.ProbeUnexpected > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%d unexpected answers during the capacity burst", r.ProbeUnexpected))
	}
	if resetErrs > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%d failed resets", resetErrs))
	}
	if len(r.Samples) == 0 {
		return v
	}
	total := r.Samples[len(r.Samples)-1].Elapsed
	second, last := trendWindows(total, r.ResetEvery)
	mean := func(win [2]time.Duration, f func(soakSample) float64) (float64, int) {
		var sum float64
		var n int
		for _, s := range r.Samples {
			if s.Elapsed > win[0] && s.Elapsed <= win[1] {
				sum += f(s)
				n++
			}
		}
		if n == 0 {
			return 0, 0
		}
		return sum / float64(n), n
	}
	g := 1 + b.MaxGrowth/100
	for _, m := range []struct {
		name, unit string
		slack      float64
		f          func(soakSample) float64
	}{
		{"RSS", "MiB", b.MemSlack, func(s soakSample) float64 { return float64(s.RSS) }},
		{"live heap", "MiB", b.MemSlack, func(s soakSample) float64 { return float64(s.HeapLive) }},
		{"goroutines", "", b.GoroutineSlack, func(s soakSample) float64 { return float64(s.Goroutines) }},
	} {
		s, ns := mean(second, m.f)
		l, nl := mean(last, m.f)
		if ns == 0 || nl == 0 {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s: too few samples to compare the second window with the last: lengthen -duration or shorten -sample", m.name))
			continue
		}
		t := trend{Name: m.name, Second: s, Last: l, Bound: s*g + m.slack, Unit: m.unit}
		v.Trends = append(v.Trends, t)
		if !t.ok() {
			v.Reasons = append(v.Reasons, t.String())
		}
	}
	return v
}

var soakCSVHeader = []string{"elapsed_s", "requests", "rps", "ok", "expected", "unexpected_4xx", "unexpected_5xx",
	"transport_errors", "missed_sends", "p50_ms", "p99_ms", "rss_bytes", "heap_alloc_bytes", "heap_live_bytes", "goroutines", "resets"}

func soakCSVRow(s soakSample) []string {
	t := tally{classes: s.Classes}
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
	}
	return []string{
		strconv.FormatFloat(s.Elapsed.Seconds(), 'f', 1, 64),
		strconv.FormatInt(s.Requests, 10),
		strconv.FormatFloat(s.RPS, 'f', 1, 64),
		strconv.FormatInt(s.Classes[classOK], 10),
		strconv.FormatInt(t.expected(), 10),
		strconv.FormatInt(s.Classes[class4xx], 10),
		strconv.FormatInt(s.Classes[class5xx], 10),
		strconv.FormatInt(s.Classes[classTransport], 10),
		strconv.FormatInt(s.Missed, 10),
		ms(s.P50), ms(s.P99),
		strconv.FormatInt(s.RSS, 10),
		strconv.FormatUint(s.HeapAlloc, 10),
		strconv.FormatUint(s.HeapLive, 10),
		strconv.Itoa(s.Goroutines),
		strconv.FormatInt(s.Resets, 10),
	}
}

// soak runs "benchrun soak".
func (a *app) soak(ctx context.Context, args []string) error {
	var f soakFlags
	fs := newFlagSet("soak")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	rate, _ := f.parseRate()
	faults, err := parseFaults(f.faults)
	if err != nil {
		return fmt.Errorf("benchrun: %w", err)
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("benchrun: -out: %w", err)
	}
	csvPath, pngPath := filepath.Join(f.out, "soak.csv"), filepath.Join(f.out, "soak.png")

	backend, err := startSoakBackend()
	if err != nil {
		return fmt.Errorf("benchrun: soak: %w", err)
	}
	defer backend.close()
	var fn *soakFunction
	fnNote := "none (-function none)"
	if f.function == "auto" {
		if fn, err = findSoakFunction(); err != nil {
			return fmt.Errorf("benchrun: soak: %w", err)
		}
		fnNote = "none: neither python3 nor node is in PATH, so the mix has no function proxy requests"
		if fn != nil {
			fnNote = fn.note
		}
	}
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()
	env := append([]string{"EMULATOR_DEBUG=true", "EMULATOR_LAMBDA_MAX_CONCURRENCY=" + strconv.Itoa(2*soakFunctionPool)}, throttleEnv...)
	if _, set := os.LookupEnv("EMULATOR_LOG_LEVEL"); !set {
		// Injected faults are logged at info, one line each.
		env = append(env, "EMULATOR_LOG_LEVEL=warn")
	}
	c, addr, err := p.startEmulator("emulator", f.emulator, env)
	if err != nil {
		return err
	}
	if _, err := waitHealthy(ctx, c, addr, f.ready, time.Millisecond); err != nil {
		return fmt.Errorf("benchrun: soak: %w", err)
	}
	s := newSoaker(addr, backend.addr, fn, faults, f.conns, a.log)
	defer s.close()
	if err := s.refixture(); err != nil {
		return fmt.Errorf("benchrun: soak: fixtures: %w", err)
	}
	probe := &emuProbe{pid: c.pid(), addr: addr, exited: c.exited,
		hc: &fasthttp.HostClient{Addr: addr, MaxConns: 1, MaxIdleConnDuration: 10 * time.Second}}
	defer probe.hc.CloseIdleConnections()

	var b strings.Builder
	fmt.Fprintf(&b, "# benchrun soak: %s, %s %s/%s, %d CPUs; conns=%d duration=%s sample=%s reset-every=%s faults=%s\n",
		f.emulator, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), f.conns, f.duration, f.sample, f.resetEvery, faults)
	fmt.Fprintf(&b, "# mix (weights):")
	for _, op := range s.ops {
		fmt.Fprintf(&b, " %s %d", op.name, op.weight)
	}
	fmt.Fprintf(&b, "\n# function proxy: %s\n", fnNote)
	var probeUnexpected int64
	if rate == 0 {
		a.log.Info("measuring capacity", "closed_loop", f.probe, "conns", f.conns)
		capacity, t := s.closedLoop(ctx, time.Second, f.probe)
		if err := ctx.Err(); err != nil {
			return err
		}
		rate = capacity * f.fraction
		fmt.Fprintf(&b, "# capacity: %.0f requests/s closed-loop over %s (p50 %s, p99 %s; %d expected, %d unexpected 4xx, %d unexpected 5xx, %d transport errors); soaking at %.0f%% of it: %.0f/s\n",
			capacity, f.probe, latency(t.lat.quantile(0.5)), latency(t.lat.quantile(0.99)), t.expected(),
			t.classes[class4xx], t.classes[class5xx], t.classes[classTransport], f.fraction*100, rate)
		if n := t.classes[class4xx] + t.classes[class5xx] + t.classes[classTransport]; n > 0 {
			probeUnexpected = n
			fmt.Fprintf(&b, "# WARNING: %d unexpected answers during the capacity burst (see the log)\n", n)
		}
		// Start the soak from a fresh state.
		if err := s.reset(); err != nil {
			return fmt.Errorf("benchrun: soak: %w", err)
		}
		s.resetMu.Lock()
		s.resetTimes = s.resetTimes[:0]
		s.resetMu.Unlock()
	} else {
		fmt.Fprintf(&b, "# rate: %.0f requests/s (fixed)\n", rate)
	}
	if _, err := io.WriteString(a.stdout, b.String()); err != nil {
		return err
	}
	b.Reset()

	file, err := os.Create(csvPath)
	if err != nil {
		return fmt.Errorf("benchrun: soak: %w", err)
	}
	defer file.Close()
	cw := csv.NewWriter(file)
	if err := cw.Write(soakCSVHeader); err != nil {
		return err
	}
	a.log.Info("soaking", "rate", fmt.Sprintf("%.0f", rate), "duration", f.duration, "csv", csvPath)
	r := s.run(ctx, probe, rate, f.duration, f.sample, f.resetEvery, func(smp soakSample) error {
		a.log.Info("sample", "elapsed", smp.Elapsed, "rps", fmt.Sprintf("%.0f", smp.RPS),
			"unexpected", smp.Classes[class4xx]+smp.Classes[class5xx]+smp.Classes[classTransport],
			"rss_mib", fmt.Sprintf("%.1f", mib(smp.RSS)), "heap_live_mib", fmt.Sprintf("%.1f", mib(int64(smp.HeapLive))),
			"goroutines", smp.Goroutines)
		if err := cw.Write(soakCSVRow(smp)); err != nil {
			return err
		}
		cw.Flush()
		return cw.Error()
	})
	r.ProbeUnexpected = probeUnexpected
	if err := file.Close(); err != nil && r.FatalErr == nil {
		r.FatalErr = err
	}
	if ctx.Err() != nil && r.FatalErr == nil {
		// Interrupted: the chart and the summary of what ran still help.
		r.FatalErr = errors.New("interrupted")
	}
	s.resetMu.Lock()
	resetTimes, resetErrs := s.resetTimes, len(s.resetErrs)
	s.resetMu.Unlock()
	v := judgeSoak(r, resetErrs, soakBounds{MaxGrowth: f.maxGrowth, MemSlack: f.memSlackMiB * (1 << 20), GoroutineSlack: f.goroutineSlack})
	if err := plotSoak(pngPath, r.Samples, fmt.Sprintf("benchrun soak: %.0f req/s, %d conns, resets every %s", rate, f.conns, f.resetEvery)); err != nil {
		v.Reasons = append(v.Reasons, "chart: "+err.Error())
	}
	writeSoakSummary(&b, r, resetTimes, resetErrs, v, f.maxGrowth, csvPath, pngPath)
	if _, err := io.WriteString(a.stdout, b.String()); err != nil {
		return err
	}
	if !v.pass() {
		return errors.New("benchrun: soak: FAIL")
	}
	return nil
}

func writeSoakSummary(b *strings.Builder, r soakRun, resetTimes []time.Duration, resetErrs int, v soakVerdict,
	maxGrowth float64, csvPath, pngPath string) {
	t := r.Total
	n := t.requests()
	secs := r.Elapsed.Seconds()
	rps := 0.0
	if secs > 0 {
		rps = float64(n) / secs
	}
	fmt.Fprintf(b, "requests: %d in %s (%.0f/s against %.0f/s targeted), p50 %s, p99 %s; %d sends missed (every connection busy)\n",
		n, r.Elapsed.Round(time.Millisecond), rps, r.Rate, latency(t.lat.quantile(0.5)), latency(t.lat.quantile(0.99)), r.Missed)
	fmt.Fprintf(b, "answers: %d ok; expected %d (%d 4xx racing a reset, %d 429 of the throttled key, %d to injected faults); unexpected: %d 4xx, %d 5xx, %d transport errors\n",
		t.classes[classOK], t.expected(), t.classes[classRacing], t.classes[classThrottled], t.classes[classFault],
		t.classes[class4xx], t.classes[class5xx], t.classes[classTransport])
	if r.FnBusy > 0 {
		fmt.Fprintf(b, "function proxy: %d requests sent as ExecuteMock instead, %d invocations being in flight\n", r.FnBusy, soakFunctionPool)
	}
	var worst, sum time.Duration
	for _, d := range resetTimes {
		worst = max(worst, d)
		sum += d
	}
	if len(resetTimes) > 0 {
		fmt.Fprintf(b, "resets: %d (mean %s, slowest %s), %d failed\n", len(resetTimes),
			latency(sum/time.Duration(len(resetTimes))), latency(worst), resetErrs)
	} else {
		fmt.Fprintf(b, "resets: none\n")
	}
	if len(r.Samples) > 0 {
		second, last := trendWindows(r.Samples[len(r.Samples)-1].Elapsed, r.ResetEvery)
		fmt.Fprintf(b, "trend windows: second (%s, %s], last (%s, %s]; bound +%g%%\n", second[0], second[1], last[0], last[1], maxGrowth)
	}
	for _, tr := range v.Trends {
		fmt.Fprintln(b, tr.String())
	}
	if r.Missed > 0 && n > 0 && float64(r.Missed) > 0.01*float64(n) {
		fmt.Fprintf(b, "WARNING: %.1f%% of the sends were missed: the emulator did not keep up with -rate at -conns; the soak ran below its target rate\n",
			float64(r.Missed)/float64(n+r.Missed)*100)
	}
	fmt.Fprintf(b, "csv: %s\nchart: %s\n", csvPath, pngPath)
	if v.pass() {
		b.WriteString("PASS: no unexpected answer; RSS, live heap and goroutines flat\n")
		return
	}
	b.WriteString("FAIL:\n")
	for _, reason := range v.Reasons {
		fmt.Fprintf(b, "  - %s\n", reason)
	}
}
