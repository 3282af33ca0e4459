package actors

import (
	"slices"

	"github.com/puzpuzpuz/xsync/v3"

	"github.com/cloudemu/emulator/awswire"
)

// IDs indexes owners by id across every account and region, for requests
// that name a resource by id alone (an execute-api host carries no SigV4
// scope). Ids may repeat across scopes (custom ids); the index keeps every
// holder, in the order they were added. Readers are lock-free.
type IDs[S any] struct {
	m *xsync.MapOf[string, holders[S]]
}

// holders are the owners holding one id: the first inline, since ids
// rarely repeat, the others after it.
type holders[S any] struct {
	first Held[S]
	more  []Held[S]
}

func (h holders[S]) all() []Held[S] {
	if h.first.Entry == nil {
		return h.more
	}
	return append([]Held[S]{h.first}, h.more...)
}

// Held is one owner holding an id, and where it lives.
type Held[S any] struct {
	Scope awswire.Scope
	Entry *Entry[S]
}

// NewIDs returns an empty index.
func NewIDs[S any]() *IDs[S] { return &IDs[S]{m: xsync.NewMapOf[string, holders[S]]()} }

// Add records that e, in sc, holds id.
func (x *IDs[S]) Add(id string, sc awswire.Scope, e *Entry[S]) {
	x.m.Compute(id, func(cur holders[S], loaded bool) (holders[S], bool) {
		if !loaded {
			return holders[S]{first: Held[S]{sc, e}}, false
		}
		cur.more = append(slices.Clip(cur.more), Held[S]{sc, e})
		return cur, false
	})
}

// Remove forgets that e holds id.
func (x *IDs[S]) Remove(id string, e *Entry[S]) {
	x.m.Compute(id, func(cur holders[S], loaded bool) (holders[S], bool) {
		rest := slices.DeleteFunc(cur.all(), func(h Held[S]) bool { return h.Entry == e })
		if len(rest) == 0 {
			return holders[S]{}, true
		}
		return holders[S]{first: rest[0], more: slices.Clip(rest[1:])}, false
	})
}

// Lookup returns the published snapshot of the owner holding id: the
// first, in the order they were added, whose scope prefer accepts, else the
// first (prefer may be nil).
func (x *IDs[S]) Lookup(id string, prefer func(awswire.Scope) bool) (*S, awswire.Scope, bool) {
	held, ok := x.m.Load(id)
	if !ok {
		return nil, awswire.Scope{}, false
	}
	var first *S
	var firstScope awswire.Scope
	// The first holder, then the others, without building a list: this
	// is the data plane's path.
	for i := -1; i < len(held.more); i++ {
		h := held.first
		if i >= 0 {
			h = held.more[i]
		}
		if h.Entry == nil {
			continue
		}
		s := h.Entry.Snapshot()
		if s == nil {
			continue
		}
		if prefer != nil && prefer(h.Scope) {
			return s, h.Scope, true
		}
		if first == nil {
			first, firstScope = s, h.Scope
		}
	}
	return first, firstScope, first != nil
}

// Reset forgets every id.
func (x *IDs[S]) Reset() { x.m.Clear() }
