package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cloudemu/emulator/bench"
	"github.com/cloudemu/emulator/server/servertest"
)

// fakeEnv makes the test binary, started with no subcommand, play the
// emulator: the bare server on EMULATOR_HOST:EMULATOR_PORT. "stubborn"
// also ignores SIGTERM.
const fakeEnv = "BENCHRUN_FAKE_EMULATOR"

// TestMain lets the test binary stand in for benchrun: compare re-executes
// its own binary as "serve-bare", and the startup tests use it as -emulator.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve-bare" {
		os.Exit(childMain(os.Args[1:], false))
	}
	if os.Getenv(fakeSQSEnv) != "" {
		os.Exit(fakeSQSMain(os.Args[1:]))
	}
	if os.Getenv(realEnv) != "" {
		os.Exit(realEmulatorMain())
	}
	if mode := os.Getenv(fakeEnv); mode != "" {
		addr := net.JoinHostPort(os.Getenv("EMULATOR_HOST"), os.Getenv("EMULATOR_PORT"))
		os.Exit(childMain([]string{"serve-bare", "-addr", addr}, mode == "stubborn"))
	}
	// Children built with -race otherwise sleep 1s on exit (TSan's
	// atexit_sleep_ms), which would time every stop in these tests.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	os.Exit(m.Run())
}

func childMain(args []string, stubborn bool) int {
	ctx := context.Background()
	if stubborn {
		// Never listen for SIGTERM: signal.Notify would undo the Ignore.
		signal.Ignore(syscall.SIGTERM)
	} else {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGTERM)
		defer stop()
	}
	a := &app{stdout: os.Stdout, log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	if err := a.dispatch(ctx, args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// syncBuffer is a bytes.Buffer safe for the log handler and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestApp(t *testing.T, out io.Writer, logs io.Writer) *app {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = io.Discard
	}
	return &app{
		stdout:    out,
		self:      self,
		log:       slog.New(slog.NewTextHandler(logs, nil)),
		scenarios: scenarios(),
		grace:     2 * time.Second,
	}
}

// fakeEmulatorScenario runs against the test binary playing the emulator.
var fakeEmulatorScenario = scenario{
	Name:     "fake-emulator",
	Emulator: true,
	Env:      []string{fakeEnv + "=1"},
	Setup: func(ctx context.Context, addr string) error {
		if _, err := bench.WaitHTTP(ctx, addr, "/", time.Millisecond); err != nil {
			return fmt.Errorf("setup saw no server at %s: %w", addr, err)
		}
		return nil
	},
	Build: get("/_emulator/health"),
}

// tableRow returns the fields of the table row named name.
func tableRow(out, name string) []string {
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == name {
			return f
		}
	}
	return nil
}

func TestCompare(t *testing.T) {
	self, _ := os.Executable()
	tests := []struct {
		name     string
		emulator string
		ran      []string
		skipped  []string
	}{
		{name: "emulator=none", ran: []string{"bare", "bare-sdk-put"}, skipped: []string{"fake-emulator"}},
		{name: "emulator=fake", emulator: self, ran: []string{"bare", "bare-sdk-put", "fake-emulator"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			a := newTestApp(t, &out, nil)
			a.scenarios = append(a.scenarios, fakeEmulatorScenario)
			// Setup may build a Go function (ExecuteLambdaProxy): on a cold
			// build cache that alone takes most of a minute.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			args := []string{"-conns", "2", "-duration", "150ms", "-warmup", "20ms", "-runs", "2", "-emulator", tc.emulator,
				"-only", "bare,bare-sdk-put,fake-emulator"}
			if err := a.compare(ctx, args); err != nil {
				t.Fatalf("compare: %v\n%s", err, out.String())
			}
			for _, name := range tc.ran {
				// name runs rps p50 p99 errors ratio gen-cpu srv-cpu
				f := tableRow(out.String(), name)
				if len(f) < 7 || f[1] != "2" || f[5] != "0" {
					t.Errorf("row %s = %q\n%s", name, f, out.String())
				}
			}
			if f := tableRow(out.String(), "bare"); len(f) < 7 || f[6] != "1.00x" {
				t.Errorf("baseline row = %q", f)
			}
			for _, name := range tc.skipped {
				if !strings.Contains(out.String(), "# "+name+": skipped") {
					t.Errorf("no skip note for %s:\n%s", name, out.String())
				}
			}
		})
	}
}

