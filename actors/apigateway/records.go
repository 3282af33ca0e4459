package apigateway

import (
	"fmt"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/store"
)

// API keys, usage plans, domain names and VPC links are each one record,
// owned by a StateOwner[S]; these helpers create, change, delete and
// restore them.

func recordKey(sc awswire.Scope, kind, id string) string {
	return store.Key(sc.Account, sc.Region, storeService, kind, id)
}

func (s *Service) records() actors.Records {
	return actors.Records{Sys: s.sys, Store: s.store, Busy: func() error { return awswire.Unavailable(awswire.APIGateway) }}
}

func errFn(f func() *awswire.Error) func() error { return func() error { return f() } }

// createRecord spawns the owner of a new record st under id, reserves id in
// dir (taken reports a clash) and persists st before publishing it.
func createRecord[S any](s *Service, sc awswire.Scope, kind string, dir *actors.Directory[S], id string, st *S,
	taken func() *awswire.Error) (*S, error) {
	return actors.CreateRecord(s.records(), "apigateway."+kind, recordKey(sc, kind, id), dir, id, st, errFn(taken))
}

// mutateRecord runs fn in the owner of id: fn returns the new state (nil
// to keep the current one) and the reply.
func mutateRecord[S, R any](s *Service, sc awswire.Scope, kind string, dir *actors.Directory[S], id string,
	gone func() *awswire.Error, fn func(cur *S) (*S, R, error)) (R, error) {
	return actors.MutateRecord(s.records(), recordKey(sc, kind, id), dir, id, errFn(gone), fn)
}

// deleteRecord deletes the record id and ends its owner; it returns the
// state it had.
func deleteRecord[S any](s *Service, sc awswire.Scope, kind string, dir *actors.Directory[S], id string,
	gone func() *awswire.Error) (*S, error) {
	return actors.DeleteRecord(s.records(), recordKey(sc, kind, id), dir, id, errFn(gone))
}

// restoreRecord re-creates the owner of one persisted record.
func restoreRecord[S any](s *Service, kind string, dir *actors.Directory[S], value []byte,
	idOf func(*S) string, seqOf func(*S) uint64) error {
	st, err := actors.RestoreRecord(s.records(), "apigateway."+kind, dir, value, idOf)
	if err != nil {
		return err
	}
	s.seq.Restored(seqOf(st))
	return nil
}

// restoreOther re-creates an API key, usage plan, domain name or VPC link.
func (s *Service) restoreOther(sc awswire.Scope, kind string, value []byte) error {
	d := s.scopes.Get(sc)
	switch kind {
	case kindAPIKey:
		return restoreRecord(s, kind, d.keys, value,
			func(k *KeyState) string {
				k.Memo = new(actors.Memo)
				d.keyValues.Store(k.Key.Value, k.Key.ID)
				return k.Key.ID
			},
			func(k *KeyState) uint64 { return k.Seq })
	case kindPlan:
		return restoreRecord(s, kind, d.plans, value,
			func(p *PlanState) string {
				for _, st := range p.Plan.APIStages {
					d.refs.Add(stageTarget(st.APIID, st.Stage), planReferrer(p.Plan.ID))
				}
				for _, k := range p.KeyIDs {
					d.keyPlans.Add(k, p.Plan.ID)
				}
				return p.Plan.ID
			}, func(p *PlanState) uint64 { return p.Seq })
	case kindDomain:
		return restoreRecord(s, kind, d.domains, value,
			func(dn *DomainState) string {
				for _, m := range dn.Mappings {
					d.refs.Add(stageTarget(m.RestAPIID, m.Stage), mappingReferrer(dn.Domain.DomainName, m.BasePath))
				}
				return dn.Domain.DomainName
			}, func(dn *DomainState) uint64 { return dn.Seq })
	case kindLink:
		return restoreRecord(s, kind, d.links, value,
			func(l *LinkState) string { return l.Link.ID }, func(l *LinkState) uint64 { return l.Seq })
	}
	return fmt.Errorf("unknown kind %q", kind)
}
