package apigateway

import (
	"encoding/json"
	"fmt"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/httpfront/wire"
	"github.com/cloudemu/emulator/store"
)

// API keys, usage plans, domain names and VPC links are each one record,
// owned by a StateOwner[S]; these helpers create, change, delete and
// restore them.

func recordKey(sc actors.Scope, kind, id string) string {
	return store.Key(sc.Account, sc.Region, storeService, kind, id)
}

// createRecord spawns the owner of a new record st under id, reserves id in
// dir (taken reports a clash) and persists st before publishing it.
func createRecord[S any](s *Service, sc actors.Scope, kind string, dir *actors.Directory[S], id string, st *S,
	taken func() *wire.Error) (*S, error) {
	o := actors.NewStateOwner[S](s.store)
	e := actors.SpawnState(s.sys, "apigateway."+kind, o, nil)
	if !dir.Reserve(id, e) {
		s.sys.StopAsync(e.Ref())
		return nil, taken()
	}
	o.OnEnd = func(*S) { dir.Release(id, e) }
	key := recordKey(sc, kind, id)
	r, err := ask[*S](s, func() (any, error) {
		return actors.Update(s.sys, e, func(*S) (actors.Change[S], error) {
			return actors.Change[S]{Next: st, Records: []actors.Record{actors.Put(key, st)}, Reply: st}, nil
		})
	}, taken)
	if err != nil {
		dir.Release(id, e)
		s.sys.StopAsync(e.Ref())
		return nil, err
	}
	return r, nil
}

// mutateRecord runs fn in the owner of id: fn returns the new state (nil
// to keep the current one) and the reply.
func mutateRecord[S, R any](s *Service, sc actors.Scope, kind string, dir *actors.Directory[S], id string,
	gone func() *wire.Error, fn func(cur *S) (*S, R, error)) (R, error) {
	var zero R
	e, _, ok := dir.Entry(id)
	if !ok {
		return zero, gone()
	}
	key := recordKey(sc, kind, id)
	return ask[R](s, func() (any, error) {
		return actors.Update(s.sys, e, func(cur *S) (actors.Change[S], error) {
			next, reply, err := fn(cur)
			if err != nil {
				return actors.Change[S]{}, err
			}
			if next == nil {
				return actors.Change[S]{Reply: reply}, nil
			}
			return actors.Change[S]{Next: next, Records: []actors.Record{actors.Put(key, next)}, Reply: reply}, nil
		})
	}, gone)
}

// deleteRecord deletes the record id and ends its owner; it returns the
// state it had.
func deleteRecord[S any](s *Service, sc actors.Scope, kind string, dir *actors.Directory[S], id string,
	gone func() *wire.Error) (*S, error) {
	e, _, ok := dir.Entry(id)
	if !ok {
		return nil, gone()
	}
	key := recordKey(sc, kind, id)
	return ask[*S](s, func() (any, error) {
		return actors.Update(s.sys, e, func(cur *S) (actors.Change[S], error) {
			return actors.Change[S]{End: true, Records: []actors.Record{actors.Del(key)}, Reply: cur}, nil
		})
	}, gone)
}

// restoreRecord re-creates the owner of one persisted record.
func restoreRecord[S any](s *Service, kind string, dir *actors.Directory[S], value []byte,
	idOf func(*S) string, seqOf func(*S) uint64) error {
	st := new(S)
	if err := json.Unmarshal(value, st); err != nil {
		return err
	}
	o := actors.NewStateOwner[S](s.store)
	e := actors.SpawnState(s.sys, "apigateway."+kind, o, st)
	id := idOf(st)
	o.OnEnd = func(*S) { dir.Release(id, e) }
	if !dir.Reserve(id, e) {
		s.sys.StopAsync(e.Ref())
		return fmt.Errorf("duplicate %s %s", kind, id)
	}
	s.bumpSeq(seqOf(st))
	return nil
}

// restoreOther re-creates an API key, usage plan, domain name or VPC link.
func (s *Service) restoreOther(sc actors.Scope, kind string, value []byte) error {
	d := s.scopes.Get(sc)
	switch kind {
	case kindAPIKey:
		return restoreRecord(s, kind, d.keys, value,
			func(k *KeyState) string { k.Memo = new(actors.Memo); return k.Key.ID },
			func(k *KeyState) uint64 { return k.Seq })
	case kindPlan:
		return restoreRecord(s, kind, d.plans, value,
			func(p *PlanState) string { return p.Plan.ID }, func(p *PlanState) uint64 { return p.Seq })
	case kindDomain:
		return restoreRecord(s, kind, d.domains, value,
			func(dn *DomainState) string { return dn.Domain.DomainName }, func(dn *DomainState) uint64 { return dn.Seq })
	case kindLink:
		return restoreRecord(s, kind, d.links, value,
			func(l *LinkState) string { return l.Link.ID }, func(l *LinkState) uint64 { return l.Seq })
	}
	return fmt.Errorf("unknown kind %q", kind)
}
