package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/bench"
)

// overloadFlags are the flags of "benchrun overload".
type overloadFlags struct {
	emulator  string
	conns     int
	duration  time.Duration
	rate      float64
	burst     int64
	runs      int
	ready     time.Duration
	tolerance float64 // percent
}

// minOverload is the offered load, as a multiple of the plan's rate, at
// which the exactness target is stated.
const minOverload = 10

func (f *overloadFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` to start, once per run (required)")
	fs.IntVar(&f.conns, "conns", 64, "keep-alive connections, one goroutine each")
	fs.DurationVar(&f.duration, "duration", 10*time.Second, "measured window of each run (no warm-up)")
	fs.Float64Var(&f.rate, "rate", 2000, "the usage plan's throttle rateLimit, requests per second")
	fs.Int64Var(&f.burst, "burst", 1000, "the usage plan's throttle burstLimit")
	fs.IntVar(&f.runs, "runs", 3, "runs, each against a fresh emulator")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long an emulator may take to answer its health check")
	fs.Float64Var(&f.tolerance, "tolerance", 1, "largest acceptable |error|, in percent")
}

func (f *overloadFlags) check() error {
	switch {
	case f.emulator == "":
		return errors.New("benchrun: overload needs -emulator BIN")
	case f.runs < 1 || f.runs > 100:
		return fmt.Errorf("benchrun: -runs %d out of range 1..100", f.runs)
	case f.duration <= 0:
		return errors.New("benchrun: -duration must be positive")
	// The stage's and the account's limits are generousRate/generousBurst:
	// the plan's must stay well below, or they would bind first.
	case !(f.rate >= 0.01 && f.rate <= generousRate/10):
		return fmt.Errorf("benchrun: -rate %g out of range 0.01..%d", f.rate, generousRate/10)
	case f.burst < 1 || f.burst > generousBurst/2:
		return fmt.Errorf("benchrun: -burst %d out of range 1..%d", f.burst, generousBurst/2)
	case !(f.tolerance > 0):
		return errors.New("benchrun: -tolerance must be positive")
	}
	return nil // bench.Run checks the rest
}

// sendLog records, from bench.Target.Vary (called just before each send,
// from every worker), how many requests were sent and when the first and
// the last were, as offsets from base.
type sendLog struct {
	base        time.Time
	sent        atomic.Int64
	first, last atomic.Int64 // ns since base, +1 so that 0 is "none"
}

func (s *sendLog) vary(*fasthttp.Request) {
	now := int64(time.Since(s.base)) + 1
	s.sent.Add(1)
	s.first.CompareAndSwap(0, now)
	for {
		l := s.last.Load()
		if now <= l || s.last.CompareAndSwap(l, now) {
			return
		}
	}
}

// span is the time from the first send to the last.
func (s *sendLog) span() time.Duration {
	f, l := s.first.Load(), s.last.Load()
	if f == 0 || l < f {
		return 0
	}
	return time.Duration(l - f)
}

// serverCounts are what the emulator counted for the API, read from
// /_emulator/metrics and GetUsage after the run.
type serverCounts struct {
	Requests  int64 // every request to the API's routes, all statuses
	OK        int64 // 2xx
	Throttled int64 // emulator_apigateway_throttled_total
	QuotaUsed int64 // emulator_apigateway_usage_plan_used_requests of the key
	Usage     int64 // GetUsage: the key's used requests, summed over days
}

// overloadRun is one run's figures.
type overloadRun struct {
	Rate  float64
	Burst int64
	// Client side: responses that finished inside the window.
	Requests  int64
	OK        int64 // 200s: admitted
	Refused   int64 // 429s
	Other     int64 // any other status, and transport errors
	Elapsed   time.Duration
	P99, Max  time.Duration
	FirstErr  error
	Sent      int64         // every request sent, cut ones included
	Span      time.Duration // first send to last send
	Server    serverCounts
	ServerCPU float64 // cores
	GenCPU    float64 // cores
}

// expected is the ideal bucket's count under overload from full over
// elapsed: burst + rate × elapsed.
func expected(rate float64, burst int64, elapsed time.Duration) float64 {
	return float64(burst) + rate*elapsed.Seconds()
}

// errorPct is (got − want) / want in percent.
func errorPct(got int64, want float64) float64 {
	if want == 0 {
		return math.Inf(1)
	}
	return (float64(got) - want) / want * 100
}

// Offered is the client's rate of answered requests over the window.
func (r overloadRun) Offered() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// Overload is the offered load as a multiple of the plan's rate.
func (r overloadRun) Overload() float64 { return r.Offered() / r.Rate }

// ClientExpected is burst + rate × the client's window.
func (r overloadRun) ClientExpected() float64 { return expected(r.Rate, r.Burst, r.Elapsed) }

// ClientError compares the client's 200s with ClientExpected.
func (r overloadRun) ClientError() float64 { return errorPct(r.OK, r.ClientExpected()) }

// ServerExpected is burst + rate × (last send − first send): the span of
// the server's receive times, to within a send's transit time at each end.
func (r overloadRun) ServerExpected() float64 { return expected(r.Rate, r.Burst, r.Span) }

// ServerError compares the server's 2xx with ServerExpected.
func (r overloadRun) ServerError() float64 { return errorPct(r.Server.OK, r.ServerExpected()) }

// Cut is what the server admitted that the client did not count: requests
// in flight when the window closed (at most one per connection).
func (r overloadRun) Cut() int64 { return r.Server.OK - r.OK }

// overload measures how exactly a usage plan's throttle admits burst +
// rate × elapsed requests of one key under overload, over HTTP, against a
// fresh emulator each run.
func (a *app) overload(ctx context.Context, args []string) error {
	var f overloadFlags
	fs := newFlagSet("overload")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()

	fmt.Fprintf(a.stdout, "# benchrun overload: %s, %s %s/%s, %d CPUs, GOMAXPROCS=%d, conns=%d duration=%s rate=%g burst=%d runs=%d\n",
		f.emulator, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		f.conns, f.duration, f.rate, f.burst, f.runs)
	fmt.Fprintf(a.stdout, "# one key, one plan (throttle %g/s, burst %d); stage */* and account at %d/s, burst %d; enforcing; no warm-up (the key's bucket is full from the link on)\n",
		f.rate, f.burst, generousRate, generousBurst)
	var runs []overloadRun
	for i := 1; i <= f.runs; i++ {
		r, err := a.overloadOnce(ctx, p, &f, i)
		if err != nil {
			return fmt.Errorf("benchrun: overload run %d: %w", i, err)
		}
		runs = append(runs, r)
	}
	return writeOverload(a.stdout, runs, f.tolerance)
}

// overloadOnce starts an emulator, builds the keyed API, runs the load and
// reads the emulator's counts.
func (a *app) overloadOnce(ctx context.Context, p *procs, f *overloadFlags, run int) (overloadRun, error) {
	c, addr, err := p.startEmulator("emulator", f.emulator, throttleEnv)
	if err != nil {
		return overloadRun{}, err
	}
	defer p.stop(c)
	if _, err := waitHealthy(ctx, c, addr, f.ready, time.Millisecond); err != nil {
		return overloadRun{}, err
	}
	m, err := setupOverload(addr, f.rate, f.burst)
	if err != nil {
		return overloadRun{}, fmt.Errorf("setup: %w", err)
	}
	g0, gerr := bench.ProcCPU(os.Getpid())
	s0, serr := bench.ProcCPU(c.pid())
	r, err := loadOverload(ctx, addr, m, f.conns, f.duration, f.rate, f.burst)
	if err != nil {
		return r, err
	}
	g1, gerr1 := bench.ProcCPU(os.Getpid())
	s1, serr1 := bench.ProcCPU(c.pid())
	if err := errors.Join(gerr, serr, gerr1, serr1); err == nil && r.Elapsed > 0 {
		r.GenCPU = (g1 - g0).Seconds() / r.Elapsed.Seconds()
		r.ServerCPU = (s1 - s0).Seconds() / r.Elapsed.Seconds()
	}
	a.log.Info("run", "run", run, "offered", fmt.Sprintf("%.0f", r.Offered()), "admitted", r.OK, "refused", r.Refused,
		"other", r.Other, "server_2xx", r.Server.OK, "error_pct", fmt.Sprintf("%+.3f", r.ClientError()))
	if r.FirstErr != nil {
		a.log.Warn("transport errors", "run", run, "first", r.FirstErr)
	}
	return r, nil
}

// setupOverload deploys the keyed MOCK method with a plan of rate and
// burst and no quota, and links the key.
func setupOverload(addr string, rate float64, burst int64) (mockAPI, error) {
	m, err := deployMock(addr, "bench-overload", true)
	if err != nil {
		return m, err
	}
	return m, addKeyPlan(addr, &m, rate, burst, "")
}

// loadOverload drives m's method with its key for duration over conns
// connections and collects the client's and the server's counts.
func loadOverload(ctx context.Context, addr string, m mockAPI, conns int, duration time.Duration,
	rate float64, burst int64) (overloadRun, error) {
	r := overloadRun{Rate: rate, Burst: burst}
	day := time.Now().UTC()
	sends := &sendLog{base: time.Now()}
	res, err := bench.Run(ctx, bench.Target{
		Name: "overload",
		Addr: addr,
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(m.Path)
			req.Header.Set("x-api-key", m.KeyValue)
		},
		Vary: sends.vary,
	}, bench.Options{Conns: conns, Duration: duration})
	if err != nil {
		return r, err
	}
	r.Requests, r.Elapsed, r.P99, r.Max, r.FirstErr = res.Requests, res.Elapsed, res.P99, res.Max, res.FirstError
	r.OK = res.Statuses[200]
	r.Refused = res.Statuses[429]
	r.Other = res.Requests - r.OK - r.Refused + res.TransportErrors
	r.Sent, r.Span = sends.sent.Load(), sends.span()
	r.Server, err = readServerCounts(ctx, addr, m, day, r.Sent)
	return r, err
}

// readServerCounts reads the emulator's counts for m once they have
// settled: the metrics are recorded as a request ends, possibly just after
// the client has its answer, so they are read until they count every
// request sent (or, bounded, stop changing).
func readServerCounts(ctx context.Context, addr string, m mockAPI, from time.Time, sent int64) (serverCounts, error) {
	var sc serverCounts
	var prev int64 = -1
	for range 40 {
		b, err := get200(addr, "/_emulator/metrics")
		if err != nil {
			return sc, err
		}
		if sc, err = parseServerCounts(b, m); err != nil {
			return sc, err
		}
		if sc.Requests >= sent || sc.Requests == prev {
			break
		}
		prev = sc.Requests
		select {
		case <-ctx.Done():
			return sc, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	b, err := get200(addr, "/usageplans/"+m.PlanID+"/usage?keyId="+m.KeyID+
		"&startDate="+from.Format(time.DateOnly)+"&endDate="+time.Now().UTC().Format(time.DateOnly))
	if err != nil {
		return sc, err
	}
	sc.Usage, err = parseUsage(b, m.KeyID)
	return sc, err
}

// get200 returns the reply to a GET of path, which must be 200.
func get200(addr, path string) ([]byte, error) {
	var b []byte
	err := call(addr, fasthttp.MethodGet, path, "", fasthttp.StatusOK, &b)
	return b, err
}

// parseServerCounts sums, in a /_emulator/metrics exposition, the series
// of m's API (by name) and the usage of m's key under m's plan.
func parseServerCounts(b []byte, m mockAPI) (serverCounts, error) {
	var sc serverCounts
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		return sc, fmt.Errorf("metrics: %w", err)
	}
	for _, x := range mfs["emulator_apigateway_requests_total"].GetMetric() {
		if label(x, "api") != m.Name {
			continue
		}
		n := int64(x.GetCounter().GetValue())
		sc.Requests += n
		if label(x, "status_class") == "2xx" {
			sc.OK += n
		}
	}
	for _, x := range mfs["emulator_apigateway_throttled_total"].GetMetric() {
		if label(x, "api") == m.Name {
			sc.Throttled += int64(x.GetCounter().GetValue())
		}
	}
	for _, x := range mfs["emulator_apigateway_usage_plan_used_requests"].GetMetric() {
		if label(x, "plan") == m.PlanID && label(x, "key") == m.KeyID {
			sc.QuotaUsed += int64(x.GetGauge().GetValue())
		}
	}
	return sc, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// parseUsage sums a GetUsage reply's used requests of key over its days.
// On the wire the per-key map is "values" (the SDK's Items).
func parseUsage(b []byte, key string) (int64, error) {
	var u struct {
		Values map[string][][2]int64 `json:"values"`
	}
	if err := json.Unmarshal(b, &u); err != nil {
		return 0, fmt.Errorf("usage: %w", err)
	}
	days, ok := u.Values[key]
	if !ok {
		return 0, fmt.Errorf("usage: no key %s in %s", key, b)
	}
	var n int64
	for _, d := range days {
		n += d[0]
	}
	return n, nil
}

// writeOverload prints one line per run, the medians and the verdict, and
// returns an error when the verdict is FAIL.
func writeOverload(w io.Writer, runs []overloadRun, tolerance float64) error {
	var b strings.Builder
	b.WriteString("# client: responses that finished inside the window; expected = burst + rate × window\n")
	b.WriteString("# server: the emulator's own 2xx for the API (/_emulator/metrics), all requests sent; expected = burst + rate × (last send − first send)\n")
	b.WriteString("# cut = server 2xx − client 200: admitted while in flight at the window's end (at most conns)\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\toffered/s\tx rate\t200\t429\tother\telapsed\texpected\terror\tsrv 2xx\tsrv 429\tquota used\tGetUsage\tspan\texpected\terror\tcut\tp99\tmax\tsrv cpu\tgen cpu\t")
	var offered, over, cerr, serr []float64
	worst := 0.0
	for i, r := range runs {
		fmt.Fprintf(tw, "%d\t%.0f\t%.1fx\t%d\t%d\t%d\t%s\t%.0f\t%+.3f%%\t%d\t%d\t%d\t%d\t%s\t%.0f\t%+.3f%%\t%d\t%s\t%s\t%.2f\t%.2f\t\n",
			i+1, r.Offered(), r.Overload(), r.OK, r.Refused, r.Other, r.Elapsed.Round(time.Microsecond), r.ClientExpected(),
			r.ClientError(), r.Server.OK, r.Server.Throttled, r.Server.QuotaUsed, r.Server.Usage,
			r.Span.Round(time.Microsecond), r.ServerExpected(), r.ServerError(), r.Cut(),
			latency(r.P99), latency(r.Max), r.ServerCPU, r.GenCPU)
		offered = append(offered, r.Offered())
		over = append(over, r.Overload())
		cerr = append(cerr, r.ClientError())
		serr = append(serr, r.ServerError())
		worst = max(worst, math.Abs(r.ClientError()), math.Abs(r.ServerError()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	mo, mc, ms := bench.Median(over), bench.Median(cerr), bench.Median(serr)
	fmt.Fprintf(&b, "median of %d: offered %.0f req/s (%.1fx the rate), error %+.3f%% (client), %+.3f%% (server); worst run |error| %.3f%%\n",
		len(runs), bench.Median(offered), mo, mc, ms, worst)
	var notes []string
	for i, r := range runs {
		if r.Other > 0 {
			notes = append(notes, fmt.Sprintf("run %d: %d answers neither 200 nor 429 (first transport error: %v)", i+1, r.Other, r.FirstErr))
		}
		if n := r.Server.OK; n != r.Server.QuotaUsed || n != r.Server.Usage {
			notes = append(notes, fmt.Sprintf("run %d: the server's counts disagree: 2xx %d, quota used %d, GetUsage %d", i+1, n, r.Server.QuotaUsed, r.Server.Usage))
		}
		if c := r.Cut(); c < 0 || c > r.Sent-r.Requests {
			notes = append(notes, fmt.Sprintf("run %d: cut %d outside 0..%d (requests sent but not counted)", i+1, c, r.Sent-r.Requests))
		}
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "NOTE: %s\n", n)
	}
	pass := math.Abs(mc) <= tolerance && math.Abs(ms) <= tolerance
	if mo < minOverload {
		fmt.Fprintf(&b, "WARNING: the offered load is only %.1fx the rate, below the %dx the target is stated at: raise -conns or lower -rate\n", mo, minOverload)
	}
	verdict := "PASS"
	if !pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "%s: median |error| %.3f%% (client), %.3f%% (server) against %g%%, at %.1fx overload", verdict, math.Abs(mc), math.Abs(ms), tolerance, mo)
	if mo < minOverload {
		fmt.Fprintf(&b, " (NOT the %dx the target asks for)", minOverload)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if !pass {
		return errors.New("benchrun: overload: FAIL")
	}
	return nil
}

// latency prints d in µs below a millisecond, else in ms.
func latency(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}
