package actors

import "sync/atomic"

// Lazy holds one value derived from an immutable snapshot (the data plane's
// compiled form of a deployment), computed by whoever reads it first, so
// that the owner never has to know what is derived from its state. Readers
// racing on the first read may both compute; one result wins and every
// reader gets it.
type Lazy struct{ p atomic.Pointer[any] }

// Get returns the value, computing it with build on the first call.
func (l *Lazy) Get(build func() any) any {
	if p := l.p.Load(); p != nil {
		return *p
	}
	v := build()
	if l.p.CompareAndSwap(nil, &v) {
		return v
	}
	return *l.p.Load()
}
