package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// fakeSQSEnv makes the test binary, started with no subcommand, play an
// SQS server (fakeSQS): on EMULATOR_HOST:EMULATOR_PORT when started as the
// emulator, on -H and -p when started as moto_server.
const fakeSQSEnv = "BENCHRUN_FAKE_SQS"

// fakeSQSMain serves fakeSQS until SIGTERM.
func fakeSQSMain(args []string) int {
	addr := net.JoinHostPort(os.Getenv("EMULATOR_HOST"), os.Getenv("EMULATOR_PORT"))
	if len(args) > 0 {
		fs := flag.NewFlagSet("moto_server", flag.ContinueOnError)
		host := fs.String("H", "127.0.0.1", "")
		port := fs.String("p", "5000", "")
		if err := fs.Parse(args); err != nil {
			return 2
		}
		addr = net.JoinHostPort(*host, *port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	s := &fasthttp.Server{Handler: newFakeSQS(ln.Addr().String()).serve}
	go func() { _ = s.Serve(ln) }()
	<-ctx.Done()
	_ = s.Shutdown()
	return 0
}

// fakeSQS is just enough of SQS's JSON protocol for benchrun's scenarios:
// queues of bodies, receipt handles, long polls, and the emulator's health
// and debug health (with this process's own memory). It answers in
// Python's JSON spacing, as moto does.
type fakeSQS struct {
	addr     string
	mu       sync.Mutex
	queues   map[string][]string // URL -> bodies, oldest first
	inflight map[string]bool     // receipt handles not yet deleted
	seq      int
}

func newFakeSQS(addr string) *fakeSQS {
	return &fakeSQS{addr: addr, queues: map[string][]string{}, inflight: map[string]bool{}}
}

func (f *fakeSQS) serve(ctx *fasthttp.RequestCtx) {
	if string(ctx.Method()) == fasthttp.MethodGet {
		if string(ctx.Path()) == "/_emulator/debug/health" {
			runtime.GC() // so that every reading follows a collection
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Fprintf(ctx, `{"runtime": {"memory": {"heapAllocBytes": %d, "numGC": %d}}}`, ms.HeapAlloc, ms.NumGC)
			return
		}
		ctx.SetBodyString("ok")
		return
	}
	var in struct {
		QueueName, MessageBody, ReceiptHandle string
		QueueURL                              string `json:"QueueUrl"`
		WaitTimeSeconds                       int
		Entries                               []struct{ MessageBody string }
	}
	if err := json.Unmarshal(ctx.PostBody(), &in); err != nil {
		ctx.Error(`{"__type": "InvalidParameterValue"}`, 400)
		return
	}
	op, _ := strings.CutPrefix(string(ctx.Request.Header.Peek("X-Amz-Target")), "AmazonSQS.")
	ctx.SetContentType("application/x-amz-json-1.0")
	f.mu.Lock()
	defer f.mu.Unlock()
	q, ok := f.queues[in.QueueURL]
	if !ok && op != "CreateQueue" {
		ctx.Error(`{"__type": "QueueDoesNotExist"}`, 400)
		return
	}
	switch op {
	case "CreateQueue":
		url := "http://" + f.addr + "/123456789012/" + in.QueueName
		if _, ok := f.queues[url]; !ok {
			f.queues[url] = nil
		}
		fmt.Fprintf(ctx, `{"QueueUrl": %q}`, url)
	case "SendMessage":
		f.queues[in.QueueURL] = append(q, in.MessageBody)
		fmt.Fprintf(ctx, `{"MessageId": "m-%d"}`, len(q))
	case "SendMessageBatch":
		var ok []string
		for _, e := range in.Entries {
			q = append(q, e.MessageBody)
			ok = append(ok, `{"Id": "x"}`)
		}
		f.queues[in.QueueURL] = q
		fmt.Fprintf(ctx, `{"Successful": [%s], "Failed": []}`, strings.Join(ok, ", "))
	case "ReceiveMessage":
		deadline := time.Now().Add(time.Duration(in.WaitTimeSeconds) * time.Second)
		for len(f.queues[in.QueueURL]) == 0 && time.Now().Before(deadline) {
			f.mu.Unlock()
			time.Sleep(200 * time.Microsecond)
			f.mu.Lock()
		}
		q = f.queues[in.QueueURL]
		if len(q) == 0 {
			ctx.SetBodyString("{}")
			return
		}
		f.queues[in.QueueURL] = q[1:]
		f.seq++
		// A handle with an escaped character, which DeleteMessage must
		// send back as it came.
		h := "h\\/" + strconv.Itoa(f.seq)
		f.inflight["h/"+strconv.Itoa(f.seq)] = true
		fmt.Fprintf(ctx, `{"Messages": [{"MessageId": "m", "ReceiptHandle": "%s", "Body": %q}]}`, h, q[0])
	case "DeleteMessage":
		if !f.inflight[in.ReceiptHandle] {
			ctx.Error(`{"__type": "ReceiptHandleIsInvalid"}`, 400)
			return
		}
		delete(f.inflight, in.ReceiptHandle)
		ctx.SetBodyString("{}")
	case "GetQueueAttributes":
		fmt.Fprintf(ctx, `{"Attributes": {"ApproximateNumberOfMessages": "%d"}}`, len(q))
	default:
		ctx.Error(`{"__type": "InvalidAction"}`, 400)
	}
}
