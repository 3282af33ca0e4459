package main

import (
	"bytes"
	"context"
	"math"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/bench"
	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server"
	"github.com/cloudemu/emulator/server/servertest"
)

// realEnv makes the test binary, started with no subcommand, play the
// real emulator (configured by its EMULATOR_* environment), so that
// "benchrun overload" can run end to end without a built binary.
const realEnv = "BENCHRUN_REAL_EMULATOR"

// realEmulatorMain serves the emulator until SIGTERM.
func realEmulatorMain() int {
	cfg, err := config.FromEnv(os.LookupEnv)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	em, err := server.Open(cfg, servertest.Logger())
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	go func() { _ = em.Serve(ln) }()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := em.Shutdown(sctx); err != nil {
		return 1
	}
	return 0
}

func TestExpectedAndError(t *testing.T) {
	if got := expected(2000, 1000, 10*time.Second); got != 21000 {
		t.Errorf("expected = %v, want 21000", got)
	}
	if got := expected(0.5, 3, 1500*time.Millisecond); got != 3.75 {
		t.Errorf("expected = %v, want 3.75", got)
	}
	tests := []struct {
		got  int64
		want float64
		pct  float64
	}{
		{21000, 21000, 0},
		{21210, 21000, 1},
		{20790, 21000, -1},
		{1, 0, math.Inf(1)},
	}
	for _, tc := range tests {
		if p := errorPct(tc.got, tc.want); math.Abs(p-tc.pct) > 1e-9 && p != tc.pct {
			t.Errorf("errorPct(%d, %v) = %v, want %v", tc.got, tc.want, p, tc.pct)
		}
	}
}

// sampleRun is a run at 30x overload, 4 requests cut at the end.
func sampleRun() overloadRun {
	return overloadRun{
		Rate: 2000, Burst: 1000,
		Requests: 600000, OK: 20996, Refused: 579004,
		Elapsed: 10 * time.Second,
		Sent:    600064, Span: 9999500 * time.Microsecond,
		Server: serverCounts{Requests: 600064, OK: 21000, Throttled: 579064, QuotaUsed: 21000, Usage: 21000},
	}
}

func TestOverloadRunFigures(t *testing.T) {
	r := sampleRun()
	if got := r.Offered(); got != 60000 {
		t.Errorf("Offered = %v", got)
	}
	if got := r.Overload(); got != 30 {
		t.Errorf("Overload = %v", got)
	}
	if got := r.ClientExpected(); got != 21000 {
		t.Errorf("ClientExpected = %v", got)
	}
	if got, want := r.ClientError(), -4.0/21000*100; math.Abs(got-want) > 1e-9 {
		t.Errorf("ClientError = %v, want %v", got, want)
	}
	if got := r.ServerExpected(); math.Abs(got-20999) > 1e-6 {
		t.Errorf("ServerExpected = %v, want 20999", got)
	}
	if got, want := r.ServerError(), 1.0/20999*100; math.Abs(got-want) > 1e-9 {
		t.Errorf("ServerError = %v, want %v", got, want)
	}
	if got := r.Cut(); got != 4 {
		t.Errorf("Cut = %v", got)
	}
}

