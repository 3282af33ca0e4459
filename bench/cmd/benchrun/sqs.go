package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/bench"
)

// The SQS scenarios speak the JSON 1.0 protocol as aws-sdk-go-v2's SQS
// client (v1.53) does: POST / with X-Amz-Target, the query-compatibility
// header, SigV4 headers (a fixed signature: neither the emulator nor moto
// checks it) and the input members in alphabetical order.

// sqsMessageBody is the ~100-byte body of every benchmark message.
var sqsMessageBody = "bench-message-" + strings.Repeat("0123456789", 8) + "-end"

// Setup and fill requests are bounded like every other setup call.
const sqsCallTimeout = 10 * time.Second

// sqsHeaders sets the headers aws-sdk-go-v2 sends with SQS operation op.
func sqsHeaders(req *fasthttp.Request, op string) {
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURI("/")
	req.Header.SetContentType("application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "AmazonSQS."+op)
	req.Header.Set("X-Amzn-Query-Mode", "true")
	req.Header.Set("User-Agent", "aws-sdk-go-v2/1.41.0 ua/2.1 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/sqs#1.53.0 m/E")
	req.Header.Set("X-Amz-Date", "20250101T000000Z")
	req.Header.Set("Amz-Sdk-Invocation-Id", "3f1d6a6e-6c1b-4b7e-9d47-0b1d1c2e3f4a")
	req.Header.Set("Amz-Sdk-Request", "attempt=1; max=3")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/sqs/aws4_request, "+
		"SignedHeaders=amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date;x-amz-target;x-amzn-query-mode, "+
		"Signature="+strings.Repeat("0f", 32))
}

// jsonString returns s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// sqsSendBody is SendMessage's input.
func sqsSendBody(queueURL, message string) []byte {
	return []byte(`{"MessageBody":` + jsonString(message) + `,"QueueUrl":` + jsonString(queueURL) + `}`)
}

// sqsReceiveBody is ReceiveMessage's input: one message, no waiting.
func sqsReceiveBody(queueURL string, wait int) []byte {
	return []byte(`{"MaxNumberOfMessages":1,"QueueUrl":` + jsonString(queueURL) +
		`,"WaitTimeSeconds":` + strconv.Itoa(wait) + `}`)
}

// sqsDeletePrefix is DeleteMessage's input up to the receipt handle, which
// follows as a JSON string literal, then "}".
func sqsDeletePrefix(queueURL string) []byte {
	return []byte(`{"QueueUrl":` + jsonString(queueURL) + `,"ReceiptHandle":`)
}

// receiptHandle returns the first ReceiptHandle of a ReceiveMessage answer
// as the JSON string literal it is in the answer (quotes and escapes
// included, so that it can be pasted into DeleteMessage's input as is), or
// nil if there is none (an empty receive) or the answer is not shaped as
// expected. Python's json (moto) puts a space after the colon; Go's does not.
func receiptHandle(body []byte) []byte {
	const key = `"ReceiptHandle"`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(body[i+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return nil
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) < 2 || rest[0] != '"' {
		return nil
	}
	for j := 1; j < len(rest); j++ {
		switch rest[j] {
		case '\\':
			j++ // skip the escaped character
		case '"':
			return rest[:j+1]
		}
	}
	return nil
}

// sqsCall sends one setup request for op with body (JSON) and decodes the
// 200 answer into out (nil: ignore it).
func sqsCall(addr, op, body string, out any) error {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	sqsHeaders(req, op)
	req.SetRequestURI("http://" + addr + "/")
	req.SetBodyString(body)
	if err := fasthttp.DoTimeout(req, resp, sqsCallTimeout); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		return fmt.Errorf("%s: %d %s", op, resp.StatusCode(), resp.Body())
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.Body(), out); err != nil {
		return fmt.Errorf("%s: %w in %q", op, err, resp.Body())
	}
	return nil
}

// createQueues creates n standard queues prefix-0 .. prefix-(n-1) and
// returns their URLs as CreateQueue answered them (the emulator's account
// is 000000000000, moto's 123456789012).
func createQueues(addr, prefix string, n int) ([]string, error) {
	urls := make([]string, n)
	for i := range n {
		var out struct {
			QueueURL string `json:"QueueUrl"`
		}
		if err := sqsCall(addr, "CreateQueue", `{"QueueName":"`+prefix+"-"+strconv.Itoa(i)+`"}`, &out); err != nil {
			return nil, err
		}
		if out.QueueURL == "" {
			return nil, fmt.Errorf("CreateQueue %s-%d: no QueueUrl in the answer", prefix, i)
		}
		urls[i] = out.QueueURL
	}
	return urls, nil
}

