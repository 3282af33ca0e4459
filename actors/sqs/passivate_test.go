package sqs

import (
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
)

// newIdleService returns a service whose queue owners passivate after idle.
func newIdleService(t *testing.T, idle time.Duration) *Service {
	t.Helper()
	env := actorstest.New(t)
	env.Sys.PassivateAfter(idle)
	s := New(env.Sys, env.Store, env.Now, env.Log)
	t.Cleanup(s.Detach)
	return s
}

// live reports whether the owner of queue name runs.
func live(t *testing.T, s *Service, name string) bool {
	t.Helper()
	e, _, ok := s.entry(sc, name)
	if !ok {
		t.Fatalf("no queue %s", name)
	}
	return e.Ref().Valid()
}

func waitPassive(t *testing.T, s *Service, name string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); live(t, s, name); {
		if time.Now().After(deadline) {
			t.Fatalf("queue %s did not passivate within 5s", name)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestQueuePassivatesOnlyWhenIdle: an idle queue passivates and serves
// the next write as before; a queue with a message in flight or a long
// poll waiting stays live, and the waiter is served.
func TestQueuePassivatesOnlyWhenIdle(t *testing.T) {
	s := newIdleService(t, 5*time.Millisecond)
	idle := mustCreate(t, s, "idle", nil)
	waitPassive(t, s, "idle")
	send(t, s, idle, "one")
	// A visible message keeps the retention timer set; once received
	// (in flight for 30 s) the queue is busy too.
	got := receive(t, s, idle, 1)
	if len(got) != 1 || got[0].Body != "one" {
		t.Fatalf("after reactivation received %+v", got)
	}
	time.Sleep(50 * time.Millisecond)
	if !live(t, s, "idle") {
		t.Fatal("a queue with a message in flight passivated")
	}
	if err := s.DeleteMessage(sc, idle, got[0].ReceiptHandle); err != nil {
		t.Fatal(err)
	}

	poll := mustCreate(t, s, "poll", nil)
	waitPassive(t, s, "poll")
	done := make(chan []Received, 1)
	go func() {
		done <- receive(t, s, poll, 1, func(in *ReceiveMessageInput) { in.WaitTimeSeconds = i32(5) })
	}()
	time.Sleep(100 * time.Millisecond)
	if !live(t, s, "poll") {
		t.Fatal("a queue with a long poll waiting passivated")
	}
	send(t, s, poll, "wake")
	select {
	case got := <-done:
		if len(got) != 1 || got[0].Body != "wake" {
			t.Fatalf("the long poll got %+v", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the long poll was not served")
	}
}
