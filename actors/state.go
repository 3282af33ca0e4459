package actors

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/cloudemu/emulator/store"
)

// Record is one store change a mutation asks for. The owner encodes Value
// (as JSON) only when the store keeps what it is given.
type Record struct {
	Key          string
	Value        any
	Delete       bool
	DeletePrefix bool
}

// Put is a Record that writes v under key.
func Put(key string, v any) Record { return Record{Key: key, Value: v} }

// Del is a Record that removes key.
func Del(key string) Record { return Record{Key: key, Delete: true} }

// DelPrefix is a Record that removes every key under prefix.
func DelPrefix(prefix string) Record { return Record{Key: prefix, DeletePrefix: true} }

// Change is what a mutation decided: the state to publish, the records to
// persist first, the reply, and whether the owner ends (a delete).
type Change[S any] struct {
	Next    *S
	Records []Record
	Reply   any
	End     bool
	// After, when set, runs inside the owner once the records are durable
	// and the new state is published (after OnEnd for a delete), before
	// the reply leaves: it tells the owners that refer to this one what
	// changed (Tell), so that they react in their own mailboxes. It MUST
	// NOT block; what it sets in the Reply (a pointer) reaches the caller.
	After func()
}

// Mutation computes a Change from the owner's current state (nil before the
// owner's first change). It runs inside the owner, one at a time, so it may
// read cur freely; it MUST NOT modify cur or anything cur points to (readers
// share it), and MUST NOT block.
type Mutation[S any] func(cur *S) (Change[S], error)

// mutate is the command a StateOwner runs.
type mutate[S any] struct{ fn Mutation[S] }

// StateOwner owns one state S: it runs mutations one at a time, persists the
// records each asks for (durably, before replying), and publishes the new
// state to its entry. A Change with End retires the owner after OnEnd.
type StateOwner[S any] struct {
	store store.Store
	epoch uint64
	entry *Entry[S]
	done  bool
	// OnEnd runs inside the owner when a Change ends it (to give its ids
	// back in directories).
	OnEnd func(last *S)
}

// NewStateOwner returns an owner that persists into st, in st's current
// epoch. Spawn it, then give it its entry with Attach.
func NewStateOwner[S any](st store.Store) *StateOwner[S] {
	return &StateOwner[S]{store: st, epoch: st.Epoch()}
}

// Attach gives the owner the directory entry it publishes to.
func (o *StateOwner[S]) Attach(e *Entry[S]) { o.entry = e }

// Idle implements Idler: the owner is idle unless its state says
// otherwise (a state that implements Idler).
func (o *StateOwner[S]) Idle() bool {
	if i, ok := any(o.entry.Snapshot()).(Idler); ok {
		return i.Idle()
	}
	return true
}

// Finished implements Finisher.
func (o *StateOwner[S]) Finished() bool { return o.done }

// Handle implements Owner.
func (o *StateOwner[S]) Handle(cmd any) (any, error) {
	m, ok := cmd.(mutate[S])
	if !ok {
		return nil, fmt.Errorf("actors: state owner: unexpected command %T", cmd)
	}
	if o.done {
		return nil, ErrGone
	}
	cur := o.entry.Snapshot()
	ch, err := m.fn(cur)
	if err != nil {
		return nil, err
	}
	if err := o.persist(ch.Records); err != nil {
		return nil, err
	}
	if ch.End {
		o.entry.Publish(nil)
		o.done = true
		if o.OnEnd != nil {
			o.OnEnd(cur)
		}
	} else if ch.Next != nil {
		o.entry.Publish(ch.Next)
	}
	if ch.After != nil {
		ch.After()
	}
	return ch.Reply, nil
}

func (o *StateOwner[S]) persist(recs []Record) error {
	if !o.store.Durable() {
		// Nothing to write; the epoch check still stops an owner a reset
		// has orphaned.
		return o.store.Apply(o.epoch)
	}
	ops := make([]store.Op, 0, len(recs))
	for _, r := range recs {
		switch {
		case r.DeletePrefix:
			ops = append(ops, store.DelPrefix(r.Key))
		case r.Delete:
			ops = append(ops, store.Del(r.Key))
		default:
			v, err := json.Marshal(r.Value)
			if err != nil {
				return fmt.Errorf("actors: encode %s: %w", r.Key, err)
			}
			ops = append(ops, store.Put(r.Key, v))
		}
	}
	if err := o.store.Apply(o.epoch, ops...); err != nil {
		return fmt.Errorf("actors: persist: %w", err)
	}
	return nil
}

// Update runs fn in the owner at e and returns its reply.
func Update[S any](s *System, e *Entry[S], fn Mutation[S]) (any, error) {
	return askCell[any](s, &e.cell, mutate[S]{fn})
}

// Init runs fn, the first change of the new owner at e, in the caller
// rather than in an actor: a create then spawns none, and the owner's
// actor starts only with its first later command (then passivates when
// idle). The entry must be new (SpawnState without an initial state);
// senders that find it meanwhile wait for fn to end, so fn runs alone and
// before them, as in the owner. Should a sender have activated the entry
// first, fn runs through it as Update does. When fn fails, the entry
// ends (later commands get ErrGone), as its creator gives it up.
func Init[S any](s *System, e *Entry[S], fn Mutation[S]) (any, error) {
	c := &e.cell
	if !c.hold() {
		return Update(s, e, fn)
	}
	o := c.owner.(*StateOwner[S])
	v, err := initChange(s, o, fn)
	// A first change that failed created nothing: the owner never was.
	c.unhold(o.done || err != nil)
	return v, err
}

// initChange runs fn in o, turning a panic into ErrPanic as an owner's
// actor does.
func initChange[S any](s *System, o *StateOwner[S], fn Mutation[S]) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("owner panicked", "command", "init", "panic", r, "stack", string(debug.Stack()))
			v, err = nil, ErrPanic
		}
	}()
	return o.Handle(mutate[S]{fn})
}

// Tell queues fn in the owner at e without waiting for it: an owner uses
// it from a Change's After to make another owner react to what it changed.
// The caller MAY wait on the Pending (outside every owner), for a client
// to read its own write.
func Tell[S any](s *System, e *Entry[S], fn Mutation[S]) Pending {
	return s.tellCell(&e.cell, mutate[S]{fn})
}

// SpawnState returns the entry of a StateOwner in sys, not yet in any
// directory. A restored owner passes its state as initial. The owner's
// actor starts with the first command sent to it (Update, Tell), so a
// restored owner that is only read never runs one.
func SpawnState[S any](sys *System, kind string, o *StateOwner[S], initial *S) *Entry[S] {
	e := &Entry[S]{}
	e.cell.init(sys, kind, o)
	o.Attach(e)
	if initial != nil {
		e.Publish(initial)
	}
	return e
}

// IsGone reports whether err says the owner no longer exists.
func IsGone(err error) bool { return errors.Is(err, ErrGone) || errors.Is(err, store.ErrStale) }
