package sqs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
)

var sc = actorstest.Scope

func newService(t testing.TB) *Service {
	t.Helper()
	env := actorstest.New(t)
	s := New(env.Sys, env.Store, env.Now, env.Log)
	t.Cleanup(s.Detach)
	return s
}

func mustCreate(t testing.TB, s *Service, name string, attrs map[string]string) string {
	t.Helper()
	url, err := s.CreateQueue(sc, CreateQueueInput{QueueName: name, Attributes: attrs})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return url
}

func i32(v int32) *int32 { return &v }

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var ae *awswire.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
}

func send(t testing.TB, s *Service, url, body string, mod ...func(*SendMessageInput)) SendMessageResult {
	t.Helper()
	in := &SendMessageInput{QueueUrl: url, MessageBody: body}
	for _, m := range mod {
		m(in)
	}
	r, err := s.SendMessage(sc, in)
	if err != nil {
		t.Fatalf("send %q: %v", body, err)
	}
	return r
}

func receive(t testing.TB, s *Service, url string, max int32, mod ...func(*ReceiveMessageInput)) []Received {
	t.Helper()
	in := &ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: i32(max), MessageSystemAttributeNames: []string{"All"}}
	for _, m := range mod {
		m(in)
	}
	got, err := s.ReceiveMessage(context.Background(), sc, in)
	if err != nil {
		t.Fatalf("receive: %v", err)
	}
	return got
}

