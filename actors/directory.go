package actors

import (
	"fmt"
	"iter"
	"slices"
	"sync/atomic"

	"github.com/cloudemu/emulator/awswire"
	"github.com/puzpuzpuz/xsync/v3"
)

// Entry is one owner as a directory lists it: its actor and the last
// snapshot it published. The snapshot is nil while the owner is being
// created and after it was deleted.
//
// The owner's actor runs only while the owner is busy: an owner idle for
// the system's idle time passivates, and the next command sent to it
// activates it again (see cell). Its snapshot stays readable all along;
// reading never activates anything.
type Entry[S any] struct {
	cell
	snap  atomic.Pointer[S]
	order string // the entry's key in its directory's order
}

// NewEntry returns an entry for an owner spawned on its own at ref, which
// never passivates (a zero ref: an entry whose owner has ended).
func NewEntry[S any](ref Ref) *Entry[S] {
	e := &Entry[S]{}
	if ref.Valid() {
		e.pid.Store(ref.pid)
	} else {
		e.sent.Store(cellEnded)
	}
	return e
}

// Ref is the owner's actor while it is live; the zero Ref (not Valid)
// while it is passive or after it ended. Commands go through Update and
// Tell, which activate a passive owner.
func (e *Entry[S]) Ref() Ref { return e.live() }

// Snapshot is the last published state, or nil.
func (e *Entry[S]) Snapshot() *S { return e.snap.Load() }

// Publish makes s the state readers see. Only the owner calls it, and s
// MUST NOT change afterwards.
func (e *Entry[S]) Publish(s *S) { e.snap.Store(s) }

// Directory maps ids to owners, lock-free for readers. It also keeps its
// entries in an order (by id, or by the order key each was reserved at),
// so that a page of a listing costs the size of the page.
type Directory[S any] struct {
	m     *xsync.MapOf[string, *Entry[S]]
	order orderIndex[S]
}

// SeqKey is an order key that sorts by creation sequence.
func SeqKey(seq uint64) string { return fmt.Sprintf("%016x", seq) }

// NewDirectory returns an empty directory.
func NewDirectory[S any]() *Directory[S] {
	return &Directory[S]{m: xsync.NewMapOf[string, *Entry[S]]()}
}

// Reserve claims id for e, listed in id order. It fails if id is already
// claimed, even by an owner still being created.
func (d *Directory[S]) Reserve(id string, e *Entry[S]) bool { return d.ReserveAt(id, id, e) }

// ReserveAt claims id for e, listed at order (SeqKey for creation order;
// order keys MUST be unique in the directory).
func (d *Directory[S]) ReserveAt(id, order string, e *Entry[S]) bool {
	e.order = order // before the entry is in the map, where a listing may build the order
	if _, loaded := d.m.LoadOrStore(id, e); loaded {
		return false
	}
	d.order.set(order, e)
	return true
}

// Release gives id up, if e still holds it.
func (d *Directory[S]) Release(id string, e *Entry[S]) {
	released := false
	d.m.Compute(id, func(old *Entry[S], loaded bool) (*Entry[S], bool) {
		// Delete when e holds id, and when nobody does: keeping a
		// missing key would store a nil entry.
		released = loaded && old == e
		return old, !loaded || old == e
	})
	if released {
		d.order.remove(e.order, e)
	}
}

// Ordered yields the published snapshots in the directory's order,
// starting at the order key from ("" for the first), with their order keys.
// It reads one consistent version of the order.
func (d *Directory[S]) Ordered(from string) iter.Seq2[string, *S] {
	return func(yield func(string, *S) bool) {
		for k, e := range d.order.from(from, d.entries) {
			if s := e.snap.Load(); s != nil && !yield(k, s) {
				return
			}
		}
	}
}

// entries yields every entry holding an id.
func (d *Directory[S]) entries(yield func(*Entry[S]) bool) {
	d.m.Range(func(_ string, e *Entry[S]) bool { return yield(e) })
}

