package actors

import "github.com/cloudemu/emulator/pmap"

// Collection is one collection of an owner's state S, kept in a persistent
// map: where it is in S, the store key segment of its records, an entry's
// id, what is persisted for an entry (the entry itself when Record is
// nil), and a hook on every change (old or new is the zero value when there
// is none), for indexes derived from the collection.
type Collection[S, V any] struct {
	Kind    string
	Of      func(*S) *pmap.Map[V]
	ID      func(V) string
	Record  func(V) any
	Changed func(s *S, old, new V)
}

// Put adds or replaces v in s and returns the record that persists it;
// key names a record by kind and id.
func (c Collection[S, V]) Put(s *S, v V, key func(kind, id string) string) Record {
	m := c.Of(s)
	id := c.ID(v)
	if c.Changed != nil {
		old, _ := m.Get(id)
		c.Changed(s, old, v)
	}
	*m = m.Set(id, v)
	var rec any = v
	if c.Record != nil {
		rec = c.Record(v)
	}
	return Put(key(c.Kind, id), rec)
}

// Delete removes id from s and returns the record that persists it.
func (c Collection[S, V]) Delete(s *S, id string, key func(kind, id string) string) Record {
	m := c.Of(s)
	if c.Changed != nil {
		var none V
		old, _ := m.Get(id)
		c.Changed(s, old, none)
	}
	*m = m.Delete(id)
	return Del(key(c.Kind, id))
}
