package pmap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync/atomic"

	"github.com/benbjohnson/immutable"
)

type comparer struct{}

func (comparer) Compare(a, b string) int { return strings.Compare(a, b) }

// Map is an immutable sorted map. The zero value is an empty map, ready to
// use; a Map is a small value, copied freely.
type Map[V any] struct {
	m *immutable.SortedMap[string, V]
}

// New returns an empty map.
func New[V any]() Map[V] { return Map[V]{} }

// Of returns a map holding the entries of m.
func Of[V any](m map[string]V) Map[V] {
	if len(m) == 0 {
		return Map[V]{}
	}
	b := immutable.NewSortedMapBuilder[string, V](comparer{})
	for k, v := range m {
		b.Set(k, v)
	}
	return Map[V]{b.Map()}
}

// Len is the number of entries.
func (m Map[V]) Len() int {
	if m.m == nil {
		return 0
	}
	return m.m.Len()
}

// Get returns the value of k.
func (m Map[V]) Get(k string) (V, bool) {
	if m.m == nil {
		var zero V
		return zero, false
	}
	return m.m.Get(k)
}

// At returns the value of k, or the zero value when k is absent.
func (m Map[V]) At(k string) V {
	v, _ := m.Get(k)
	return v
}

// Has reports whether k is in the map.
func (m Map[V]) Has(k string) bool {
	_, ok := m.Get(k)
	return ok
}

// Set returns a map with k set to v.
func (m Map[V]) Set(k string, v V) Map[V] {
	if m.m == nil {
		return Map[V]{immutable.NewSortedMap[string, V](comparer{}).Set(k, v)}
	}
	return Map[V]{m.m.Set(k, v)}
}

// Delete returns a map without k.
func (m Map[V]) Delete(k string) Map[V] {
	if m.m == nil {
		return m
	}
	n := m.m.Delete(k)
	if n.Len() == 0 {
		return Map[V]{}
	}
	return Map[V]{n}
}

// All yields every entry in key order.
func (m Map[V]) All() iter.Seq2[string, V] { return m.From("") }

// From yields the entries whose keys are >= k, in key order.
func (m Map[V]) From(k string) iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m.m == nil {
			return
		}
		it := m.m.Iterator()
		if k != "" {
			it.Seek(k)
		}
		for !it.Done() {
			key, v, _ := it.Next()
			if !yield(key, v) {
				return
			}
		}
	}
}

// AppendKeysWithPrefix appends the keys that start with p, in order, to
// dst: Prefix without a closure, for callers that reuse dst.
func (m Map[V]) AppendKeysWithPrefix(dst []string, p string) []string {
	if m.m == nil {
		return dst
	}
	it := m.m.Iterator()
	it.Seek(p)
	for !it.Done() {
		key, _, _ := it.Next()
		if !strings.HasPrefix(key, p) {
			break
		}
		dst = append(dst, key)
	}
	return dst
}

// Prefix yields the entries whose keys start with p, in key order.
func (m Map[V]) Prefix(p string) iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		for k, v := range m.From(p) {
			if !strings.HasPrefix(k, p) || !yield(k, v) {
				return
			}
		}
	}
}

// Keys yields every key in order.
func (m Map[V]) Keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range m.All() {
			if !yield(k) {
				return
			}
		}
	}
}

// Values yields every value in key order.
func (m Map[V]) Values() iter.Seq[V] {
	return func(yield func(V) bool) {
		for _, v := range m.All() {
			if !yield(v) {
				return
			}
		}
	}
}

// Map returns the entries as a Go map, for callers that need one.
func (m Map[V]) Map() map[string]V {
	out := make(map[string]V, m.Len())
	for k, v := range m.All() {
		out[k] = v
	}
	return out
}

// MarshalJSON encodes the map as a JSON object, keys in order.
func (m Map[V]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for k, v := range m.All() {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("pmap: encode %q: %w", k, err)
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON decodes a JSON object (or null, an empty map).
func (m *Map[V]) UnmarshalJSON(data []byte) error {
	var raw map[string]V
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = Of(raw)
	return nil
}

// Shared is a Map that several goroutines read and update without locks:
// readers load the current map, writers replace it with compare-and-swap.
// The zero value is an empty map.
type Shared[V any] struct {
	p atomic.Pointer[immutable.SortedMap[string, V]]
}

// Load returns the current map.
func (s *Shared[V]) Load() Map[V] { return Map[V]{s.p.Load()} }

// Update replaces the map with what fn makes of it. fn may run more than
// once when writers race, so it MUST only compute.
func (s *Shared[V]) Update(fn func(Map[V]) Map[V]) {
	for {
		old := s.p.Load()
		next := fn(Map[V]{old})
		if s.p.CompareAndSwap(old, next.m) {
			return
		}
	}
}

// Set sets k to v.
func (s *Shared[V]) Set(k string, v V) {
	s.Update(func(m Map[V]) Map[V] { return m.Set(k, v) })
}

// Delete removes k.
func (s *Shared[V]) Delete(k string) {
	s.Update(func(m Map[V]) Map[V] { return m.Delete(k) })
}

// Reset empties the map.
func (s *Shared[V]) Reset() { s.p.Store(nil) }
