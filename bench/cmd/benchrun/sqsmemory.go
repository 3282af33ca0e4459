package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/bench"
)

// memoryFlags are the flags of "benchrun sqs-memory".
type memoryFlags struct {
	emulator     string
	moto         string
	messages     int
	motoMessages int
	size         int
	settle       time.Duration
	ready        time.Duration
}

func (f *memoryFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` to measure")
	fs.StringVar(&f.moto, "moto", "", "moto_server `binary` to measure as well")
	fs.IntVar(&f.messages, "messages", 100000, "messages to queue in the emulator")
	fs.IntVar(&f.motoMessages, "moto-messages", 2000, "messages to queue in moto (each of its sends slows as the queue grows)")
	fs.IntVar(&f.size, "size", 256, "bytes per message body")
	fs.DurationVar(&f.settle, "settle", 2*time.Minute, "bound on waiting for the emulator's garbage collections")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long a server may take to answer")
}

func (f *memoryFlags) check() error {
	switch {
	case f.emulator == "" && f.moto == "":
		return errors.New("benchrun: sqs-memory needs -emulator BIN or -moto BIN")
	case f.messages < 1 || f.messages > 10000000 || f.motoMessages < 1 || f.motoMessages > 10000000:
		return errors.New("benchrun: -messages and -moto-messages out of range 1..10000000")
	case f.size < 16 || f.size > 262144:
		return fmt.Errorf("benchrun: -size %d out of range 16..262144", f.size)
	case f.settle <= 0 || f.settle > 10*time.Minute:
		return fmt.Errorf("benchrun: -settle %s out of range (0, 10m]", f.settle)
	}
	return nil
}

// memoryRun is one server's figures. Heap figures are the emulator's
// (zero for moto).
type memoryRun struct {
	Name                  string
	Messages              int
	RSSBefore, RSSAfter   int64
	HeapBefore, HeapAfter uint64
	Counted               int64 // ApproximateNumberOfMessages after the fill, -1 if unread
	Fill                  time.Duration
}

// messageBody returns the i-th message's body: size bytes, distinct for
// each i so that no server can share them.
func messageBody(i, size int) string {
	head := "bench-" + strconv.Itoa(i) + "-"
	if len(head) >= size {
		return head[:size]
	}
	return head + strings.Repeat("x", size-len(head))
}

// sqsMemory queues -messages messages of -size bytes in one queue with
// SendMessageBatch and reports the server's memory per message: resident
// memory (RSS) before and after and, for the emulator (run with
// EMULATOR_DEBUG=true), its live heap from /_emulator/debug/health once
// garbage collections have run.
func (a *app) sqsMemory(ctx context.Context, args []string) error {
	var f memoryFlags
	fs := newFlagSet("sqs-memory")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()
	var runs []memoryRun
	for _, s := range []struct {
		name, bin string
		n         int
	}{{"emulator", f.emulator, f.messages}, {"moto", f.moto, f.motoMessages}} {
		if s.bin == "" {
			continue
		}
		run, err := a.memoryOnce(ctx, p, s.name, s.bin, s.n, &f)
		if err != nil {
			return fmt.Errorf("benchrun: sqs-memory %s: %w", s.name, err)
		}
		runs = append(runs, run)
	}
	fmt.Fprintf(a.stdout, "# benchrun sqs-memory: %s %s/%s, %d CPUs, %d-byte bodies, SendMessageBatch of 10, one standard queue\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), f.size)
	return writeMemory(a.stdout, runs)
}

func (a *app) memoryOnce(ctx context.Context, p *procs, name, bin string, n int, f *memoryFlags) (memoryRun, error) {
	run := memoryRun{Name: name, Messages: n, Counted: -1}
	var pid int
	var addr string
	if name == "moto" {
		c, ad, out, err := p.startMoto(name, bin)
		if err != nil {
			return run, err
		}
		defer p.stop(c)
		if _, err := waitReady(ctx, c, ad, "/", f.ready, 10*time.Millisecond); err != nil {
			return run, fmt.Errorf("%w\n%s", err, out)
		}
		pid, addr = c.pid(), ad
	} else {
		c, ad, err := p.startEmulator(name, bin, []string{"EMULATOR_DEBUG=true"})
		if err != nil {
			return run, err
		}
		defer p.stop(c)
		if _, err := waitHealthy(ctx, c, ad, f.ready, time.Millisecond); err != nil {
			return run, err
		}
		pid, addr = c.pid(), ad
	}
	urls, err := createQueues(addr, "bench-memory", 1)
	if err != nil {
		return run, err
	}
	// Let start-up work finish before the first reading.
	time.Sleep(time.Second)
	if name == "emulator" {
		if run.HeapBefore, err = settledHeap(ctx, addr, urls[0], f.settle); err != nil {
			return run, err
		}
	}
	if run.RSSBefore, err = bench.ProcRSS(pid); err != nil {
		return run, err
	}
	start := time.Now()
	if err := fill(ctx, addr, urls[0], n, func(i int) string { return messageBody(i, f.size) }); err != nil {
		return run, err
	}
	run.Fill = time.Since(start)
	a.log.Info("queue filled", "server", name, "messages", n, "took", run.Fill)
	var attrs struct {
		Attributes map[string]string `json:"Attributes"`
	}
	if err := sqsCall(addr, "GetQueueAttributes", `{"AttributeNames":["ApproximateNumberOfMessages"],"QueueUrl":`+jsonString(urls[0])+`}`, &attrs); err != nil {
		a.log.Warn("no message count", "server", name, "err", err)
	} else if c, err := strconv.ParseInt(attrs.Attributes["ApproximateNumberOfMessages"], 10, 64); err == nil {
		run.Counted = c
	}
	if name == "emulator" {
		if run.HeapAfter, err = settledHeap(ctx, addr, urls[0], f.settle); err != nil {
			return run, err
		}
	} else {
		time.Sleep(time.Second)
	}
	if run.RSSAfter, err = bench.ProcRSS(pid); err != nil {
		return run, err
	}
	return run, nil
}

// debugMemory is the part of /_emulator/debug/health this reads.
type debugMemory struct {
	HeapAlloc uint64
	NumGC     uint32
}

func readDebugMemory(hc *fasthttp.HostClient, addr string) (debugMemory, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + addr + "/_emulator/debug/health")
	if err := hc.Do(req, resp); err != nil {
		return debugMemory{}, err
	}
	return parseDebugMemory(resp.StatusCode(), resp.Body())
}

func parseDebugMemory(status int, body []byte) (debugMemory, error) {
	if status != fasthttp.StatusOK {
		return debugMemory{}, fmt.Errorf("debug health: %d %.200s (is EMULATOR_DEBUG=true honoured?)", status, body)
	}
	var doc struct {
		Runtime struct {
			Memory struct {
				HeapAllocBytes *uint64 `json:"heapAllocBytes"`
				NumGC          uint32  `json:"numGC"`
			} `json:"memory"`
		} `json:"runtime"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return debugMemory{}, fmt.Errorf("debug health: %w", err)
	}
	if doc.Runtime.Memory.HeapAllocBytes == nil {
		return debugMemory{}, errors.New("debug health: no runtime.memory.heapAllocBytes")
	}
	return debugMemory{HeapAlloc: *doc.Runtime.Memory.HeapAllocBytes, NumGC: doc.Runtime.Memory.NumGC}, nil
}

