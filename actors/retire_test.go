package actors_test

import (
	"errors"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// TestStopManyEnds retires thousands of owners in one Stop: every one
// answers ErrGone at once, AfterStops runs once all have ended, and none of
// them is left in the actor system.
func TestStopManyEnds(t *testing.T) {
	s := newTestSystem(t, withAskTimeout(5*time.Second))
	const n = 3000
	refs := make([]actors.Ref, n)
	for i := range refs {
		refs[i] = s.Spawn("test.counter", &counter{})
	}
	// One owner already gone: its window is answered by the dead letter.
	s.Stop(refs[:1])
	done := make(chan struct{})
	s.AfterStops(func() { close(done) })
	<-done
	start := time.Now()
	s.Stop(refs)
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("Stop of %d owners took %v", n, d)
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		if _, err := actors.Ask[int](s, refs[i], cmdGet{}); !errors.Is(err, actors.ErrGone) {
			t.Errorf("Ask to owner %d after Stop = %v, want ErrGone", i, err)
		}
	}
	ended := make(chan struct{})
	s.AfterStops(func() { close(ended) })
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("AfterStops did not run within 10s")
	}
	// Ended: no owner answers any more, the dead letter does.
	if _, err := actors.Ask[int](s, refs[n-1], cmdGet{}); !errors.Is(err, actors.ErrGone) {
		t.Errorf("Ask after the end = %v, want ErrGone", err)
	}
	if !s.Compact() {
		t.Error("Compact after ending more than a thousand owners did nothing")
	}
	if s.Compact() {
		t.Error("a second Compact with nothing ended since compacted again")
	}
}

// BenchmarkStop100k is the owners' part of a reset of 100k resources:
// retiring them (timed, with its allocations) and ending them.
//
//	go test ./actors -run '^$' -bench Stop100k -benchtime 3x -benchmem
func BenchmarkStop100k(b *testing.B) {
	s := actors.NewSystem(slog.New(slog.NewTextHandler(io.Discard, nil)), 10*time.Second)
	defer s.Shutdown()
	const n = 100000
	refs := make([]actors.Ref, n)
	for b.Loop() {
		b.StopTimer()
		for i := range refs {
			refs[i] = s.Spawn("bench.counter", &counter{})
		}
		runtime.GC()
		b.StartTimer()
		s.Stop(refs)
		b.StopTimer()
		done := make(chan struct{})
		s.AfterStops(func() { close(done) })
		<-done
		s.Compact()
		b.StartTimer()
	}
}

func TestScopesDrain(t *testing.T) {
	sc := actors.NewScopes(func() *perScope { return &perScope{vaults: actors.NewDirectory[vault]()} })
	a := awswire.Scope{Account: "111111111111", Region: "us-east-1"}
	b := awswire.Scope{Account: "222222222222", Region: "eu-west-1"}
	old := sc.Get(a)
	sc.Get(b)
	seen := map[awswire.Scope]bool{}
	sc.Drain(func(s awswire.Scope, _ *perScope) bool {
		seen[s] = true
		return true
	})
	if len(seen) != 2 || !seen[a] || !seen[b] {
		t.Errorf("Drain passed %v, want both scopes", seen)
	}
	for _, s := range []awswire.Scope{a, b} {
		if _, ok := sc.Lookup(s); ok {
			t.Errorf("scope %v still there after Drain", s)
		}
	}
	if sc.Get(a) == old {
		t.Error("Get after Drain returned the drained value, want a fresh one")
	}
}
