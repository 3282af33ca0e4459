package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cloudemu/emulator/bench"
)

// compareFlags are the flags of "benchrun compare".
type compareFlags struct {
	conns    int
	duration time.Duration
	warmup   time.Duration
	runs     int
	emulator string
	only     string
	ready    time.Duration
}

func (f *compareFlags) attach(fs *flag.FlagSet) {
	fs.IntVar(&f.conns, "conns", 32, "keep-alive connections, one goroutine each")
	fs.DurationVar(&f.duration, "duration", 5*time.Second, "measured window of each run")
	fs.DurationVar(&f.warmup, "warmup", time.Second, "unmeasured load before each run")
	fs.IntVar(&f.runs, "runs", 3, "runs per scenario, alternating between scenarios")
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` for scenarios that need one (skipped if empty)")
	fs.StringVar(&f.only, "only", "", "comma-separated scenario `names` to run (default all)")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long an emulator may take to answer its health check")
}

func (f *compareFlags) check() error {
	switch {
	case f.runs < 1 || f.runs > 100:
		return fmt.Errorf("benchrun: -runs %d out of range 1..100", f.runs)
	case f.duration <= 0:
		return errors.New("benchrun: -duration must be positive")
	}
	return nil // bench.Run checks the rest
}

// target is a scenario made ready: where it sends and whose CPU to read.
type target struct {
	sc        scenario
	addr      string
	serverPID int
	results   []bench.Result
	genCPU    []float64
	srvCPU    []float64
	srvPerReq []float64 // server CPU seconds per request
}

func (a *app) compare(ctx context.Context, args []string) error {
	var f compareFlags
	fs := newFlagSet("compare")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()

	bare, bareAddr, err := p.startBare(ctx, a.self)
	if err != nil {
		return err
	}
	a.log.Info("bare server up", "addr", bareAddr, "pid", bare.pid())

	var proxyAddr string
	var proxyPID int
	for _, sc := range a.scenarios {
		if sc.Proxy && (f.only == "" || slices.Contains(strings.Split(f.only, ","), sc.Name)) {
			px, addr, err := p.startBare(ctx, a.self, "-proxy-to", bareAddr)
			if err != nil {
				return err
			}
			proxyAddr, proxyPID = addr, px.pid()
			a.log.Info("bare proxy up", "addr", addr, "pid", px.pid())
			break
		}
	}

	table := bench.Table{Baseline: baselineName}
	var targets []*target
	for _, sc := range a.scenarios {
		if f.only != "" && !slices.Contains(strings.Split(f.only, ","), sc.Name) {
			continue
		}
		t := &target{sc: sc, addr: bareAddr, serverPID: bare.pid()}
		if sc.Proxy {
			t.addr, t.serverPID = proxyAddr, proxyPID
		}
		if sc.Emulator {
			if f.emulator == "" {
				table.Add(bench.Row{Name: sc.Name, Note: "skipped: needs -emulator BIN"})
				continue
			}
			env := sc.Env
			if sc.DataDir {
				dir, err := os.MkdirTemp("", "benchrun-"+strings.NewReplacer("/", "-", "=", "-").Replace(sc.Name)+"-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				env = append(env, "EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR="+dir)
			}
			c, addr, err := p.startEmulator(sc.Name, f.emulator, env)
			if err != nil {
				return err
			}
			if _, err := waitHealthy(ctx, c, addr, f.ready, time.Millisecond); err != nil {
				return fmt.Errorf("benchrun: scenario %s: %w", sc.Name, err)
			}
			t.addr, t.serverPID = addr, c.pid()
		}
		if sc.Setup != nil {
			if err := sc.Setup(ctx, t.addr); err != nil {
				return fmt.Errorf("benchrun: scenario %s: setup: %w", sc.Name, err)
			}
		}
		if sc.Backend != nil {
			if err := sc.Backend(ctx, t.addr, bareAddr); err != nil {
				return fmt.Errorf("benchrun: scenario %s: setup: %w", sc.Name, err)
			}
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return errors.New("benchrun: no scenario to run")
	}

	opts := bench.Options{Conns: f.conns, Duration: f.duration, Warmup: f.warmup}
	// Alternate targets within each round, so that drift on the machine
	// (thermal, other load) spreads over all of them instead of one.
	for run := 1; run <= f.runs; run++ {
		for _, t := range targets {
			if err := a.measure(ctx, t, opts, run); err != nil {
				return err
			}
		}
	}

	for _, t := range targets {
		row := bench.Summarize(t.sc.Name, t.results)
		row.Baseline = t.sc.Baseline
		row.ClientCPU = bench.Median(t.genCPU)
		row.ServerCPU = bench.Median(t.srvCPU)
		row.ServerCPUPerReq = time.Duration(bench.Median(t.srvPerReq) * float64(time.Second))
		table.Add(row)
	}
	fmt.Fprintf(a.stdout, "# benchrun compare: %s %s/%s, %d CPUs, GOMAXPROCS=%d, conns=%d duration=%s warmup=%s runs=%d\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		f.conns, f.duration, f.warmup, f.runs)
	fmt.Fprintln(a.stdout, "# medians over runs; errors summed; ratio = rps / bare rps; cpu in cores (user+sys) over warm-up and window; srv cpu/req = server cpu / requests")
	_, err = table.WriteTo(a.stdout)
	return err
}

// measure does one run of t and records its result and the CPU both sides
// used during it.
func (a *app) measure(ctx context.Context, t *target, opts bench.Options, run int) error {
	g0, gerr := bench.ProcCPU(os.Getpid())
	s0, serr := bench.ProcCPU(t.serverPID)
	start := time.Now()
	res, err := bench.Run(ctx, bench.Target{Name: t.sc.Name, Addr: t.addr, Build: t.sc.Build, Vary: t.sc.Vary}, opts)
	if err != nil {
		return fmt.Errorf("benchrun: scenario %s run %d: %w", t.sc.Name, run, err)
	}
	wall := time.Since(start).Seconds()
	g1, gerr1 := bench.ProcCPU(os.Getpid())
	s1, serr1 := bench.ProcCPU(t.serverPID)
	if err := errors.Join(gerr, serr, gerr1, serr1); err == nil {
		t.genCPU = append(t.genCPU, (g1-g0).Seconds()/wall)
		t.srvCPU = append(t.srvCPU, (s1-s0).Seconds()/wall)
		// CPU covers warm-up and window, so divide by the requests sent over
		// both, taking the warm-up to run at the window's rate.
		if sent := res.RPS * wall; sent > 0 {
			t.srvPerReq = append(t.srvPerReq, (s1-s0).Seconds()/sent)
		}
	} else {
		a.log.Debug("no cpu figures", "err", err)
	}
	t.results = append(t.results, res)
	a.log.Info("run", "scenario", t.sc.Name, "run", run, "requests", res.Requests,
		"rps", fmt.Sprintf("%.0f", res.RPS), "p50", res.P50, "p90", res.P90, "p99", res.P99, "max", res.Max,
		"non2xx", res.Non2xx, "transport_errors", res.TransportErrors)
	if res.FirstError != nil {
		a.log.Warn("transport errors", "scenario", t.sc.Name, "run", run, "first", res.FirstError)
	}
	return nil
}

// waitHealthy polls the emulator's health check until it answers 200, the
// child exits, or limit passes, and returns how long the polling took.
func waitHealthy(ctx context.Context, c *child, addr string, limit, every time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	d, err := bench.WaitHTTP(ctx, addr, "/_emulator/health", every)
	if err != nil && c.exited() {
		return d, fmt.Errorf("%s exited before it was healthy: %v", c.name, c.waitErr)
	}
	return d, err
}
