package actors

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cloudemu/emulator/store"
)

// Records creates, changes, deletes and restores single-record owners: a
// resource whose whole state S is one persisted record, owned by a
// StateOwner[S] and listed in a Directory[S] by id.
type Records struct {
	Sys   *System
	Store store.Store
	// Busy is the service's error for an owner that did not answer in
	// time.
	Busy func() error
}

// Result converts what an Update returned into R, mapping the actor errors:
// an owner gone is the resource gone, an owner too slow is the service busy.
func Result[R any](v any, err error, gone func() error, busy func() error) (R, error) {
	var zero R
	switch {
	case err == nil:
		if v == nil {
			return zero, nil
		}
		r, ok := v.(R)
		if !ok {
			return zero, fmt.Errorf("actors: reply is %T, want %T", v, zero)
		}
		return r, nil
	case IsGone(err):
		return zero, gone()
	case errors.Is(err, ErrNoAnswer):
		return zero, busy()
	}
	return zero, err
}

// NewRecord describes a single-record owner to create.
type NewRecord[S any] struct {
	// Kind names the owner in logs; Key is where the record is persisted.
	Kind, Key string
	Dir       *Directory[S]
	// ID is the record's id in Dir; Order its key in Dir's order ("" for
	// id order).
	ID, Order string
	// Taken is the error when ID is in use.
	Taken func() error
	// Build returns the record, inside its new owner: checks of other
	// owners that decide whether it may exist belong here (a failure
	// creates nothing).
	Build func() (*S, error)
	// After, when set, runs in the owner once the record is durable and
	// published.
	After func(st *S)
}

// Create spawns the owner of a new record, reserves its id and persists
// the record Build returns before publishing it.
func Create[S any](r Records, n NewRecord[S]) (*S, error) {
	o := NewStateOwner[S](r.Store)
	e := SpawnState(r.Sys, n.Kind, o, nil)
	order := n.Order
	if order == "" {
		order = n.ID
	}
	if !n.Dir.ReserveAt(n.ID, order, e) {
		r.Sys.StopAsync(e.Ref())
		return nil, n.Taken()
	}
	dir, id := n.Dir, n.ID
	o.OnEnd = func(*S) { dir.Release(id, e) }
	v, err := Init(r.Sys, e, func(*S) (Change[S], error) {
		st, err := n.Build()
		if err != nil {
			return Change[S]{}, err
		}
		ch := Change[S]{Next: st, Records: []Record{Put(n.Key, st)}, Reply: st}
		if n.After != nil {
			ch.After = func() { n.After(st) }
		}
		return ch, nil
	})
	out, err := Result[*S](v, err, n.Taken, r.Busy)
	if err != nil {
		dir.Release(id, e)
		r.Sys.StopAsync(e.Ref())
		return nil, err
	}
	return out, nil
}

// CreateRecord spawns the owner of a new record st under id (named kind in
// logs), reserves id in dir (taken is the error when it is in use) and
// persists st under key before publishing it.
func CreateRecord[S any](r Records, kind, key string, dir *Directory[S], id string, st *S, taken func() error) (*S, error) {
	return Create(r, NewRecord[S]{Kind: kind, Key: key, Dir: dir, ID: id, Taken: taken,
		Build: func() (*S, error) { return st, nil }})
}

// Edit is what a change of a single record decided: the new state (nil to
// keep the current one), the reply, and what to run once it is durable.
type Edit[S, R any] struct {
	Next  *S
	Reply R
	// After runs in the owner once Next is durable and published (see
	// Change.After).
	After func()
}

