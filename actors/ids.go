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
	m *xsync.MapOf[string, []Held[S]]
}

// Held is one owner holding an id, and where it lives.
type Held[S any] struct {
	Scope awswire.Scope
	Entry *Entry[S]
}

// NewIDs returns an empty index.
func NewIDs[S any]() *IDs[S] { return &IDs[S]{m: xsync.NewMapOf[string, []Held[S]]()} }

// Add records that e, in sc, holds id.
func (x *IDs[S]) Add(id string, sc awswire.Scope, e *Entry[S]) {
	x.m.Compute(id, func(cur []Held[S], _ bool) ([]Held[S], bool) {
		return append(slices.Clip(cur), Held[S]{sc, e}), false
	})
}

// Remove forgets that e holds id.
func (x *IDs[S]) Remove(id string, e *Entry[S]) {
	x.m.Compute(id, func(cur []Held[S], loaded bool) ([]Held[S], bool) {
		next := slices.DeleteFunc(slices.Clone(cur), func(h Held[S]) bool { return h.Entry == e })
		return next, len(next) == 0
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
	for _, h := range held {
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
