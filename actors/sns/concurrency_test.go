package sns

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
)

const fifoQueueARN = "arn:aws:sqs:us-east-1:000000000000:q.fifo"

// TestFifoDedupConcurrent publishes the same deduplication id from many
// goroutines at once: one delivery, one answer.
func TestFifoDedupConcurrent(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t.fifo", map[string]string{"FifoTopic": "true"})
	f.subscribe(t, topic, "sqs", fifoQueueARN, map[string]string{"RawMessageDelivery": "true"})
	const rounds, publishers = 200, 8
	for round := range rounds {
		dedup := "d" + strconv.Itoa(round)
		results := make([]PublishResult, publishers)
		var wg sync.WaitGroup
		for i := range publishers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic,
					Message: Message{Body: "m", GroupID: "g", DedupID: dedup}})
				if err != nil {
					t.Error(err)
				}
				results[i] = r
			}()
		}
		wg.Wait()
		for _, r := range results {
			if r != results[0] {
				t.Fatalf("round %d: answers differ: %+v and %+v", round, r, results[0])
			}
		}
	}
	if got := len(f.q.messages(fifoQueueARN)); got != rounds {
		t.Fatalf("%d deliveries, want %d (one per deduplication id)", got, rounds)
	}
}

// TestFifoDeliveryOrder publishes from many goroutines and checks a FIFO
// queue receives the messages in the order of their sequence numbers.
func TestFifoDeliveryOrder(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t.fifo", map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"})
	f.subscribe(t, topic, "sqs", fifoQueueARN, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 25 {
				_, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic,
					Message: Message{Body: strconv.Itoa(i) + "/" + strconv.Itoa(j), GroupID: "g"}})
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := f.q.messages(fifoQueueARN)
	if len(got) != 200 {
		t.Fatalf("%d deliveries, want 200", len(got))
	}
	prev := ""
	for i, m := range got {
		var n struct{ SequenceNumber string }
		if err := json.Unmarshal([]byte(m.Body), &n); err != nil {
			t.Fatal(err)
		}
		if n.SequenceNumber <= prev {
			t.Fatalf("delivery %d has sequence %s after %s", i, n.SequenceNumber, prev)
		}
		prev = n.SequenceNumber
	}
}

// TestFifoDedupExpiry lets deduplication ids age past the window: a
// message with an expired id is delivered again.
func TestFifoDedupExpiry(t *testing.T) {
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	f := newFixture(t, actorstest.WithClock(now))
	topic := f.topic(t, "t.fifo", map[string]string{"FifoTopic": "true"})
	f.subscribe(t, topic, "sqs", fifoQueueARN, map[string]string{"RawMessageDelivery": "true"})
	publish := func(dedup string) PublishResult {
		t.Helper()
		r, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic,
			Message: Message{Body: "m", GroupID: "g", DedupID: dedup}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := publish("a")
	publish("c")
	advance(4 * time.Minute)
	b := publish("b")
	if again := publish("a"); again != a {
		t.Fatalf("duplicate within the window answered %+v, want %+v", again, a)
	}
	advance(time.Minute)
	if again := publish("a"); again == a {
		t.Fatal("id a still deduplicated after 5 minutes")
	}
	if again := publish("b"); again != b {
		t.Fatalf("id b forgotten before its window ended: %+v, want %+v", again, b)
	}
	if got := len(f.q.messages(fifoQueueARN)); got != 4 {
		t.Fatalf("%d deliveries, want 4", got)
	}
	rt := f.topicRuntime(t, topic)
	rt.mu.Lock()
	live := len(rt.dedup)
	rt.mu.Unlock()
	if live != 2 {
		t.Fatalf("%d deduplication ids kept, want 2 (expired c dropped)", live)
	}
}

func (f fixture) topicRuntime(t *testing.T, arn string) *topicRuntime {
	t.Helper()
	_, tp, err := f.svc.topic("TopicArn", arn)
	if err != nil {
		t.Fatal(err)
	}
	return tp.rt
}
