package backup

import (
	"maps"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// CreatePlanInput is a CreateBackupPlan request whose required members are
// present; a nil member was absent.
type CreatePlanInput struct {
	Document PlanDocument
	// AdvancedResourceTypes are the resource types of the request's
	// AdvancedBackupSettings: checked, then dropped (docs/backup.md).
	AdvancedResourceTypes []string
	CreatorRequestID      *string
	Tags                  map[string]string
}

// CreatePlan creates a plan at its first version, with its tags. Its name
// must not be in use: the new owner claims it.
func (s *Service) CreatePlan(sc awswire.Scope, in CreatePlanInput) (*Plan, error) {
	doc, err := CheckPlanDocument(in.Document, in.AdvancedResourceTypes)
	if err != nil {
		return nil, err
	}
	if err := checkTags("BackupPlanTags", in.Tags, resourceTags); err != nil {
		return nil, err
	}
	if err := checkCreatorID(in.CreatorRequestID); err != nil {
		return nil, err
	}
	d := s.scopes.Get(sc)
	id := awswire.UUID()
	seq := s.seq.Next()
	name := doc.BackupPlanName
	p := &Plan{PlanRecord: PlanRecord{
		Seq:              seq,
		ID:               id,
		ARN:              awswire.BackupPlanARN(sc.Region, sc.Account, id),
		VersionID:        awswire.VersionID(),
		Document:         withRuleIDs(doc, nil),
		Created:          s.now().UnixMilli(),
		CreatorRequestID: deref(in.CreatorRequestID),
		Tags:             cloneTags(in.Tags),
	}, Memo: new(actors.Memo)}
	out, err := actors.Create(s.records(), actors.NewRecord[Plan]{
		Kind: "backup." + kindPlan, Key: recordKey(sc, kindPlan, id), Dir: d.plans, ID: id, Order: actors.SeqKey(seq),
		Taken: func() error { return PlanNotFound(id) }, // a fresh UUID: never taken
		Build: func() (*Plan, error) {
			if !d.claimName(name, id) {
				return nil, planNameTaken(d, name)
			}
			return p, nil
		},
	})
	if err != nil {
		d.releaseName(name, id)
		return nil, err
	}
	return out, nil
}

// claimName reserves a plan name for plan id.
func (d *dirs) claimName(name, id string) bool {
	owner, _ := d.planNames.LoadOrStore(name, id)
	return owner == id
}

// releaseName gives a plan name back, if plan id holds it.
func (d *dirs) releaseName(name, id string) {
	d.planNames.Compute(name, func(cur string, loaded bool) (string, bool) { return cur, !loaded || cur == id })
}

func planNameTaken(d *dirs, name string) *awswire.Error {
	err := awswire.New(awswire.Backup, awswire.CodeAlreadyExists, "Backup plan with the same plan document already exists")
	if id, ok := d.planNames.Load(name); ok {
		if p, ok := d.plans.Get(id); ok {
			err = err.With("Arn", p.ARN)
			if p.CreatorRequestID != "" {
				err = err.With("CreatorRequestId", p.CreatorRequestID)
			}
		}
	}
	return err.With("Context", name)
}

// Plan returns the published plan with id.
func (s *Service) Plan(sc awswire.Scope, id string) (*Plan, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.plans.Get(id)
}

// Plans returns up to n plans of the scope in creation order, after the
// page token.
func (s *Service) Plans(sc awswire.Scope, token string, n int) (Page[Plan], error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return page(actors.NewDirectory[Plan](), token, n, planSeq, nil)
	}
	return page(d.plans, token, n, planSeq, nil)
}

func planSeq(p *Plan) uint64 { return p.Seq }

// UpdatePlanInput is an UpdateBackupPlan request whose required members
// are present.
type UpdatePlanInput struct {
	Document              PlanDocument
	AdvancedResourceTypes []string
}

// UpdatePlan replaces the plan's document and mints a new version; the
// previous version is not kept. A new name must not be in use.
func (s *Service) UpdatePlan(sc awswire.Scope, id string, in UpdatePlanInput) (*Plan, error) {
	doc, err := CheckPlanDocument(in.Document, in.AdvancedResourceTypes)
	if err != nil {
		return nil, err
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, PlanNotFound(id)
	}
	versionID, at := awswire.VersionID(), s.now().UnixMilli()
	newName := doc.BackupPlanName
	renamed := false
	p, err := actors.EditRecord(s.records(), recordKey(sc, kindPlan, id), d.plans, id, func() error { return PlanNotFound(id) },
		func(cur *Plan) (actors.Edit[Plan, *Plan], error) {
			oldName := cur.Document.BackupPlanName
			if newName != oldName {
				if !d.claimName(newName, id) {
					return actors.Edit[Plan, *Plan]{}, planNameTaken(d, newName)
				}
				renamed = true
			}
			next := &Plan{PlanRecord: cur.PlanRecord, Memo: new(actors.Memo)}
			next.Document = withRuleIDs(doc, cur.Document.Rules)
			next.VersionID = versionID
			next.Created = at
			ed := actors.Edit[Plan, *Plan]{Next: next, Reply: next}
			if renamed {
				ed.After = func() { d.releaseName(oldName, id) }
			}
			return ed, nil
		})
	if err != nil && renamed {
		d.releaseName(newName, id)
	}
	return p, err
}

// DeletePlan deletes the plan and returns it as it was, with the deletion
// time. No tombstone is kept.
func (s *Service) DeletePlan(sc awswire.Scope, id string) (*Plan, time.Time, error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, time.Time{}, PlanNotFound(id)
	}
	p, _, err := actors.EndRecord(s.records(), recordKey(sc, kindPlan, id), d.plans, id, func() error { return PlanNotFound(id) },
		func(last *Plan) []actors.Pending {
			d.releaseName(last.Document.BackupPlanName, id)
			return nil
		})
	return p, s.now(), err
}

func cloneTags(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// withRuleIDs returns doc with a RuleId on every rule: the id a rule of the
// same name had in prev, else a new one.
func withRuleIDs(doc PlanDocument, prev []Rule) PlanDocument {
	old := make(map[string]string, len(prev))
	for _, r := range prev {
		old[r.RuleName] = r.RuleID
	}
	rules := make([]Rule, len(doc.Rules))
	for i, r := range doc.Rules {
		r.RuleID = old[r.RuleName]
		if r.RuleID == "" {
			r.RuleID = awswire.UUID()
		}
		rules[i] = r
	}
	doc.Rules = rules
	return doc
}
