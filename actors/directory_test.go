package actors_test

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// vault is the snapshot type of the directory tests.
type vault struct {
	Name string
	Size int
}

func byName(a, b *vault) int { return cmp.Compare(a.Name, b.Name) }

// newRefs spawns n idle owners, stopped when the test ends, for entries that
// need a real Ref.
func newRefs(t *testing.T, n int) []actors.Ref {
	t.Helper()
	s := newTestSystem(t)
	refs := make([]actors.Ref, n)
	for i := range refs {
		refs[i] = spawn(t, s, "test.dir", &counter{})
	}
	return refs
}

func TestDirectoryReserveRelease(t *testing.T) {
	d := actors.NewDirectory[vault]()
	e1 := actors.NewEntry[vault](actors.Ref{})
	e2 := actors.NewEntry[vault](actors.Ref{})
	steps := []struct {
		name    string
		do      func() bool // false fails the step
		wantLen int
	}{
		{"reserve-e1", func() bool { return d.Reserve("v", e1) }, 1},
		{"reserve-e2-taken", func() bool { return !d.Reserve("v", e2) }, 1},
		{"reserve-e1-again-taken", func() bool { return !d.Reserve("v", e1) }, 1},
		{"release-e2-no-op", func() bool { d.Release("v", e2); return true }, 1},
		{"reserve-e2-still-taken", func() bool { return !d.Reserve("v", e2) }, 1},
		{"reserve-other-id", func() bool { return d.Reserve("w", e2) }, 2},
		{"release-other-id-by-e1-no-op", func() bool { d.Release("w", e1); return true }, 2},
		{"release-e1", func() bool { d.Release("v", e1); return true }, 1},
		{"reserve-e2-freed", func() bool { return d.Reserve("v", e2) }, 2},
		{"release-e1-not-holder", func() bool { d.Release("v", e1); return true }, 2},
		{"release-e2-v", func() bool { d.Release("v", e2); return true }, 1},
		{"release-e2-w", func() bool { d.Release("w", e2); return true }, 0},
		{"reserve-e1-again", func() bool { return d.Reserve("v", e1) }, 1},
	}
	for _, st := range steps {
		t.Run("step="+st.name, func(t *testing.T) {
			if !st.do() {
				t.Fatalf("unexpected Reserve result")
			}
			if got := d.Len(); got != st.wantLen {
				t.Errorf("Len() = %d, want %d", got, st.wantLen)
			}
		})
	}
}

func TestDirectoryReleaseAbsent(t *testing.T) {
	// Release of an id nobody holds (never reserved, released twice, or
	// drained by a reset while a delete was queued) must change nothing.
	// Release's Compute callback returns (nil, delete=false) for a missing
	// key, which xsync takes as "store nil": the id then holds a nil
	// *Entry, Len counts it, Reserve of the id fails for ever (a vault name
	// that can never be created again: AlreadyExistsException), and Get,
	// Entry, Snapshots and Drain dereference the nil entry and panic.
	for _, tc := range []struct {
		name  string
		setup func(d *actors.Directory[vault], e *actors.Entry[vault])
	}{
		{"never-reserved", func(d *actors.Directory[vault], e *actors.Entry[vault]) {}},
		{"released-twice", func(d *actors.Directory[vault], e *actors.Entry[vault]) {
			d.Reserve("v", e)
			d.Release("v", e)
		}},
		{"drained", func(d *actors.Directory[vault], e *actors.Entry[vault]) {
			d.Reserve("v", e)
			e.Publish(&vault{Name: "v"})
			d.Drain()
		}},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			d := actors.NewDirectory[vault]()
			e := actors.NewEntry[vault](actors.Ref{})
			tc.setup(d, e)
			d.Release("v", e)
			if n := d.Len(); n != 0 {
				t.Errorf("Len() = %d, want 0", n)
			}
			mustNotPanic(t, "Get", func() { d.Get("v") })
			mustNotPanic(t, "Entry", func() { d.Entry("v") })
			mustNotPanic(t, "Snapshots", func() { d.Snapshots(byName) })
			mustNotPanic(t, "Drain", func() { d.Drain() })
			if !d.Reserve("v", actors.NewEntry[vault](actors.Ref{})) {
				t.Errorf("Reserve after Release of an absent id failed")
			}
		})
	}
}

func mustNotPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", name, r)
		}
	}()
	f()
}

