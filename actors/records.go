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

// CreateRecord spawns the owner of a new record st under id (named kind in
// logs), reserves id in dir (taken is the error when it is in use) and
// persists st under key before publishing it.
func CreateRecord[S any](r Records, kind, key string, dir *Directory[S], id string, st *S, taken func() error) (*S, error) {
	o := NewStateOwner[S](r.Store)
	e := SpawnState(r.Sys, kind, o, nil)
	if !dir.Reserve(id, e) {
		r.Sys.StopAsync(e.Ref())
		return nil, taken()
	}
	o.OnEnd = func(*S) { dir.Release(id, e) }
	v, err := Update(r.Sys, e, func(*S) (Change[S], error) {
		return Change[S]{Next: st, Records: []Record{Put(key, st)}, Reply: st}, nil
	})
	out, err := Result[*S](v, err, taken, r.Busy)
	if err != nil {
		dir.Release(id, e)
		r.Sys.StopAsync(e.Ref())
		return nil, err
	}
	return out, nil
}

// MutateRecord runs fn in the owner of id: fn returns the new state (nil to
// keep the current one), persisted under key, and the reply.
func MutateRecord[S, R any](r Records, key string, dir *Directory[S], id string, gone func() error,
	fn func(cur *S) (*S, R, error)) (R, error) {
	var zero R
	e, _, ok := dir.Entry(id)
	if !ok {
		return zero, gone()
	}
	v, err := Update(r.Sys, e, func(cur *S) (Change[S], error) {
		next, reply, err := fn(cur)
		if err != nil {
			return Change[S]{}, err
		}
		if next == nil {
			return Change[S]{Reply: reply}, nil
		}
		return Change[S]{Next: next, Records: []Record{Put(key, next)}, Reply: reply}, nil
	})
	return Result[R](v, err, gone, r.Busy)
}

// DeleteRecord deletes the record id (stored under key) and ends its owner;
// it returns the state it had.
func DeleteRecord[S any](r Records, key string, dir *Directory[S], id string, gone func() error) (*S, error) {
	e, _, ok := dir.Entry(id)
	if !ok {
		return nil, gone()
	}
	v, err := Update(r.Sys, e, func(cur *S) (Change[S], error) {
		return Change[S]{End: true, Records: []Record{Del(key)}, Reply: cur}, nil
	})
	return Result[*S](v, err, gone, r.Busy)
}

// RestoreRecord re-creates the owner of one persisted record and returns
// its state; prepare may complete it (memos) and names its id.
func RestoreRecord[S any](r Records, kind string, dir *Directory[S], value []byte, prepare func(*S) string) (*S, error) {
	st := new(S)
	if err := json.Unmarshal(value, st); err != nil {
		return nil, err
	}
	o := NewStateOwner[S](r.Store)
	e := SpawnState(r.Sys, kind, o, st)
	id := prepare(st)
	o.OnEnd = func(*S) { dir.Release(id, e) }
	if !dir.Reserve(id, e) {
		r.Sys.StopAsync(e.Ref())
		return nil, fmt.Errorf("actors: restore: duplicate %s %s", kind, id)
	}
	return st, nil
}
