package actors_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/store"
)

type note struct{ Text string }

// spawnNote starts a StateOwner[note] whose first state is text.
func spawnNote(t *testing.T, s *actors.System, text string) *actors.Entry[note] {
	t.Helper()
	o := actors.NewStateOwner[note](store.NewMemory())
	return actors.SpawnState(s, "test.note", o, &note{Text: text})
}

func set(text string) actors.Mutation[note] {
	return func(cur *note) (actors.Change[note], error) {
		return actors.Change[note]{Next: &note{Text: text}}, nil
	}
}

func TestChangeAfterSeesPublishedState(t *testing.T) {
	s := newTestSystem(t)
	e := spawnNote(t, s, "a")
	var seen []string
	_, err := actors.Update(s, e, func(cur *note) (actors.Change[note], error) {
		return actors.Change[note]{Next: &note{Text: "b"}, After: func() { seen = append(seen, e.Snapshot().Text) }}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = actors.Update(s, e, func(cur *note) (actors.Change[note], error) {
		return actors.Change[note]{End: true, After: func() {
			if e.Snapshot() != nil {
				seen = append(seen, "still published")
			} else {
				seen = append(seen, "gone")
			}
		}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"b", "gone"}) {
		t.Errorf("After saw %v, want [b gone]", seen)
	}
	// A failed mutation runs no After.
	f := spawnNote(t, s, "x")
	ran := false
	_, err = actors.Update(s, f, func(cur *note) (actors.Change[note], error) {
		return actors.Change[note]{After: func() { ran = true }}, errors.New("refused")
	})
	if err == nil || ran {
		t.Errorf("failed mutation: err %v, After ran %v", err, ran)
	}
}

func TestTellFromAnOwner(t *testing.T) {
	s := newTestSystem(t)
	a, b := spawnNote(t, s, "a"), spawnNote(t, s, "b")
	// a's mutation tells b to change; the caller waits for b.
	type reply struct{ pending []actors.Pending }
	v, err := actors.Update(s, a, func(cur *note) (actors.Change[note], error) {
		r := &reply{}
		return actors.Change[note]{Next: &note{Text: "a2"}, Reply: r, After: func() {
			r.pending = append(r.pending, actors.Tell(s, b, set("told by "+a.Snapshot().Text)))
		}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := actors.WaitAll(v.(*reply).pending); err != nil {
		t.Fatal(err)
	}
	if got := b.Snapshot().Text; got != "told by a2" {
		t.Errorf("b = %q", got)
	}
	// A Tell's error comes back through Wait; a gone owner is not an error
	// for WaitAll.
	p := actors.Tell(s, b, func(*note) (actors.Change[note], error) { return actors.Change[note]{}, errors.New("no") })
	if err := p.Wait(); err == nil || err.Error() != "no" {
		t.Errorf("Wait = %v, want the mutation's error", err)
	}
	if _, err := actors.Update(s, b, func(*note) (actors.Change[note], error) { return actors.Change[note]{End: true}, nil }); err != nil {
		t.Fatal(err)
	}
	gone := actors.Tell(s, b, set("late"))
	if err := gone.Wait(); !actors.IsGone(err) {
		t.Errorf("Tell to an ended owner: %v, want gone", err)
	}
	if err := actors.WaitAll([]actors.Pending{gone, {}}); err != nil {
		t.Errorf("WaitAll counts a gone owner as an error: %v", err)
	}
}

func TestRefs(t *testing.T) {
	var r actors.Refs
	r.Add("api1/dev", "plan:b")
	r.Add("api1/dev", "plan:a")
	r.Add("api1/prod", "plan:a")
	r.Add("api1/", "domain:x") // a mapping to the API without a stage
	r.Add("api10/dev", "plan:z")
	if got := r.Referrers("api1/dev"); !slices.Equal(got, []string{"plan:a", "plan:b"}) {
		t.Errorf("Referrers(api1/dev) = %v", got)
	}
	if got := r.ReferrersUnder("api1/"); !slices.Equal(got, []string{"domain:x", "plan:a", "plan:b"}) {
		t.Errorf("ReferrersUnder(api1/) = %v", got)
	}
	r.Remove("api1/dev", "plan:b")
	if got := r.Referrers("api1/dev"); !slices.Equal(got, []string{"plan:a"}) {
		t.Errorf("after Remove: %v", got)
	}
	r.Reset()
	if got := r.ReferrersUnder(""); len(got) != 0 {
		t.Errorf("after Reset: %v", got)
	}
}

func TestLazy(t *testing.T) {
	var l actors.Lazy
	calls := 0
	build := func() any { calls++; return calls }
	first, second := l.Get(build), l.Get(build)
	if first != 1 || second != 1 || calls != 1 {
		t.Fatalf("Get built %d times", calls)
	}
}
