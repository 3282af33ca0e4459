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

	"github.com/cloudemu/emulator/bench"
)

// resetFlags are the flags of "benchrun reset-cycle".
type resetFlags struct {
	emulator  string
	rounds    int
	resources int
	kinds     string
	conns     int
	slack     int64 // bytes the live heap after a reset may exceed the fresh one by
	after     time.Duration
	settle    time.Duration
	ready     time.Duration
}

func (f *resetFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` to measure")
	fs.IntVar(&f.rounds, "rounds", 20, "create/reset rounds")
	fs.IntVar(&f.resources, "resources", 50000, "resources created per round, spread over the kinds")
	fs.StringVar(&f.kinds, "kinds", "restapi,vault,queue", "kinds of resource to create: "+strings.Join(resetKindNames(), ","))
	fs.IntVar(&f.conns, "conns", 32, "concurrent connections creating resources")
	fs.Int64Var(&f.slack, "slack", 1<<20, "`bytes` the live heap after a reset may exceed the fresh live heap by")
	fs.DurationVar(&f.after, "after", 2*time.Second, "pause between a reset's answer and the heap reading (retired owners answer late requests for 1s, then end)")
	fs.DurationVar(&f.settle, "settle", time.Minute, "bound on waiting for the emulator's garbage collections")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long the emulator may take to answer")
}

func (f *resetFlags) check() error {
	switch {
	case f.emulator == "":
		return errors.New("benchrun: reset-cycle needs -emulator BIN")
	case f.rounds < 1 || f.rounds > 1000:
		return fmt.Errorf("benchrun: -rounds %d out of range 1..1000", f.rounds)
	case f.resources < 0 || f.resources > 5000000:
		return fmt.Errorf("benchrun: -resources %d out of range 0..5000000", f.resources)
	case f.conns < 1 || f.conns > 1024:
		return fmt.Errorf("benchrun: -conns %d out of range 1..1024", f.conns)
	case f.slack < 0:
		return fmt.Errorf("benchrun: -slack %d is negative", f.slack)
	case f.settle <= 0 || f.settle > 10*time.Minute:
		return fmt.Errorf("benchrun: -settle %s out of range (0, 10m]", f.settle)
	case f.after < 0 || f.after > time.Minute:
		return fmt.Errorf("benchrun: -after %s out of range [0, 1m]", f.after)
	}
	_, err := parseResetKinds(f.kinds)
	return err
}

// resetKind creates one resource of a kind: the i-th of round r.
type resetKind struct {
	name   string
	create func(req *fasthttp.Request, r, i int)
	want   int // the status a creation answers
}

// resetKinds are the kinds reset-cycle can create, each with the request
// an SDK would send (the emulator does not check signatures).
var resetKinds = []resetKind{
	{"restapi", func(req *fasthttp.Request, r, i int) {
		jsonRequest(req, "POST", "/restapis", `{"name":"cycle-`+strconv.Itoa(r)+`-`+strconv.Itoa(i)+`"}`)
	}, 201},
	{"httpapi", func(req *fasthttp.Request, r, i int) {
		jsonRequest(req, "POST", "/v2/apis", `{"name":"cycle-`+strconv.Itoa(r)+`-`+strconv.Itoa(i)+`","protocolType":"HTTP"}`)
	}, 201},
	{"apikey", func(req *fasthttp.Request, r, i int) {
		jsonRequest(req, "POST", "/apikeys", `{"name":"cycle-`+strconv.Itoa(r)+`-`+strconv.Itoa(i)+`","enabled":true}`)
	}, 201},
	{"usageplan", func(req *fasthttp.Request, r, i int) {
		jsonRequest(req, "POST", "/usageplans", `{"name":"cycle-`+strconv.Itoa(r)+`-`+strconv.Itoa(i)+`","throttle":{"rateLimit":10,"burstLimit":5}}`)
	}, 201},
	{"vault", func(req *fasthttp.Request, r, i int) {
		jsonRequest(req, "PUT", "/backup-vaults/cycle-"+strconv.Itoa(r)+"-"+strconv.Itoa(i), `{"BackupVaultTags":{"team":"bench"}}`)
	}, 200},
	{"queue", func(req *fasthttp.Request, r, i int) {
		sqsHeaders(req, "CreateQueue")
		req.SetBodyString(`{"QueueName":"cycle-` + strconv.Itoa(r) + `-` + strconv.Itoa(i) + `"}`)
	}, 200},
}

func resetKindNames() []string {
	var names []string
	for _, k := range resetKinds {
		names = append(names, k.name)
	}
	return names
}

func parseResetKinds(s string) ([]resetKind, error) {
	var out []resetKind
	for name := range strings.SplitSeq(s, ",") {
		i := slices.IndexFunc(resetKinds, func(k resetKind) bool { return k.name == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("benchrun: -kinds: unknown kind %q (want some of %s)", name, strings.Join(resetKindNames(), ","))
		}
		out = append(out, resetKinds[i])
	}
	return out, nil
}

func jsonRequest(req *fasthttp.Request, method, path, body string) {
	req.Header.SetMethod(method)
	req.SetRequestURI(path)
	req.Header.SetContentType("application/json")
	req.SetBodyString(body)
}

// resetRound is one round's figures.
type resetRound struct {
	Round     int
	Created   int
	Create    time.Duration
	Reset     time.Duration
	HeapAfter uint64
	RSSAfter  int64
}

// resetCycle starts the emulator and runs rounds of: create -resources
// resources over HTTP, POST /_emulator/reset (timed), then read the live
// heap once garbage collections have run and the resident memory. It
// fails when the live heap after any reset exceeds the fresh one by more
// than -slack.
func (a *app) resetCycle(ctx context.Context, args []string) error {
	var f resetFlags
	fs := newFlagSet("reset-cycle")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	kinds, _ := parseResetKinds(f.kinds)
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()
	c, addr, err := p.startEmulator("emulator", f.emulator, []string{"EMULATOR_DEBUG=true"})
	if err != nil {
		return err
	}
	defer p.stop(c)
	if _, err := waitHealthy(ctx, c, addr, f.ready, time.Millisecond); err != nil {
		return err
	}
	// Let start-up work finish before the first reading.
	time.Sleep(time.Second)
	freshHeap, err := settledHealthHeap(ctx, addr, f.settle)
	if err != nil {
		return fmt.Errorf("benchrun: reset-cycle: fresh heap: %w", err)
	}
	freshRSS, err := bench.ProcRSS(c.pid())
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "# benchrun reset-cycle: %s %s/%s, %d CPUs, %d rounds of %d resources (%s) over %d connections\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), f.rounds, f.resources, f.kinds, f.conns)
	var rounds []resetRound
	for r := range f.rounds {
		round := resetRound{Round: r + 1}
		start := time.Now()
		created, err := createResources(ctx, addr, kinds, r, f.resources, f.conns)
		if err != nil {
			return fmt.Errorf("benchrun: reset-cycle round %d: %w", r+1, err)
		}
		round.Created, round.Create = created, time.Since(start)
		start = time.Now()
		if err := call(addr, "POST", "/_emulator/reset", "", 200, nil); err != nil {
			return fmt.Errorf("benchrun: reset-cycle round %d: reset: %w", r+1, err)
		}
		round.Reset = time.Since(start)
		select {
		case <-time.After(f.after):
		case <-ctx.Done():
			return ctx.Err()
		}
		if round.HeapAfter, err = heapAfterReset(ctx, addr, freshHeap+uint64(f.slack), f.settle); err != nil {
			return fmt.Errorf("benchrun: reset-cycle round %d: %w", r+1, err)
		}
		if round.RSSAfter, err = bench.ProcRSS(c.pid()); err != nil {
			return err
		}
		a.log.Info("round", "round", r+1, "created", created, "reset", round.Reset, "heap", fmtMiB(int64(round.HeapAfter)), "rss", fmtMiB(round.RSSAfter))
		rounds = append(rounds, round)
	}
	return writeResetCycle(a.stdout, freshHeap, freshRSS, f.slack, rounds)
}

// heapAfterReset is the live heap after a reset, once its background work
// (retired owners end after a second, then what they leave is compacted
// and collected) is done: settled readings, repeated while they exceed
// bound and limit allows, the least of them. A retention stays above the
// bound for good; background work that was late does not.
func heapAfterReset(ctx context.Context, addr string, bound uint64, limit time.Duration) (uint64, error) {
	deadline := time.Now().Add(limit)
	least, err := settledHealthHeap(ctx, addr, limit)
	if err != nil {
		return 0, err
	}
	for least > bound && time.Until(deadline) > 5*time.Second {
		select {
		case <-time.After(500 * time.Millisecond):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		h, err := settledHealthHeap(ctx, addr, time.Until(deadline))
		if err != nil {
			break // the readings so far stand
		}
		least = min(least, h)
	}
	return least, nil
}

// createResources creates n resources, the kinds in turn, over conns
// connections, and returns how many were created.
func createResources(ctx context.Context, addr string, kinds []resetKind, round, n, conns int) (int, error) {
	hc := &fasthttp.HostClient{Addr: addr, MaxConns: conns, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	defer hc.CloseIdleConnections()
	var next, created atomic.Int64
	var first atomic.Pointer[error]
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for ctx.Err() == nil && first.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				k := kinds[i%len(kinds)]
				req.Reset()
				k.create(req, round, i)
				req.Header.SetHost(addr)
				if err := hc.Do(req, resp); err != nil {
					err = fmt.Errorf("create %s: %w", k.name, err)
					first.CompareAndSwap(nil, &err)
					return
				}
				if resp.StatusCode() != k.want {
					err := fmt.Errorf("create %s: %d %.300s", k.name, resp.StatusCode(), resp.Body())
					first.CompareAndSwap(nil, &err)
					return
				}
				created.Add(1)
			}
		})
	}
	wg.Wait()
	if err := first.Load(); err != nil {
		return int(created.Load()), *err
	}
	return int(created.Load()), ctx.Err()
}

func writeResetCycle(w io.Writer, freshHeap uint64, freshRSS int64, slack int64, rounds []resetRound) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "round\tcreated\tcreate\treset\theap after\tover fresh\trss after\t")
	fmt.Fprintf(tw, "fresh\t-\t-\t-\t%s\t-\t%s\t\n", fmtMiB(int64(freshHeap)), fmtMiB(freshRSS))
	var worst int64
	worstRound := 0
	for _, r := range rounds {
		over := int64(r.HeapAfter) - int64(freshHeap)
		if worstRound == 0 || over > worst {
			worst, worstRound = over, r.Round
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%+.2f MiB\t%s\t\n", r.Round, r.Created, r.Create.Round(time.Millisecond),
			r.Reset.Round(time.Millisecond), fmtMiB(int64(r.HeapAfter)), mib(over), fmtMiB(r.RSSAfter))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "# heap = the emulator's live heap (heapAllocBytes of /_emulator/debug/health, least after 3 garbage collections, from -after past the reset's answer, read again for up to -settle while over the bound); rss = resident memory (VmRSS); reset = POST /_emulator/reset as the client saw it")
	if worst > slack {
		fmt.Fprintf(w, "FAIL: the live heap after round %d's reset is %.2f MiB over fresh (allowed %.2f MiB)\n", worstRound, mib(worst), mib(slack))
		return fmt.Errorf("benchrun: reset-cycle: live heap after round %d's reset is %.2f MiB over fresh (allowed %.2f MiB)", worstRound, mib(worst), mib(slack))
	}
	_, err := fmt.Fprintf(w, "PASS: the live heap after every reset is within %.2f MiB of fresh (worst %+.2f MiB, round %d)\n", mib(slack), mib(worst), worstRound)
	return err
}
