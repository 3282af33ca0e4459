package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/fasthttp/websocket"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

// rawConn is a client connection that sends requests by hand.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// get sends GET path on the connection and reads the answer.
func (c *rawConn) get(path string) (*http.Response, string, error) {
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", path); err != nil {
		return nil, "", err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// healthy fails the test unless a new connection is served health.
func healthy(t *testing.T, addr string) {
	t.Helper()
	c := dialRaw(t, addr)
	resp, _, err := c.get("/_emulator/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health on a new connection: %v %v", resp, err)
	}
	_ = c.Close()
}

// TestConnectionLimits: past EMULATOR_MAX_CONNS_PER_IP, and past
// EMULATOR_MAX_CONNS, a new connection is answered 429 (503) with a JSON
// message and closed, while the connections already open go on being
// served; a place freed is taken by the next connection.
func TestConnectionLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*config.Config)
		status int
		word   string
	}{
		{"per-ip", func(c *config.Config) { c.MaxConnsPerIP = 3 }, 429, "EMULATOR_MAX_CONNS_PER_IP"},
		{"total", func(c *config.Config) { c.MaxConns = 3 }, 503, "EMULATOR_MAX_CONNS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := servertest.Start(t, servertest.WithConfig(tc.edit))
			held := []*rawConn{dialRaw(t, srv.Addr), dialRaw(t, srv.Addr), dialRaw(t, srv.Addr)}
			for i, c := range held {
				if resp, _, err := c.get("/_emulator/health"); err != nil || resp.StatusCode != 200 {
					t.Fatalf("connection %d: %v %v", i, resp, err)
				}
			}
			// Past the bound: refused with an answer, then closed.
			for range 5 {
				c := dialRaw(t, srv.Addr)
				resp, body, err := c.get("/_emulator/health")
				if err != nil {
					t.Fatalf("refused connection: %v (want its %d answer)", err, tc.status)
				}
				if resp.StatusCode != tc.status || !strings.Contains(body, tc.word) ||
					resp.Header.Get("Content-Type") != "application/json" || !resp.Close {
					t.Fatalf("refusal: %d %v %q", resp.StatusCode, resp.Header, body)
				}
				if _, err := c.r.ReadByte(); err != io.EOF {
					t.Fatalf("refused connection not closed: %v", err)
				}
			}
			// The held connections are still served.
			for i, c := range held {
				if resp, _, err := c.get("/_emulator/health"); err != nil || resp.StatusCode != 200 {
					t.Fatalf("held connection %d after refusals: %v %v", i, resp, err)
				}
			}
			// A closed connection frees its place.
			_ = held[0].Close()
			deadline := time.Now().Add(5 * time.Second)
			for {
				c := dialRaw(t, srv.Addr)
				resp, _, err := c.get("/_emulator/health")
				_ = c.Close()
				if err == nil && resp.StatusCode == 200 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no place freed: %v %v", resp, err)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestWebSocketConnectionLimit: past EMULATOR_WEBSOCKET_MAX_CONNECTIONS an
// upgrade is refused with 429 LimitExceededException; the open ones keep
// working, and a closed one frees its place.
func TestWebSocketConnectionLimit(t *testing.T) {
	srv := servertest.Start(t, servertest.WithConfig(func(c *config.Config) { c.WebSocketMaxConnections = 2 }))
	a := newWSAPI(t, srv, "$request.body.action")
	a.mock("$default", `{"statusCode": 200}`, `ok`)
	a.deploy("dev")
	c1, c2 := a.dial("dev", nil), a.dial("dev", nil)
	for range 3 {
		if got := a.dialStatus("dev", nil); got != 429 {
			t.Fatalf("third connection: %d, want 429", got)
		}
	}
	_, resp, err := websocket.DefaultDialer.Dial(a.url("dev"), nil)
	if err == nil || resp == nil || resp.Header.Get("x-amzn-ErrorType") != "LimitExceededException" {
		t.Fatalf("refusal: %v %v", resp, err)
	}
	b, _ := io.ReadAll(resp.Body)
	if string(b) != `{"message":"Limit Exceeded"}` {
		t.Fatalf("refusal body %q", b)
	}
	for _, c := range []*websocket.Conn{c1, c2} {
		if got := roundTrip(t, c, `{}`); got != "ok" {
			t.Fatalf("open connection: %q", got)
		}
	}
	healthy(t, srv.Addr)
	_ = c1.Close()
	deadline := time.Now().Add(5 * time.Second)
	for a.dialStatus("dev", nil) != 101 {
		if time.Now().After(deadline) {
			t.Fatal("a closed connection did not free its place")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSQSLongPollLimit: past EMULATOR_SQS_MAX_LONG_POLLS a receive with
// WaitTimeSeconds answers at once with what the queue holds; the waiting
// ones are still served, and a finished one frees its place.
func TestSQSLongPollLimit(t *testing.T) {
	srv := servertest.Start(t, servertest.WithConfig(func(c *config.Config) { c.SQSMaxLongPolls = 1 }))
	ctx := context.Background()
	c := sqs.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *sqs.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("polls")})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		msgs int
		err  error
	}
	first := make(chan got, 1)
	go func() {
		// Answered at once, empty, while the loop below held the place:
		// it asks again.
		for end := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			start := time.Now()
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 10})
			if err != nil || len(out.Messages) > 0 || time.Since(start) > 500*time.Millisecond || time.Now().After(end) {
				if err != nil {
					first <- got{err: err}
				} else {
					first <- got{msgs: len(out.Messages)}
				}
				return
			}
		}
	}()
	// Once the first waits, a second long poll answers at once, empty.
	deadline := time.Now().Add(5 * time.Second)
	for {
		start := time.Now()
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) != 0 {
			t.Fatalf("%d messages from an empty queue", len(out.Messages))
		}
		if time.Since(start) < 500*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("every long poll waited: no bound")
		}
		// This one held the place: the goroutine's turn.
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("m")}); err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-first:
		if g.err != nil || g.msgs != 1 {
			t.Fatalf("the waiting receive: %+v", g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting receive was not served")
	}
	// Its place is free again: a long poll waits.
	start := time.Now()
	if _, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 1}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 800*time.Millisecond {
		t.Fatalf("a long poll within the bound answered after %v", took)
	}
	healthy(t, srv.Addr)
}

