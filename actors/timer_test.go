package actors_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/actors/actorstest"
)

func TestTimerRunsTheMutationInTheOwner(t *testing.T) {
	env := actorstest.New(t)
	sys, st := env.Sys, env.Store
	type state struct{ n int }
	o := actors.NewStateOwner[state](st)
	e := actors.SpawnState(sys, "timer", o, &state{})
	var fired atomic.Int32
	var tm *actors.Timer[state]
	tm = actors.NewTimer(sys, e, func(cur *state) (actors.Change[state], error) {
		tm.Fired()
		fired.Add(1)
		return actors.Change[state]{Next: &state{n: cur.n + 1}}, nil
	})
	// At runs in the owner, like every use of the timer.
	if _, err := actors.Update(sys, e, func(*state) (actors.Change[state], error) {
		tm.At(time.Now().Add(40 * time.Millisecond))
		tm.At(time.Now().Add(10 * time.Millisecond)) // earlier wins
		tm.At(time.Now().Add(time.Hour))             // later is ignored
		return actors.Change[state]{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for e.Snapshot().n == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := e.Snapshot().n; got != 1 {
		t.Fatalf("state after the timer: %d, want 1", got)
	}
	time.Sleep(60 * time.Millisecond)
	if got := fired.Load(); got != 1 {
		t.Fatalf("fired %d times, want once (one pending timer per owner)", got)
	}
	if _, err := actors.Update(sys, e, func(*state) (actors.Change[state], error) {
		tm.At(time.Now().Add(20 * time.Millisecond))
		tm.Stop()
		return actors.Change[state]{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	if got := fired.Load(); got != 1 {
		t.Fatalf("a stopped timer fired: %d", got)
	}
}
