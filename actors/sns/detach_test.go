package sns

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
)

// blockingFunctions holds every invocation until released.
type blockingFunctions struct {
	started chan struct{}
	release chan struct{}
	mu      sync.Mutex
	done    int
}

func (b *blockingFunctions) Invoke(ctx context.Context, _ awswire.Scope, _ string, _ []byte) error {
	b.started <- struct{}{}
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	b.mu.Lock()
	b.done++
	b.mu.Unlock()
	return ctx.Err()
}

// TestDetachDropsQueuedDeliveries: deliveries queued before a reset are
// not made after it, and the one in flight is cancelled.
func TestDetachDropsQueuedDeliveries(t *testing.T) {
	env := actorstest.New(t)
	fns := &blockingFunctions{started: make(chan struct{}, 10), release: make(chan struct{})}
	svc := New(env.Sys, env.Store, env.Now, env.Log, Options{Functions: fns, Workers: 1, DeliveryTimeout: time.Minute})
	t.Cleanup(func() { svc.Detach(); _ = svc.Close() })
	topic, err := svc.CreateTopic(scope, CreateTopicInput{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: "lambda",
		Endpoint: "arn:aws:lambda:us-east-1:000000000000:function:f"}); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if _, err := svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "m"}}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-fns.started:
	case <-time.After(5 * time.Second):
		t.Fatal("first delivery did not start")
	}
	finished := make(chan struct{})
	go func() { svc.Detach(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("Detach waited on the delivery in flight")
	}
	// The delivery in flight ends (cancelled); the three queued must not start.
	deadline := time.Now().Add(5 * time.Second)
	for {
		fns.mu.Lock()
		done := fns.done
		fns.mu.Unlock()
		if done == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the delivery in flight was not cancelled by Detach")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-fns.started:
		t.Fatal("a delivery queued before Detach started after it")
	case <-time.After(200 * time.Millisecond):
	}
	close(fns.release)
}
