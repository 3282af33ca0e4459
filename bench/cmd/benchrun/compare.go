package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
	moto     string
	only     string
	ready    time.Duration
}

func (f *compareFlags) attach(fs *flag.FlagSet) {
	fs.IntVar(&f.conns, "conns", 32, "keep-alive connections, one goroutine each")
	fs.DurationVar(&f.duration, "duration", 5*time.Second, "measured window of each run")
	fs.DurationVar(&f.warmup, "warmup", time.Second, "unmeasured load before each run")
	fs.IntVar(&f.runs, "runs", 3, "runs per scenario, alternating between scenarios")
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` for scenarios that need one (skipped if empty)")
	fs.StringVar(&f.moto, "moto", "", "moto_server `binary` to run scenarios with a moto peer against too (skipped if empty)")
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
	// peer is the moto twin of an emulator target, measured right after it
	// in every round.
	peer *target
}

// motoSuffix names a scenario's row against moto.
const motoSuffix = "@moto"

// bestRPS is the highest rate t has measured so far (0 before a run).
func (t *target) bestRPS() float64 {
	var best float64
	for _, r := range t.results {
		best = max(best, r.RPS)
	}
	return best
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

	var dirs []string
	defer func() {
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	}()
	table := bench.Table{Baseline: baselineName}
	var targets []*target
	peers := false
	for _, sc := range a.scenarios {
		if f.only != "" && !slices.Contains(strings.Split(f.only, ","), sc.Name) {
			continue
		}
		t := &target{sc: sc, addr: bareAddr, serverPID: bare.pid()}
		if sc.Proxy {
			t.addr, t.serverPID = proxyAddr, proxyPID
		}
		ready := true
		if sc.Emulator {
			if f.emulator == "" {
				table.Add(bench.Row{Name: sc.Name, Note: "skipped: needs -emulator BIN"})
				ready = false
			} else if err := a.startEmulatorTarget(ctx, p, t, f, &dirs); err != nil {
				return err
			}
		}
		if ready {
			if err := setupTarget(ctx, t, bareAddr); err != nil {
				return err
			}
			targets = append(targets, t)
		}
		if sc.Moto == nil {
			continue
		}
		twin := sc.Moto()
		twin.Name = sc.Name + motoSuffix
		if twin.ScalesFrom != "" {
			twin.ScalesFrom += motoSuffix
		}
		if f.moto == "" {
			table.Add(bench.Row{Name: twin.Name, Note: "skipped: needs -moto BIN"})
			continue
		}
		mt := &target{sc: twin}
		// A fresh moto per scenario: no state carries over between them.
		c, addr, out, err := p.startMoto(twin.Name, f.moto)
		if err != nil {
			return err
		}
		if _, err := waitReady(ctx, c, addr, "/", f.ready, 10*time.Millisecond); err != nil {
			return fmt.Errorf("benchrun: scenario %s: %w\n%s", twin.Name, err, out)
		}
		mt.addr, mt.serverPID = addr, c.pid()
		a.log.Info("moto up", "scenario", twin.Name, "addr", addr, "pid", c.pid())
		if err := setupTarget(ctx, mt, bareAddr); err != nil {
			return fmt.Errorf("%w\n%s", err, out)
		}
		if ready {
			t.peer = mt
		}
		targets = append(targets, mt)
		peers = true
	}
	if len(targets) == 0 {
		return errors.New("benchrun: no scenario to run")
	}

	opts := bench.Options{Conns: f.conns, Duration: f.duration, Warmup: f.warmup}
	// Alternate targets within each round, so that drift on the machine
	// (thermal, other load) spreads over all of them instead of one.
	// A scenario's moto twin comes right after it in targets, so the two
	// are measured back to back in every round.
	for run := 1; run <= f.runs; run++ {
		for _, t := range targets {
			if t.sc.Refill != nil {
				if err := t.sc.Refill(ctx, t.addr, f.warmup+f.duration, t.bestRPS()); err != nil {
					return fmt.Errorf("benchrun: scenario %s run %d: %w", t.sc.Name, run, err)
				}
			}
			if err := a.measure(ctx, t, opts, run); err != nil {
				return err
			}
		}
	}

	for _, t := range targets {
		row := bench.Summarize(t.sc.Name, t.results)
		row.Baseline = t.sc.Baseline
		switch {
		case t.peer != nil:
			row.Baseline = t.peer.sc.Name
		case strings.HasSuffix(t.sc.Name, motoSuffix):
			row.Baseline = t.sc.Name
		}
		row.ClientCPU = bench.Median(t.genCPU)
		row.ServerCPU = bench.Median(t.srvCPU)
		row.ServerCPUPerReq = time.Duration(bench.Median(t.srvPerReq) * float64(time.Second))
		table.Add(row)
	}
	fmt.Fprintf(a.stdout, "# benchrun compare: %s %s/%s, %d CPUs, GOMAXPROCS=%d, conns=%d duration=%s warmup=%s runs=%d\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		f.conns, f.duration, f.warmup, f.runs)
	fmt.Fprintln(a.stdout, "# medians over runs; errors summed; ratio = rps / bare rps; cpu in cores (user+sys) over warm-up and window; srv cpu/req = server cpu / requests")
	if peers {
		fmt.Fprintln(a.stdout, "# NAME"+motoSuffix+": the same scenario against its own moto_server, measured right after NAME in every round; NAME's ratio is emulator / moto")
	}
	if _, err := table.WriteTo(a.stdout); err != nil {
		return err
	}
	writeFootnotes(a.stdout, targets)
	return nil
}

// writeFootnotes prints what the table cannot: what one operation of a
// multi-request scenario is, steps that found nothing to do, the
// emulator/moto ratio of every round, and how a spread scenario scales
// against its single-resource one.
func writeFootnotes(w io.Writer, targets []*target) {
	byName := map[string]*target{}
	for _, t := range targets {
		byName[t.sc.Name] = t
	}
	median := func(t *target) float64 {
		var rps []float64
		for _, r := range t.results {
			rps = append(rps, r.RPS)
		}
		return bench.Median(rps)
	}
	for _, t := range targets {
		if t.sc.Per != "" {
			fmt.Fprintf(w, "# %s: one operation = one %s\n", t.sc.Name, t.sc.Per)
		}
		var empty int64
		for _, r := range t.results {
			empty += r.Empty
		}
		if empty > 0 {
			fmt.Fprintf(w, "# %s: %d steps found nothing to do (not counted; the queues ran dry)\n", t.sc.Name, empty)
		}
		if t.peer != nil {
			var per []string
			for i, r := range t.results {
				switch {
				case i >= len(t.peer.results):
				case t.peer.results[i].RPS > 0:
					per = append(per, fmt.Sprintf("%.2f", r.RPS/t.peer.results[i].RPS))
				default:
					per = append(per, "-")
				}
			}
			fmt.Fprintf(w, "# %s: emulator / moto per round: %s\n", t.sc.Name, strings.Join(per, ", "))
		}
		if from := byName[t.sc.ScalesFrom]; from != nil {
			if base := median(from); base > 0 {
				fmt.Fprintf(w, "# %s: %.2fx %s\n", t.sc.Name, median(t)/base, from.sc.Name)
			}
		}
	}
}

// startEmulatorTarget starts t's own emulator (in a fresh data directory
// if its scenario wants one) and waits until it is healthy.
// A data directory is appended to dirs for the caller to remove.
func (a *app) startEmulatorTarget(ctx context.Context, p *procs, t *target, f compareFlags, dirs *[]string) error {
	sc := t.sc
	env := sc.Env
	if sc.DataDir {
		dir, err := os.MkdirTemp("", "benchrun-"+strings.NewReplacer("/", "-", "=", "-").Replace(sc.Name)+"-")
		if err != nil {
			return err
		}
		*dirs = append(*dirs, dir)
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
	return nil
}

// setupTarget runs t's scenario's Setup and Backend.
func setupTarget(ctx context.Context, t *target, bareAddr string) error {
	if t.sc.Setup != nil {
		if err := t.sc.Setup(ctx, t.addr); err != nil {
			return fmt.Errorf("benchrun: scenario %s: setup: %w", t.sc.Name, err)
		}
	}
	if t.sc.Backend != nil {
		if err := t.sc.Backend(ctx, t.addr, bareAddr); err != nil {
			return fmt.Errorf("benchrun: scenario %s: setup: %w", t.sc.Name, err)
		}
	}
	return nil
}

// measure does one run of t and records its result and the CPU both sides
// used during it.
func (a *app) measure(ctx context.Context, t *target, opts bench.Options, run int) error {
	g0, gerr := bench.ProcCPU(os.Getpid())
	s0, serr := bench.ProcCPU(t.serverPID)
	start := time.Now()
	res, err := bench.Run(ctx, bench.Target{Name: t.sc.Name, Addr: t.addr, Build: t.sc.Build, Vary: t.sc.Vary, Step: t.sc.Step}, opts)
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
		"non2xx", res.Non2xx, "transport_errors", res.TransportErrors, "empty", res.Empty)
	if res.FirstError != nil {
		a.log.Warn("transport errors", "scenario", t.sc.Name, "run", run, "first", res.FirstError)
	}
	return nil
}

// waitHealthy polls the emulator's health check until it answers 200, the
// child exits, or limit passes, and returns how long the polling took.
func waitHealthy(ctx context.Context, c *child, addr string, limit, every time.Duration) (time.Duration, error) {
	return waitReady(ctx, c, addr, "/_emulator/health", limit, every)
}

// waitReady polls GET path until it answers 200, the child exits, or limit
// passes, and returns how long the polling took.
func waitReady(ctx context.Context, c *child, addr, path string, limit, every time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	d, err := bench.WaitHTTP(ctx, addr, path, every)
	if err != nil && c.exited() {
		return d, fmt.Errorf("%s exited before it was healthy: %v", c.name, c.waitErr)
	}
	return d, err
}
