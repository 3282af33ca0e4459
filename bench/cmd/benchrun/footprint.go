package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/valyala/fasthttp"
)

// footprintKinds are the resources "benchrun footprint" can create, in
// the order it creates them.
var footprintKinds = []string{"restapi", "vault", "queue"}

// footprintFlags are the flags of "benchrun footprint".
type footprintFlags struct {
	emulator string
	count    int
	kinds    []string
	modes    []string
	idle     time.Duration
	warm     int
	conns    int
	settle   time.Duration
	ready    time.Duration
}

func (f *footprintFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` to measure")
	fs.IntVar(&f.count, "count", 100000, "resources of each kind to create")
	fs.Func("kinds", "comma-separated kinds to create: restapi, vault, queue (default all)", func(v string) error {
		f.kinds = nil
		for k := range strings.SplitSeq(v, ",") {
			if !slices.Contains(footprintKinds, k) {
				return fmt.Errorf("unknown kind %q (restapi, vault, queue)", k)
			}
			if !slices.Contains(f.kinds, k) {
				f.kinds = append(f.kinds, k)
			}
		}
		return nil
	})
	fs.Func("modes", "comma-separated modes: passive (owners passivate after -idle), live (EMULATOR_OWNER_IDLE=off) (default both)", func(v string) error {
		f.modes = nil
		for m := range strings.SplitSeq(v, ",") {
			if m != "passive" && m != "live" {
				return fmt.Errorf("unknown mode %q (passive, live)", m)
			}
			if !slices.Contains(f.modes, m) {
				f.modes = append(f.modes, m)
			}
		}
		return nil
	})
	fs.DurationVar(&f.idle, "idle", 2*time.Second, "EMULATOR_OWNER_IDLE of the passive mode")
	fs.IntVar(&f.conns, "conns", 8, "connections creating resources")
	fs.IntVar(&f.warm, "warm", 100000, "writes to one queue before the first reading, so that a fixed cost that grows with commands, not resources (the actor system's process registry), is not counted per resource")
	fs.DurationVar(&f.settle, "settle", 2*time.Minute, "bound on waiting for the emulator's garbage collections")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long the emulator may take to answer")
}

func (f *footprintFlags) check() error {
	switch {
	case f.emulator == "":
		return errors.New("benchrun: footprint needs -emulator BIN")
	case f.count < 1 || f.count > 2000000:
		return errors.New("benchrun: -count out of range 1..2000000")
	case f.idle <= 0 || f.idle > time.Minute:
		return fmt.Errorf("benchrun: -idle %s out of range (0, 1m]", f.idle)
	case f.warm < 0 || f.warm > 10000000:
		return errors.New("benchrun: -warm out of range 0..10000000")
	case f.conns < 1 || f.conns > 256:
		return errors.New("benchrun: -conns out of range 1..256")
	case f.settle <= 0 || f.settle > 10*time.Minute:
		return fmt.Errorf("benchrun: -settle %s out of range (0, 10m]", f.settle)
	}
	return nil
}

// footprintRun is one kind's figures in one mode.
type footprintRun struct {
	Mode, Kind string
	// Fresh and Warm are the live heap before and after the warm-up.
	Fresh, Warm           uint64
	Count                 int
	Create                time.Duration
	HeapBefore, HeapAfter uint64
}

// footprint creates -count resources of each kind over HTTP in an emulator
// run with EMULATOR_DEBUG=true, once with owners passivating after -idle
// (waiting for them to) and once with passivation off, and reports the
// live heap each kind added per resource (heapAllocBytes of
// /_emulator/debug/health once garbage collections have run, as
// sqs-memory reads it).
func (a *app) footprint(ctx context.Context, args []string) error {
	f := footprintFlags{kinds: footprintKinds, modes: []string{"passive", "live"}}
	fs := newFlagSet("footprint")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()
	var runs []footprintRun
	for _, mode := range f.modes {
		rs, err := a.footprintOnce(ctx, p, mode, &f)
		if err != nil {
			return fmt.Errorf("benchrun: footprint %s: %w", mode, err)
		}
		runs = append(runs, rs...)
	}
	fmt.Fprintf(a.stdout, "# benchrun footprint: %s %s/%s, %d CPUs, %d of each kind, passive mode EMULATOR_OWNER_IDLE=%s\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), f.count, f.idle)
	return writeFootprint(a.stdout, runs)
}

func (a *app) footprintOnce(ctx context.Context, p *procs, mode string, f *footprintFlags) ([]footprintRun, error) {
	idle := "off"
	if mode == "passive" {
		idle = f.idle.String()
	}
	c, addr, err := p.startEmulator("emulator", f.emulator, []string{"EMULATOR_DEBUG=true", "EMULATOR_OWNER_IDLE=" + idle})
	if err != nil {
		return nil, err
	}
	defer p.stop(c)
	if _, err := waitHealthy(ctx, c, addr, f.ready, time.Millisecond); err != nil {
		return nil, err
	}
	// The queue settledHeap reads to make garbage (reads activate nothing).
	probe, err := createQueues(addr, "footprint-probe", 1)
	if err != nil {
		return nil, err
	}
	time.Sleep(time.Second)
	fresh, err := settledHeap(ctx, addr, probe[0], f.settle)
	if err != nil {
		return nil, err
	}
	if err := warmUp(ctx, addr, probe[0], f.warm, f.conns); err != nil {
		return nil, err
	}
	heap, err := settledHeap(ctx, addr, probe[0], f.settle)
	if err != nil {
		return nil, err
	}
	var runs []footprintRun
	for _, kind := range f.kinds {
		run := footprintRun{Mode: mode, Kind: kind, Count: f.count, Fresh: fresh, Warm: heap, HeapBefore: heap}
		start := time.Now()
		if err := createMany(ctx, addr, kind, f.count, f.conns); err != nil {
			return nil, err
		}
		run.Create = time.Since(start)
		a.log.Info("created", "mode", mode, "kind", kind, "count", f.count, "took", run.Create)
		if mode == "passive" {
			// Every owner passivates within the idle time of its last write;
			// the margin covers the checks' scheduling.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(f.idle + f.idle/2 + time.Second):
			}
		}
		if heap, err = settledHeap(ctx, addr, probe[0], f.settle); err != nil {
			return nil, err
		}
		run.HeapAfter = heap
		runs = append(runs, run)
	}
	return runs, nil
}

// warmUp tags the queue at url n times from conns connections: every
// write is an Ask, which registers a future in the actor system's process
// registry, whose 32,768 shard maps fill up once, whatever the commands.
func warmUp(ctx context.Context, addr, url string, n, conns int) error {
	hc := &fasthttp.HostClient{Addr: addr, MaxConns: conns, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	body := `{"QueueUrl":` + jsonString(url) + `,"Tags":{"footprint":"warm"}}`
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for range conns {
		wg.Go(func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for ctx.Err() == nil && int(next.Add(1)) <= n {
				req.Reset()
				sqsHeaders(req, "TagQueue")
				req.SetRequestURI("http://" + addr + "/")
				req.SetBodyString(body)
				if err := hc.Do(req, resp); err != nil {
					errs <- fmt.Errorf("warm-up TagQueue: %w", err)
					return
				}
				if resp.StatusCode() != fasthttp.StatusOK {
					errs <- fmt.Errorf("warm-up TagQueue: %d %.200s", resp.StatusCode(), resp.Body())
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return ctx.Err()
}

// createMany creates n resources of kind, named fp-<kind>-<i>, from conns
// connections; every create must succeed.
func createMany(ctx context.Context, addr, kind string, n, conns int) error {
	hc := &fasthttp.HostClient{Addr: addr, MaxConns: conns, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for range conns {
		wg.Go(func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := createOne(hc, req, resp, addr, kind, "fp-"+kind+"-"+strconv.Itoa(i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return ctx.Err()
}

// createOne sends one create of kind as the SDKs do (the emulator checks
// no signature) and checks its status.
func createOne(hc *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response, addr, kind, name string) error {
	req.Reset()
	want := fasthttp.StatusOK
	switch kind {
	case "restapi":
		req.Header.SetMethod(fasthttp.MethodPost)
		req.SetRequestURI("http://" + addr + "/restapis")
		apigwHeaders(req)
		req.Header.SetContentType("application/json")
		req.SetBodyString(`{"name":` + jsonString(name) + `}`)
		want = fasthttp.StatusCreated
	case "vault":
		req.Header.SetMethod(fasthttp.MethodPut)
		req.SetRequestURI("http://" + addr + "/backup-vaults/" + name)
		req.Header.SetContentType("application/json")
		req.SetBodyString(`{}`)
	case "queue":
		sqsHeaders(req, "CreateQueue")
		req.SetRequestURI("http://" + addr + "/")
		req.SetBodyString(`{"QueueName":` + jsonString(name) + `}`)
	default:
		return fmt.Errorf("unknown kind %q", kind)
	}
	if err := hc.Do(req, resp); err != nil {
		return fmt.Errorf("create %s %s: %w", kind, name, err)
	}
	if resp.StatusCode() != want {
		return fmt.Errorf("create %s %s: %d %.200s", kind, name, resp.StatusCode(), resp.Body())
	}
	return nil
}

func writeFootprint(w io.Writer, runs []footprintRun) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tkind\tcount\tcreate\theap before\theap after\theap/resource\t")
	for _, r := range runs {
		per := (float64(r.HeapAfter) - float64(r.HeapBefore)) / float64(r.Count)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%.0f B\t\n", r.Mode, r.Kind, r.Count, r.Create.Round(time.Millisecond),
			fmtMiB(int64(r.HeapBefore)), fmtMiB(int64(r.HeapAfter)), per)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, r := range runs {
		if i == 0 || r.Mode != runs[i-1].Mode {
			fmt.Fprintf(w, "# %s: live heap fresh %s, after -warm writes %s (a fixed cost, not counted per resource)\n",
				r.Mode, fmtMiB(int64(r.Fresh)), fmtMiB(int64(r.Warm)))
		}
	}
	_, err := fmt.Fprintln(w, "# passive: owners passivated (EMULATOR_OWNER_IDLE=-idle, waited for); live: EMULATOR_OWNER_IDLE=off; "+
		"heap = live heap (heapAllocBytes of /_emulator/debug/health, least after garbage collections); "+
		"heap/resource = what the kind added / count (kinds created in turn in one emulator)")
	return err
}
