package actors

import (
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// replySlot is where an owner's answer to one Ask lands: a process
// registered once and reused, so that an Ask costs no registration, no
// removal and no timer of its own, where protoactor's RequestFuture
// registers a future process and arms a timer per request. The dead
// letter answers a command to an owner that has gone to its sender, the
// slot, so ErrGone stays immediate.
type replySlot struct {
	pid *actor.PID
	ch  chan any // one answer at a time
}

// SendUserMessage implements actor.Process: the answer (a response, or the
// dead letter's) goes to the waiting Ask. A slot is only reused after its
// answer was taken, so the send never blocks; a second message (none is
// expected) is dropped rather than wait.
func (r *replySlot) SendUserMessage(_ *actor.PID, m any) {
	select {
	case r.ch <- m:
	default:
	}
}

// SendSystemMessage implements actor.Process.
func (r *replySlot) SendSystemMessage(*actor.PID, any) {}

// Stop implements actor.Process.
func (r *replySlot) Stop(*actor.PID) {}

// maxIdleSlots bounds the slots kept for reuse: about the Asks in flight
// at once. A slot beyond it is unregistered.
const maxIdleSlots = 4096

// replySlots is the free list of slots. It is a channel, not a sync.Pool,
// because a slot is registered: the pool would drop it without a chance
// to unregister it.
type replySlots struct {
	free chan *replySlot
}

func newReplySlots() replySlots { return replySlots{free: make(chan *replySlot, maxIdleSlots)} }

func (s *System) slot() *replySlot {
	select {
	case r := <-s.slots.free:
		return r
	default:
	}
	r := &replySlot{ch: make(chan any, 1)}
	reg := s.sys.ProcessRegistry
	r.pid, _ = reg.Add(r, "reply"+reg.NextID())
	return r
}

// release returns a slot whose answer was taken.
func (s *System) release(r *replySlot) {
	select {
	case s.slots.free <- r:
	default:
		s.sys.ProcessRegistry.Remove(r.pid)
	}
}

// discard unregisters a slot whose Ask timed out: its answer may still
// come, and must not reach a later Ask.
func (s *System) discard(r *replySlot) { s.sys.ProcessRegistry.Remove(r.pid) }

// askTimers are reused: a timer armed per Ask and stopped on the answer
// would be a new runtime timer each time.
var askTimers = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}

// ask posts req to pid and waits at most the Ask timeout for the answer:
// the response, ErrGone when the owner had gone (the dead letter
// answered), ErrNoAnswer when none came in time.
func (s *System) ask(pid *actor.PID, req request) (response, error) {
	if pid == nil {
		return response{}, ErrGone
	}
	r := s.slot()
	s.root.RequestWithCustomSender(pid, req, r.pid)
	t := askTimers.Get().(*time.Timer)
	t.Reset(s.timeout)
	select {
	case m := <-r.ch:
		t.Stop()
		askTimers.Put(t)
		s.release(r)
		switch m := m.(type) {
		case response:
			return m, nil
		case *actor.DeadLetterResponse:
			return response{}, ErrGone
		default:
			return response{}, unexpectedReply(m)
		}
	case <-t.C:
		askTimers.Put(t)
		s.discard(r)
		return response{}, ErrNoAnswer
	}
}