// batchBody is SendMessageBatch's input: the messages body(0..count-1).
func batchBody(queueURL string, count int, body func(i int) string) string {
	var b strings.Builder
	b.WriteString(`{"Entries":[`)
	for i := range count {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"Id":"m` + strconv.Itoa(i) + `","MessageBody":` + jsonString(body(i)) + `}`)
	}
	b.WriteString(`],"QueueUrl":` + jsonString(queueURL) + `}`)
	return b.String()
}

// fillBatches is how many SendMessageBatch requests fill sends at once.
const fillConns = 4

// fill sends n messages to queueURL with SendMessageBatch, 10 per request,
// from fillConns goroutines; body(i) is the i-th message's body. Every
// entry must succeed.
func fill(ctx context.Context, addr, queueURL string, n int, body func(i int) string) error {
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		mu     sync.Mutex
		errOut error
	)
	batches := int64((n + 9) / 10)
	for range fillConns {
		wg.Go(func() {
			for {
				b := next.Add(1) - 1
				if b >= batches || ctx.Err() != nil {
					return
				}
				first := int(b) * 10
				count := min(10, n-first)
				var out struct {
					Successful []json.RawMessage `json:"Successful"`
					Failed     []json.RawMessage `json:"Failed"`
				}
				err := sqsCall(addr, "SendMessageBatch", batchBody(queueURL, count, func(i int) string { return body(first + i) }), &out)
				if err == nil && (len(out.Successful) != count || len(out.Failed) != 0) {
					err = fmt.Errorf("SendMessageBatch: %d of %d sent, failed: %s", len(out.Successful), count, out.Failed)
				}
				if err != nil {
					mu.Lock()
					if errOut == nil {
						errOut = err
					}
					mu.Unlock()
					next.Store(batches) // stop the others
					return
				}
			}
		})
	}
	wg.Wait()
	if errOut == nil {
		errOut = ctx.Err()
	}
	return errOut
}

// sqsQueues is one SQS scenario instance's queues: their URLs and the
// request bodies built from them, and the next queue to use. Requests cycle
// over the queues, one queue per request, across all connections.
type sqsQueues struct {
	urls     []string
	send     [][]byte
	receive  [][]byte
	delete   [][]byte
	next     atomic.Uint64
	filled   []int64        // messages sent to each queue by Refill
	received []atomic.Int64 // messages received from each queue
	// drainedAt is when a receive first found a queue empty since the
	// last refill (Unix ns, 0 for never).
	drainedAt atomic.Int64
	// When the last refill ended, and the messages received by then.
	lastRefill   time.Time
	lastReceived int64
}

func (q *sqsQueues) setup(addr string, n int) error {
	urls, err := createQueues(addr, "bench-queue", n)
	if err != nil {
		return err
	}
	q.init(urls)
	return nil
}

// init builds the request bodies of the queues at urls.
func (q *sqsQueues) init(urls []string) {
	n := len(urls)
	q.urls = urls
	q.send, q.receive, q.delete = make([][]byte, n), make([][]byte, n), make([][]byte, n)
	for i, u := range urls {
		q.send[i] = sqsSendBody(u, sqsMessageBody)
		q.receive[i] = sqsReceiveBody(u, 0)
		q.delete[i] = sqsDeletePrefix(u)
	}
	q.filled = make([]int64, n)
	q.received = make([]atomic.Int64, n)
}

// pick returns the next queue's index.
func (q *sqsQueues) pick() int {
	return int((q.next.Add(1) - 1) % uint64(len(q.urls)))
}

// receiveDelete is one SQSReceiveDelete operation: ReceiveMessage on the
// next queue, then DeleteMessage with the receipt handle it got, on the
// worker's connection, reusing its request for both. An empty receive is
// bench.ErrEmpty: no pair.
func (q *sqsQueues) receiveDelete(c bench.Doer, req *fasthttp.Request, resp *fasthttp.Response) (int, error) {
	i := q.pick()
	req.Header.Set("X-Amz-Target", "AmazonSQS.ReceiveMessage")
	req.SetBody(q.receive[i])
	if err := c.Do(req, resp); err != nil {
		return 0, err
	}
	if code := resp.StatusCode(); code != fasthttp.StatusOK {
		return code, nil
	}
	handle := receiptHandle(resp.Body())
	if handle == nil {
		if q.drainedAt.Load() == 0 {
			q.drainedAt.CompareAndSwap(0, time.Now().UnixNano())
		}
		return fasthttp.StatusOK, bench.ErrEmpty
	}
	q.received[i].Add(1)
	req.Header.Set("X-Amz-Target", "AmazonSQS.DeleteMessage")
	req.SetBody(q.delete[i])
	req.AppendBody(handle)
	req.AppendBodyString("}")
	if err := c.Do(req, resp); err != nil {
		return 0, err
	}
	return resp.StatusCode(), nil
}

// refill tops every queue up to what a run of window at rate pairs/s
// (spread over the queues) takes, with a quarter more as a margin. The rate
// is at least one and a half times what the last run took, warm-up
// included: the messages received since the last refill over window, or,
// if a receive found a queue empty, over the time until then. A received
// message counts as gone: once received it stays invisible (for 30 s)
// whether or not its delete succeeded.
func (q *sqsQueues) refill(ctx context.Context, addr string, window time.Duration, rate float64) error {
	var received int64
	for i := range q.received {
		received += q.received[i].Load()
	}
	if !q.lastRefill.IsZero() {
		span := window
		if at := q.drainedAt.Swap(0); at != 0 {
			span = max(time.Unix(0, at).Sub(q.lastRefill), time.Millisecond)
		}
		rate = max(rate, float64(received-q.lastReceived)/span.Seconds()*1.5)
	}
	want := int64(rate*window.Seconds()*1.25/float64(len(q.urls))) + 1
	for i, u := range q.urls {
		have := q.filled[i] - q.received[i].Load()
		if have >= want {
			continue
		}
		n := int(want - have)
		if err := fill(ctx, addr, u, n, func(int) string { return sqsMessageBody }); err != nil {
			return fmt.Errorf("refill %s: %w", u, err)
		}
		q.filled[i] += int64(n)
	}
	q.lastRefill, q.lastReceived = time.Now(), received
	return nil
}

// Rates the first refill of an SQSReceiveDelete queue is sized for, before
// a run has measured one: a little above what each server was seen to do.
const (
	guessEmulatorPairs   = 30000
	guessPersistentPairs = 5000 // every receive and delete a durable write
	guessMotoPairs       = 150
)

// sqsName is an SQS scenario's name: op, the queue count and, in
// persistent mode, "/persistent".
func sqsName(op string, queues int, persistent bool) string {
	name := op + "/queues=" + strconv.Itoa(queues)
	if persistent {
		name += "/persistent"
	}
	return name
}

// sqsSendMessage is SendMessage of a ~100-byte message, cycling over
// `queues` queues created in Setup. The queues grow for the whole
// invocation (a run of 5 s at 20k/s leaves 100k messages). In memory mode
// it has a moto twin; in persistent mode (every message a durable write
// of its queue's owner) it has none, as moto keeps nothing.
func sqsSendMessage(queues int, persistent bool) scenario {
	sc := newSQSSendMessage(queues, persistent)
	if !persistent {
		sc.Moto = func() scenario { return newSQSSendMessage(queues, false) }
	}
	return sc
}

func newSQSSendMessage(queues int, persistent bool) scenario {
	q := &sqsQueues{}
	sc := scenario{
		Name:     sqsName("SQSSendMessage", queues, persistent),
		Emulator: true,
		DataDir:  persistent,
		Setup:    func(_ context.Context, addr string) error { return q.setup(addr, queues) },
		Build: func(req *fasthttp.Request) {
			sqsHeaders(req, "SendMessage")
			req.SetBody(q.send[0])
		},
	}
	if queues > 1 {
		sc.Vary = func(req *fasthttp.Request) { req.SetBody(q.send[q.pick()]) }
		sc.ScalesFrom = sqsName("SQSSendMessage", 1, persistent)
	}
	return sc
}

// sqsReceiveDelete is ReceiveMessage (one message, WaitTimeSeconds 0) then
// DeleteMessage of what it got, cycling over `queues` queues; one
// operation is the pair. Before every run (unmeasured) the queues are
// topped up with what the run can take at the best rate seen so far. Its
// moto twin is sized for moto's pace: moto's receive scans and copies the
// queue, so a queue as deep as the emulator's would measure the depth.
func sqsReceiveDelete(queues int, persistent bool) scenario {
	guess := float64(guessEmulatorPairs)
	if persistent {
		guess = guessPersistentPairs
	}
	sc := newSQSReceiveDelete(queues, persistent, guess)
	if !persistent {
		sc.Moto = func() scenario { return newSQSReceiveDelete(queues, false, guessMotoPairs) }
	}
	return sc
}

func newSQSReceiveDelete(queues int, persistent bool, guess float64) scenario {
	q := &sqsQueues{}
	sc := scenario{
		Name:     sqsName("SQSReceiveDelete", queues, persistent),
		Emulator: true,
		DataDir:  persistent,
		Setup:    func(_ context.Context, addr string) error { return q.setup(addr, queues) },
		Build:    func(req *fasthttp.Request) { sqsHeaders(req, "ReceiveMessage") },
		Step:     q.receiveDelete,
		Refill: func(ctx context.Context, addr string, window time.Duration, rate float64) error {
			return q.refill(ctx, addr, window, max(rate*1.5, guess))
		},
		Per: "ReceiveMessage + DeleteMessage pair",
	}
	if queues > 1 {
		sc.ScalesFrom = sqsName("SQSReceiveDelete", 1, persistent)
	}
	return sc
}