func TestWriteOverload(t *testing.T) {
	good := sampleRun()
	slow := sampleRun() // 5x overload
	slow.Requests, slow.Refused = 100000, 100000-20996
	bad := sampleRun() // 2% over
	bad.OK, bad.Server.OK, bad.Server.QuotaUsed, bad.Server.Usage = 21420, 21424, 21424, 21424
	odd := sampleRun()
	odd.Other, odd.Server.Usage = 3, 20000
	tests := []struct {
		name string
		runs []overloadRun
		fail bool
		want []string
		not  []string
	}{
		{name: "pass", runs: []overloadRun{good, good, good},
			want: []string{"median of 3: offered 60000 req/s (30.0x the rate)", "PASS: median |error| 0.019% (client), 0.005% (server) against 1%, at 30.0x overload\n"},
			not:  []string{"WARNING", "NOTE"}},
		{name: "fail", runs: []overloadRun{bad, good, bad}, fail: true,
			want: []string{"FAIL: median |error| 2.000% (client)", "+2.000%"}},
		{name: "underloaded", runs: []overloadRun{slow},
			want: []string{"WARNING: the offered load is only 5.0x the rate", "PASS:", "(NOT the 10x the target asks for)"}},
		{name: "notes", runs: []overloadRun{odd},
			want: []string{"NOTE: run 1: 3 answers neither 200 nor 429", "NOTE: run 1: the server's counts disagree: 2xx 21000, quota used 21000, GetUsage 20000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := writeOverload(&out, tc.runs, 1)
			if (err != nil) != tc.fail {
				t.Errorf("writeOverload = %v, want failure %v", err, tc.fail)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("no %q in:\n%s", w, out.String())
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out.String(), w) {
					t.Errorf("%q in:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestSendLog(t *testing.T) {
	s := &sendLog{base: time.Now()}
	if s.span() != 0 {
		t.Fatalf("span of nothing = %s", s.span())
	}
	s.vary(nil)
	time.Sleep(5 * time.Millisecond)
	s.vary(nil)
	s.vary(nil)
	if n := s.sent.Load(); n != 3 {
		t.Errorf("sent = %d", n)
	}
	if d := s.span(); d < 5*time.Millisecond || d > time.Second {
		t.Errorf("span = %s", d)
	}
}

func TestParseServerCounts(t *testing.T) {
	const text = `# TYPE emulator_apigateway_requests_total counter
emulator_apigateway_requests_total{account="000000000000",api="bench-overload",kind="rest",method="GET",region="us-east-1",route="/pets/{proxy}",stage="dev",status_class="2xx"} 21000
emulator_apigateway_requests_total{account="000000000000",api="bench-overload",kind="rest",method="GET",region="us-east-1",route="/pets/{proxy}",stage="dev",status_class="4xx"} 579064
emulator_apigateway_requests_total{account="000000000000",api="other",kind="rest",method="GET",region="us-east-1",route="/x",stage="dev",status_class="2xx"} 7
# TYPE emulator_apigateway_throttled_total counter
emulator_apigateway_throttled_total{account="000000000000",api="bench-overload",kind="rest",method="GET",region="us-east-1",route="/pets/{proxy}",stage="dev"} 579064
# TYPE emulator_apigateway_usage_plan_used_requests gauge
emulator_apigateway_usage_plan_used_requests{account="000000000000",key="k1",plan="p1",region="us-east-1"} 21000
emulator_apigateway_usage_plan_used_requests{account="000000000000",key="k2",plan="p1",region="us-east-1"} 5
`
	sc, err := parseServerCounts([]byte(text), mockAPI{Name: "bench-overload", KeyID: "k1", PlanID: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	want := serverCounts{Requests: 600064, OK: 21000, Throttled: 579064, QuotaUsed: 21000}
	if sc != want {
		t.Errorf("counts = %+v, want %+v", sc, want)
	}
	n, err := parseUsage([]byte(`{"usagePlanId":"p1","startDate":"2026-11-24","endDate":"2026-11-25","values":{"k1":[[20,80],[21000,0]]}}`), "k1")
	if err != nil || n != 21020 {
		t.Errorf("parseUsage = %d, %v", n, err)
	}
	if _, err := parseUsage([]byte(`{"values":{}}`), "k1"); err == nil {
		t.Error("parseUsage of no key: no error")
	}
}

func TestOverloadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-emulator", "x", "-runs", "0"},
		{"-emulator", "x", "-rate", "200000"},
		{"-emulator", "x", "-rate", "0"},
		{"-emulator", "x", "-burst", "60000"},
		{"-emulator", "x", "-duration", "0s"},
	} {
		a := newTestApp(t, &bytes.Buffer{}, nil)
		if err := a.overload(context.Background(), args); err == nil {
			t.Errorf("overload %q: no error", args)
		}
	}
}

// generousConfig is throttleEnv as a test server's configuration.
func generousConfig(c *config.Config) {
	c.EnforceGatewayThrottle = true
	c.AccountThrottleRate, c.AccountThrottleBurst = generousRate, generousBurst
}

func TestLoadOverloadInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("a second of load")
	}
	srv := servertest.Start(t, servertest.WithConfig(generousConfig))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const rate, burst = 500, 100
	m, err := setupOverload(srv.Addr, rate, burst)
	if err != nil {
		t.Fatal(err)
	}
	r, err := loadOverload(ctx, srv.Addr, m, 8, time.Second, rate, burst)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("offered %.0f/s (%.1fx), 200 %d, 429 %d, other %d; server 2xx %d, 429 %d, quota %d, usage %d; span %s; errors %+.2f%% %+.2f%%",
		r.Offered(), r.Overload(), r.OK, r.Refused, r.Other, r.Server.OK, r.Server.Throttled, r.Server.QuotaUsed, r.Server.Usage,
		r.Span, r.ClientError(), r.ServerError())
	if r.Other != 0 || r.Refused == 0 {
		t.Fatalf("want only 200s and 429s, some 429s: %+v", r)
	}
	// The server's three counts of the key are the same count.
	if r.Server.OK != r.Server.QuotaUsed || r.Server.OK != r.Server.Usage {
		t.Errorf("server counts disagree: %+v", r.Server)
	}
	// Every request sent reached the server; the client counted all but
	// those in flight at the end.
	if r.Server.Requests != r.Sent || r.Cut() < 0 || r.Cut() > 8 {
		t.Errorf("sent %d, server saw %d, cut %d", r.Sent, r.Server.Requests, r.Cut())
	}
	if r.Server.Throttled < r.Refused {
		t.Errorf("server throttled %d < client 429s %d", r.Server.Throttled, r.Refused)
	}
	// Generous: a loaded machine (or -race) delays the first request's
	// arrival after its send, which the expectation does not see.
	if e := r.ServerError(); math.Abs(e) > 5 {
		t.Errorf("server error %+.2f%%", e)
	}
}

func TestOverloadCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two emulators")
	}
	t.Setenv(realEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := a.overload(ctx, []string{"-emulator", self, "-conns", "4", "-duration", "500ms", "-rate", "400", "-burst", "50",
		"-runs", "2", "-tolerance", "5"})
	if err != nil {
		t.Fatalf("overload: %v\n%s", err, out.String())
	}
	for _, w := range []string{"median of 2:", "PASS:"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("no %q in:\n%s", w, out.String())
		}
	}
	if strings.Contains(out.String(), "NOTE") {
		t.Errorf("notes:\n%s", out.String())
	}
	t.Log("\n" + out.String())
}

func TestMockScenariosUnderEnforcement(t *testing.T) {
	// ExecuteMockOpen and ExecuteMockKeyed run with throttleEnv in compare;
	// here with the same configuration in process: neither is refused.
	srv := servertest.Start(t, servertest.WithConfig(generousConfig))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	keyed := executeMockKeyed()
	for _, sc := range []scenario{executeMockOpen(), keyed} {
		if len(sc.Env) == 0 {
			t.Errorf("%s: no Env", sc.Name)
		}
		if err := sc.Setup(ctx, srv.Addr); err != nil {
			t.Fatalf("%s: setup: %v", sc.Name, err)
		}
		res, err := bench.Run(ctx, bench.Target{Addr: srv.Addr, Build: sc.Build}, bench.Options{Conns: 4, MaxRequests: 400})
		if err != nil || res.Requests != 400 || res.Non2xx != 0 || res.TransportErrors != 0 {
			t.Fatalf("%s: Run = %+v, %v", sc.Name, res, err)
		}
	}
	// Without its key the keyed method refuses: the key is what is measured.
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	keyed.Build(req)
	req.Header.Del("x-api-key")
	req.SetHost(srv.Addr)
	if err := fasthttp.DoTimeout(req, resp, 5*time.Second); err != nil || resp.StatusCode() != 403 {
		t.Fatalf("keyed method without its key: %d %s, %v", resp.StatusCode(), resp.Body(), err)
	}
}