func TestDirectoryReserveConcurrent(t *testing.T) {
	// Exactly one of many concurrent reservations of one id wins.
	d := actors.NewDirectory[vault]()
	const n = 16
	var wins atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			if d.Reserve("v", actors.NewEntry[vault](actors.Ref{})) {
				wins.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if got := wins.Load(); got != 1 {
		t.Errorf("%d reservations won, want 1", got)
	}
}

func TestDirectoryEntryHidesUnpublished(t *testing.T) {
	refs := newRefs(t, 1)
	d := actors.NewDirectory[vault]()
	e := actors.NewEntry[vault](refs[0])
	if e.Ref() != refs[0] || e.Snapshot() != nil {
		t.Fatalf("NewEntry = %v %v", e.Ref(), e.Snapshot())
	}
	check := func(t *testing.T, id string, want *vault) {
		t.Helper()
		got, ok := d.Get(id)
		if want == nil {
			if ok || got != nil {
				t.Errorf("Get(%q) = %v, %v; want hidden", id, got, ok)
			}
			if ge, gs, ok := d.Entry(id); ok || ge != nil || gs != nil {
				t.Errorf("Entry(%q) = %v, %v, %v; want hidden", id, ge, gs, ok)
			}
			return
		}
		if !ok || got != want {
			t.Errorf("Get(%q) = %v, %v; want %v", id, got, ok, want)
		}
		ge, gs, ok := d.Entry(id)
		if !ok || ge != e || gs != want || ge.Ref() != refs[0] {
			t.Errorf("Entry(%q) = %v, %v, %v", id, ge, gs, ok)
		}
	}
	v1 := &vault{Name: "v", Size: 1}
	v2 := &vault{Name: "v", Size: 2}
	for _, st := range []struct {
		name string
		do   func()
		want *vault
	}{
		{"absent", func() {}, nil},
		{"reserved", func() { d.Reserve("v", e) }, nil},
		{"published", func() { e.Publish(v1) }, v1},
		{"republished", func() { e.Publish(v2) }, v2},
		{"deleted", func() { e.Publish(nil) }, nil},
		{"published-again", func() { e.Publish(v1) }, v1},
		{"released", func() { d.Release("v", e) }, nil},
	} {
		t.Run("state="+st.name, func(t *testing.T) {
			st.do()
			check(t, "v", st.want)
			check(t, "other", nil)
		})
	}
}

func TestDirectorySnapshots(t *testing.T) {
	d := actors.NewDirectory[vault]()
	names := []string{"m", "b", "z", "a", "hidden-1", "q", "hidden-2", "c"}
	for i, n := range names {
		e := actors.NewEntry[vault](actors.Ref{})
		if !d.Reserve(n, e) {
			t.Fatalf("Reserve(%q) failed", n)
		}
		if len(n) < 6 || n[:6] != "hidden" {
			e.Publish(&vault{Name: n, Size: i})
		}
	}
	for _, tc := range []struct {
		name string
		cmp  func(a, b *vault) int
		want []string
	}{
		{"by-name", byName, []string{"a", "b", "c", "m", "q", "z"}},
		{"by-name-desc", func(a, b *vault) int { return byName(b, a) }, []string{"z", "q", "m", "c", "b", "a"}},
		{"by-size", func(a, b *vault) int { return cmp.Compare(a.Size, b.Size) }, []string{"m", "b", "z", "a", "q", "c"}},
	} {
		t.Run("order="+tc.name, func(t *testing.T) {
			var got []string
			for _, s := range d.Snapshots(tc.cmp) {
				got = append(got, s.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Snapshots = %v, want %v", got, tc.want)
			}
		})
	}
	if got := d.Len(); got != len(names) {
		t.Errorf("Len() = %d, want %d (unpublished ids are claimed)", got, len(names))
	}
	t.Run("order=empty", func(t *testing.T) {
		if got := actors.NewDirectory[vault]().Snapshots(byName); len(got) != 0 {
			t.Errorf("Snapshots of an empty directory = %v", got)
		}
	})
}

func TestDirectoryOrdered(t *testing.T) {
	d := actors.NewDirectory[vault]()
	entries := map[string]*actors.Entry[vault]{}
	// Created in this order: listed in it, whatever the ids.
	for i, n := range []string{"m", "b", "hidden", "z", "a"} {
		e := actors.NewEntry[vault](actors.Ref{})
		entries[n] = e
		if !d.ReserveAt(n, actors.SeqKey(uint64(i+1)), e) {
			t.Fatalf("ReserveAt(%q) failed", n)
		}
		if n != "hidden" {
			e.Publish(&vault{Name: n})
		}
	}
	list := func(from string) (names, keys []string) {
		for k, v := range d.Ordered(from) {
			names, keys = append(names, v.Name), append(keys, k)
		}
		return names, keys
	}
	names, keys := list("")
	if !slices.Equal(names, []string{"m", "b", "z", "a"}) {
		t.Fatalf("Ordered = %v, want creation order without the unpublished entry", names)
	}
	if got, _ := list(keys[2]); !slices.Equal(got, []string{"z", "a"}) {
		t.Errorf("Ordered(from the third) = %v", got)
	}
	d.Release("b", entries["b"])
	d.Release("z", entries["m"]) // not z's entry: nothing happens
	if got, _ := list(""); !slices.Equal(got, []string{"m", "z", "a"}) {
		t.Errorf("after releasing b: %v", got)
	}
	d.Drain()
	if got, _ := list(""); len(got) != 0 {
		t.Errorf("after Drain: %v", got)
	}
	ids := actors.NewDirectory[vault]()
	for _, n := range []string{"q", "c", "k"} {
		e := actors.NewEntry[vault](actors.Ref{})
		ids.Reserve(n, e)
		e.Publish(&vault{Name: n})
	}
	var got []string
	for _, v := range ids.Ordered("") {
		got = append(got, v.Name)
	}
	if !slices.Equal(got, []string{"c", "k", "q"}) {
		t.Errorf("Reserve lists in id order: %v", got)
	}
	if actors.SeqKey(9) >= actors.SeqKey(10) || actors.SeqKey(255) >= actors.SeqKey(256) {
		t.Error("SeqKey does not sort by sequence")
	}
}

func TestDirectoryDrain(t *testing.T) {
	refs := newRefs(t, 4)
	d := actors.NewDirectory[vault]()
	for i, r := range refs {
		e := actors.NewEntry[vault](r)
		d.Reserve(fmt.Sprint("v", i), e)
		if i%2 == 0 {
			e.Publish(&vault{Name: fmt.Sprint("v", i)})
		}
	}
	got := d.Drain()
	if len(got) != len(refs) {
		t.Fatalf("Drain returned %d refs, want %d (published or not)", len(got), len(refs))
	}
	for _, r := range refs {
		if !slices.Contains(got, r) {
			t.Errorf("Drain did not return %v", r)
		}
	}
	if n := d.Len(); n != 0 {
		t.Errorf("Len() after Drain = %d", n)
	}
	if s := d.Snapshots(byName); len(s) != 0 {
		t.Errorf("Snapshots after Drain = %v", s)
	}
	if _, ok := d.Get("v0"); ok {
		t.Error("Get after Drain found v0")
	}
	if !d.Reserve("v0", actors.NewEntry[vault](actors.Ref{})) {
		t.Error("Reserve after Drain failed")
	}
	if got := actors.NewDirectory[vault]().Drain(); len(got) != 0 {
		t.Errorf("Drain of an empty directory = %v", got)
	}
}

type perScope struct {
	vaults *actors.Directory[vault]
}

func TestScopesGetOnce(t *testing.T) {
	var made atomic.Int32
	sc := actors.NewScopes(func() *perScope {
		made.Add(1)
		return &perScope{vaults: actors.NewDirectory[vault]()}
	})
	key := awswire.Scope{Account: "123456789012", Region: "us-east-1"}
	const n = 16
	got := make([]*perScope, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			got[i] = sc.Get(key)
		})
	}
	close(start)
	wg.Wait()
	if m := made.Load(); m != 1 {
		t.Fatalf("mk called %d times, want 1", m)
	}
	for i, p := range got {
		if p == nil || p != got[0] {
			t.Fatalf("goroutine %d got %p, want %p", i, p, got[0])
		}
	}
	if p := sc.Get(key); p != got[0] {
		t.Errorf("later Get = %p, want %p", p, got[0])
	}
}