func TestMD5OfAttributes(t *testing.T) {
	for _, c := range []struct {
		name  string
		attrs map[string]MessageAttribute
		want  string
	}{
		{"strings", map[string]MessageAttribute{
			"test_attribute_name_2": {DataType: "String", StringValue: "test_attribute_value_2"},
			"test_attribute_name_1": {DataType: "String", StringValue: "test_attribute_value_1"},
		}, "d53f3b558fe951154770f25cb63dbba9"},
		{"binary", map[string]MessageAttribute{
			"test_attribute_name": {DataType: "Binary", BinaryValue: []byte("test_attribute_value")},
		}, "23f6bd27ea87aab7dfeadcc9aebee495"},
		{"number", map[string]MessageAttribute{
			"timestamp": {DataType: "Number", StringValue: "1493147359900"},
		}, "235c5c510d26fb653d073faed50ae77c"},
		{"none", nil, ""},
	} {
		t.Run("attrs="+c.name, func(t *testing.T) {
			if got := MD5OfAttributes(c.attrs); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestMessageIDText(t *testing.T) {
	id := newMessageID()
	s := id.String()
	if len(s) != 36 || s[14] != '4' || !strings.ContainsRune("89ab", rune(s[19])) {
		t.Fatalf("not a version 4 UUID: %s", s)
	}
	b, err := json.Marshal(Message{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	var back Message
	if err := json.Unmarshal(b, &back); err != nil || back.ID != id {
		t.Fatalf("round trip %s: %v %v", b, back.ID, err)
	}
	for _, bad := range []string{"", "xyz", strings.Repeat("g", 36), "12345678-1234-1234-1234-12345678901"} {
		if _, ok := parseMessageID(bad); ok {
			t.Errorf("parsed %q", bad)
		}
	}
}

func TestValidChars(t *testing.T) {
	for s, want := range map[string]bool{
		"plain": true, "tab\tnl\ncr\r": true, "é中😀": true, "\uFFFD": true,
		"\x00": false, "\x08": false, "\x1f": false, "\uFFFE": false, "\xff": false,
	} {
		if got := validChars(s); got != want {
			t.Errorf("validChars(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestSendReceiveDelete(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "q1", nil)
	r := send(t, s, url, "hello")
	if r.MD5OfMessageBody != "5d41402abc4b2a76b9719d911017c592" || r.MessageId == "" {
		t.Fatalf("send result %+v", r)
	}
	got := receive(t, s, url, 10, func(in *ReceiveMessageInput) { in.VisibilityTimeout = i32(0) })
	if len(got) != 1 || got[0].Body != "hello" || got[0].Attributes["ApproximateReceiveCount"] != "1" {
		t.Fatalf("first receive %+v", got)
	}
	first := got[0].ReceiptHandle
	got = receive(t, s, url, 10)
	if len(got) != 1 || got[0].ReceiptHandle == first || got[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("second receive %+v", got)
	}
	// A stale handle of a message still in flight deletes it, as on AWS.
	if err := s.DeleteMessage(sc, url, first); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, s, url, 10, func(in *ReceiveMessageInput) { in.VisibilityTimeout = i32(0) }); len(got) != 0 {
		t.Fatalf("deleted message came back: %+v", got)
	}
	// Deleting again succeeds.
	if err := s.DeleteMessage(sc, url, first); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.DeleteMessage(sc, url, "not-a-handle"), codeReceiptHandleIsInvalid)
}

func TestVisibilityExpiry(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "vis", nil)
	send(t, s, url, "m")
	if got := receive(t, s, url, 1, func(in *ReceiveMessageInput) { in.VisibilityTimeout = i32(1) }); len(got) != 1 {
		t.Fatalf("receive: %+v", got)
	}
	if got := receive(t, s, url, 1); len(got) != 0 {
		t.Fatalf("in flight, yet received: %+v", got)
	}
	q, _ := s.snapshot(sc, "vis")
	if q.InFlight != 1 {
		t.Fatalf("in flight %d", q.InFlight)
	}
	// The owner's timer makes it visible again, and a long poll gets it.
	start := time.Now()
	got := receive(t, s, url, 1, func(in *ReceiveMessageInput) { in.WaitTimeSeconds = i32(5) })
	if len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("after expiry: %+v", got)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Fatalf("visible again after %v", d)
	}
}

func TestLongPollWakesOnSend(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "poll", nil)
	var worst time.Duration
	for range 20 {
		done := make(chan time.Time, 1)
		go func() {
			got := receive(t, s, url, 1, func(in *ReceiveMessageInput) { in.WaitTimeSeconds = i32(10) })
			if len(got) != 1 {
				t.Errorf("long poll got %d messages", len(got))
			}
			done <- time.Now()
			for _, m := range got {
				_ = s.DeleteMessage(sc, url, m.ReceiptHandle)
			}
		}()
		time.Sleep(20 * time.Millisecond)
		sent := time.Now()
		send(t, s, url, "wake")
		if d := (<-done).Sub(sent); d > worst {
			worst = d
		}
	}
	// Woken by the send, not by the end of the 10 s wait (the latency
	// itself is benchrun sqs-longpoll's figure).
	if worst > 2*time.Second {
		t.Fatalf("worst wake-up %v", worst)
	}
	t.Logf("worst wake-up over 20 polls: %v", worst)
}

func TestLongPollTimesOutEmpty(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "empty", nil)
	start := time.Now()
	if got := receive(t, s, url, 1, func(in *ReceiveMessageInput) { in.WaitTimeSeconds = i32(1) }); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
	if d := time.Since(start); d < time.Second || d > 2*time.Second {
		t.Fatalf("returned after %v", d)
	}
	// The abandoned waiter takes nothing: the next message goes to the next receive.
	send(t, s, url, "after")
	if got := receive(t, s, url, 1); len(got) != 1 {
		t.Fatalf("message lost to an abandoned waiter: %+v", got)
	}
}

func TestFIFOOrderDedupAndGroups(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "f.fifo", map[string]string{"FifoQueue": "true"})
	group := func(g, d string) func(*SendMessageInput) {
		return func(in *SendMessageInput) { in.MessageGroupId, in.MessageDeduplicationId = g, d }
	}
	a1 := send(t, s, url, "a1", group("a", "1"))
	dup := send(t, s, url, "a1 again", group("a", "1"))
	if dup.MessageId != a1.MessageId || dup.SequenceNumber != a1.SequenceNumber || len(a1.SequenceNumber) != 20 {
		t.Fatalf("dedup: %+v vs %+v", dup, a1)
	}
	send(t, s, url, "a2", group("a", "2"))
	send(t, s, url, "b1", group("b", "3"))
	got := receive(t, s, url, 1)
	if len(got) != 1 || got[0].Body != "a1" {
		t.Fatalf("first: %+v", got)
	}
	// Group a is blocked while a1 is in flight: b1 comes next.
	got = receive(t, s, url, 10)
	if len(got) != 1 || got[0].Body != "b1" {
		t.Fatalf("second: %+v", got)
	}
	if got := receive(t, s, url, 10); len(got) != 0 {
		t.Fatalf("both groups blocked, got %+v", got)
	}
	_, err := s.SendMessage(sc, &SendMessageInput{QueueUrl: url, MessageBody: "x"})
	wantCode(t, err, codeMissingParameter)
}

func TestDeduplicationWindow(t *testing.T) {
	s := newService(t)
	var offset atomic.Int64
	s.clock = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	url := mustCreate(t, s, "d.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true",
		"DeduplicationScope": "messageGroup"})
	g := func(group string) func(*SendMessageInput) {
		return func(in *SendMessageInput) { in.MessageGroupId = group }
	}
	first := send(t, s, url, "same", g("a"))
	if again := send(t, s, url, "same", g("a")); again.MessageId != first.MessageId {
		t.Fatal("a duplicate within the window was added")
	}
	// Deduplication is per group with DeduplicationScope messageGroup.
	if other := send(t, s, url, "same", g("b")); other.MessageId == first.MessageId {
		t.Fatal("another group's message was deduplicated")
	}
	offset.Store(int64(4*time.Minute + 59*time.Second))
	if again := send(t, s, url, "same", g("a")); again.MessageId != first.MessageId {
		t.Fatal("a duplicate just inside 5 minutes was added")
	}
	offset.Store(int64(5*time.Minute + time.Second))
	if later := send(t, s, url, "same", g("a")); later.MessageId == first.MessageId {
		t.Fatal("a message after the 5-minute window was deduplicated")
	}
	q, _ := s.snapshot(sc, "d.fifo")
	if q.Messages.Len() != 3 {
		t.Fatalf("%d messages, want 3", q.Messages.Len())
	}
}

func TestRedriveToDeadLetterQueue(t *testing.T) {
	s := newService(t)
	dlq := mustCreate(t, s, "dlq", nil)
	url := mustCreate(t, s, "src", map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"2"}`})
	send(t, s, url, "poison")
	zero := func(in *ReceiveMessageInput) { in.VisibilityTimeout = i32(0) }
	for i := range 2 {
		if got := receive(t, s, url, 1, zero); len(got) != 1 {
			t.Fatalf("receive %d: %+v", i+1, got)
		}
	}
	if got := receive(t, s, url, 1, zero); len(got) != 0 {
		t.Fatalf("third receive should move the message: %+v", got)
	}
	got := receive(t, s, dlq, 1, func(in *ReceiveMessageInput) { in.WaitTimeSeconds = i32(2) })
	if len(got) != 1 || got[0].Body != "poison" || got[0].Attributes["DeadLetterQueueSourceArn"] != "arn:aws:sqs:us-east-1:000000000000:src" {
		t.Fatalf("dead-letter queue: %+v", got)
	}
	srcs, _, err := s.ListDeadLetterSourceQueues(sc, dlq, "", nil)
	if err != nil || len(srcs) != 1 || !strings.HasSuffix(srcs[0], "/src") {
		t.Fatalf("sources %v %v", srcs, err)
	}
}

func TestPeekDoesNotCountReceives(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "peek", nil)
	send(t, s, url, "one", func(in *SendMessageInput) {
		in.MessageAttributes = map[string]MessageAttribute{"k": {DataType: "String", StringValue: "v"}}
	})
	send(t, s, url, "two", func(in *SendMessageInput) { in.DelaySeconds = i32(60) })
	receive(t, s, url, 1)
	p, ok := s.Peek(sc, "peek")
	if !ok || len(p.Messages) != 2 {
		t.Fatalf("peek %+v", p)
	}
	m := p.Messages[0]
	if m.State != "inflight" || m.ReceiveCount != 1 || m.ReceiptHandle == "" || m.MessageAttributes["k"].StringValue != "v" || m.Attributes["SentTimestamp"] == "" {
		t.Fatalf("first %+v", m)
	}
	if p.Messages[1].State != "delayed" {
		t.Fatalf("second %+v", p.Messages[1])
	}
	p2, _ := s.Peek(sc, "peek")
	if p2.Messages[0].ReceiveCount != 1 {
		t.Fatal("peek counted a receive")
	}
}

func TestDeliverAsSNS(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "sub", nil)
	err := s.Deliver(context.Background(), "arn:aws:sqs:us-east-1:000000000000:sub", Delivery{Body: "{}",
		Attributes: map[string]MessageAttribute{"a": {DataType: "String", StringValue: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := receive(t, s, url, 1, func(in *ReceiveMessageInput) { in.MessageAttributeNames = []string{"All"} })
	if len(got) != 1 || got[0].MessageAttributes["a"].StringValue != "b" || got[0].MD5OfMessageAttributes == "" {
		t.Fatalf("delivered %+v", got)
	}
	wantCode(t, s.Deliver(context.Background(), "arn:aws:sqs:us-east-1:000000000000:nope", Delivery{Body: "x"}), codeQueueDoesNotExist)
}

// TestConcurrentSendersAndPollers: every message sent by concurrent
// senders is received exactly once by concurrent long polls.
func TestConcurrentSendersAndPollers(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "busy", map[string]string{"VisibilityTimeout": "300"})
	const senders, each, pollers = 4, 150, 3
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range pollers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				got, err := s.ReceiveMessage(context.Background(), sc, &ReceiveMessageInput{QueueUrl: url,
					MaxNumberOfMessages: i32(10), WaitTimeSeconds: i32(1)})
				if err != nil {
					t.Error(err)
					return
				}
				for _, m := range got {
					mu.Lock()
					seen[m.Body]++
					mu.Unlock()
					if err := s.DeleteMessage(sc, url, m.ReceiptHandle); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	var sent sync.WaitGroup
	for i := range senders {
		sent.Add(1)
		go func() {
			defer sent.Done()
			for j := range each {
				if _, err := s.SendMessage(sc, &SendMessageInput{QueueUrl: url, MessageBody: strconv.Itoa(i*each + j)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	sent.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n == senders*each {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if len(seen) != senders*each {
		t.Fatalf("received %d distinct messages of %d", len(seen), senders*each)
	}
	for body, n := range seen {
		if n != 1 {
			t.Fatalf("message %s received %d times", body, n)
		}
	}
	q, _ := s.snapshot(sc, "busy")
	if q.Messages.Len() != 0 || q.Visible+q.InFlight+q.Delayed != 0 {
		t.Fatalf("left: %d messages, counts %d/%d/%d", q.Messages.Len(), q.Visible, q.InFlight, q.Delayed)
	}
}

// BenchmarkSendReceiveDelete drives one message through its owner: a send,
// a receive and a delete; B/op and allocs/op are per queued message.
func BenchmarkSendReceiveDelete(b *testing.B) {
	s := newService(b)
	url := mustCreate(b, s, "bench", nil)
	in := &ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: i32(1)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.SendMessage(sc, &SendMessageInput{QueueUrl: url, MessageBody: "benchmark message body"}); err != nil {
			b.Fatal(err)
		}
		got, err := s.ReceiveMessage(context.Background(), sc, in)
		if err != nil || len(got) != 1 {
			b.Fatal(err, len(got))
		}
		if err := s.DeleteMessage(sc, url, got[0].ReceiptHandle); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueuedMessage measures what a message waiting in a queue
// holds: B/op and allocs/op are a send's (garbage included), heapB/msg the
// heap that stays in use per queued message.
func BenchmarkQueuedMessage(b *testing.B) {
	s := newService(b)
	url := mustCreate(b, s, "depth", nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.SendMessage(sc, &SendMessageInput{QueueUrl: url, MessageBody: "benchmark message body"}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	q, _ := s.snapshot(sc, "depth")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(q.Messages.Len()), "heapB/msg")
}

// A waiter the owner registers after its caller gave up (its Ask timed out
// while the owner was busy) must not take messages nobody will read.
func TestExpiredWaiterIsNotServed(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "orphan", nil)
	e, _, err := s.resolve(sc, url)
	if err != nil {
		t.Fatal(err)
	}
	deadline := s.clock().Add(30 * time.Millisecond).UnixNano()
	if _, err := s.update(e, func(w *work) (any, error) {
		w.addWaiter(&waiter{ch: make(chan []Received, 1), req: receiveRequest{max: 10, visibility: 30}, deadline: deadline})
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	send(t, s, url, "for a live caller")
	got := receive(t, s, url, 10)
	if len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != "1" {
		t.Fatalf("message taken by an expired waiter: %+v", got)
	}
}

// SNS's envelope around a 256 KiB publish exceeds 256 KiB: a delivery may
// be up to 1 MiB whatever MaximumMessageSize says; SendMessage keeps it.
func TestDeliverAllowsOneMiB(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "big", map[string]string{"MaximumMessageSize": "1024"})
	arn := "arn:aws:sqs:us-east-1:000000000000:big"
	body := strings.Repeat("x", 300*1024)
	if err := s.Deliver(context.Background(), arn, Delivery{Body: body}); err != nil {
		t.Fatalf("deliver 300 KiB: %v", err)
	}
	if got := receive(t, s, url, 1); len(got) != 1 || len(got[0].Body) != len(body) {
		t.Fatalf("delivered %d messages", len(got))
	}
	wantCode(t, s.Deliver(context.Background(), arn, Delivery{Body: strings.Repeat("x", 1<<20+1)}), "InvalidParameterValue")
	_, err := s.SendMessage(sc, &SendMessageInput{QueueUrl: url, MessageBody: strings.Repeat("x", 1025)})
	wantCode(t, err, "InvalidParameterValue")
}

// A long poll whose only candidate moves to the dead-letter queue keeps
// waiting: it gets the next message, not an early empty answer.
func TestLongPollKeepsWaitingWhenCandidatesMoveToDLQ(t *testing.T) {
	s := newService(t)
	mustCreate(t, s, "dlq3", nil)
	url := mustCreate(t, s, "src3", map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq3","maxReceiveCount":"1"}`})
	send(t, s, url, "poison")
	if got := receive(t, s, url, 1, func(in *ReceiveMessageInput) { in.VisibilityTimeout = i32(1) }); len(got) != 1 {
		t.Fatalf("first receive: %+v", got)
	}
	go func() {
		time.Sleep(1500 * time.Millisecond)
		send(t, s, url, "good")
	}()
	got := receive(t, s, url, 1, func(in *ReceiveMessageInput) { in.WaitTimeSeconds = i32(4) })
	if len(got) != 1 || got[0].Body != "good" {
		t.Fatalf("long poll got %+v", got)
	}
}

