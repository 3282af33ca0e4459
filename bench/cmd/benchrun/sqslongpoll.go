package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/valyala/fasthttp"
)

// longPollFlags are the flags of "benchrun sqs-longpoll".
type longPollFlags struct {
	emulator string
	moto     string
	samples  int
	limit    time.Duration
	park     time.Duration
	ready    time.Duration
}

func (f *longPollFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` to measure")
	fs.StringVar(&f.moto, "moto", "", "moto_server `binary` to measure as well")
	fs.IntVar(&f.samples, "samples", 1000, "wake-ups to measure per server")
	fs.DurationVar(&f.limit, "limit", time.Minute, "time bound per server; fewer samples if it passes")
	fs.DurationVar(&f.park, "park", 10*time.Millisecond, "pause between the receive's start and the send, for the receive to be waiting")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long a server may take to answer")
}

func (f *longPollFlags) check() error {
	switch {
	case f.emulator == "" && f.moto == "":
		return errors.New("benchrun: sqs-longpoll needs -emulator BIN or -moto BIN")
	case f.samples < 1 || f.samples > 100000:
		return fmt.Errorf("benchrun: -samples %d out of range 1..100000", f.samples)
	case f.limit <= 0 || f.limit > 10*time.Minute:
		return fmt.Errorf("benchrun: -limit %s out of range (0, 10m]", f.limit)
	case f.park < 0 || f.park > time.Second:
		return fmt.Errorf("benchrun: -park %s out of range [0, 1s]", f.park)
	}
	return nil
}

// longPollWait is the receive's WaitTimeSeconds; the client's read timeout
// is a little longer.
const longPollWait = 20

// wakeTarget is the bound on the wake-up's p99.
const wakeTarget = 5 * time.Millisecond

// longPollRun is one server's figures.
type longPollRun struct {
	Name  string
	Wake  []time.Duration // send start to the receive's answer
	Send  []time.Duration // send start to the send's answer
	Limit bool            // the time bound cut the samples short
}

// sqsLongPoll measures long-poll wake-up: a receiver long-polls an empty
// queue (WaitTimeSeconds 20), and once it has had -park to reach the
// server a sender sends one message; the wake-up is the time from the
// send's start to the receive's answer. The receiver and the sender have
// their own connections; the message is deleted after each sample.
func (a *app) sqsLongPoll(ctx context.Context, args []string) error {
	var f longPollFlags
	fs := newFlagSet("sqs-longpoll")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()
	var runs []longPollRun
	for _, s := range []struct{ name, bin string }{{"emulator", f.emulator}, {"moto", f.moto}} {
		if s.bin == "" {
			continue
		}
		addr, stop, err := a.startServer(ctx, p, s.name, s.bin, nil, f.ready)
		if err != nil {
			return err
		}
		run, err := longPoll(ctx, addr, &f)
		stop()
		if err != nil {
			return fmt.Errorf("benchrun: sqs-longpoll %s: %w", s.name, err)
		}
		run.Name = s.name
		runs = append(runs, run)
	}
	fmt.Fprintf(a.stdout, "# benchrun sqs-longpoll: %s %s/%s, %d CPUs, WaitTimeSeconds=%d, park=%s, up to %d samples or %s per server\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), longPollWait, f.park, f.samples, f.limit)
	return writeLongPoll(a.stdout, runs)
}

// startServer starts the emulator (name "emulator", with extra
// environment) or moto_server (name "moto") and waits until it answers;
// stop stops it.
func (a *app) startServer(ctx context.Context, p *procs, name, bin string, env []string, ready time.Duration) (string, func(), error) {
	if name == "moto" {
		c, addr, out, err := p.startMoto(name, bin)
		if err != nil {
			return "", nil, err
		}
		if _, err := waitReady(ctx, c, addr, "/", ready, 10*time.Millisecond); err != nil {
			return "", nil, fmt.Errorf("benchrun: moto: %w\n%s", err, out)
		}
		return addr, func() { p.stop(c) }, nil
	}
	c, addr, err := p.startEmulator(name, bin, env)
	if err != nil {
		return "", nil, err
	}
	if _, err := waitHealthy(ctx, c, addr, ready, time.Millisecond); err != nil {
		return "", nil, fmt.Errorf("benchrun: emulator: %w", err)
	}
	return addr, func() { p.stop(c) }, nil
}

// longPoll takes f.samples wake-ups on a new queue of the server at addr,
// or as many as f.limit allows.
func longPoll(ctx context.Context, addr string, f *longPollFlags) (longPollRun, error) {
	var run longPollRun
	urls, err := createQueues(addr, "bench-longpoll", 1)
	if err != nil {
		return run, err
	}
	client := func() *fasthttp.HostClient {
		return &fasthttp.HostClient{
			Addr:                      addr,
			MaxConns:                  1,
			ReadTimeout:               (longPollWait + 5) * time.Second,
			WriteTimeout:              5 * time.Second,
			MaxIdemponentCallAttempts: 1,
			NoDefaultUserAgentHeader:  true,
		}
	}
	receiver, sender := client(), client()
	defer receiver.CloseIdleConnections()
	defer sender.CloseIdleConnections()
	request := func(op string, body []byte) *fasthttp.Request {
		req := fasthttp.AcquireRequest()
		sqsHeaders(req, op)
		req.SetHost(addr)
		req.SetBody(body)
		return req
	}
	receive := request("ReceiveMessage", sqsReceiveBody(urls[0], longPollWait))
	defer fasthttp.ReleaseRequest(receive)
	send := request("SendMessage", sqsSendBody(urls[0], sqsMessageBody))
	defer fasthttp.ReleaseRequest(send)
	del := request("DeleteMessage", nil)
	defer fasthttp.ReleaseRequest(del)
	recvResp, sendResp := fasthttp.AcquireResponse(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(recvResp)
	defer fasthttp.ReleaseResponse(sendResp)

	type answer struct {
		at  time.Time
		err error
	}
	deadline := time.Now().Add(f.limit)
	for len(run.Wake) < f.samples {
		if time.Now().After(deadline) {
			run.Limit = true
			break
		}
		done := make(chan answer, 1)
		go func() {
			err := receiver.Do(receive, recvResp)
			done <- answer{time.Now(), err}
		}()
		time.Sleep(f.park)
		sendStart := time.Now()
		err := sender.Do(send, sendResp)
		sendEnd := time.Now()
		if err == nil && sendResp.StatusCode() != fasthttp.StatusOK {
			err = fmt.Errorf("SendMessage: %d %s", sendResp.StatusCode(), sendResp.Body())
		}
		if err != nil {
			<-done // the receive ends with the message or its wait
			return run, err
		}
		var got answer
		select {
		case got = <-done:
		case <-ctx.Done():
			return run, ctx.Err()
		}
		if got.err != nil {
			return run, fmt.Errorf("ReceiveMessage: %w", got.err)
		}
		handle := receiptHandle(recvResp.Body())
		switch {
		case recvResp.StatusCode() != fasthttp.StatusOK:
			return run, fmt.Errorf("ReceiveMessage: %d %s", recvResp.StatusCode(), recvResp.Body())
		case handle == nil:
			return run, fmt.Errorf("ReceiveMessage woke without the message: %s", recvResp.Body())
		case got.at.Before(sendStart):
			return run, errors.New("ReceiveMessage answered before the send started")
		}
		run.Wake = append(run.Wake, got.at.Sub(sendStart))
		run.Send = append(run.Send, sendEnd.Sub(sendStart))
		del.SetBody(sqsDeletePrefix(urls[0]))
		del.AppendBody(handle)
		del.AppendBodyString("}")
		if err := sender.Do(del, sendResp); err != nil || sendResp.StatusCode() != fasthttp.StatusOK {
			return run, fmt.Errorf("DeleteMessage: %v %d %s", err, sendResp.StatusCode(), sendResp.Body())
		}
	}
	return run, nil
}

// quantile returns the nearest-rank q-quantile of ds (0 for none).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func writeLongPoll(w io.Writer, runs []longPollRun) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\tsamples\twake p50\twake p90\twake p99\twake max\tsend p50\tp99 < 5ms\t")
	var notes []string
	for _, r := range runs {
		p99 := quantile(r.Wake, 0.99)
		met := "no"
		if len(r.Wake) > 0 && p99 < wakeTarget {
			met = "yes"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Name, len(r.Wake),
			latency(quantile(r.Wake, 0.5)), latency(quantile(r.Wake, 0.9)), latency(p99),
			latency(quantile(r.Wake, 1)), latency(quantile(r.Send, 0.5)), met)
		if r.Limit {
			notes = append(notes, fmt.Sprintf("# %s: the time bound stopped it at %d samples\n", r.Name, len(r.Wake)))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "# wake = the send's request start to the long-polling receive's answer; send = the send's own round trip")
	for _, n := range notes {
		if _, err := io.WriteString(w, n); err != nil {
			return err
		}
	}
	return nil
}
