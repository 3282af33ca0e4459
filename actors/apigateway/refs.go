package apigateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// References between owners follow actors.Refs' protocol. Usage plans and
// domain names' base path mappings refer to API stages (the scope's refs
// index, by stageTarget); usage plans hold API keys (the keyPlans index,
// by key id). A referrer records its reference before it checks the
// target; a REST API or stage that goes away tells its referrers from
// inside its owner, once its change is durable, and each referrer drops
// the reference in its own mailbox. RestoreDone drops the references a
// crash left between a delete and its fan-out.

// stageTarget names a stage of an API in the refs index; a mapping to the
// API without a stage targets stageTarget(apiID, "").
func stageTarget(apiID, stage string) string { return apiID + "/" + stage }

// Referrers in the refs index.
const (
	planRef    = "plan/"
	mappingRef = "mapping/"
)

func planReferrer(planID string) string { return planRef + planID }

// mappingReferrer names one base path mapping of a domain (base paths have
// no slash in v1).
func mappingReferrer(domain, basePath string) string { return mappingRef + domain + "/" + basePath }

// referStage records that referrer refers to the stage, then reports
// whether the API and the stage exist.
func (s *Service) referStage(sc awswire.Scope, d *dirs, referrer, apiID, stage string) bool {
	d.refs.Add(stageTarget(apiID, stage), referrer)
	if stage == "" {
		_, ok := s.API(sc, apiID)
		return ok
	}
	return s.checkStage(sc, apiID, stage) == nil
}

// tellStageGone tells every owner that refers to a stage of API apiID
// (to the API itself, any stage or none, when stage is "") that it is
// gone. It runs inside the API's owner once the change is durable (a
// Change's After) and returns what it told.
func (s *Service) tellStageGone(sc awswire.Scope, d *dirs, apiID, stage string) []actors.Pending {
	var who []string
	if stage == "" {
		who = d.refs.ReferrersUnder(stageTarget(apiID, ""))
	} else {
		who = d.refs.Referrers(stageTarget(apiID, stage))
	}
	points := func(a, st string) bool { return a == apiID && (stage == "" || st == stage) }
	var out []actors.Pending
	for _, r := range who {
		switch {
		case strings.HasPrefix(r, planRef):
			out = append(out, s.tellPlan(sc, d, strings.TrimPrefix(r, planRef), func(p *PlanState) (*PlanState, func()) {
				return dropStages(d, p, func(x ApiStage) bool { return points(x.APIID, x.Stage) })
			}))
		case strings.HasPrefix(r, mappingRef):
			domain, _, _ := strings.Cut(strings.TrimPrefix(r, mappingRef), "/")
			out = append(out, s.tellDomain(sc, d, domain, func(dn *DomainState) (*DomainState, func()) {
				return dropMappings(d, dn, func(m *BasePathMapping) bool { return points(m.RestAPIID, m.Stage) })
			}))
		}
	}
	return out
}

// reconcile drops the references a crash between a delete and its fan-out
// left behind: usage plans' stages and base path mappings naming an API
// or stage that is gone, and plans' links to API keys that are gone. Each
// owner drops its own, durably. It runs once every record is restored.
func (s *Service) reconcile() error {
	var pending []actors.Pending
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		staleStage := func(apiID, stage string) bool {
			api, ok := s.API(sc, apiID)
			if !ok {
				return true
			}
			_, ok = api.Stages.Get(stage)
			return stage != "" && !ok
		}
		staleKey := func(keyID string) bool { _, ok := d.keys.Get(keyID); return !ok }
		for _, p := range d.plans.Snapshots(nil) {
			if !slices.ContainsFunc(p.Plan.APIStages, func(x ApiStage) bool { return staleStage(x.APIID, x.Stage) }) &&
				!slices.ContainsFunc(p.KeyIDs, staleKey) {
				continue
			}
			s.log.Info("dropping references to deleted resources", "usagePlan", p.Plan.ID)
			pending = append(pending, s.tellPlan(sc, d, p.Plan.ID, func(cur *PlanState) (*PlanState, func()) {
				next, forget := dropStages(d, cur, func(x ApiStage) bool { return staleStage(x.APIID, x.Stage) })
				if next == nil {
					next = cur
				}
				var unlinked []func()
				for _, k := range cur.KeyIDs {
					if staleKey(k) {
						n, after := unlinkKey(d, next, k)
						next, unlinked = n, append(unlinked, after)
					}
				}
				if next == cur {
					return nil, nil
				}
				return next, func() {
					if forget != nil {
						forget()
					}
					for _, f := range unlinked {
						f()
					}
				}
			}))
		}
		for _, dn := range d.domains.Snapshots(nil) {
			stale := func(m *BasePathMapping) bool { return staleStage(m.RestAPIID, m.Stage) }
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
		return fmt.Errorf("apigateway: restore: reconcile references: %w", err)
	}
	return nil
}
