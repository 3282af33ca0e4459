package actors

import (
	"iter"
	"sync"

	"github.com/tidwall/btree"
)

// orderIndex keeps a directory's entries in order for listings: a B-tree
// changed in place under a mutex, and a copy-on-write snapshot of it taken
// only when a listing asks and something changed since the last one. It is
// built at the first listing in order: a directory never listed so (REST
// APIs and API keys list by scanning) keeps no index and pays nothing.
// Creates in a burst then cost an in-place insert each (no copy, no
// garbage), where a persistent map copied a path of nodes per create (a
// sixth of a create's CPU with 500k resources, and much of its garbage);
// the first change after a listing copies the path it touches. Building
// holds the mutex for one sort of the directory, once. The mutex is
// per directory and held for an insert or a delete, never while listing.
type orderIndex[S any] struct {
	mu   sync.Mutex
	tree *btree.BTreeG[orderItem[S]] // nil until the first listing
	snap *btree.BTreeG[orderItem[S]] // nil once tree changed after it
}

type orderItem[S any] struct {
	key string
	e   *Entry[S]
}

// orderDegree keeps nodes small: a node copied after a listing is at most
// 2*16-1 items.
const orderDegree = 16

func newOrderTree[S any]() *btree.BTreeG[orderItem[S]] {
	return btree.NewBTreeGOptions(func(a, b orderItem[S]) bool { return a.key < b.key },
		btree.Options{Degree: orderDegree, NoLocks: true})
}

// set lists e at key, once the index is built. Building and set may
// both list an entry: it is the same item.
func (o *orderIndex[S]) set(key string, e *Entry[S]) {
	o.mu.Lock()
	if o.tree == nil {
		o.mu.Unlock()
		return
	}
	// Load appends without a search when key sorts last, as creation
	// order keys do; otherwise it inserts as Set.
	o.tree.Load(orderItem[S]{key, e})
	o.snap = nil
	o.mu.Unlock()
}

// remove unlists key if e holds it.
func (o *orderIndex[S]) remove(key string, e *Entry[S]) {
	o.mu.Lock()
	if o.tree != nil {
		if cur, ok := o.tree.Get(orderItem[S]{key: key}); ok && cur.e == e {
			o.tree.Delete(cur)
			o.snap = nil
		}
	}
	o.mu.Unlock()
}

// reset unlists everything.
func (o *orderIndex[S]) reset() {
	o.mu.Lock()
	o.tree, o.snap = nil, nil
	o.mu.Unlock()
}

// from yields the entries whose keys are >= from, in order, from one
// version of the index, building it first from every entry all yields
// (the directory's map) when this is the first listing. An entry being
// reserved meanwhile is in the map before set runs, and one being released
// leaves the map before remove runs, so the index ends up right either way.
func (o *orderIndex[S]) from(from string, all func(yield func(*Entry[S]) bool)) iter.Seq2[string, *Entry[S]] {
	o.mu.Lock()
	if o.tree == nil {
		o.tree = newOrderTree[S]()
		for e := range all {
			o.tree.Set(orderItem[S]{e.order, e})
		}
	}
	if o.snap == nil {
		o.snap = o.tree.Copy()
	}
	snap := o.snap
	o.mu.Unlock()
	return func(yield func(string, *Entry[S]) bool) {
		snap.Ascend(orderItem[S]{key: from}, func(it orderItem[S]) bool {
			return yield(it.key, it.e)
		})
	}
}
