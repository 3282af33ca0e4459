package vtl

// Value is what a template computes with. It is one of:
//
//	nil      undefined or null
//	string   java.lang.String
//	bool     java.lang.Boolean
//	int64    java.lang.Integer / Long
//	float64  java.lang.Double
//	*List    java.util.List
//	*Map     java.util.LinkedHashMap (insertion-ordered, string keys)
//	Object   a host object such as $input or $util
type Value = any

// List is a Java list. JSON marks a list that came from JSON
// ($util.parseJson, $input.path): API Gateway hands those out as JSON
// arrays, which render as compact JSON rather than Java's "[a, b]".
type List struct {
	Items []Value
	JSON  bool
}

// Object is a host value with Java-like properties and methods.
type Object interface {
	// Property answers $obj.name (and $obj.getName()); ok is false when the
	// object has no such property, which renders as undefined.
	Property(name string) (v Value, ok bool)
	// Call answers $obj.name(args...); ok is false when the object has no
	// such method. An error aborts the render.
	Call(name string, args []Value) (v Value, ok bool, err error)
}

// mapIndexAt is the size from which a Map keeps an index beside its
// ordered entries; below it a linear scan is cheaper than hashing.
const mapIndexAt = 16

type mapEntry struct {
	key string
	val Value
}

// Map is an insertion-ordered map with string keys, as Java's
// LinkedHashMap: re-putting a key keeps its place. JSON marks a map that
// came from JSON (see List).
type Map struct {
	entries []mapEntry
	index   map[string]int
	JSON    bool
}

// NewMap returns an empty map with room for n entries.
func NewMap(n int) *Map { return &Map{entries: make([]mapEntry, 0, n)} }

func (m *Map) find(k string) int {
	if m.index != nil {
		if i, ok := m.index[k]; ok {
			return i
		}
		return -1
	}
	for i := range m.entries {
		if m.entries[i].key == k {
			return i
		}
	}
	return -1
}

// Len is the number of entries.
func (m *Map) Len() int { return len(m.entries) }

// Get returns the value under k.
func (m *Map) Get(k string) (Value, bool) {
	if i := m.find(k); i >= 0 {
		return m.entries[i].val, true
	}
	return nil, false
}

// Put sets k to v and returns the value it replaced (nil if none).
func (m *Map) Put(k string, v Value) Value {
	if i := m.find(k); i >= 0 {
		prev := m.entries[i].val
		m.entries[i].val = v
		return prev
	}
	m.entries = append(m.entries, mapEntry{k, v})
	switch {
	case m.index != nil:
		m.index[k] = len(m.entries) - 1
	case len(m.entries) >= mapIndexAt:
		m.index = make(map[string]int, len(m.entries)*2)
		for i, e := range m.entries {
			m.index[e.key] = i
		}
	}
	return nil
}

// Remove deletes k and returns its value (nil if absent).
func (m *Map) Remove(k string) Value {
	i := m.find(k)
	if i < 0 {
		return nil
	}
	prev := m.entries[i].val
	m.entries = append(m.entries[:i], m.entries[i+1:]...)
	if m.index != nil {
		delete(m.index, k)
		for j := i; j < len(m.entries); j++ {
			m.index[m.entries[j].key] = j
		}
	}
	return prev
}

// Range calls f for each entry in order until f returns false.
func (m *Map) Range(f func(k string, v Value) bool) {
	for _, e := range m.entries {
		if !f(e.key, e.val) {
			return
		}
	}
}

// Keys returns the keys in order.
func (m *Map) Keys() []string {
	ks := make([]string, len(m.entries))
	for i, e := range m.entries {
		ks[i] = e.key
	}
	return ks
}