// A retried FIFO receive returns the first attempt's messages even when
// some of its candidates moved to the dead-letter queue.
func TestFIFORetriedReceiveAfterDLQMove(t *testing.T) {
	s := newService(t)
	mustCreate(t, s, "dlq2.fifo", map[string]string{"FifoQueue": "true"})
	url := mustCreate(t, s, "src2.fifo", map[string]string{"FifoQueue": "true",
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq2.fifo","maxReceiveCount":"1"}`})
	for _, g := range []string{"a", "b"} {
		send(t, s, url, g, func(in *SendMessageInput) { in.MessageGroupId = g; in.MessageDeduplicationId = g })
	}
	first := receive(t, s, url, 1)
	if len(first) != 1 || first[0].Body != "a" {
		t.Fatalf("first receive: %+v", first)
	}
	if err := s.ChangeMessageVisibility(sc, url, first[0].ReceiptHandle, 0); err != nil {
		t.Fatal(err)
	}
	attempt := func(in *ReceiveMessageInput) { in.ReceiveRequestAttemptId = "try-1" }
	got := receive(t, s, url, 10, attempt)
	if len(got) != 1 || got[0].Body != "b" {
		t.Fatalf("receive: %+v", got)
	}
	again := receive(t, s, url, 10, attempt)
	if len(again) != 1 || again[0].ReceiptHandle != got[0].ReceiptHandle {
		t.Fatalf("retried receive: %+v, want %+v", again, got)
	}
}

// Detach answers waiting long polls empty at once, from inside the owners.
func TestDetachAnswersLongPolls(t *testing.T) {
	s := newService(t)
	url := mustCreate(t, s, "detached", nil)
	done := make(chan time.Duration, 3)
	for range 3 {
		go func() {
			start := time.Now()
			got, err := s.ReceiveMessage(context.Background(), sc, &ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: i32(10)})
			if err != nil || len(got) != 0 {
				t.Errorf("long poll: %+v %v", got, err)
			}
			done <- time.Since(start)
		}()
	}
	time.Sleep(100 * time.Millisecond)
	s.Detach()
	for range 3 {
		if d := <-done; d > 3*time.Second {
			t.Fatalf("long poll answered after %v", d)
		}
	}
}

// A message moved to a dead-letter queue keeps its send time but comes
// after newer messages: it still expires at the end of its retention.
func TestMovedMessageExpiresBehindNewerOnes(t *testing.T) {
	s := newService(t)
	var offset atomic.Int64
	s.clock = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	dlq := mustCreate(t, s, "old-dlq", map[string]string{"MessageRetentionPeriod": "60"})
	url := mustCreate(t, s, "old-src", map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:old-dlq","maxReceiveCount":"1"}`})
	send(t, s, url, "old")
	if got := receive(t, s, url, 1, func(in *ReceiveMessageInput) { in.VisibilityTimeout = i32(0) }); len(got) != 1 {
		t.Fatalf("first receive: %+v", got)
	}
	offset.Store(int64(50 * time.Second))
	send(t, s, dlq, "new")
	if got := receive(t, s, url, 1); len(got) != 0 {
		t.Fatalf("second receive should move the message: %+v", got)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		if q, _ := s.snapshot(sc, "old-dlq"); q.Messages.Len() == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the message did not reach the dead-letter queue")
		}
		time.Sleep(5 * time.Millisecond)
	}
	offset.Store(int64(70 * time.Second))
	got := receive(t, s, dlq, 10, func(in *ReceiveMessageInput) { in.VisibilityTimeout = i32(0) })
	if len(got) != 1 || got[0].Body != "new" {
		t.Fatalf("dead-letter queue after the old message's retention: %+v", got)
	}
}

// scanFIFOCandidates is the FIFO receive's rule by a scan of the whole
// queue: in send order, each group's messages up to its first one not
// visible.
func scanFIFOCandidates(q *Queue, limit int) []uint64 {
	var out []uint64
	blocked := map[string]bool{}
	for _, m := range q.Messages.All() {
		if m.State != stateVisible {
			blocked[m.extra().Group] = true
			continue
		}
		if blocked[m.extra().Group] {
			continue
		}
		out = append(out, m.Seq)
		if len(out) == limit {
			break
		}
	}
	return out
}

// The owner's FIFO group index picks what a scan of the queue picks,
// through sends, receives, deletes, visibility changes, timeouts and
// moves to a dead-letter queue.
func TestFIFOCandidatesMatchScan(t *testing.T) {
	s := newService(t)
	var offset atomic.Int64
	s.clock = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	mustCreate(t, s, "rnd-dlq.fifo", map[string]string{"FifoQueue": "true"})
	url := mustCreate(t, s, "rnd.fifo", map[string]string{"FifoQueue": "true",
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:rnd-dlq.fifo","maxReceiveCount":"3"}`})
	e, _, err := s.resolve(sc, url)
	if err != nil {
		t.Fatal(err)
	}
	check := func(step int) {
		t.Helper()
		v, err := s.update(e, func(w *work) (any, error) {
			want := scanFIFOCandidates(w.q, 10)
			var got []uint64
			for _, m := range w.candidates(10) {
				got = append(got, m.Seq)
			}
			if !slices.Equal(got, want) {
				return fmt.Sprintf("index %v, scan %v", got, want), nil
			}
			return "", nil
		})
		if err != nil || v.(string) != "" {
			t.Fatalf("step %d: %v %v", step, v, err)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	var handles []string
	for step := range 600 {
		switch op := rnd.IntN(10); {
		case op < 4:
			g := strconv.Itoa(rnd.IntN(6))
			body := strconv.Itoa(step)
			send(t, s, url, body, func(in *SendMessageInput) { in.MessageGroupId = g; in.MessageDeduplicationId = body })
		case op < 6:
			vis := int32(rnd.IntN(3))
			for _, m := range receive(t, s, url, int32(1+rnd.IntN(10)), func(in *ReceiveMessageInput) { in.VisibilityTimeout = i32(vis) }) {
				handles = append(handles, m.ReceiptHandle)
			}
		case op < 8 && len(handles) > 0:
			i := rnd.IntN(len(handles))
			_ = s.DeleteMessage(sc, url, handles[i])
			handles = slices.Delete(handles, i, i+1)
		case op < 9 && len(handles) > 0:
			_ = s.ChangeMessageVisibility(sc, url, handles[rnd.IntN(len(handles))], int32(rnd.IntN(2)))
		default:
			offset.Add(int64(time.Second))
		}
		if step%50 == 49 {
			// A change that failed after touching the index: the next one
			// rebuilds it from the published state.
			_, _ = s.update(e, func(w *work) (any, error) {
				w.candidates(10)
				return nil, errors.New("failed")
			})
		}
		check(step)
	}
}

// A FIFO group whose front is in flight gives nothing, however long it
// is. BenchmarkFIFOReceiveBehindBlockedGroup measures what such a receive
// costs (a scan of the queue per receive took seconds for 1,000).
func TestFIFOReceiveBehindBlockedGroup(t *testing.T) {
	s, url := blockedFIFOGroup(t, 20000)
	for range 1000 {
		if got := receive(t, s, url, 10); len(got) != 0 {
			t.Fatal(got)
		}
	}
}

func BenchmarkFIFOReceiveBehindBlockedGroup(b *testing.B) {
	s, url := blockedFIFOGroup(b, 20000)
	b.ResetTimer()
	for range b.N {
		if got := receive(b, s, url, 10); len(got) != 0 {
			b.Fatal(got)
		}
	}
}

// blockedFIFOGroup is a FIFO queue with one group of n messages whose
// front is in flight.
func blockedFIFOGroup(t testing.TB, n int) (*Service, string) {
	s := newService(t)
	url := mustCreate(t, s, "big.fifo", map[string]string{"FifoQueue": "true"})
	for i := range n / 10 {
		var entries []SendMessageBatchRequestEntry
		for j := range 10 {
			id := strconv.Itoa(i*10 + j)
			entries = append(entries, SendMessageBatchRequestEntry{Id: "e" + strconv.Itoa(j), SendMessageInput: SendMessageInput{MessageBody: id, MessageGroupId: "g", MessageDeduplicationId: id}})
		}
		if _, err := s.SendMessageBatch(sc, url, entries); err != nil {
			t.Fatal(err)
		}
	}
	if got := receive(t, s, url, 1); len(got) != 1 {
		t.Fatal(got)
	}
	return s, url
}

// A long poll whose Ask timed out on a busy owner gives its waiter up:
// the owner, registering it later, never serves it.
func TestLongPollGivenUpOnBusyOwner(t *testing.T) {
	env := actorstest.New(t)
	sys := actors.NewSystem(env.Log, 200*time.Millisecond)
	t.Cleanup(sys.Shutdown)
	s := New(sys, env.Store, env.Now, env.Log)
	t.Cleanup(s.Detach)
	url := mustCreate(t, s, "slow", nil)
	e, _, err := s.resolve(sc, url)
	if err != nil {
		t.Fatal(err)
	}
	actors.Tell(sys, e, func(*Queue) (actors.Change[Queue], error) {
		time.Sleep(400 * time.Millisecond)
		return actors.Change[Queue]{}, nil
	})
	_, err = s.ReceiveMessage(context.Background(), sc, &ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: i32(5)})
	wantCode(t, err, "ServiceUnavailable")
	time.Sleep(400 * time.Millisecond) // the owner registered the waiter meanwhile
	send(t, s, url, "for a live caller")
	got := receive(t, s, url, 10)
	if len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != "1" {
		t.Fatalf("message taken by a given-up waiter: %+v", got)
	}
}
