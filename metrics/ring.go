package metrics

// ringChunk is how many slots a ring allocates at a time: a series that
// records now and then holds a few chunks, not its whole retention.
const ringChunk = 64

// ring keeps one slot per step of res seconds for size steps, the oldest
// overwritten first. It is not safe for concurrent use: its owner locks.
type ring[T any] struct {
	res    int64
	size   int64
	chunks []*[ringChunk]entry[T]
}

type entry[T any] struct {
	start1 int64 // 1 + the unix second the slot begins at; 0: never used
	v      T
}

func newRing[T any](res, size int64) ring[T] {
	if size < 1 {
		size = 1
	}
	return ring[T]{res: res, size: size, chunks: make([]*[ringChunk]entry[T], (size+ringChunk-1)/ringChunk)}
}

func (r *ring[T]) index(start int64) (int64, int64) {
	i := start / r.res % r.size
	if i < 0 {
		i += r.size
	}
	return i / ringChunk, i % ringChunk
}

// get returns the slot of start (a multiple of res), or nil when it holds
// no data for it.
func (r *ring[T]) get(start int64) *T {
	c, i := r.index(start)
	ch := r.chunks[c]
	if ch == nil {
		return nil
	}
	e := &ch[i]
	if e.start1 != start+1 {
		return nil
	}
	return &e.v
}

// put returns the slot of start, emptied if it held an older step; nil when
// it holds a newer step (start is past retention).
func (r *ring[T]) put(start int64) *T {
	c, i := r.index(start)
	ch := r.chunks[c]
	if ch == nil {
		ch = new([ringChunk]entry[T])
		r.chunks[c] = ch
	}
	e := &ch[i]
	if e.start1 == start+1 {
		return &e.v
	}
	if e.start1 > start+1 {
		return nil
	}
	*e = entry[T]{start1: start + 1}
	return &e.v
}