func TestScopesLookup(t *testing.T) {
	var made atomic.Int32
	sc := actors.NewScopes(func() *perScope {
		made.Add(1)
		return &perScope{}
	})
	a := awswire.Scope{Account: "123456789012", Region: "us-east-1"}
	b := awswire.Scope{Account: "123456789012", Region: "eu-west-1"}
	c := awswire.Scope{Account: "000000000000", Region: "us-east-1"}
	if p, ok := sc.Lookup(a); ok || p != nil {
		t.Fatalf("Lookup before Get = %v, %v", p, ok)
	}
	if m := made.Load(); m != 0 {
		t.Fatalf("Lookup created a value (mk called %d times)", m)
	}
	pa, pb := sc.Get(a), sc.Get(b)
	if pa == pb {
		t.Fatal("two scopes share one value")
	}
	for _, tc := range []struct {
		name  string
		scope awswire.Scope
		want  *perScope
	}{
		{"a", a, pa},
		{"b", b, pb},
		{"c-absent", c, nil},
	} {
		t.Run("scope="+tc.name, func(t *testing.T) {
			p, ok := sc.Lookup(tc.scope)
			if ok != (tc.want != nil) || p != tc.want {
				t.Errorf("Lookup = %p, %v; want %p", p, ok, tc.want)
			}
		})
	}
	if m := made.Load(); m != 2 {
		t.Errorf("mk called %d times, want 2", m)
	}
	seen := map[awswire.Scope]*perScope{}
	sc.Range(func(s awswire.Scope, p *perScope) bool {
		seen[s] = p
		return true
	})
	if len(seen) != 2 || seen[a] != pa || seen[b] != pb {
		t.Errorf("Range visited %v", seen)
	}
	calls := 0
	sc.Range(func(awswire.Scope, *perScope) bool {
		calls++
		return false
	})
	if calls != 1 {
		t.Errorf("Range went on after false: %d calls", calls)
	}
}

