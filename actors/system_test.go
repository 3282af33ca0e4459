package actors_test

import (
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors"
)

// sysOption configures newTestSystem.
type sysOption func(*sysConfig)

type sysConfig struct {
	timeout time.Duration
}

// withAskTimeout sets the system's Ask timeout (200ms by default).
func withAskTimeout(d time.Duration) sysOption { return func(c *sysConfig) { c.timeout = d } }

// newTestSystem returns a fresh system with a discarding logger, shut down
// when the test ends. Tests stop their owners themselves.
func newTestSystem(t testing.TB, opts ...sysOption) *actors.System {
	t.Helper()
	c := sysConfig{timeout: 200 * time.Millisecond}
	for _, o := range opts {
		o(&c)
	}
	s := actors.NewSystem(slog.New(slog.NewTextHandler(io.Discard, nil)), c.timeout)
	t.Cleanup(s.Shutdown)
	return s
}

// spawn starts o and stops it when the test ends.
func spawn(t *testing.T, s *actors.System, kind string, o actors.Owner) actors.Ref {
	t.Helper()
	ref := s.Spawn(kind, o)
	if !ref.Valid() {
		t.Fatalf("Spawn(%q) returned an invalid ref", kind)
	}
	t.Cleanup(func() { s.Stop([]actors.Ref{ref}) })
	return ref
}

// Commands of the test owners.
type (
	cmdAdd   struct{ n int }
	cmdGet   struct{}
	cmdFail  struct{ err error }
	cmdPanic struct{}
	cmdSleep struct{ d time.Duration }
	cmdNil   struct{}
	cmdStr   struct{}
	cmdEnd   struct{}
)

var errTestRefused = errors.New("test: refused")

// counter is an owner with one integer of state. It is deliberately not
// synchronized: the race detector catches any concurrent Handle.
type counter struct {
	n     int
	ended bool
	// started, when set, is signalled as a cmdSleep begins.
	started chan struct{}
	// slept counts the cmdSleep commands that ran to their end.
	slept atomic.Int32
}

func (c *counter) Handle(cmd any) (any, error) {
	if c.ended {
		return nil, actors.ErrGone
	}
	switch m := cmd.(type) {
	case cmdAdd:
		c.n += m.n
		return c.n, nil
	case cmdGet:
		return c.n, nil
	case cmdFail:
		return c.n, m.err
	case cmdPanic:
		var nilMap map[string]int
		//lint:ignore SA5000 a runtime error on purpose, not a plain panic value
		nilMap["boom"] = 1
		return nil, nil
	case cmdSleep:
		if c.started != nil {
			c.started <- struct{}{}
		}
		time.Sleep(m.d)
		c.slept.Add(1)
		return c.n, nil
	case cmdNil:
		return nil, nil
	case cmdStr:
		return "text", nil
	case cmdEnd:
		c.ended = true
		return c.n, nil
	}
	return nil, errors.New("test: unknown command")
}

// ending is a counter that finishes itself on cmdEnd, and counts the
// commands it handles after that.
type ending struct {
	counter
	afterEnd atomic.Int32
}

func (e *ending) Handle(cmd any) (any, error) {
	if e.ended {
		e.afterEnd.Add(1)
	}
	return e.counter.Handle(cmd)
}

func (e *ending) Finished() bool { return e.ended }