// settledGCs is how many garbage collections settledHeap waits for.
const settledGCs = 3

// settledHeap returns the emulator's live heap, near enough: the emulator
// has no endpoint that collects garbage, so this makes some (read-only
// GetQueueAttributes calls of queueURL, which keep nothing) until
// settledGCs collections have run, polling the debug health all along,
// and returns the smallest heap seen after the first one: the live heap
// plus what was allocated between a collection and the next poll.
func settledHeap(ctx context.Context, addr, queueURL string, limit time.Duration) (uint64, error) {
	body := `{"AttributeNames":["All"],"QueueUrl":` + jsonString(queueURL) + `}`
	return settledHeapWith(ctx, addr, limit, func(*fasthttp.HostClient, *fasthttp.Request, *fasthttp.Response) error {
		return sqsCall(addr, "GetQueueAttributes", body, nil)
	})
}

// settledHealthHeap is settledHeap for an emulator that may hold nothing:
// the garbage comes from health checks.
func settledHealthHeap(ctx context.Context, addr string, limit time.Duration) (uint64, error) {
	return settledHeapWith(ctx, addr, limit, func(hc *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response) error {
		req.Reset()
		req.Header.SetMethod("GET")
		req.SetRequestURI("http://" + addr + "/_emulator/health")
		return hc.Do(req, resp)
	})
}

// settledHeapWith runs load on two connections until settledGCs
// collections have run (or limit passes) and returns the least heap seen
// after the first.
func settledHeapWith(ctx context.Context, addr string, limit time.Duration,
	load func(*fasthttp.HostClient, *fasthttp.Request, *fasthttp.Response) error) (uint64, error) {
	hc := &fasthttp.HostClient{Addr: addr, MaxConns: 1, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second}
	defer hc.CloseIdleConnections()
	first, err := readDebugMemory(hc, addr)
	if err != nil {
		return 0, err
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop.Store(true)
	for range 2 {
		wg.Go(func() {
			gc := &fasthttp.HostClient{Addr: addr, MaxConns: 1, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second}
			defer gc.CloseIdleConnections()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for !stop.Load() && ctx.Err() == nil {
				if err := load(gc, req, resp); err != nil {
					return
				}
			}
		})
	}
	least := ^uint64(0)
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		m, err := readDebugMemory(hc, addr)
		if err != nil {
			return 0, err
		}
		if m.NumGC > first.NumGC {
			least = min(least, m.HeapAlloc)
		}
		if m.NumGC >= first.NumGC+settledGCs {
			return least, nil
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %d garbage collections within %s", settledGCs, limit)
}

func writeMemory(w io.Writer, runs []memoryRun) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\tmessages\tcounted\tfill\trss before\trss after\trss/message\theap before\theap after\theap/message\t")
	for _, r := range runs {
		counted := "-"
		if r.Counted >= 0 {
			counted = strconv.FormatInt(r.Counted, 10)
		}
		heap := "-\t-\t-"
		if r.HeapAfter > 0 {
			heap = fmt.Sprintf("%s\t%s\t%.0f B", fmtMiB(int64(r.HeapBefore)), fmtMiB(int64(r.HeapAfter)),
				(float64(r.HeapAfter)-float64(r.HeapBefore))/float64(r.Messages))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%.0f B\t%s\t\n", r.Name, r.Messages, counted, r.Fill.Round(time.Millisecond),
			fmtMiB(r.RSSBefore), fmtMiB(r.RSSAfter), float64(r.RSSAfter-r.RSSBefore)/float64(r.Messages), heap)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "# rss = resident memory (VmRSS); heap = the emulator's live heap (heapAllocBytes of /_emulator/debug/health, least after garbage collections); per message = (after - before) / messages")
	return err
}

func fmtMiB(b int64) string { return fmt.Sprintf("%.1f MiB", mib(b)) }