// Entry returns the owner holding id, if its state is published.
func (d *Directory[S]) Entry(id string) (*Entry[S], *S, bool) {
	e, ok := d.m.Load(id)
	if !ok {
		return nil, nil, false
	}
	s := e.snap.Load()
	if s == nil {
		return nil, nil, false
	}
	return e, s, true
}

// Lookup returns the owner holding id, published or not: a Tell to an
// owner still being created queues behind its creation.
func (d *Directory[S]) Lookup(id string) (*Entry[S], bool) { return d.m.Load(id) }

// Get returns the published snapshot of id.
func (d *Directory[S]) Get(id string) (*S, bool) {
	_, s, ok := d.Entry(id)
	return s, ok
}

// Snapshots returns every published snapshot, sorted by cmp (unsorted when
// cmp is nil, for callers that only count).
func (d *Directory[S]) Snapshots(cmp func(a, b *S) int) []*S {
	out := make([]*S, 0, d.m.Size())
	d.m.Range(func(_ string, e *Entry[S]) bool {
		if s := e.snap.Load(); s != nil {
			out = append(out, s)
		}
		return true
	})
	if cmp != nil {
		slices.SortFunc(out, cmp)
	}
	return out
}

// Len is the number of ids claimed.
func (d *Directory[S]) Len() int { return d.m.Size() }

// Drain removes every entry and returns their actors, for a reset.
func (d *Directory[S]) Drain() []Ref {
	var refs []Ref
	d.m.Range(func(id string, e *Entry[S]) bool {
		// A passive owner ends here; a live one is retired by the caller.
		if r, ok := e.drain(); ok {
			refs = append(refs, r)
		}
		d.m.Delete(id)
		return true
	})
	d.order.reset()
	return refs
}

// Scopes maps each (account, region) to a service's directories, created on
// first use.
type Scopes[T any] struct {
	m    *xsync.MapOf[awswire.Scope, *T]
	make func() *T
}

// NewScopes returns an empty map whose per-scope value is built by mk.
func NewScopes[T any](mk func() *T) *Scopes[T] {
	return &Scopes[T]{m: xsync.NewMapOfWithHasher[awswire.Scope, *T](awswire.HashScope), make: mk}
}

// Get returns sc's value, creating it if needed.
func (s *Scopes[T]) Get(sc awswire.Scope) *T {
	if v, ok := s.m.Load(sc); ok {
		return v
	}
	v, _ := s.m.LoadOrCompute(sc, s.make)
	return v
}

// Lookup returns sc's value if it exists, without creating it.
func (s *Scopes[T]) Lookup(sc awswire.Scope) (*T, bool) { return s.m.Load(sc) }

// Range calls f for every scope until f returns false.
func (s *Scopes[T]) Range(f func(awswire.Scope, *T) bool) { s.m.Range(f) }

// Drain is Range for a reset: it also forgets every scope it passes to f,
// so that scopes used once (a test suite with an account per test) do not
// keep their directories for good; the next use of a scope builds a fresh
// value. A request that got a scope's value just before works on a value
// nobody lists any more, as if it had come before the reset.
func (s *Scopes[T]) Drain(f func(awswire.Scope, *T) bool) {
	s.m.Range(func(sc awswire.Scope, v *T) bool {
		s.m.Delete(sc)
		return f(sc, v)
	})
}

// Memo caches one encoding of an immutable snapshot, so that a read served
// many times is encoded once. Two readers may race to fill it; both encode
// the same bytes, so either wins.
type Memo struct{ p atomic.Pointer[[]byte] }

// Get returns the cached bytes, or nil.
func (m *Memo) Get() []byte {
	if p := m.p.Load(); p != nil {
		return *p
	}
	return nil
}

// Set caches b, which MUST NOT change afterwards.
func (m *Memo) Set(b []byte) { m.p.Store(&b) }
