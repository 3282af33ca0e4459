package store

import (
	"errors"
	"strings"
)

// ErrStale is returned by Apply when the write belongs to an epoch that a
// Wipe has ended: the owner that issued it no longer exists.
var ErrStale = errors.New("store: write from a wiped epoch")

// ErrUnavailable is wrapped by Apply and Wipe when the data directory
// refused the commit (full, read-only, failing): nothing the call asked for
// was written, and a later call may succeed once the disk recovers. The
// front answers it as the service's ServiceUnavailable-style 5xx.
var ErrUnavailable = errors.New("store: data directory unavailable")

// ErrClosed is returned by every method after Close.
var ErrClosed = errors.New("store: closed")

// Op is one change to one record, or to every record under a prefix.
type Op struct {
	// Key is the record key (see Key). With DeletePrefix it is the prefix.
	Key string
	// Value is the record's new bytes. The store copies nothing: the caller
	// MUST NOT modify Value after handing it to Apply.
	Value []byte
	// Delete removes Key.
	Delete bool
	// DeletePrefix removes every key that starts with Key.
	DeletePrefix bool
}

// Put returns an Op that writes value under key.
func Put(key string, value []byte) Op { return Op{Key: key, Value: value} }

// Del returns an Op that removes key.
func Del(key string) Op { return Op{Key: key, Delete: true} }

// DelPrefix returns an Op that removes every key under prefix.
func DelPrefix(prefix string) Op { return Op{Key: prefix, DeletePrefix: true} }

// Store is the durable record store behind EMULATOR_STATE.
//
// Apply MUST make all of ops durable atomically (all or none) before it
// returns nil; concurrent Apply calls MAY be committed together. Apply MUST
// return ErrStale, writing nothing, when epoch is not the current Epoch.
// Load MUST call fn for every record in key order. Wipe MUST remove every
// record and start a new epoch, ordered with respect to Apply calls.
type Store interface {
	Apply(epoch uint64, ops ...Op) error
	Epoch() uint64
	Load(fn func(key string, value []byte) error) error
	Wipe() error
	Close() error
	// Backend names the implementation for the health endpoint.
	Backend() string
	// Durable reports whether Apply keeps what it is given. When it does
	// not, owners skip encoding their records and Apply only checks the
	// epoch.
	Durable() bool
}

// Key builds a versioned, scoped record key:
// v1/<account>/<region>/<service>/<kind>/<id>[/<sub>...].
func Key(account, region, service, kind, id string, sub ...string) string {
	var b strings.Builder
	n := 3 + len(account) + len(region) + len(service) + len(kind) + len(id) + 5
	for _, s := range sub {
		n += len(s) + 1
	}
	b.Grow(n)
	b.WriteString("v1/")
	b.WriteString(account)
	b.WriteByte('/')
	b.WriteString(region)
	b.WriteByte('/')
	b.WriteString(service)
	b.WriteByte('/')
	b.WriteString(kind)
	b.WriteByte('/')
	b.WriteString(id)
	for _, s := range sub {
		b.WriteByte('/')
		b.WriteString(s)
	}
	return b.String()
}

// ParseKey splits a key built by Key. ok is false for any other shape.
func ParseKey(key string) (account, region, service, kind, id string, sub []string, ok bool) {
	parts := strings.Split(key, "/")
	if len(parts) < 6 || parts[0] != "v1" {
		return "", "", "", "", "", nil, false
	}
	return parts[1], parts[2], parts[3], parts[4], parts[5], parts[6:], true
}
