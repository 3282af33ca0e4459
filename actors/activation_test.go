package actors_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/store"
)

// newIdleSystem returns a system whose owners passivate after idle.
func newIdleSystem(t *testing.T, idle time.Duration) *actors.System {
	t.Helper()
	s := actors.NewSystem(slog.New(slog.NewTextHandler(io.Discard, nil)), 5*time.Second)
	s.PassivateAfter(idle)
	t.Cleanup(s.Shutdown)
	return s
}

// tally is a state that counts writes and keeps, per writer, the last
// sequence number applied, so that a test sees lost and reordered writes.
type tally struct {
	N    int
	Last map[int]int
	Busy bool
}

// Idle implements actors.Idler.
func (t *tally) Idle() bool { return !t.Busy }

// owners counts the owners running a tally mutation at once; a second one
// at the same time is a violation.
type owners struct {
	inside     atomic.Int32
	violations atomic.Int32
	// applied is deliberately not synchronized: the race detector sees
	// two actors running the owner at once.
	applied int
}

// write is writer w's n-th write: it fails the order check (Reply false)
// unless the previous write of w was applied last.
func (o *owners) write(w, n int) actors.Mutation[tally] {
	return func(cur *tally) (actors.Change[tally], error) {
		if o.inside.Add(1) != 1 {
			o.violations.Add(1)
		}
		defer o.inside.Add(-1)
		o.applied++
		next := &tally{N: 1, Last: map[int]int{w: n}}
		inOrder := n == 1
		if cur != nil {
			next.N = cur.N + 1
			next.Busy = cur.Busy
			for k, v := range cur.Last {
				if k != w {
					next.Last[k] = v
				}
			}
			inOrder = cur.Last[w] == n-1
		}
		return actors.Change[tally]{Next: next, Reply: inOrder}, nil
	}
}

func spawnTally(t *testing.T, s *actors.System, st store.Store, initial *tally) *actors.Entry[tally] {
	t.Helper()
	o := actors.NewStateOwner[tally](st)
	return actors.SpawnState(s, "test.tally", o, initial)
}

