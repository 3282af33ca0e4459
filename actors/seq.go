package actors

import "sync/atomic"

// Seq numbers resources in creation order, across a restart: Next gives
// the next number, Restored makes sure later ones come after one read back
// from the store. It is lock-free.
type Seq struct{ n atomic.Uint64 }

// Next returns the next number.
func (s *Seq) Next() uint64 { return s.n.Add(1) }

// Restored makes every later Next greater than n.
func (s *Seq) Restored(n uint64) {
	for {
		cur := s.n.Load()
		if n <= cur || s.n.CompareAndSwap(cur, n) {
			return
		}
	}
}

// ReserveNew claims an id for e in d: id itself when it is not "" (false
// when it is taken), else the first free id gen makes.
func ReserveNew[S any](d *Directory[S], id string, gen func() string, e *Entry[S]) (string, bool) {
	if id != "" {
		return id, d.Reserve(id, e)
	}
	for {
		id = gen()
		if d.Reserve(id, e) {
			return id, true
		}
	}
}
