package actors

import (
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/asynkron/protoactor-go/actor"
)

// stopWindow bounds how many owners a Stop retires or ends at once. Each
// message schedules the owner's mailbox; a burst of them beyond the
// dispatcher's workers would start a goroutine per owner, and the runtime
// keeps every goroutine's descriptor for good.
const stopWindow = 256

// compactAfter is how many owners must have ended since the last
// compaction before Compact rebuilds the process registry's maps.
const compactAfter = 1024

// stops tracks the batches Stop has retired and that are still lingering,
// and how many owners ended since the last compaction.
type stops struct {
	mu      sync.Mutex
	pending map[chan struct{}]struct{} // closed when the batch has ended
	ended   atomic.Int64
}

// stopMsg ends a retired owner, which answers once it has ended.
type stopMsg struct{}

// barrier is a process that counts the answers to a window of messages
// (an owner's reply, or the dead letter's for an owner already gone), so
// that one registration stands for the whole window instead of a future
// per owner.
type barrier struct {
	left atomic.Int64
	done chan struct{}
}

func (b *barrier) SendUserMessage(*actor.PID, any) {
	if b.left.Add(-1) == 0 {
		close(b.done)
	}
}
func (b *barrier) SendSystemMessage(*actor.PID, any) {}
func (b *barrier) Stop(*actor.PID)                   {}

// answered sends msg to every pid, answers going to one barrier, and
// reports whether all answered within the Ask timeout.
func (s *System) answered(pids []*actor.PID, msg any) bool {
	if len(pids) == 0 {
		return true
	}
	b := &barrier{done: make(chan struct{})}
	b.left.Store(int64(len(pids)))
	reg := s.sys.ProcessRegistry
	self, _ := reg.Add(b, reg.NextID())
	defer reg.Remove(self)
	for _, p := range pids {
		s.root.RequestWithCustomSender(p, msg, self)
	}
	t := time.NewTimer(s.timeout)
	defer t.Stop()
	select {
	case <-b.done:
		return true
	case <-t.C:
		return false
	}
}

// endAfterLinger ends the retired owners at pids after the linger, a
// window at a time, in the lingering queue with the other retirements.
func (s *System) endAfterLinger(pids []*actor.PID) {
	if len(pids) == 0 {
		return
	}
	done := make(chan struct{})
	s.stops.mu.Lock()
	if s.stops.pending == nil {
		s.stops.pending = map[chan struct{}]struct{}{}
	}
	s.stops.pending[done] = struct{}{}
	s.stops.mu.Unlock()
	s.lingering.add(func() {
		go func() { // a batch waits for answers; the queue does not
			for w := range slices.Chunk(pids, stopWindow) {
				s.answered(w, stopMsg{})
			}
			s.stops.ended.Add(int64(len(pids)))
			s.stops.mu.Lock()
			delete(s.stops.pending, done)
			s.stops.mu.Unlock()
			close(done)
		}()
	})
}

// lingering holds retired owners until their linger ends, then ends
// them: the owners retired one at a time (a delete) and the batches a
// reset retires, with one goroutine and one timer for all, in retirement
// order, since every linger is as long. A timer per owner would leave Go's
// per-P timer heaps, which never shrink, sized for the largest burst of
// deletes.
type lingering struct {
	mu      sync.Mutex
	queue   []lingeringEnd // by deadline
	running bool
}

type lingeringEnd struct {
	end func() // MUST NOT block
	at  time.Time
}

// add runs end once the linger has passed.
func (l *lingering) add(end func()) {
	l.mu.Lock()
	l.queue = append(l.queue, lingeringEnd{end, time.Now().Add(linger)})
	start := !l.running
	l.running = true
	l.mu.Unlock()
	if start {
		go l.run()
	}
}

// run ends the owners whose linger has passed, waiting for the next,
// until none is left.
func (l *lingering) run() {
	for {
		l.mu.Lock()
		if len(l.queue) == 0 {
			l.queue, l.running = nil, false
			l.mu.Unlock()
			return
		}
		now := time.Now()
		n, _ := slices.BinarySearchFunc(l.queue, now, func(o lingeringEnd, t time.Time) int { return o.at.Compare(t) })
		if n == 0 {
			wait := l.queue[0].at.Sub(now)
			l.mu.Unlock()
			time.Sleep(wait)
			continue
		}
		due := slices.Clone(l.queue[:n])
		l.queue = slices.Delete(l.queue, 0, n)
		l.mu.Unlock()
		for _, o := range due {
			o.end()
		}
	}
}

// AfterStops calls f, on a goroutine of its own, once every owner that
// Stop has retired so far has ended (after the linger).
func (s *System) AfterStops(f func()) {
	s.stops.mu.Lock()
	waits := make([]chan struct{}, 0, len(s.stops.pending))
	for c := range s.stops.pending {
		waits = append(waits, c)
	}
	s.stops.mu.Unlock()
	go func() {
		for _, c := range waits {
			<-c
		}
		f()
	}()
}

// Compact gives back what the actor system keeps of owners that ended,
// once at least compactAfter of them have: protoactor's process registry
// is 32,768 Go maps, and a Go map keeps its grown storage when its
// entries are deleted. It reports whether it compacted.
func (s *System) Compact() bool {
	if s.stops.ended.Load() < compactAfter {
		return false
	}
	s.stops.ended.Store(0)
	return compactRegistry(s.sys.ProcessRegistry)
}

// shardItems is the offset of the map inside one shard of protoactor's
// registry (concurrent-map's ConcurrentMapShared.items, unexported), or
// ok false if the dependency changed shape, in which case compaction is
// skipped.
var shardItems = sync.OnceValues(func() (uintptr, bool) {
	var sm actor.SliceMap
	t := reflect.TypeOf(sm.LocalPIDs).Elem() // cmap.ConcurrentMap, a slice of shard pointers
	if t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Pointer {
		return 0, false
	}
	f, found := t.Elem().Elem().FieldByName("items")
	if !found || f.Type != reflect.TypeFor[map[string]any]() {
		return 0, false
	}
	return f.Offset, true
})

// compactRegistry replaces every shard's map by a copy sized for what it
// holds now, under the shard's own lock, so that no lookup sees it change.
func compactRegistry(reg *actor.ProcessRegistryValue) bool {
	off, ok := shardItems()
	if !ok {
		return false
	}
	for _, cm := range reg.LocalPIDs.LocalPIDs {
		for _, shard := range cm {
			shard.Lock()
			items := (*map[string]any)(unsafe.Add(unsafe.Pointer(shard), off))
			fresh := make(map[string]any, len(*items))
			for k, v := range *items {
				fresh[k] = v
			}
			*items = fresh
			shard.Unlock()
		}
	}
	return true
}