func TestAsk(t *testing.T) {
	s := newTestSystem(t)
	ref := spawn(t, s, "test.counter", &counter{})
	for _, tc := range []struct {
		name    string
		cmd     any
		want    int
		wantErr error
	}{
		{"add-1", cmdAdd{1}, 1, nil},
		{"add-41", cmdAdd{41}, 42, nil},
		{"get", cmdGet{}, 42, nil},
		{"owner-error", cmdFail{errTestRefused}, 0, errTestRefused},
		{"get-after-error", cmdGet{}, 42, nil},
	} {
		t.Run("cmd="+tc.name, func(t *testing.T) {
			got, err := actors.Ask[int](s, ref, tc.cmd)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Ask = %v, %v; want error %v", got, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("Ask = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestAskReplyTypes(t *testing.T) {
	s := newTestSystem(t)
	ref := spawn(t, s, "test.counter", &counter{})
	t.Run("reply=nil", func(t *testing.T) {
		got, err := actors.Ask[*int](s, ref, cmdNil{})
		if err != nil || got != nil {
			t.Errorf("Ask = %v, %v; want nil, nil", got, err)
		}
	})
	t.Run("reply=any", func(t *testing.T) {
		got, err := actors.Ask[any](s, ref, cmdStr{})
		if err != nil || got != "text" {
			t.Errorf("Ask = %v, %v", got, err)
		}
	})
	t.Run("reply=wrong-type", func(t *testing.T) {
		got, err := actors.Ask[int](s, ref, cmdStr{})
		if err == nil || got != 0 {
			t.Fatalf("Ask = %v, %v; want an error", got, err)
		}
		for _, sentinel := range []error{actors.ErrGone, actors.ErrNoAnswer, actors.ErrPanic} {
			if errors.Is(err, sentinel) {
				t.Errorf("a type mismatch is reported as %v", sentinel)
			}
		}
	})
	t.Run("reply=error-and-value", func(t *testing.T) {
		// An error wins over the value sent with it.
		got, err := actors.Ask[int](s, ref, cmdFail{errTestRefused})
		if !errors.Is(err, errTestRefused) || got != 0 {
			t.Errorf("Ask = %v, %v", got, err)
		}
	})
}

func TestAskPanic(t *testing.T) {
	s := newTestSystem(t)
	ref := spawn(t, s, "test.counter", &counter{})
	if _, err := actors.Ask[int](s, ref, cmdAdd{5}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if got, err := actors.Ask[int](s, ref, cmdPanic{}); !errors.Is(err, actors.ErrPanic) || got != 0 {
			t.Fatalf("panic %d: Ask = %v, %v; want ErrPanic", i, got, err)
		}
		// The owner keeps serving, with its state.
		want := 5 + i + 1
		got, err := actors.Ask[int](s, ref, cmdAdd{1})
		if err != nil || got != want {
			t.Fatalf("after panic %d: Ask = %v, %v; want %d", i, got, err, want)
		}
	}
}

func TestAskTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	s := newTestSystem(t, withAskTimeout(timeout))
	if got := s.AskTimeout(); got != timeout {
		t.Fatalf("AskTimeout() = %v", got)
	}
	ref := spawn(t, s, "test.counter", &counter{})
	start := time.Now()
	_, err := actors.Ask[int](s, ref, cmdSleep{2 * timeout})
	elapsed := time.Since(start)
	if !errors.Is(err, actors.ErrNoAnswer) {
		t.Fatalf("Ask = %v, want ErrNoAnswer", err)
	}
	if elapsed < timeout || elapsed > 2*timeout {
		t.Errorf("Ask returned after %v, want about %v", elapsed, timeout)
	}
	// Once the owner is done, it answers again, state intact.
	time.Sleep(timeout + 50*time.Millisecond)
	if got, err := actors.Ask[int](s, ref, cmdAdd{3}); err != nil || got != 3 {
		t.Errorf("after the slow command: Ask = %v, %v", got, err)
	}
}

func TestFinisherLingers(t *testing.T) {
	// The owner stops about one second (linger) after it finished.
	s := newTestSystem(t)
	o := &ending{}
	ref := s.Spawn("test.ending", o)
	if got, err := actors.Ask[int](s, ref, cmdAdd{7}); err != nil || got != 7 {
		t.Fatalf("Ask = %v, %v", got, err)
	}
	if got, err := actors.Ask[int](s, ref, cmdEnd{}); err != nil || got != 7 {
		t.Fatalf("end: Ask = %v, %v", got, err)
	}
	// From then on the actor answers ErrGone itself, promptly, without
	// handing anything to the owner: first while it lingers, then, once it
	// has stopped, through protoactor's dead letters.
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		start := time.Now()
		if _, err := actors.Ask[int](s, ref, cmdGet{}); !errors.Is(err, actors.ErrGone) {
			t.Fatalf("Ask = %v, want ErrGone", err)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Fatalf("Ask took %v to answer ErrGone", d)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := o.afterEnd.Load(); n != 0 {
		t.Fatalf("owner handled %d commands after it ended, want 0", n)
	}
	// Stopping a stopped owner returns at once.
	start := time.Now()
	s.Stop([]actors.Ref{ref})
	if d := time.Since(start); d > time.Second {
		t.Errorf("Stop of a stopped owner took %v", d)
	}
}

func TestStopWaits(t *testing.T) {
	s := newTestSystem(t)
	c := &counter{started: make(chan struct{}, 1)}
	ref := s.Spawn("test.counter", c)
	other := s.Spawn("test.counter", &counter{})
	// A slow command is being handled and another one is queued when Stop
	// is called: both are answered before the owner stops.
	type result struct {
		v   int
		err error
	}
	slow, queued := make(chan result, 1), make(chan result, 1)
	go func() {
		v, err := actors.Ask[int](s, ref, cmdSleep{100 * time.Millisecond})
		slow <- result{v, err}
	}()
	<-c.started
	go func() {
		v, err := actors.Ask[int](s, ref, cmdAdd{2})
		queued <- result{v, err}
	}()
	time.Sleep(20 * time.Millisecond) // let the second Ask reach the mailbox
	start := time.Now()
	s.Stop([]actors.Ref{ref, other, {}}) // a zero Ref is skipped
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("Stop returned after %v, before the slow command ended", d)
	}
	if n := c.slept.Load(); n != 1 {
		t.Errorf("Stop returned before the slow command ended")
	}
	select {
	case r := <-slow:
		if r.err != nil {
			t.Errorf("slow Ask = %v", r.err)
		}
	case <-time.After(time.Second):
		t.Errorf("slow Ask not answered")
	}
	select {
	case r := <-queued:
		if r.err != nil || r.v != 2 {
			t.Errorf("queued Ask = %v, %v; want 2", r.v, r.err)
		}
	case <-time.After(time.Second):
		t.Errorf("queued Ask not answered")
	}
	for _, r := range []actors.Ref{ref, other} {
		if _, err := actors.Ask[int](s, r, cmdGet{}); !errors.Is(err, actors.ErrGone) {
			t.Errorf("Ask after Stop = %v, want ErrGone", err)
		}
	}
}

func TestStopAsync(t *testing.T) {
	s := newTestSystem(t)
	ref := s.Spawn("test.counter", &counter{})
	if _, err := actors.Ask[int](s, ref, cmdAdd{1}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.StopAsync(ref)
	s.StopAsync(actors.Ref{}) // no-op
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Errorf("StopAsync took %v", d)
	}
	time.Sleep(100 * time.Millisecond) // let the owner stop
	if _, err := actors.Ask[int](s, ref, cmdGet{}); !errors.Is(err, actors.ErrGone) {
		t.Errorf("Ask after StopAsync = %v, want ErrGone", err)
	}
}

func TestAskRacingStop(t *testing.T) {
	// An Ask that reaches the mailbox behind the poison of Stop/StopAsync
	// (a request that looked the owner up just before a reset or a failed
	// create) is dropped by protoactor when the actor stops: it waits for
	// the full Ask timeout and gets ErrNoAnswer (the busy error: 503/429
	// after EMULATOR_ASK_TIMEOUT, 10 s by default) instead of ErrGone.
	s := newTestSystem(t)
	ref := s.Spawn("test.counter", &counter{})
	s.StopAsync(ref)
	start := time.Now()
	_, err := actors.Ask[int](s, ref, cmdGet{})
	if !errors.Is(err, actors.ErrGone) {
		t.Errorf("Ask = %v after %v, want ErrGone", err, time.Since(start))
	}
}

func TestAskSerialized(t *testing.T) {
	const workers, each = 8, 500
	s := newTestSystem(t, withAskTimeout(5*time.Second)) // generous: -race on 2 cores
	ref := spawn(t, s, "test.counter", &counter{})
	var wg sync.WaitGroup
	var failed atomic.Int32
	for range workers {
		wg.Go(func() {
			for range each {
				if _, err := actors.Ask[int](s, ref, cmdAdd{1}); err != nil {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Fatalf("%d Asks failed", n)
	}
	if got, err := actors.Ask[int](s, ref, cmdGet{}); err != nil || got != workers*each {
		t.Errorf("counter = %v, %v; want %d", got, err, workers*each)
	}
}

func TestSpawnDistinctOwners(t *testing.T) {
	s := newTestSystem(t)
	a := spawn(t, s, "test.counter", &counter{})
	b := spawn(t, s, "test.counter", &counter{})
	if a == b {
		t.Fatal("two spawns returned the same ref")
	}
	if _, err := actors.Ask[int](s, a, cmdAdd{10}); err != nil {
		t.Fatal(err)
	}
	if got, err := actors.Ask[int](s, b, cmdGet{}); err != nil || got != 0 {
		t.Errorf("other owner = %v, %v; want 0", got, err)
	}
	if (actors.Ref{}).Valid() {
		t.Error("zero Ref is valid")
	}
}

// BenchmarkAsk is one Ask round trip to a live owner: the cost every
// mutation pays on top of its own work.
func BenchmarkAsk(b *testing.B) {
	s := newTestSystem(b)
	ref := s.Spawn("test.counter", &counter{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := actors.Ask[int](s, ref, cmdGet{}); err != nil {
			b.Fatal(err)
		}
	}
}
