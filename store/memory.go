package store

import "sync/atomic"

// closedBit marks a closed memory store inside its epoch word, so Apply
// needs a single atomic load to check both.
const closedBit = uint64(1) << 63

// memoryStore is the EMULATOR_STATE=memory store: the actors hold the state,
// so it only tracks the epoch.
type memoryStore struct {
	state atomic.Uint64 // epoch | closedBit
}

// NewMemory returns a Store that keeps nothing. It is safe for concurrent use.
func NewMemory() Store { return &memoryStore{} }

// Apply implements Store. It is on every write path: one atomic load, no
// allocation.
func (m *memoryStore) Apply(epoch uint64, _ ...Op) error {
	s := m.state.Load()
	if s&closedBit != 0 {
		return ErrClosed
	}
	if s != epoch {
		return ErrStale
	}
	return nil
}

// Epoch implements Store.
func (m *memoryStore) Epoch() uint64 { return m.state.Load() &^ closedBit }

// Load implements Store: there is nothing to load.
func (m *memoryStore) Load(func(string, []byte) error) error {
	if m.state.Load()&closedBit != 0 {
		return ErrClosed
	}
	return nil
}

// Wipe implements Store: it starts a new epoch.
func (m *memoryStore) Wipe() error {
	for {
		s := m.state.Load()
		if s&closedBit != 0 {
			return ErrClosed
		}
		if m.state.CompareAndSwap(s, s+1) {
			return nil
		}
	}
}

// Close implements Store. A second Close returns ErrClosed.
func (m *memoryStore) Close() error {
	if m.state.Or(closedBit)&closedBit != 0 {
		return ErrClosed
	}
	return nil
}

// Backend implements Store.
func (m *memoryStore) Backend() string { return "memory" }

// Durable implements Store: the memory store keeps nothing.
func (m *memoryStore) Durable() bool { return false }