func TestCompareStopsChildrenOnCancel(t *testing.T) {
	logs := &syncBuffer{}
	a := newTestApp(t, io.Discard, logs)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := a.compare(ctx, []string{"-conns", "1", "-duration", "10s", "-runs", "1"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("compare = %v, want the deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("compare took %s to notice", took)
	}
	m := regexp.MustCompile(`bare server up.*pid=(\d+)`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no pid in logs:\n%s", logs.String())
	}
	pid, _ := strconv.Atoi(m[1])
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("bare child %d still there: %v", pid, err)
	}
}

func TestStartup(t *testing.T) {
	t.Setenv(fakeEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.startup(ctx, []string{"-emulator", self, "-runs", "2", "-idle", "10ms"}); err != nil {
		t.Fatalf("startup: %v\n%s", err, out.String())
	}
	for _, want := range []string{"run=1 ready=", "run=2 ready=", "median ready="} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "killed") {
		t.Errorf("fake emulator should stop on SIGTERM:\n%s", out.String())
	}
}

func TestStopKillsStubbornChild(t *testing.T) {
	self, _ := os.Executable()
	p := &procs{log: slog.New(slog.NewTextHandler(io.Discard, nil)), grace: 300 * time.Millisecond}
	defer p.stopAll()
	c, addr, err := p.startEmulator("stubborn", self, []string{fakeEnv + "=stubborn"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := waitHealthy(ctx, c, addr, 10*time.Second, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if !p.stop(c) {
		t.Error("stop did not need SIGKILL for a child ignoring SIGTERM")
	}
	if took := time.Since(start); took < p.grace || took > p.grace+2*time.Second {
		t.Errorf("stop took %s with grace %s", took, p.grace)
	}
	if err := syscall.Kill(c.pid(), 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("child %d still there: %v", c.pid(), err)
	}
}

func TestStartupChildExits(t *testing.T) {
	// /bin/false exits at once: waitHealthy must say so, not time out.
	p := &procs{log: slog.New(slog.NewTextHandler(io.Discard, nil)), grace: time.Second}
	defer p.stopAll()
	c, addr, err := p.startEmulator("false", "/bin/false", nil)
	if err != nil {
		t.Skip(err)
	}
	start := time.Now()
	_, err = waitHealthy(context.Background(), c, addr, 10*time.Second, time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("waitHealthy = %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s to notice the exit", took)
	}
}

func TestFirstLine(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		line   string
		rest   string
	}{
		{name: "one-write", chunks: []string{"listening 127.0.0.1:1\nmore\n"}, line: "listening 127.0.0.1:1", rest: "more\n"},
		{name: "split", chunks: []string{"listen", "ing 127.0.0.1:1", "\r\n", "x"}, line: "listening 127.0.0.1:1", rest: "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rest bytes.Buffer
			f := newFirstLine(&rest)
			for _, c := range tc.chunks {
				if n, err := f.Write([]byte(c)); err != nil || n != len(c) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := <-f.line; got != tc.line {
				t.Errorf("line = %q, want %q", got, tc.line)
			}
			if rest.String() != tc.rest {
				t.Errorf("rest = %q, want %q", rest.String(), tc.rest)
			}
		})
	}
}

func TestCheckListenLoopback(t *testing.T) {
	tests := []struct {
		name string
		addr string
		ok   bool
	}{
		{name: "v4", addr: "127.0.0.1:0", ok: true},
		{name: "v6", addr: "[::1]:0", ok: true},
		{name: "localhost", addr: "localhost:0", ok: true},
		{name: "all-interfaces", addr: ":0"},
		{name: "unspecified", addr: "0.0.0.0:0"},
		{name: "private", addr: "10.0.0.1:0"},
		{name: "name", addr: "example.com:0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkListenLoopback(tc.addr); (err == nil) != tc.ok {
				t.Fatalf("checkListenLoopback(%q) = %v", tc.addr, err)
			}
		})
	}
}

func TestScenariosAnswer200(t *testing.T) {
	// Every registered scenario builds requests its target accepts: the
	// bare server's scenarios against the bare server, the emulator's
	// against an emulator in this process (with their setup, and the bare
	// server as the HTTP backend).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := bench.ServeBare(ln)
	defer s.Shutdown()
	seen := map[string]bool{}
	for _, sc := range scenarios() {
		t.Run("scenario="+sc.Name, func(t *testing.T) {
			if seen[sc.Name] {
				t.Fatalf("duplicate scenario name")
			}
			seen[sc.Name] = true
			if sc.Build == nil {
				t.Fatalf("no request")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			addr := ln.Addr().String()
			if sc.Proxy {
				pln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				ps := bench.ServeProxy(pln, addr)
				defer ps.Shutdown()
				addr = pln.Addr().String()
			}
			if sc.Emulator {
				var opts []servertest.Option
				if sc.DataDir {
					opts = append(opts, servertest.WithPersistence(t.TempDir()))
				}
				addr = servertest.Start(t, opts...).Addr
			}
			if strings.HasPrefix(sc.Name, "SQS") && !servesSQS(addr) {
				t.Skip("this emulator serves no SQS yet")
			}
			if sc.Setup != nil {
				if err := sc.Setup(ctx, addr); err != nil {
					t.Fatalf("setup: %v", err)
				}
			}
			if sc.Refill != nil {
				if err := sc.Refill(ctx, addr, 10*time.Millisecond, 0); err != nil {
					t.Fatalf("refill: %v", err)
				}
			}
			if sc.Backend != nil {
				if err := sc.Backend(ctx, addr, ln.Addr().String()); err != nil {
					t.Fatalf("backend setup: %v", err)
				}
			}
			res, err := bench.Run(ctx, bench.Target{Addr: addr, Build: sc.Build, Vary: sc.Vary, Step: sc.Step},
				bench.Options{Conns: 1, MaxRequests: 10})
			if err != nil || res.Requests != 10 || res.Non2xx != 0 || res.TransportErrors != 0 || res.Empty != 0 {
				t.Fatalf("Run = %+v, %v", res, err)
			}
		})
	}
	if !seen[baselineName] {
		t.Errorf("no %q baseline scenario", baselineName)
	}
}

// servesSQS reports whether the server at addr answers SQS's ListQueues.
func servesSQS(addr string) bool {
	return sqsCall(addr, "ListQueues", "{}", nil) == nil
}
