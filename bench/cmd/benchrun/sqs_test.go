package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/bench"
	"github.com/cloudemu/emulator/server/servertest"
)

func TestReceiptHandle(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{name: "go", body: `{"Messages":[{"MessageId":"1","ReceiptHandle":"abc+/=","Body":"x"}]}`, want: `"abc+/="`},
		{name: "python", body: `{"Messages": [{"MessageId": "1", "ReceiptHandle" : "abc", "Body": "x"}]}`, want: `"abc"`},
		{name: "escapes", body: `{"Messages":[{"ReceiptHandle":"a\"b\\\\c\/d"}]}`, want: `"a\"b\\\\c\/d"`},
		{name: "empty", body: `{}`},
		{name: "no messages", body: `{"Messages": []}`},
		{name: "not a string", body: `{"ReceiptHandle": 12}`},
		{name: "unterminated", body: `{"ReceiptHandle": "abc`},
		{name: "no colon", body: `{"ReceiptHandle" "abc"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := receiptHandle([]byte(tc.body))
			if string(got) != tc.want || (tc.want == "") != (got == nil) {
				t.Fatalf("receiptHandle(%s) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
}

// decode unmarshals a request body, failing the test if it is not JSON.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %s: %v", b, err)
	}
	return m
}

func TestSQSRequests(t *testing.T) {
	const url = "http://127.0.0.1:4566/000000000000/bench-queue-0"
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	sqsHeaders(req, "SendMessage")
	req.SetBody(sqsSendBody(url, sqsMessageBody))
	if string(req.Header.Method()) != "POST" || string(req.RequestURI()) != "/" {
		t.Errorf("request line %s %s", req.Header.Method(), req.RequestURI())
	}
	for k, want := range map[string]string{
		"Content-Type":      "application/x-amz-json-1.0",
		"X-Amz-Target":      "AmazonSQS.SendMessage",
		"X-Amzn-Query-Mode": "true",
		"X-Amz-Date":        "20250101T000000Z",
	} {
		if got := string(req.Header.Peek(k)); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if auth := string(req.Header.Peek("Authorization")); !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/sqs/aws4_request, ") {
		t.Errorf("Authorization = %q", auth)
	}
	if n := len(sqsMessageBody); n < 90 || n > 110 {
		t.Errorf("message body is %d bytes, want about 100", n)
	}
	// The SDK writes members in alphabetical order.
	if body := string(req.Body()); !strings.HasPrefix(body, `{"MessageBody":`) {
		t.Errorf("SendMessage body %s", body)
	}
	if m := decode(t, req.Body()); m["QueueUrl"] != url || m["MessageBody"] != sqsMessageBody || len(m) != 2 {
		t.Errorf("SendMessage input %v", m)
	}
	if m := decode(t, sqsReceiveBody(url, 20)); m["QueueUrl"] != url || m["MaxNumberOfMessages"] != 1.0 || m["WaitTimeSeconds"] != 20.0 {
		t.Errorf("ReceiveMessage input %v", m)
	}
	del := append(sqsDeletePrefix(url), `"h\/1"}`...)
	if m := decode(t, del); m["QueueUrl"] != url || m["ReceiptHandle"] != "h/1" {
		t.Errorf("DeleteMessage input %v", m)
	}
	var batch struct {
		Entries  []struct{ Id, MessageBody string }
		QueueURL string `json:"QueueUrl"`
	}
	if err := json.Unmarshal([]byte(batchBody(url, 3, func(i int) string { return messageBody(i, 256) })), &batch); err != nil {
		t.Fatal(err)
	}
	if batch.QueueURL != url || len(batch.Entries) != 3 || batch.Entries[2].Id != "m2" || len(batch.Entries[2].MessageBody) != 256 ||
		batch.Entries[0].MessageBody == batch.Entries[1].MessageBody {
		t.Errorf("SendMessageBatch input %+v", batch)
	}
}

// stubSQS is a bench.Doer answering each request with the next of its
// canned answers and keeping what was sent.
type stubSQS struct {
	answers []stubAnswer
	sent    []stubSent
}

type stubAnswer struct {
	status int
	body   string
	err    error
}

type stubSent struct{ target, body string }

func (s *stubSQS) Do(req *fasthttp.Request, resp *fasthttp.Response) error {
	s.sent = append(s.sent, stubSent{string(req.Header.Peek("X-Amz-Target")), string(req.Body())})
	a := s.answers[0]
	s.answers = s.answers[1:]
	if a.err != nil {
		return a.err
	}
	resp.SetStatusCode(a.status)
	resp.SetBodyString(a.body)
	return nil
}

func TestReceiveDeleteStep(t *testing.T) {
	message := stubAnswer{status: 200, body: `{"Messages": [{"ReceiptHandle": "h\/7", "Body": "x"}]}`}
	refused := errors.New("connection refused")
	tests := []struct {
		name       string
		answers    []stubAnswer
		wantStatus int
		wantErr    error
		wantSent   []string
		received   int64
	}{
		{name: "pair", answers: []stubAnswer{message, {status: 200, body: "{}"}}, wantStatus: 200,
			wantSent: []string{"ReceiveMessage", "DeleteMessage"}, received: 1},
		{name: "empty receive", answers: []stubAnswer{{status: 200, body: "{}"}}, wantStatus: 200, wantErr: bench.ErrEmpty,
			wantSent: []string{"ReceiveMessage"}},
		{name: "receive refused", answers: []stubAnswer{{status: 400, body: `{"__type": "QueueDoesNotExist"}`}}, wantStatus: 400,
			wantSent: []string{"ReceiveMessage"}},
		{name: "delete refused", answers: []stubAnswer{message, {status: 400, body: `{}`}}, wantStatus: 400,
			wantSent: []string{"ReceiveMessage", "DeleteMessage"}, received: 1},
		{name: "receive transport error", answers: []stubAnswer{{err: refused}}, wantErr: refused,
			wantSent: []string{"ReceiveMessage"}},
		{name: "delete transport error", answers: []stubAnswer{message, {err: refused}}, wantErr: refused,
			wantSent: []string{"ReceiveMessage", "DeleteMessage"}, received: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := &sqsQueues{}
			q.init([]string{"http://h/1/q0", "http://h/1/q1"})
			stub := &stubSQS{answers: tc.answers}
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			sqsHeaders(req, "ReceiveMessage")
			status, err := q.receiveDelete(stub, req, resp)
			if status != tc.wantStatus || !errors.Is(err, tc.wantErr) {
				t.Fatalf("step = %d, %v; want %d, %v", status, err, tc.wantStatus, tc.wantErr)
			}
			var targets []string
			for _, s := range stub.sent {
				targets = append(targets, strings.TrimPrefix(s.target, "AmazonSQS."))
			}
			if strings.Join(targets, ",") != strings.Join(tc.wantSent, ",") {
				t.Fatalf("sent %v, want %v", targets, tc.wantSent)
			}
			if m := decode(t, []byte(stub.sent[0].body)); m["QueueUrl"] != "http://h/1/q0" || m["WaitTimeSeconds"] != 0.0 {
				t.Errorf("receive input %v", m)
			}
			if len(stub.sent) == 2 {
				if m := decode(t, []byte(stub.sent[1].body)); m["QueueUrl"] != "http://h/1/q0" || m["ReceiptHandle"] != "h/7" {
					t.Errorf("delete input %v", m)
				}
			}
			if got := q.received[0].Load(); got != tc.received {
				t.Errorf("received %d, want %d", got, tc.received)
			}
		})
	}
}

func TestSQSQueuesCycle(t *testing.T) {
	q := &sqsQueues{}
	q.init([]string{"a", "b", "c"})
	var got []int
	for range 7 {
		got = append(got, q.pick())
	}
	if want := []int{0, 1, 2, 0, 1, 2, 0}; !slices.Equal(got, want) {
		t.Fatalf("picks %v, want %v", got, want)
	}
	// SendMessage over several queues changes the URL each request.
	sc := newSQSSendMessage(3, false)
	if sc.Vary == nil || sc.ScalesFrom != "SQSSendMessage/queues=1" || newSQSSendMessage(1, false).Vary != nil {
		t.Errorf("SendMessage scenarios: Vary %v ScalesFrom %q", sc.Vary != nil, sc.ScalesFrom)
	}
	// Persistent mode has no moto twin and scales from its own kind.
	for _, sc := range []scenario{sqsSendMessage(16, true), sqsReceiveDelete(16, true)} {
		if sc.Moto != nil || !sc.DataDir || !strings.HasSuffix(sc.Name, "/queues=16/persistent") || !strings.HasSuffix(sc.ScalesFrom, "/queues=1/persistent") {
			t.Errorf("%s: moto %v, data dir %v, scales from %q", sc.Name, sc.Moto != nil, sc.DataDir, sc.ScalesFrom)
		}
	}
	if sqsSendMessage(1, false).Moto == nil || sqsReceiveDelete(1, false).Moto == nil {
		t.Error("in-memory SQS scenarios without a moto twin")
	}
}

// startFakeSQS serves fakeSQS in the test process.
func startFakeSQS(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fasthttp.Server{Handler: newFakeSQS(ln.Addr().String()).serve}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Shutdown() })
	return ln.Addr().String()
}

func TestRefillTopsUp(t *testing.T) {
	addr := startFakeSQS(t)
	q := &sqsQueues{}
	if err := q.setup(addr, 2); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// 100 pairs/s for 1s with the 1.25 margin, over 2 queues: 63 each.
	if err := q.refill(ctx, addr, time.Second, 100); err != nil {
		t.Fatal(err)
	}
	if q.filled[0] != 63 || q.filled[1] != 63 {
		t.Fatalf("filled %v, want 63 each", q.filled)
	}
	// Take 10 from queue 0 with the step; a refill puts back just those.
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	sqsHeaders(req, "ReceiveMessage")
	req.SetHost(addr)
	hc := &fasthttp.HostClient{Addr: addr}
	for range 20 {
		if status, err := q.receiveDelete(hc, req, resp); status != 200 || err != nil {
			t.Fatalf("step = %d, %v: %s", status, err, resp.Body())
		}
	}
	if err := q.refill(ctx, addr, time.Second, 100); err != nil {
		t.Fatal(err)
	}
	if q.filled[0] != 73 || q.filled[1] != 73 {
		t.Fatalf("filled %v after 10 taken from each, want 73 each", q.filled)
	}
	// A run that drains the queues: the next refill sizes the rate by the
	// time until the first empty receive, so it asks for far more than
	// 126 messages over the 1s window would.
	for range 126 {
		if status, err := q.receiveDelete(hc, req, resp); status != 200 || err != nil {
			t.Fatalf("step = %d, %v: %s", status, err, resp.Body())
		}
	}
	if status, err := q.receiveDelete(hc, req, resp); !errors.Is(err, bench.ErrEmpty) || q.drainedAt.Load() == 0 {
		t.Fatalf("step on drained queues = %d, %v", status, err)
	}
	if err := q.refill(ctx, addr, time.Second, 100); err != nil {
		t.Fatal(err)
	}
	// 126 messages at 1.5x the pace they went at, with a quarter more.
	if q.filled[0] < 73+2*63 || q.filled[0] != q.filled[1] || q.drainedAt.Load() != 0 {
		t.Fatalf("filled %v after draining, want well over %d each", q.filled, 73+2*63)
	}
	var attrs struct{ Attributes map[string]string }
	if err := sqsCall(addr, "GetQueueAttributes", `{"QueueUrl":`+jsonString(q.urls[1])+`}`, &attrs); err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.ParseInt(attrs.Attributes["ApproximateNumberOfMessages"], 10, 64); n != q.filled[1]-73 {
		t.Fatalf("queue 1 holds %d, want %d", n, q.filled[1]-73)
	}
}

func TestCompareWithMoto(t *testing.T) {
	// The test binary plays both the emulator and moto_server (fakeSQS).
	t.Setenv(fakeSQSEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	names := []string{"SQSSendMessage/queues=1", "SQSSendMessage/queues=16", "SQSReceiveDelete/queues=1", "SQSReceiveDelete/queues=16"}
	args := []string{"-conns", "2", "-duration", "150ms", "-warmup", "20ms", "-runs", "2", "-emulator", self, "-moto", self,
		"-only", strings.Join(names, ",")}
	if err := a.compare(ctx, args); err != nil {
		t.Fatalf("compare: %v\n%s", err, out.String())
	}
	report := out.String()
	for _, name := range names {
		// name runs rps p50 p99 errors ratio
		emu, moto := tableRow(report, name), tableRow(report, name+"@moto")
		if len(emu) < 7 || emu[1] != "2" || emu[5] != "0" || emu[6] == "-" {
			t.Errorf("row %s = %q\n%s", name, emu, report)
		}
		// moto's queues are sized for moto's pace, so the fake one, much
		// faster, runs them dry in the first round; the second is sized
		// from the first.
		if len(moto) < 7 || moto[1] != "2" || moto[5] != "0" || moto[6] != "1.00x" || moto[2] == "0" {
			t.Errorf("row %s@moto = %q\n%s", name, moto, report)
		}
		if !strings.Contains(report, "# "+name+": emulator / moto per round: ") {
			t.Errorf("no per-round ratios for %s\n%s", name, report)
		}
	}
	for _, want := range []string{
		"# SQSSendMessage/queues=16: ", "x SQSSendMessage/queues=1\n",
		"# SQSReceiveDelete/queues=16@moto: ", "x SQSReceiveDelete/queues=1@moto\n",
		"# SQSReceiveDelete/queues=1: one operation = one ReceiveMessage + DeleteMessage pair",
		"# NAME@moto: the same scenario against its own moto_server",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q\n%s", want, report)
		}
	}
	if !regexp.MustCompile(`(?m)^# SQSReceiveDelete/queues=1@moto: \d+ steps found nothing to do`).MatchString(report) {
		t.Errorf("the fake moto's first round did not run dry:\n%s", report)
	}
	if regexp.MustCompile(`(?m)^# SQSReceiveDelete/queues=\d+: \d+ steps found nothing`).MatchString(report) {
		t.Errorf("the emulator's queues ran dry:\n%s", report)
	}
}