func TestMemo(t *testing.T) {
	var m actors.Memo
	if got := m.Get(); got != nil {
		t.Fatalf("Get() of an empty memo = %q", got)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"json", []byte(`{"BackupVaultName":"v"}`)},
		{"other", []byte(`{"BackupVaultName":"w"}`)},
		{"empty", []byte{}},
	} {
		t.Run("value="+tc.name, func(t *testing.T) {
			m.Set(tc.b)
			got := m.Get()
			if string(got) != string(tc.b) || got == nil {
				t.Errorf("Get() = %q, want %q", got, tc.b)
			}
			if len(tc.b) > 0 && &got[0] != &tc.b[0] {
				t.Errorf("Get() copied the bytes")
			}
		})
	}
}

func TestMemoConcurrent(t *testing.T) {
	// Readers racing to fill the memo each see nil or a complete value.
	var m actors.Memo
	want := `{"BackupVaultName":"v","NumberOfRecoveryPoints":0}`
	var wg sync.WaitGroup
	var bad atomic.Int32
	for range 8 {
		wg.Go(func() {
			for range 200 {
				b := m.Get()
				if b == nil {
					m.Set([]byte(want))
					continue
				}
				if string(b) != want {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Errorf("%d reads saw a wrong value", n)
	}
	if string(m.Get()) != want {
		t.Errorf("Get() = %q", m.Get())
	}
}

func TestIDs(t *testing.T) {
	x := actors.NewIDs[vault]()
	east := awswire.Scope{Account: "1", Region: "us-east-1"}
	west := awswire.Scope{Account: "1", Region: "us-west-2"}
	a, b := actors.NewEntry[vault](actors.Ref{}), actors.NewEntry[vault](actors.Ref{})
	a.Publish(&vault{Name: "a"})
	b.Publish(&vault{Name: "b"})
	x.Add("same", east, a)
	x.Add("same", west, b)
	if v, sc, ok := x.Lookup("same", nil); !ok || v.Name != "a" || sc != east {
		t.Errorf("Lookup(nil) = %v %v %v, want the first added", v, sc, ok)
	}
	inWest := func(sc awswire.Scope) bool { return sc.Region == "us-west-2" }
	if v, _, ok := x.Lookup("same", inWest); !ok || v.Name != "b" {
		t.Errorf("Lookup(prefer west) = %v %v", v, ok)
	}
	x.Remove("same", a)
	if v, _, ok := x.Lookup("same", nil); !ok || v.Name != "b" {
		t.Errorf("after Remove: %v %v", v, ok)
	}
	b.Publish(nil) // being deleted
	if _, _, ok := x.Lookup("same", nil); ok {
		t.Error("an unpublished owner was found")
	}
	x.Remove("same", b)
	if _, _, ok := x.Lookup("same", nil); ok {
		t.Error("found after every holder was removed")
	}
}

// TestDirectoryOrderBuiltWhileWriting: the order is built at the first
// listing, while other goroutines reserve and release ids; afterwards it
// lists exactly the ids held, in order.
func TestDirectoryOrderBuiltWhileWriting(t *testing.T) {
	for round := range 20 {
		d := actors.NewDirectory[vault]()
		reserve := func(id string) *actors.Entry[vault] {
			e := actors.NewEntry[vault](actors.Ref{})
			e.Publish(&vault{Name: id})
			if !d.Reserve(id, e) {
				t.Fatalf("reserve %s failed", id)
			}
			return e
		}
		for i := range 100 {
			reserve(fmt.Sprintf("a%03d", i))
		}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 50 {
					id := fmt.Sprintf("w%d-%03d", w, i)
					e := reserve(id)
					if i%3 == 0 {
						d.Release(id, e)
					}
				}
			})
		}
		wg.Go(func() {
			for range d.Ordered("") {
			}
		})
		wg.Wait()
		var want []string
		for _, s := range d.Snapshots(byName) {
			want = append(want, s.Name)
		}
		var got []string
		for _, v := range d.Ordered("") {
			got = append(got, v.Name)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: ordered %d ids, held %d:\n%v\n%v", round, len(got), len(want), got, want)
		}
	}
}
