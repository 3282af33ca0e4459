package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"time"

	"github.com/cloudemu/emulator/bench"
)

// startupFlags are the flags of "benchrun startup".
type startupFlags struct {
	emulator string
	runs     int
	idle     time.Duration
	ready    time.Duration
	every    time.Duration
}

func (f *startupFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` to start (required)")
	fs.IntVar(&f.runs, "runs", 5, "number of starts")
	fs.DurationVar(&f.idle, "idle", time.Second, "idle time after the first 200 before reading RSS")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long a start may take to answer its health check")
	fs.DurationVar(&f.every, "every", time.Millisecond, "health check poll interval")
}

// startupRun is one start's figures.
type startupRun struct {
	ready  time.Duration // exec to first 200
	rss    int64
	stop   time.Duration // SIGTERM to exit
	killed bool          // SIGTERM was not enough
}

// startup starts the emulator -runs times, one at a time, and reports how
// long each took from exec to its first healthy answer and how much memory
// it held once idle.
func (a *app) startup(ctx context.Context, args []string) error {
	var f startupFlags
	fs := newFlagSet("startup")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case f.emulator == "":
		return errors.New("benchrun: startup needs -emulator BIN")
	case f.runs < 1 || f.runs > 100:
		return fmt.Errorf("benchrun: -runs %d out of range 1..100", f.runs)
	}
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()

	fmt.Fprintf(a.stdout, "# benchrun startup: %s, %s %s/%s, %d CPUs, poll every %s, rss after %s idle\n",
		f.emulator, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), f.every, f.idle)
	var ready, rss []float64
	for i := 1; i <= f.runs; i++ {
		r, err := a.startOnce(ctx, p, &f)
		if err != nil {
			return fmt.Errorf("benchrun: start %d: %w", i, err)
		}
		note := ""
		if r.killed {
			note = " (ignored SIGTERM, killed)"
		}
		fmt.Fprintf(a.stdout, "run=%d ready=%s rss=%.1fMiB stop=%s%s\n", i, r.ready.Round(10*time.Microsecond),
			mib(r.rss), r.stop.Round(10*time.Microsecond), note)
		ready = append(ready, float64(r.ready))
		rss = append(rss, float64(r.rss))
	}
	fmt.Fprintf(a.stdout, "median ready=%s rss=%.1fMiB (%d runs)\n",
		time.Duration(bench.Median(ready)).Round(10*time.Microsecond), mib(int64(bench.Median(rss))), f.runs)
	return nil
}

func (a *app) startOnce(ctx context.Context, p *procs, f *startupFlags) (startupRun, error) {
	var r startupRun
	c, addr, err := p.startEmulator("emulator", f.emulator, nil)
	if err != nil {
		return r, err
	}
	// Stopped below on success; p.stopAll covers the error paths.
	if _, err := waitHealthy(ctx, c, addr, f.ready, f.every); err != nil {
		return r, err
	}
	r.ready = time.Since(c.started)
	t := time.NewTimer(f.idle)
	select {
	case <-ctx.Done():
		t.Stop()
		return r, ctx.Err()
	case <-c.done:
		t.Stop()
		return r, fmt.Errorf("emulator exited while idle: %v", c.waitErr)
	case <-t.C:
	}
	if r.rss, err = bench.ProcRSS(c.pid()); err != nil {
		return r, err
	}
	stopStart := time.Now()
	r.killed = p.stop(c)
	r.stop = time.Since(stopStart)
	return r, nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