func TestCompareMotoSkipped(t *testing.T) {
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.compare(ctx, []string{"-conns", "1", "-duration", "50ms", "-runs", "1", "-only", "bare,SQSSendMessage/queues=1"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# SQSSendMessage/queues=1: skipped: needs -emulator BIN", "# SQSSendMessage/queues=1@moto: skipped: needs -moto BIN"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "# NAME@moto") {
		t.Errorf("peer legend without a peer:\n%s", out.String())
	}
}

func TestSQSLongPollCommand(t *testing.T) {
	t.Setenv(fakeSQSEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := a.sqsLongPoll(ctx, []string{"-emulator", self, "-moto", self, "-samples", "20", "-park", "2ms"}); err != nil {
		t.Fatalf("sqs-longpoll: %v\n%s", err, out.String())
	}
	for _, name := range []string{"emulator", "moto"} {
		// server samples p50 p90 p99 max send-p50 met
		if f := tableRow(out.String(), name); len(f) != 8 || f[1] != "20" {
			t.Errorf("row %s = %q\n%s", name, f, out.String())
		}
	}
}

func TestSQSLongPollLimit(t *testing.T) {
	addr := startFakeSQS(t)
	f := &longPollFlags{samples: 1000, limit: 30 * time.Millisecond, park: 5 * time.Millisecond}
	run, err := longPoll(context.Background(), addr, f)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Limit || len(run.Wake) == 0 || len(run.Wake) > 10 || len(run.Send) != len(run.Wake) {
		t.Fatalf("run = %d samples, limit %v", len(run.Wake), run.Limit)
	}
	for _, w := range run.Wake {
		if w <= 0 || w > time.Second {
			t.Errorf("wake-up %s", w)
		}
	}
}

func TestQuantile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for q, want := range map[float64]time.Duration{0.5: 50 * time.Millisecond, 0.99: 99 * time.Millisecond, 1: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := quantile(ds, q); got != want {
			t.Errorf("quantile(%v) = %s, want %s", q, got, want)
		}
	}
	if ds[0] != 100*time.Millisecond {
		t.Error("quantile reordered its input")
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing")
	}
}

func TestWriteLongPoll(t *testing.T) {
	var out bytes.Buffer
	fast := make([]time.Duration, 100)
	for i := range fast {
		fast[i] = time.Millisecond
	}
	slow := []time.Duration{4 * time.Millisecond, 9 * time.Millisecond}
	err := writeLongPoll(&out, []longPollRun{{Name: "emulator", Wake: fast, Send: fast}, {Name: "moto", Wake: slow, Send: slow, Limit: true}})
	if err != nil {
		t.Fatal(err)
	}
	if f := tableRow(out.String(), "emulator"); len(f) != 8 || f[1] != "100" || f[4] != "1.00ms" || f[7] != "yes" {
		t.Errorf("emulator row %q", f)
	}
	if f := tableRow(out.String(), "moto"); len(f) != 8 || f[4] != "9.00ms" || f[7] != "no" {
		t.Errorf("moto row %q", f)
	}
	if !strings.Contains(out.String(), "# moto: the time bound stopped it at 2 samples") {
		t.Errorf("no limit note:\n%s", out.String())
	}
}

func TestSQSMemoryCommand(t *testing.T) {
	t.Setenv(fakeSQSEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := a.sqsMemory(ctx, []string{"-emulator", self, "-moto", self, "-messages", "3000", "-moto-messages", "500", "-settle", "10s"}); err != nil {
		t.Fatalf("sqs-memory: %v\n%s", err, out.String())
	}
	// server messages counted fill rss-before (2) rss-after (2) rss/message (2) heap...
	if f := tableRow(out.String(), "emulator"); len(f) != 16 || f[1] != "3000" || f[2] != "3000" || f[15] != "B" {
		t.Errorf("emulator row %q\n%s", f, out.String())
	}
	if f := tableRow(out.String(), "moto"); len(f) < 11 || f[1] != "500" || f[2] != "500" || f[len(f)-1] != "-" {
		t.Errorf("moto row %q\n%s", f, out.String())
	}
}

func TestParseDebugMemory(t *testing.T) {
	m, err := parseDebugMemory(200, []byte(`{"status":"ok","runtime":{"memory":{"heapAllocBytes":12345,"heapObjects":9,"numGC":7}}}`))
	if err != nil || m.HeapAlloc != 12345 || m.NumGC != 7 {
		t.Fatalf("parse = %+v, %v", m, err)
	}
	if _, err := parseDebugMemory(404, []byte(`{"message":"set EMULATOR_DEBUG=true"}`)); err == nil {
		t.Error("a 404 parsed")
	}
	if _, err := parseDebugMemory(200, []byte(`{"runtime":{}}`)); err == nil {
		t.Error("no heap figure parsed")
	}
}

func TestMessageBody(t *testing.T) {
	if b := messageBody(42, 256); len(b) != 256 || !strings.HasPrefix(b, "bench-42-") {
		t.Errorf("messageBody(42, 256) = %q", b)
	}
	if messageBody(1, 20) == messageBody(2, 20) {
		t.Error("bodies repeat")
	}
	if b := messageBody(123456789, 8); len(b) != 8 {
		t.Errorf("short body %q", b)
	}
}

func TestSQSCommandsAgainstEmulator(t *testing.T) {
	if !servesSQS(servertest.Start(t).Addr) {
		t.Skip("this emulator serves no SQS yet")
	}
	// The test binary plays the real emulator (see realEmulatorMain).
	t.Setenv(realEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := a.sqsLongPoll(ctx, []string{"-emulator", self, "-samples", "20", "-park", "2ms"}); err != nil {
		t.Fatalf("sqs-longpoll: %v\n%s", err, out.String())
	}
	if f := tableRow(out.String(), "emulator"); len(f) != 8 || f[1] != "20" {
		t.Errorf("sqs-longpoll row %q\n%s", f, out.String())
	}
	out.Reset()
	if err := a.sqsMemory(ctx, []string{"-emulator", self, "-messages", "2000", "-settle", "30s"}); err != nil {
		t.Fatalf("sqs-memory: %v\n%s", err, out.String())
	}
	// The heap columns come from /_emulator/debug/health.
	if f := tableRow(out.String(), "emulator"); len(f) != 16 || f[1] != "2000" || f[2] != "2000" || f[15] != "B" {
		t.Errorf("sqs-memory row %q\n%s", f, out.String())
	}
}
