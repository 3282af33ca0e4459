package bench

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// startBare runs ServeBare on 127.0.0.1:0 for the length of the test.
func startBare(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := ServeBare(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := s.ShutdownWithContext(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return ln.Addr().String()
}

func getPath(path string) func(*fasthttp.Request) {
	return func(req *fasthttp.Request) {
		req.Header.SetMethod(fasthttp.MethodGet)
		req.SetRequestURI(path)
	}
}

func TestRunAgainstBare(t *testing.T) {
	addr := startBare(t)
	_, port, _ := net.SplitHostPort(addr)
	tests := []struct {
		name string
		addr string
		opts Options
		want int64
	}{
		{name: "conns=8/max=2000", addr: addr, opts: Options{Conns: 8, MaxRequests: 2000, Duration: 5 * time.Second}, want: 2000},
		{name: "conns=1/max=300/warmup", addr: addr, opts: Options{Conns: 1, MaxRequests: 300, Warmup: 50 * time.Millisecond}, want: 300},
		{name: "conns=3/max=1000/localhost", addr: net.JoinHostPort("localhost", port), opts: Options{Conns: 3, MaxRequests: 1000}, want: 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := Run(ctx, Target{Name: tc.name, Addr: tc.addr, Build: getPath("/anything")}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Errors() != 0 {
				t.Fatalf("errors: transport=%d non2xx=%d first=%v", res.TransportErrors, res.Non2xx, res.FirstError)
			}
			if res.Requests != tc.want || res.Statuses[200] != tc.want {
				t.Fatalf("requests=%d statuses=%v, want %d", res.Requests, res.Statuses, tc.want)
			}
			if res.RPS <= 0 || res.Elapsed <= 0 || res.P50 <= 0 || res.P50 > res.P99 || res.P99 > res.Max {
				t.Fatalf("implausible figures: %+v", res)
			}
		})
	}
}

func TestRunStopsAtDuration(t *testing.T) {
	addr := startBare(t)
	start := time.Now()
	res, err := Run(context.Background(), Target{Name: "d", Addr: addr, Build: getPath("/")},
		Options{Conns: 2, Duration: 200 * time.Millisecond, Warmup: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Elapsed != 200*time.Millisecond {
		t.Errorf("elapsed %s, want exactly the window", res.Elapsed)
	}
	// Generous: the machine may be shared; the point is "not unbounded".
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("run took %s", took)
	}
	if res.Requests == 0 || res.Errors() != 0 {
		t.Errorf("requests=%d errors=%d", res.Requests, res.Errors())
	}
}

func TestRunCountsNon2xx(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		if string(ctx.Path()) == "/missing" {
			ctx.SetStatusCode(fasthttp.StatusNotFound)
		}
	}}
	go s.Serve(ln) //nolint:errcheck // Shutdown below ends it
	defer s.Shutdown()
	res, err := Run(context.Background(), Target{Addr: ln.Addr().String(), Build: getPath("/missing")},
		Options{Conns: 2, MaxRequests: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Non2xx != 100 || res.Statuses[404] != 100 || res.TransportErrors != 0 || res.Requests != 100 {
		t.Fatalf("got %+v", res)
	}
}

func TestRunTransportErrors(t *testing.T) {
	// A port that was just free: connecting is refused at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res, err := Run(context.Background(), Target{Addr: addr, Build: getPath("/")},
		Options{Conns: 1, MaxRequests: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.TransportErrors != 5 || res.Requests != 0 || res.FirstError == nil {
		t.Fatalf("got %+v", res)
	}
}

func TestRunRefuses(t *testing.T) {
	build := getPath("/")
	tests := []struct {
		name string
		addr string
		opts Options
		want error // nil: any error will do
	}{
		{name: "addr=private-ip", addr: "10.1.2.3:80", want: ErrNotLoopback},
		{name: "addr=public-name", addr: "example.com:80", want: ErrNotLoopback},
		{name: "addr=unresolvable", addr: "no-such-host.invalid:80", want: ErrNotLoopback},
		{name: "addr=empty-host", addr: ":80", want: ErrNotLoopback},
		{name: "addr=no-port", addr: "127.0.0.1", want: ErrNotLoopback},
		{name: "addr=unspecified", addr: "0.0.0.0:80", want: ErrNotLoopback},
		{name: "addr=mapped-public", addr: "[::ffff:8.8.8.8]:80", want: ErrNotLoopback},
		{name: "opts=no-bound", addr: "127.0.0.1:1", opts: Options{Conns: 1}},
		{name: "opts=no-conns", addr: "127.0.0.1:1", opts: Options{MaxRequests: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if opts == (Options{}) {
				opts = Options{Conns: 1, MaxRequests: 1}
			}
			start := time.Now()
			res, err := Run(context.Background(), Target{Addr: tc.addr, Build: build}, opts)
			if err == nil {
				t.Fatalf("accepted %q: %+v", tc.addr, res)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if res.Requests != 0 || res.TransportErrors != 0 {
				t.Fatalf("sent traffic: %+v", res)
			}
			if took := time.Since(start); took > resolveTimeout+time.Second {
				t.Errorf("refusal took %s", took)
			}
		})
	}
}

func TestLoopbackAddr(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "v4", in: "127.0.0.1:80", want: "127.0.0.1:80"},
		{name: "v4-other", in: "127.9.8.7:80", want: "127.9.8.7:80"},
		{name: "v6", in: "[::1]:80", want: "[::1]:80"},
		{name: "v4-mapped", in: "[::ffff:127.0.0.1]:80", want: "127.0.0.1:80"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := loopbackAddr(context.Background(), tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("loopbackAddr(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestHistogram(t *testing.T) {
	const us = uint64(time.Microsecond)
	uniform := func(n uint64) []uint64 {
		var v []uint64
		for i := uint64(1); i <= n; i++ {
			v = append(v, i*us)
		}
		return v
	}
	tests := []struct {
		name   string
		values []uint64
		q      float64
		want   uint64
	}{
		{name: "empty", q: 0.5, want: 0},
		{name: "one", values: []uint64{42}, q: 0.99, want: 42},
		{name: "small-exact/p50", values: []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, q: 0.5, want: 5},
		{name: "small-exact/p90", values: []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, q: 0.9, want: 9},
		{name: "uniform-1000us/p50", values: uniform(1000), q: 0.5, want: 500 * us},
		{name: "uniform-1000us/p90", values: uniform(1000), q: 0.9, want: 900 * us},
		{name: "uniform-1000us/p99", values: uniform(1000), q: 0.99, want: 990 * us},
		{name: "uniform-1000us/p100", values: uniform(1000), q: 1, want: 1000 * us},
		{name: "outlier/p99", values: append(uniform(99), uint64(time.Second)), q: 0.99, want: 99 * us},
		{name: "outlier/max", values: append(uniform(99), uint64(time.Second)), q: 1, want: uint64(time.Second)},
		{name: "huge", values: []uint64{math.MaxUint64}, q: 0.5, want: math.MaxUint64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Split the values over two histograms to exercise merge too.
			var a, b histogram
			for i, v := range tc.values {
				if i%2 == 0 {
					a.record(v)
				} else {
					b.record(v)
				}
			}
			a.merge(&b)
			got := a.quantile(tc.q)
			if tol := float64(tc.want) / histSub; math.Abs(float64(got)-float64(tc.want)) > tol {
				t.Fatalf("quantile(%v) = %d, want %d ± %.0f", tc.q, got, tc.want, tol)
			}
			if a.total != uint64(len(tc.values)) {
				t.Fatalf("total = %d", a.total)
			}
		})
	}
}

func TestHistBuckets(t *testing.T) {
	// Every bucket's bounds map back to it, and buckets tile the range.
	var next uint64
	for i := range histBuckets {
		lo, hi := histBounds(i)
		if lo != next || histIndex(lo) != i || histIndex(hi) != i || hi < lo {
			t.Fatalf("bucket %d: [%d,%d], next %d, index(lo)=%d index(hi)=%d", i, lo, hi, next, histIndex(lo), histIndex(hi))
		}
		next = hi + 1
	}
	if next != 0 {
		t.Fatalf("buckets end at %d, want wrap to 0 after MaxUint64", next)
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{name: "empty", want: 0},
		{name: "one", in: []float64{3}, want: 3},
		{name: "odd", in: []float64{5, 1, 3}, want: 3},
		{name: "even", in: []float64{4, 1, 3, 2}, want: 2.5},
		{name: "dupes", in: []float64{7, 7, 1}, want: 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := append([]float64(nil), tc.in...)
			if got := Median(tc.in); got != tc.want {
				t.Fatalf("Median(%v) = %v, want %v", tc.in, got, tc.want)
			}
			for i := range orig {
				if orig[i] != tc.in[i] {
					t.Fatalf("Median reordered its input")
				}
			}
		})
	}
}

func TestTable(t *testing.T) {
	tab := Table{Baseline: "bare"}
	tab.Add(Summarize("bare", []Result{{RPS: 100, P50: time.Millisecond}, {RPS: 300}, {RPS: 200}}))
	tab.Add(Row{Name: "slow", Runs: 1, RPS: 50, Errors: 2})
	tab.Add(Row{Name: "skipped", Note: "no -emulator"})
	tab.Add(Row{Name: "op", Runs: 1, RPS: 400, Baseline: "op@peer"})
	tab.Add(Row{Name: "op@peer", Runs: 1, RPS: 100, Baseline: "op@peer"})
	var buf bytes.Buffer
	if _, err := tab.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"ratio", "1.00x", "0.25x", "200", "# skipped: no -emulator", "4.00x", "# op: ratio against op@peer"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// A row that is its own baseline gets 1.00x and no note.
	if strings.Contains(out, "# op@peer:") {
		t.Errorf("note for a row that is its own baseline:\n%s", out)
	}
}

func TestProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	rss, err := ProcRSS(os.Getpid())
	if err != nil || rss < 1<<20 {
		t.Fatalf("ProcRSS = %d, %v", rss, err)
	}
	if _, err := ProcCPU(os.Getpid()); err != nil {
		t.Fatalf("ProcCPU: %v", err)
	}
	if _, err := ProcRSS(-1); err == nil {
		t.Fatal("ProcRSS(-1) succeeded")
	}
}

func TestWaitHTTP(t *testing.T) {
	addr := startBare(t)
	tests := []struct {
		name    string
		addr    string
		wantErr bool
	}{
		{name: "up", addr: addr},
		{name: "not-loopback", addr: "10.1.2.3:80", wantErr: true},
		{name: "down", addr: "127.0.0.1:1", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			d, err := WaitHTTP(ctx, tc.addr, "/_emulator/health", time.Millisecond)
			if (err != nil) != tc.wantErr {
				t.Fatalf("WaitHTTP = %s, %v", d, err)
			}
		})
	}
}

func TestRunStep(t *testing.T) {
	addr := startBare(t)
	refused := errors.New("refused")
	tests := []struct {
		name string
		// outcome of the n-th step (from 1) after its two requests
		outcome            func(n int64) (int, error)
		requests, empty    int64
		non2xx, transports int64
	}{
		{name: "pairs", outcome: func(int64) (int, error) { return 200, nil }, requests: 300},
		{name: "every third empty", outcome: func(n int64) (int, error) {
			if n%3 == 0 {
				return 200, ErrEmpty
			}
			return 200, nil
		}, requests: 200, empty: 100},
		{name: "every third refused", outcome: func(n int64) (int, error) {
			if n%3 == 0 {
				return 503, nil
			}
			return 200, nil
		}, requests: 300, non2xx: 100},
		{name: "every third transport error", outcome: func(n int64) (int, error) {
			if n%3 == 0 {
				return 0, refused
			}
			return 200, nil
		}, requests: 200, transports: 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var steps, sent atomic.Int64
			step := func(c Doer, req *fasthttp.Request, resp *fasthttp.Response) (int, error) {
				for range 2 {
					if err := c.Do(req, resp); err != nil {
						return 0, err
					}
					sent.Add(1)
				}
				return tc.outcome(steps.Add(1))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := Run(ctx, Target{Addr: addr, Build: getPath("/"), Step: step}, Options{Conns: 2, MaxRequests: 300})
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests != tc.requests || res.Empty != tc.empty || res.Non2xx != tc.non2xx || res.TransportErrors != tc.transports {
				t.Fatalf("requests %d empty %d non2xx %d transport %d; want %d %d %d %d", res.Requests, res.Empty,
					res.Non2xx, res.TransportErrors, tc.requests, tc.empty, tc.non2xx, tc.transports)
			}
			if steps.Load() != 300 || sent.Load() != 600 {
				t.Fatalf("%d steps, %d requests sent; want 300, 600", steps.Load(), sent.Load())
			}
			if res.Statuses[200] != tc.requests-tc.non2xx || res.Statuses[503] != tc.non2xx {
				t.Fatalf("statuses %v", res.Statuses)
			}
		})
	}
}