// waitPassive waits, at most 5 s, for e's owner to passivate.
func waitPassive(t *testing.T, e *actors.Entry[tally]) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); e.Ref().Valid(); {
		if time.Now().After(deadline) {
			t.Fatal("the owner did not passivate within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func setBusy(busy bool) actors.Mutation[tally] {
	return func(cur *tally) (actors.Change[tally], error) {
		next := *cur
		next.Busy = busy
		return actors.Change[tally]{Next: &next}, nil
	}
}

// TestPassivatedOwnerKeepsItsStateAndReadsDoNotActivate: an idle owner
// passivates, its snapshot stays readable without starting it, and the
// next write starts it again on the state it left.
func TestPassivatedOwnerKeepsItsStateAndReadsDoNotActivate(t *testing.T) {
	s := newIdleSystem(t, 20*time.Millisecond)
	var o owners
	e := spawnTally(t, s, store.NewMemory(), nil)
	if e.Ref().Valid() {
		t.Fatal("an owner nobody wrote to yet is live")
	}
	for n := 1; n <= 3; n++ {
		if ok, err := actors.Update(s, e, o.write(1, n)); err != nil || ok != true {
			t.Fatalf("write %d: %v %v", n, ok, err)
		}
	}
	waitPassive(t, e)
	act, pas := s.Activations()
	if act != 1 || pas != 1 {
		t.Fatalf("activations, passivations = %d, %d; want 1, 1", act, pas)
	}
	for range 100 {
		if got := e.Snapshot(); got == nil || got.N != 3 {
			t.Fatalf("passive snapshot = %+v", got)
		}
	}
	if act2, _ := s.Activations(); act2 != act || e.Ref().Valid() {
		t.Fatal("reading the snapshot activated the owner")
	}
	if ok, err := actors.Update(s, e, o.write(1, 4)); err != nil || ok != true {
		t.Fatalf("write after passivation: %v %v", ok, err)
	}
	if got := e.Snapshot(); got.N != 4 || got.Last[1] != 4 {
		t.Fatalf("after reactivation = %+v", got)
	}
	if act, _ := s.Activations(); act != 2 {
		t.Fatalf("activations = %d, want 2", act)
	}
}

// TestBusyOwnerDoesNotPassivate: an owner whose state says it is busy
// stays live past the idle time, and passivates once it is idle.
func TestBusyOwnerDoesNotPassivate(t *testing.T) {
	s := newIdleSystem(t, 5*time.Millisecond)
	e := spawnTally(t, s, store.NewMemory(), &tally{})
	if _, err := actors.Update(s, e, setBusy(true)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if !e.Ref().Valid() {
		t.Fatal("a busy owner passivated")
	}
	if _, err := actors.Update(s, e, setBusy(false)); err != nil {
		t.Fatal(err)
	}
	waitPassive(t, e)
}

// TestWritesRacingPassivation sends writes from several writers, with and
// without waiting, to an owner that passivates after a millisecond idle:
// every write runs once, each writer's writes in order, never two owners
// at once.
func TestWritesRacingPassivation(t *testing.T) {
	s := newIdleSystem(t, time.Millisecond)
	var o owners
	e := spawnTally(t, s, store.NewMemory(), nil)
	const writers, writes = 8, 200
	var wg sync.WaitGroup
	var failed atomic.Int32
	for w := range writers {
		wg.Go(func() {
			var pending []actors.Pending
			for n := 1; n <= writes; n++ {
				if n%3 == 0 {
					// Pauses let the owner passivate between writes.
					time.Sleep(time.Duration(n%4) * time.Millisecond)
				}
				if w%2 == 0 {
					pending = append(pending, actors.Tell(s, e, o.write(w, n)))
					continue
				}
				if ok, err := actors.Update(s, e, o.write(w, n)); err != nil || ok != true {
					failed.Add(1)
				}
			}
			if err := actors.WaitAll(pending); err != nil {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f != 0 {
		t.Errorf("%d writes failed", f)
	}
	got := e.Snapshot()
	if got.N != writers*writes {
		t.Errorf("applied %d writes, want %d", got.N, writers*writes)
	}
	for w := range writers {
		if got.Last[w] != writes {
			t.Errorf("writer %d: last applied %d, want %d", w, got.Last[w], writes)
		}
	}
	if v := o.violations.Load(); v != 0 {
		t.Errorf("%d mutations ran while another owner ran one", v)
	}
	act, pas := s.Activations()
	t.Logf("activations %d, passivations %d", act, pas)
	if pas == 0 {
		t.Error("the owner never passivated; the test exercised nothing")
	}
}

// TestWritesRacingToActivate: writes that find one passive owner at once
// start one actor.
func TestWritesRacingToActivate(t *testing.T) {
	s := newIdleSystem(t, time.Hour)
	var o owners
	e := spawnTally(t, s, store.NewMemory(), &tally{Last: map[int]int{}})
	start := make(chan struct{})
	var wg sync.WaitGroup
	const writers = 32
	for w := range writers {
		wg.Go(func() {
			<-start
			if _, err := actors.Update(s, e, o.write(w, 1)); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if act, _ := s.Activations(); act != 1 {
		t.Errorf("%d activations, want 1", act)
	}
	if got := e.Snapshot().N; got != writers {
		t.Errorf("N = %d, want %d", got, writers)
	}
}

// TestDeleteDuringActivation: a delete racing writes on a passive owner
// ends it once; every write either ran before it or is answered ErrGone,
// and nothing starts the owner afterwards.
func TestDeleteDuringActivation(t *testing.T) {
	for trial := range 20 {
		s := newIdleSystem(t, time.Millisecond)
		var o owners
		e := spawnTally(t, s, store.NewMemory(), &tally{Last: map[int]int{}})
		start := make(chan struct{})
		var wg sync.WaitGroup
		var ran, gone atomic.Int32
		for w := range 8 {
			wg.Go(func() {
				<-start
				_, err := actors.Update(s, e, o.write(w, 1))
				switch {
				case err == nil:
					ran.Add(1)
				case errors.Is(err, actors.ErrGone):
					gone.Add(1)
				default:
					t.Errorf("trial %d: write: %v", trial, err)
				}
			})
		}
		var deleted *tally
		wg.Go(func() {
			<-start
			v, err := actors.Update(s, e, func(cur *tally) (actors.Change[tally], error) {
				return actors.Change[tally]{End: true, Reply: cur}, nil
			})
			if err != nil {
				t.Errorf("trial %d: delete: %v", trial, err)
				return
			}
			deleted = v.(*tally)
		})
		close(start)
		wg.Wait()
		if deleted == nil {
			continue
		}
		if int(ran.Load()) != deleted.N || ran.Load()+gone.Load() != 8 {
			t.Errorf("trial %d: %d writes ran, %d gone, the deleted state had %d", trial, ran.Load(), gone.Load(), deleted.N)
		}
		act, _ := s.Activations()
		if _, err := actors.Update(s, e, o.write(99, 1)); !errors.Is(err, actors.ErrGone) {
			t.Errorf("trial %d: write after the delete: %v, want ErrGone", trial, err)
		}
		if a, _ := s.Activations(); a != act {
			t.Errorf("trial %d: a write after the delete started the owner", trial)
		}
		if e.Snapshot() != nil {
			t.Errorf("trial %d: a deleted owner is still published", trial)
		}
	}
}

// TestDrainEndsPassiveOwners: a reset drains live and passive owners; the
// passive ones end at once (no actor to stop), the live ones are returned
// to be retired, and none of them runs a command afterwards.
func TestDrainEndsPassiveOwners(t *testing.T) {
	s := newIdleSystem(t, time.Hour)
	var o owners
	d := actors.NewDirectory[tally]()
	var entries []*actors.Entry[tally]
	for i := range 10 {
		e := spawnTally(t, s, store.NewMemory(), &tally{Last: map[int]int{}})
		if !d.Reserve(fmt.Sprint(i), e) {
			t.Fatal("reserve failed")
		}
		entries = append(entries, e)
		if i%2 == 0 {
			if _, err := actors.Update(s, e, o.write(0, i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	refs := d.Drain()
	if len(refs) != 5 {
		t.Fatalf("Drain returned %d live owners, want 5", len(refs))
	}
	s.Stop(refs)
	act, _ := s.Activations()
	for i, e := range entries {
		if _, err := actors.Update(s, e, o.write(1, 1)); !errors.Is(err, actors.ErrGone) {
			t.Errorf("owner %d after the reset: %v, want ErrGone", i, err)
		}
		if err := actors.Tell(s, e, o.write(1, 1)).Wait(); !errors.Is(err, actors.ErrGone) {
			t.Errorf("owner %d after the reset, Tell: %v, want ErrGone", i, err)
		}
	}
	if a, _ := s.Activations(); a != act {
		t.Errorf("%d owners started after the reset", a-act)
	}
}

// TestDrainRacingActivation: writes and a reset at once; after the reset
// every write is answered (ran or ErrGone) and no owner runs.
func TestDrainRacingActivation(t *testing.T) {
	s := newIdleSystem(t, time.Millisecond)
	// One owners per entry: entries' owners run at the same time.
	o := make([]owners, 50)
	d := actors.NewDirectory[tally]()
	var entries []*actors.Entry[tally]
	for i := range 50 {
		e := spawnTally(t, s, store.NewMemory(), &tally{Last: map[int]int{}})
		d.Reserve(fmt.Sprint(i), e)
		entries = append(entries, e)
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Go(func() {
			<-start
			for n := 1; n <= 5; n++ {
				if _, err := actors.Update(s, e, o[i].write(i, n)); err != nil && !errors.Is(err, actors.ErrGone) {
					t.Errorf("write: %v", err)
				}
			}
		})
	}
	close(start)
	s.Stop(d.Drain())
	wg.Wait()
	for i, e := range entries {
		if _, err := actors.Update(s, e, o[i].write(i, 99)); !errors.Is(err, actors.ErrGone) {
			t.Errorf("owner %d after the reset: %v, want ErrGone", i, err)
		}
		if v := o[i].violations.Load(); v != 0 {
			t.Errorf("owner %d ran in two actors at once %d times", i, v)
		}
	}
}

// TestTimerActivatesPassiveOwner: a timer set by an owner that then
// passivates fires its mutation, which starts the owner again.
func TestTimerActivatesPassiveOwner(t *testing.T) {
	s := newIdleSystem(t, 5*time.Millisecond)
	e := spawnTally(t, s, store.NewMemory(), &tally{})
	fired := make(chan struct{})
	timer := actors.NewTimer(s, e, func(cur *tally) (actors.Change[tally], error) {
		close(fired)
		next := *cur
		next.N = 42
		return actors.Change[tally]{Next: &next}, nil
	})
	if _, err := actors.Update(s, e, func(cur *tally) (actors.Change[tally], error) {
		timer.At(time.Now().Add(100 * time.Millisecond))
		return actors.Change[tally]{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	waitPassive(t, e)
	select {
	case <-fired:
	case <-time.After(5 * time.Second):
		t.Fatal("the timer's mutation did not run")
	}
	for deadline := time.Now().Add(5 * time.Second); e.Snapshot().N != 42; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the timer's mutation was not published")
		}
	}
	if act, _ := s.Activations(); act != 2 {
		t.Errorf("activations = %d, want 2", act)
	}
}

// TestInitRunsWithoutAnActor: a new owner's first change runs in its
// creator, spawning nothing; the first later write starts the actor on
// the state it published.
func TestInitRunsWithoutAnActor(t *testing.T) {
	s := newIdleSystem(t, time.Hour)
	var o owners
	e := spawnTally(t, s, store.NewMemory(), nil)
	if ok, err := actors.Init(s, e, o.write(1, 1)); err != nil || ok != true {
		t.Fatalf("init: %v %v", ok, err)
	}
	if got := e.Snapshot(); got == nil || got.N != 1 {
		t.Fatalf("snapshot after init = %+v", got)
	}
	if act, _ := s.Activations(); act != 0 || e.Ref().Valid() {
		t.Fatalf("init started an actor (%d activations)", act)
	}
	if ok, err := actors.Update(s, e, o.write(1, 2)); err != nil || ok != true {
		t.Fatalf("write after init: %v %v", ok, err)
	}
	if act, _ := s.Activations(); act != 1 || e.Snapshot().N != 2 {
		t.Fatalf("activations %d, snapshot %+v", act, e.Snapshot())
	}
	// Init on an entry that already runs goes through its actor.
	if ok, err := actors.Init(s, e, o.write(1, 3)); err != nil || ok != true || e.Snapshot().N != 3 {
		t.Fatalf("init of a live owner: %v %v %+v", ok, err, e.Snapshot())
	}
}

// slowly is a first change that takes a while, so that others arrive
// during it; started is closed when it begins.
func slowly(o *owners, started chan struct{}) actors.Mutation[tally] {
	return func(cur *tally) (actors.Change[tally], error) {
		close(started)
		time.Sleep(20 * time.Millisecond)
		return o.write(0, 1)(cur)
	}
}

// TestWritesRacingInit: writes that find a new owner while its creator
// runs its first change wait for it, then run in the actor, each after
// the first change and in order; never two at once.
func TestWritesRacingInit(t *testing.T) {
	s := newIdleSystem(t, time.Millisecond)
	var o owners
	e := spawnTally(t, s, store.NewMemory(), nil)
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := actors.Init(s, e, slowly(&o, started)); err != nil {
			t.Errorf("init: %v", err)
		}
	})
	<-started
	for w := 1; w <= 4; w++ {
		wg.Go(func() {
			for n := 1; n <= 20; n++ {
				ok, err := actors.Update(s, e, func(cur *tally) (actors.Change[tally], error) {
					if cur == nil {
						return actors.Change[tally]{}, errors.New("a write ran before the first change")
					}
					return o.write(w, n)(cur)
				})
				if err != nil || ok != true {
					t.Errorf("writer %d write %d: %v %v", w, n, ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := e.Snapshot(); got.N != 81 || o.violations.Load() != 0 {
		t.Fatalf("N = %d (want 81), %d violations", got.N, o.violations.Load())
	}
}

// TestDrainDuringInit: a reset that drains a new owner while its first
// change runs waits for the change, then ends the owner.
func TestDrainDuringInit(t *testing.T) {
	s := newIdleSystem(t, time.Hour)
	var o owners
	d := actors.NewDirectory[tally]()
	e := spawnTally(t, s, store.NewMemory(), nil)
	if !d.Reserve("a", e) {
		t.Fatal("reserve failed")
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := actors.Init(s, e, slowly(&o, started))
		done <- err
	}()
	<-started
	s.Stop(d.Drain())
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("init: %v", err)
		}
	default:
		t.Fatal("the drain returned before the first change it waited for")
	}
	if _, err := actors.Update(s, e, o.write(0, 2)); !errors.Is(err, actors.ErrGone) {
		t.Fatalf("write after the drain: %v, want ErrGone", err)
	}
	if act, _ := s.Activations(); act != 0 {
		t.Fatalf("%d activations", act)
	}
}

// TestFailedInitEndsTheOwner: a first change that fails created nothing:
// later commands get ErrGone and start no actor.
func TestFailedInitEndsTheOwner(t *testing.T) {
	s := newIdleSystem(t, time.Hour)
	var o owners
	e := spawnTally(t, s, store.NewMemory(), nil)
	refused := errors.New("refused")
	if _, err := actors.Init(s, e, func(*tally) (actors.Change[tally], error) { return actors.Change[tally]{}, refused }); !errors.Is(err, refused) {
		t.Fatalf("init: %v", err)
	}
	if _, err := actors.Update(s, e, o.write(0, 1)); !errors.Is(err, actors.ErrGone) {
		t.Fatalf("write after a failed init: %v, want ErrGone", err)
	}
	// A panic in the first change is an ErrPanic, and ends it too.
	e2 := spawnTally(t, s, store.NewMemory(), nil)
	if _, err := actors.Init(s, e2, func(*tally) (actors.Change[tally], error) { panic("boom") }); !errors.Is(err, actors.ErrPanic) {
		t.Fatalf("panicking init: %v", err)
	}
	if act, _ := s.Activations(); act != 0 {
		t.Fatalf("%d activations", act)
	}
}
