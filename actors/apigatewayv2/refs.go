package apigatewayv2

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// References between owners follow actors.Refs' protocol: domains' API
// mappings refer to API stages (the scope's refs index, by stageTarget).
// A mapping's reference is recorded before its target is checked; an API
// or stage that goes away tells the domains from inside its owner once its
// change is durable, and each domain drops its mappings in its own mailbox.
// RestoreDone drops what a crash left between a delete and its fan-out.

// stageTarget names a stage of an API in the refs index.
func stageTarget(apiID, stage string) string { return apiID + "/" + stage }

// mappingReferrer names one API mapping of a domain (domain names and
// mapping ids hold no slash).
func mappingReferrer(domain, mappingID string) string { return domain + "/" + mappingID }

// tellStageGone tells every domain whose mappings refer to a stage of API
// apiID (any stage when stage is "") that it is gone. It runs inside the
// API's owner once the change is durable (a Change's After).
func (s *Service) tellStageGone(sc awswire.Scope, d *dirs, apiID, stage string) []actors.Pending {
	var who []string
	if stage == "" {
		who = d.refs.ReferrersUnder(stageTarget(apiID, ""))
	} else {
		who = d.refs.Referrers(stageTarget(apiID, stage))
	}
	points := func(m *APIMapping) bool { return m.APIID == apiID && (stage == "" || m.Stage == stage) }
	var out []actors.Pending
	told := map[string]bool{}
	for _, r := range who {
		domain, _, _ := strings.Cut(r, "/")
		if told[domain] {
			continue
		}
		told[domain] = true
		out = append(out, s.tellDomain(sc, d, domain, func(dn *DomainState) (*DomainState, func()) {
			return dropMappings(d, dn, points)
		}))
	}
	return out
}

// tellDomain queues change in the owner of domain name (one still being
// created included).
func (s *Service) tellDomain(sc awswire.Scope, d *dirs, name string, change func(*DomainState) (*DomainState, func())) actors.Pending {
	e, ok := d.domains.Lookup(name)
	if !ok {
		return actors.Pending{}
	}
	return actors.Tell(s.sys, e, actors.EditFunc(domainKey(sc, name), change))
}

// dropMappings returns dn without the mappings match selects, and forgets
// their references once that is durable; nil when it has none.
func dropMappings(d *dirs, dn *DomainState, match func(*APIMapping) bool) (*DomainState, func()) {
	gone := map[string]*APIMapping{}
	for id, m := range dn.Mappings {
		if match(m) {
			gone[id] = m
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	next := *dn
	next.Mappings = maps.Clone(dn.Mappings)
	for id := range gone {
		delete(next.Mappings, id)
	}
	if len(next.Mappings) == 0 {
		next.Mappings = nil
	}
	name := dn.Domain.DomainName
	return &next, func() {
		for id, m := range gone {
			d.refs.Remove(stageTarget(m.APIID, m.Stage), mappingReferrer(name, id))
		}
	}
}

// settle waits for what an owner told others, so that the caller reads its
// own write; a failure there is logged, as the owner's own change stands.
func (s *Service) settle(pending []actors.Pending) {
	if err := actors.WaitAll(pending); err != nil {
		s.log.Warn("an owner did not take a change it was told of", "err", err)
	}
}

// reconcile drops the API mappings a crash between a delete and its
// fan-out left naming an API or stage that is gone, each domain durably.
// It runs once every record is restored.
func (s *Service) reconcile() error {
	var pending []actors.Pending
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		stale := func(m *APIMapping) bool {
			api, ok := s.API(sc, m.APIID)
			return !ok || !api.Stages.Has(m.Stage)
		}
		for _, dn := range d.domains.Snapshots(nil) {
			if !slices.ContainsFunc(slices.Collect(maps.Values(dn.Mappings)), stale) {
				continue
			}
			s.log.Info("dropping references to deleted resources", "domainName", dn.Domain.DomainName)
			pending = append(pending, s.tellDomain(sc, d, dn.Domain.DomainName, func(cur *DomainState) (*DomainState, func()) {
				return dropMappings(d, cur, stale)
			}))
		}
		return true
	})
	if err := actors.WaitAll(pending); err != nil {
		return fmt.Errorf("apigatewayv2: restore: reconcile references: %w", err)
	}
	return nil
}