// EditRecord runs fn in the owner of id; the state fn returns is persisted
// under key.
func EditRecord[S, R any](r Records, key string, dir *Directory[S], id string, gone func() error,
	fn func(cur *S) (Edit[S, R], error)) (R, error) {
	var zero R
	e, _, ok := dir.Entry(id)
	if !ok {
		return zero, gone()
	}
	v, err := Update(r.Sys, e, func(cur *S) (Change[S], error) {
		ed, err := fn(cur)
		if err != nil {
			return Change[S]{}, err
		}
		ch := Change[S]{Reply: ed.Reply, After: ed.After}
		if ed.Next != nil {
			ch.Next, ch.Records = ed.Next, []Record{Put(key, ed.Next)}
		}
		return ch, nil
	})
	return Result[R](v, err, gone, r.Busy)
}

// MutateRecord runs fn in the owner of id: fn returns the new state (nil to
// keep the current one), persisted under key, and the reply.
func MutateRecord[S, R any](r Records, key string, dir *Directory[S], id string, gone func() error,
	fn func(cur *S) (*S, R, error)) (R, error) {
	return EditRecord(r, key, dir, id, gone, func(cur *S) (Edit[S, R], error) {
		next, reply, err := fn(cur)
		return Edit[S, R]{Next: next, Reply: reply}, err
	})
}

// EditFunc is a mutation of a single record, for Tell: the state it
// returns (nil to keep the current one) is persisted under key.
func EditFunc[S any](key string, fn func(cur *S) (next *S, after func())) Mutation[S] {
	return func(cur *S) (Change[S], error) {
		if cur == nil {
			return Change[S]{}, nil
		}
		next, after := fn(cur)
		if next == nil {
			return Change[S]{After: after}, nil
		}
		return Change[S]{Next: next, Records: []Record{Put(key, next)}, After: after}, nil
	}
}

// DeleteRecord deletes the record id (stored under key) and ends its owner;
// it returns the state it had.
func DeleteRecord[S any](r Records, key string, dir *Directory[S], id string, gone func() error) (*S, error) {
	last, _, err := EndRecord(r, key, dir, id, gone, nil)
	return last, err
}

// EndRecord deletes the record id like DeleteRecord; then, inside the owner
// once the delete is durable, after tells the owners that referred to it
// (Tell) and returns what they were told, which EndRecord returns for the
// caller to wait on.
func EndRecord[S any](r Records, key string, dir *Directory[S], id string, gone func() error,
	after func(last *S) []Pending) (*S, []Pending, error) {
	e, _, ok := dir.Entry(id)
	if !ok {
		return nil, nil, gone()
	}
	type ended struct {
		last    *S
		pending []Pending
	}
	v, err := Update(r.Sys, e, func(cur *S) (Change[S], error) {
		out := &ended{last: cur}
		ch := Change[S]{End: true, Records: []Record{Del(key)}, Reply: out}
		if after != nil {
			ch.After = func() { out.pending = after(cur) }
		}
		return ch, nil
	})
	out, err := Result[*ended](v, err, gone, r.Busy)
	if err != nil {
		return nil, nil, err
	}
	return out.last, out.pending, nil
}

// RestoreRecord re-creates the owner of one persisted record and returns
// its state; prepare may complete it (memos) and names its id.
func RestoreRecord[S any](r Records, kind string, dir *Directory[S], value []byte, prepare func(*S) string) (*S, error) {
	return Restore(r, kind, dir, value, func(st *S) (string, string) { return prepare(st), "" })
}

// Restore re-creates the owner of one persisted record and returns its
// state; prepare may complete it (memos) and names its id and its order
// key ("" for id order).
func Restore[S any](r Records, kind string, dir *Directory[S], value []byte, prepare func(*S) (id, order string)) (*S, error) {
	st := new(S)
	if err := json.Unmarshal(value, st); err != nil {
		return nil, err
	}
	o := NewStateOwner[S](r.Store)
	e := SpawnState(r.Sys, kind, o, st)
	id, order := prepare(st)
	if order == "" {
		order = id
	}
	o.OnEnd = func(*S) { dir.Release(id, e) }
	if !dir.ReserveAt(id, order, e) {
		r.Sys.StopAsync(e.Ref())
		return nil, fmt.Errorf("actors: restore: duplicate %s %s", kind, id)
	}
	return st, nil
}