const sleepHandler = `
import time
def handler(event, context):
    time.sleep(event.get("sleep", 0))
    return {"ok": True}
`

// TestLambdaInvocationLimit: past EMULATOR_LAMBDA_MAX_INVOCATIONS an
// invocation of any function is refused at once with 429
// TooManyRequestsException (ConcurrentInvocationLimitExceeded); the one in
// flight completes, and then invocations run again.
func TestLambdaInvocationLimit(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		servertest.MissingTool(t, "python3")
	}
	srv := servertest.Start(t, servertest.WithConfig(func(c *config.Config) { c.LambdaMaxInvocations = 1 }))
	ctx := context.Background()
	lc := lambda.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *lambda.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	for _, name := range []string{"slow", "fast"} {
		if _, err := lc.CreateFunction(ctx, &lambda.CreateFunctionInput{FunctionName: aws.String(name),
			Runtime: ltypes.RuntimePython312, Handler: aws.String("index.handler"), Role: aws.String("arn:aws:iam::000000000000:role/r"),
			Timeout: aws.Int32(10), Code: &ltypes.FunctionCode{ZipFile: zipOf(t, "index.py", sleepHandler)}}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		// Refused while the loop below held the place: it asks again.
		for end := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			out, err := lc.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("slow"), Payload: []byte(`{"sleep": 2}`)})
			var tm *ltypes.TooManyRequestsException
			if errors.As(err, &tm) && time.Now().Before(end) {
				continue
			}
			if err == nil && (out.FunctionError != nil || string(out.Payload) != `{"ok": true}`) {
				err = fmt.Errorf("slow answered %v %s", out.FunctionError, out.Payload)
			}
			done <- err
			return
		}
	}()
	var refused bool
	deadline := time.Now().Add(1500 * time.Millisecond)
	for !refused && time.Now().Before(deadline) {
		_, err := lc.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("fast"), Payload: []byte(`{}`)})
		var tm *ltypes.TooManyRequestsException
		switch {
		case errors.As(err, &tm):
			if aws.ToString(tm.Message) != "Rate Exceeded." || tm.Reason != ltypes.ThrottleReasonConcurrentInvocationLimitExceeded {
				t.Fatalf("refusal: %q %q", aws.ToString(tm.Message), tm.Reason)
			}
			refused = true
		case err != nil:
			t.Fatal(err)
		}
	}
	if !refused {
		t.Fatal("no invocation was refused while another was in flight")
	}
	healthy(t, srv.Addr)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the invocation in flight did not end")
	}
	if _, err := lc.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("fast"), Payload: []byte(`{}`)}); err != nil {
		t.Fatalf("after the one in flight ended: %v", err)
	}
}
