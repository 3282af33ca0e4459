package apigateway

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// invalidCreateStage is AWS's answer to CreateUsagePlan naming an API
// stage that is empty or does not exist: the template, unformatted, as
// AWS sends it.
func invalidCreateStage() *awswire.Error {
	return awswire.New(awswire.APIGateway, awswire.CodeBadRequest, "Invalid API Stage {api: %s, stage: %s} specified for usageplan %s")
}

func invalidPlanStage(apiID, stage, planID string) *awswire.Error {
	return notFound("Invalid API Stage {api: %s, stage: %s} specified for usageplan %s", apiID, stage, planID)
}

func checkQuotaBounds(q *QuotaSettings) error {
	switch {
	case q.Period == "":
		return BadRequest("Invalid quota period specified. Valid options are DAY,WEEK,MONTH")
	case q.Limit < 0:
		return BadRequest("Quota limit should be a non-negative integer")
	case q.Offset < 0:
		return BadRequest("Quota offset should be a non-negative integer")
	}
	return nil
}

func checkThrottle(t *ThrottleSettings) error {
	if t == nil {
		return nil
	}
	if t.BurstLimit < 0 || t.RateLimit < 0 {
		return BadRequest("Throttle limits should be non-negative")
	}
	return nil
}

// CreateUsagePlan creates p (its id set here); its API stages must exist.
func (s *Service) CreateUsagePlan(sc awswire.Scope, p UsagePlan) (*PlanState, error) {
	// The period is a model enum: a ValidationException, before the rest.
	if p.Quota != nil && p.Quota.Period != "" {
		var v Validation
		v.Enum("createUsagePlanInput.quota.period", p.Quota.Period, PeriodDay, PeriodWeek, PeriodMonth)
		if err := v.Err(); err != nil {
			return nil, err
		}
	}
	if p.Name == "" {
		return nil, BadRequest("Invalid usage plan name specified")
	}
	if p.Quota != nil {
		if err := checkQuotaBounds(p.Quota); err != nil {
			return nil, err
		}
	}
	if err := checkThrottle(p.Throttle); err != nil {
		return nil, err
	}
	if err := ValidateTags(p.Tags); err != nil {
		return nil, err
	}
	stages := make([]ApiStage, 0, len(p.APIStages))
	for _, st := range p.APIStages {
		if st.APIID == "" || st.Stage == "" {
			return nil, invalidCreateStage()
		}
		for _, t := range st.Throttle {
			if t == nil {
				return nil, BadRequest("Invalid throttle settings specified")
			}
			if err := checkThrottle(t); err != nil {
				return nil, err
			}
		}
		if slices.ContainsFunc(stages, func(x ApiStage) bool { return x.APIID == st.APIID && x.Stage == st.Stage }) {
			continue
		}
		st.Throttle = cloneThrottles(st.Throttle)
		stages = append(stages, st)
	}
	p.APIStages = stages
	if p.Quota != nil {
		q := *p.Quota
		p.Quota = &q
	}
	if p.Throttle != nil {
		t := *p.Throttle
		p.Throttle = &t
	}
	p.Tags = maps.Clone(p.Tags)
	d := s.scopes.Get(sc)
	seq := s.seq.Next()
	for range 8 {
		// AWS's usage plan ids are 6 lowercase alphanumerics ("n371pt").
		p.ID = awswire.ShortID(6)
		id := p.ID
		r, err := actors.Create(s.records(), actors.NewRecord[PlanState]{
			Kind: "apigateway." + kindPlan, Key: recordKey(sc, kindPlan, id), Dir: d.plans, ID: id,
			Taken: errFn(idTaken),
			// The stages are checked inside the new owner, after its
			// references are recorded (actors.Refs).
			Build: func() (*PlanState, error) {
				for _, st := range p.APIStages {
					if !s.referStage(sc, d, planReferrer(id), st.APIID, st.Stage) {
						s.forgetPlanStages(d, id, p.APIStages)
						return nil, invalidCreateStage()
					}
				}
				return &PlanState{Plan: p, Seq: seq, Created: s.now().Unix()}, nil
			},
		})
		if err != errIDTaken {
			return r, err
		}
	}
	return nil, awswire.Unavailable(awswire.APIGateway)
}

func cloneThrottles(m map[string]*ThrottleSettings) map[string]*ThrottleSettings {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]*ThrottleSettings, len(m))
	for k, v := range m {
		t := *v
		out[k] = &t
	}
	return out
}

// UsagePlan returns the published usage plan id.
func (s *Service) UsagePlan(sc awswire.Scope, id string) (*PlanState, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.plans.Get(id)
}

// UsagePlans returns every usage plan of the scope ordered by id.
func (s *Service) UsagePlans(sc awswire.Scope) []*PlanState {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.plans.Snapshots(func(a, b *PlanState) int { return cmp.Compare(a.Plan.ID, b.Plan.ID) })
}

// The UsagePlan paths UpdateUsagePlan accepts, per op, as AWS lists them
// when it refuses one (the "remove" list is AWS's, typo included; "add" is
// also accepted where Terraform sends it: /productCode, and the quota and
// throttle members of a plan without them).
const (
	planMethodPath = "/apiStages/<apidId:stageName>/throttle/<resourcePath>/<httpMethod>"
	planStagePath  = "/apiStages/<apidId:stageName>/throttle"
)

var planPaths = map[string][]string{
	"remove": {"/apiStages", "/quota", "/throttle", "/productCode", planMethodPath, planStagePath},
	"replace": {"/name", "/description", "/productCode", "/throttle/burstLimit", "/throttle/rateLimit",
		"/quota/limit", "/quota/offset", "/quota/period", planMethodPath + "/burstLimit", planMethodPath + "/rateLimit"},
	"add": {"/apiStages", "/productCode", "/throttle/burstLimit", "/throttle/rateLimit",
		"/quota/limit", "/quota/offset", "/quota/period", planMethodPath + "/burstLimit", planMethodPath + "/rateLimit"},
}

// planPathClass names the path pattern a usage plan patch path matches,
// "" for none: exact paths are themselves; the per-stage throttle paths
// are planStagePath, planMethodPath and planMethodPath+"/{limit}".
func planPathClass(path string) string {
	rest, ok := strings.CutPrefix(path, "/apiStages/")
	if !ok {
		switch path {
		case "/name", "/description", "/productCode", "/throttle", "/quota", "/apiStages",
			"/throttle/burstLimit", "/throttle/rateLimit", "/quota/limit", "/quota/offset", "/quota/period":
			return path
		}
		return ""
	}
	_, tail, _ := strings.Cut(rest, "/")
	switch {
	case tail == "throttle":
		return planStagePath
	case !strings.HasPrefix(tail, "throttle/") || len(tail) == len("throttle/"):
		return ""
	case strings.HasSuffix(tail, "/burstLimit"):
		return planMethodPath + "/burstLimit"
	case strings.HasSuffix(tail, "/rateLimit"):
		return planMethodPath + "/rateLimit"
	}
	return planMethodPath
}

// planPathError is AWS's refusal of a path op does not apply to.
func planPathError(o PatchOp) error {
	paths, ok := planPaths[o.Op]
	if !ok {
		return BadRequest("Invalid patch path  '%s' specified for op '%s'. Please choose supported operations", o.Path, o.Op)
	}
	return BadRequest("Invalid patch path  '%s' specified for op '%s'. Must be one of: [%s]", o.Path, o.Op, strings.Join(paths, ", "))
}

// checkPlanPatch refuses, before anything is applied, an op whose path it
// does not apply to.
func checkPlanPatch(ops []PatchOp) error {
	for _, o := range ops {
		class := planPathClass(o.Path)
		if class == "" || !slices.Contains(planPaths[o.Op], class) {
			// A remove of a method's limit is a remove of a method whose
			// name ends so: the class says which.
			if !(o.Op == "remove" && class != "" && strings.HasPrefix(class, planMethodPath)) {
				return planPathError(o)
			}
		}
	}
	return nil
}

// UpdateUsagePlan applies patch operations to a usage plan. API stages
// added must exist; a failed update changes nothing.
func (s *Service) UpdateUsagePlan(sc awswire.Scope, id string, ops []PatchOp) (*PlanState, error) {
	var v Validation
	v.PatchOps("updateUsagePlanInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, planNotFound()
	}
	if _, ok := d.plans.Get(id); !ok {
		return nil, planNotFound()
	}
	if err := checkPlanPatch(ops); err != nil {
		return nil, err
	}
	return actors.EditRecord(s.records(), recordKey(sc, kindPlan, id), d.plans, id, errFn(planNotFound),
		func(cur *PlanState) (actors.Edit[PlanState, *PlanState], error) {
			var none actors.Edit[PlanState, *PlanState]
			next := *cur
			p := &next.Plan
			p.APIStages = slices.Clone(p.APIStages)
			for i := range p.APIStages {
				p.APIStages[i].Throttle = cloneThrottles(p.APIStages[i].Throttle)
			}
			if p.Throttle != nil {
				t := *p.Throttle
				p.Throttle = &t
			}
			if p.Quota != nil {
				q := *p.Quota
				p.Quota = &q
			}
			fail := func(err error) (actors.Edit[PlanState, *PlanState], error) {
				// References the failed update recorded go; the plan's
				// own stay.
				s.forgetPlanStages(d, id, dropped(p.APIStages, cur.Plan.APIStages))
				return none, err
			}
			for _, o := range ops {
				if err := s.patchPlan(sc, d, &next, o); err != nil {
					return fail(err)
				}
			}
			if p.Quota != nil {
				if err := checkQuotaBounds(p.Quota); err != nil {
					return fail(err)
				}
			}
			if p.APIStages == nil {
				p.APIStages = []ApiStage{}
			}
			gone := dropped(cur.Plan.APIStages, p.APIStages)
			return actors.Edit[PlanState, *PlanState]{Next: &next, Reply: &next,
				After: func() {
					s.forgetPlanStages(d, id, gone)
					// The keys' buckets and quotas take the new limits
					// before the caller's next request.
					syncLimits(d, &next, s.now())
				}}, nil
		})
}

// dropped returns the stages of from that are not in to.
func dropped(from, to []ApiStage) []ApiStage {
	var out []ApiStage
	for _, st := range from {
		if !slices.ContainsFunc(to, func(x ApiStage) bool { return x.APIID == st.APIID && x.Stage == st.Stage }) {
			out = append(out, st)
		}
	}
	return out
}

func (s *Service) patchPlan(sc awswire.Scope, d *dirs, st *PlanState, o PatchOp) error {
	p := &st.Plan
	switch o.Path {
	case "/name":
		if o.Val() == "" {
			return BadRequest("Invalid usage plan name specified")
		}
		p.Name = o.Val()
	case "/description":
		p.Description = o.Val()
	case "/productCode":
		p.ProductCode = o.Val()
		if o.Op == "remove" {
			p.ProductCode = ""
		}
	case "/throttle":
		p.Throttle = nil
	case "/throttle/burstLimit", "/throttle/rateLimit":
		if p.Throttle == nil {
			p.Throttle = &ThrottleSettings{}
		}
		return setThrottle(p.Throttle, strings.TrimPrefix(o.Path, "/throttle/"), o)
	case "/quota":
		p.Quota = nil
	case "/quota/limit", "/quota/offset", "/quota/period":
		if p.Quota == nil {
			p.Quota = &QuotaSettings{}
		}
		if o.Path == "/quota/period" {
			switch o.Val() {
			case PeriodDay, PeriodWeek, PeriodMonth:
				p.Quota.Period = o.Val()
				return nil
			}
			return BadRequest("Invalid quota period specified. Valid options are DAY,WEEK,MONTH")
		}
		n, err := ParseInt(o)
		if err != nil {
			return err
		}
		if o.Path == "/quota/limit" {
			p.Quota.Limit = n
		} else {
			p.Quota.Offset = n
		}
	case "/apiStages":
		return s.patchPlanStages(sc, d, p, o)
	default:
		return s.patchStageThrottle(p, o)
	}
	return nil
}

// splitAPIStage reads "{apiId}:{stage}".
func splitAPIStage(v string) (apiID, stage string, ok bool) {
	parts := strings.Split(v, ":")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}

func (s *Service) patchPlanStages(sc awswire.Scope, d *dirs, p *UsagePlan, o PatchOp) error {
	apiID, stage, ok := splitAPIStage(o.Val())
	if !ok {
		return BadRequest("Invalid API Stage specified")
	}
	i := slices.IndexFunc(p.APIStages, func(x ApiStage) bool { return x.APIID == apiID && x.Stage == stage })
	if o.Op == "add" && i < 0 {
		// Recorded before the check (actors.Refs); a failed update
		// forgets it.
		if !s.referStage(sc, d, planReferrer(p.ID), apiID, stage) {
			d.refs.Remove(stageTarget(apiID, stage), planReferrer(p.ID))
			return invalidPlanStage(apiID, stage, p.ID)
		}
	} else if s.checkStage(sc, apiID, stage) != nil {
		return invalidPlanStage(apiID, stage, p.ID)
	}
	switch o.Op {
	case "add":
		if i < 0 {
			p.APIStages = append(p.APIStages, ApiStage{APIID: apiID, Stage: stage})
		}
	case "remove":
		if i < 0 {
			return invalidPlanStage(apiID, stage, p.ID)
		}
		p.APIStages = slices.Delete(p.APIStages, i, i+1)
	}
	return nil
}

// patchStageThrottle applies an op on
// /apiStages/{apiId}:{stage}/throttle[/{resourcePath}/{httpMethod}[/{limit}]]
// (checkPlanPatch matched the path to the op). The resource path may come
// escaped (~1) or not: Terraform sends
// "/apiStages/a:s/throttle//pets/GET/rateLimit" for the key "/pets/GET".
func (s *Service) patchStageThrottle(p *UsagePlan, o PatchOp) error {
	rest := strings.TrimPrefix(o.Path, "/apiStages/")
	id, tail, _ := strings.Cut(rest, "/")
	apiID, stage, ok := splitAPIStage(PathKey(id, ""))
	if !ok {
		return BadRequest("Invalid API Stage specified")
	}
	i := slices.IndexFunc(p.APIStages, func(x ApiStage) bool { return x.APIID == apiID && x.Stage == stage })
	if i < 0 {
		return invalidPlanStage(apiID, stage, p.ID)
	}
	as := &p.APIStages[i]
	if tail == "throttle" {
		as.Throttle = nil
		return nil
	}
	method := PathKey(strings.TrimPrefix(tail, "throttle/"), "")
	limit := ""
	if o.Op != "remove" {
		j := strings.LastIndexByte(method, '/')
		if j < 0 {
			return planPathError(o)
		}
		method, limit = method[:j], method[j+1:]
	}
	if !strings.HasPrefix(method, "/") {
		method = "/" + method
	}
	// The key is "/{resourcePath}/{httpMethod}": a path, then a method.
	if j := strings.LastIndexByte(method, '/'); j <= 0 || j == len(method)-1 {
		return planPathError(o)
	}
	if o.Op == "remove" {
		delete(as.Throttle, method)
		if len(as.Throttle) == 0 {
			as.Throttle = nil
		}
		return nil
	}
	if as.Throttle == nil {
		as.Throttle = map[string]*ThrottleSettings{}
	}
	t := as.Throttle[method]
	if t == nil {
		t = &ThrottleSettings{}
		as.Throttle[method] = t
	}
	return setThrottle(t, limit, o)
}

func setThrottle(t *ThrottleSettings, limit string, o PatchOp) error {
	if limit == "burstLimit" {
		n, err := ParseInt(o)
		if err != nil {
			return err
		}
		if n < 0 {
			return BadRequest("Throttle limits should be non-negative")
		}
		t.BurstLimit = n
		return nil
	}
	f, err := parseRate(o)
	if err != nil {
		return err
	}
	t.RateLimit = f
	return nil
}

func parseRate(o PatchOp) (Rate, error) {
	f, err := strconv.ParseFloat(o.Val(), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, BadRequest("Invalid rate limit value specified for %s: %s", o.Path, o.Val())
	}
	return Rate(f), nil
}

// DeleteUsagePlan deletes a usage plan, its links to API keys and their
// throttles and usage. AWS refuses while the plan still names API stages.
func (s *Service) DeleteUsagePlan(sc awswire.Scope, id string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return planNotFound()
	}
	e, _, ok := d.plans.Entry(id)
	if !ok {
		return planNotFound()
	}
	key := recordKey(sc, kindPlan, id)
	_, err := ask[any](s, func() (any, error) {
		return actors.Update(s.sys, e, func(cur *PlanState) (actors.Change[PlanState], error) {
			if st := cur.Plan.APIStages; len(st) > 0 {
				return actors.Change[PlanState]{}, BadRequest(
					"Cannot delete Usage Plan %s because there are API Stages associated with it, including %s:%s",
					id, st[0].APIID, st[0].Stage)
			}
			return actors.Change[PlanState]{End: true, Records: []actors.Record{actors.Del(key)}, After: func() {
				for _, k := range cur.KeyIDs {
					d.keyPlans.Remove(k, id)
				}
				dropLimits(d, id, cur.KeyIDs)
			}}, nil
		})
	}, planNotFound)
	return err
}

// tellPlan queues change in the owner of plan planID (one still being
// created included): change returns the new state, nil to keep it, and
// what to run once it is durable.
func (s *Service) tellPlan(sc awswire.Scope, d *dirs, planID string, change func(*PlanState) (*PlanState, func())) actors.Pending {
	e, ok := d.plans.Lookup(planID)
	if !ok {
		return actors.Pending{}
	}
	return actors.Tell(s.sys, e, actors.EditFunc(recordKey(sc, kindPlan, planID), change))
}

// dropStages returns p without the stages match selects, and forgets their
// references once that is durable; nil when p has none.
func dropStages(d *dirs, p *PlanState, match func(ApiStage) bool) (*PlanState, func()) {
	if !slices.ContainsFunc(p.Plan.APIStages, match) {
		return nil, nil
	}
	next := *p
	next.Plan.APIStages = slices.DeleteFunc(slices.Clone(p.Plan.APIStages), match)
	gone := dropped(p.Plan.APIStages, next.Plan.APIStages)
	return &next, func() {
		for _, st := range gone {
			d.refs.Remove(stageTarget(st.APIID, st.Stage), planReferrer(p.Plan.ID))
		}
	}
}

// forgetPlanStages forgets that plan planID refers to stages.
func (s *Service) forgetPlanStages(d *dirs, planID string, stages []ApiStage) {
	for _, st := range stages {
		d.refs.Remove(stageTarget(st.APIID, st.Stage), planReferrer(planID))
	}
}

// ---- usage plan keys ----

// PlanKey is an API key as usage plan key replies show it.
func PlanKey(k *APIKey) UsagePlanKey {
	return UsagePlanKey{ID: k.ID, Name: k.Name, Type: KeyTypeAPIKey, Value: k.Value}
}

// CreateUsagePlanKey links an existing API key to a usage plan. A key may
// not reach one API stage through two plans. The plan's owner decides:
// it records the link in the keyPlans index first, then checks the key
// and the other plans holding it, so that two links racing for one key
// cannot both pass and a key deleted meanwhile leaves no link behind.
func (s *Service) CreateUsagePlanKey(sc awswire.Scope, planID, keyID, keyType string) (UsagePlanKey, error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return UsagePlanKey{}, planNotFound()
	}
	if _, ok := d.plans.Get(planID); !ok {
		return UsagePlanKey{}, planNotFound()
	}
	if keyType != KeyTypeAPIKey {
		return UsagePlanKey{}, BadRequest("Invalid usage plan key type specified: %s. Valid type is API_KEY", keyType)
	}
	if _, ok := d.keys.Get(keyID); !ok {
		return UsagePlanKey{}, keyNotFound()
	}
	return actors.EditRecord(s.records(), recordKey(sc, kindPlan, planID), d.plans, planID, errFn(planNotFound),
		func(cur *PlanState) (actors.Edit[PlanState, UsagePlanKey], error) {
			var none actors.Edit[PlanState, UsagePlanKey]
			if slices.Contains(cur.KeyIDs, keyID) {
				return none, Conflict("Usage Plan %s already contains API Key %s", planID, keyID)
			}
			d.keyPlans.Add(keyID, planID)
			fail := func(err error) (actors.Edit[PlanState, UsagePlanKey], error) {
				d.keyPlans.Remove(keyID, planID)
				return none, err
			}
			for _, otherID := range d.keyPlans.Referrers(keyID) {
				o, ok := d.plans.Get(otherID)
				if otherID == planID || !ok {
					continue
				}
				for _, st := range cur.Plan.APIStages {
					if slices.ContainsFunc(o.Plan.APIStages, func(x ApiStage) bool { return x.APIID == st.APIID && x.Stage == st.Stage }) {
						return fail(Conflict("Usage Plan %s cannot be added because API Key %s cannot reference multiple Usage Plans with the same API Stage: %s:%s",
							planID, keyID, st.APIID, st.Stage))
					}
				}
			}
			key, ok := d.keys.Get(keyID)
			if !ok {
				return fail(keyNotFound())
			}
			next := *cur
			next.KeyIDs = append(slices.Clone(cur.KeyIDs), keyID)
			// The key's limits exist before the link is published, so that
			// no request passes the key check uncounted. If the write
			// fails they stay unreachable (the data plane finds them only
			// through a published link) and a later link reuses them.
			syncLimits(d, &next, s.now())
			return actors.Edit[PlanState, UsagePlanKey]{Next: &next, Reply: PlanKey(&key.Key)}, nil
		})
}

// UsagePlanKey returns the API key keyID as linked to plan planID.
func (s *Service) UsagePlanKey(sc awswire.Scope, planID, keyID string) (UsagePlanKey, error) {
	key, ok := s.APIKey(sc, keyID)
	if !ok {
		return UsagePlanKey{}, keyNotFound()
	}
	p, ok := s.UsagePlan(sc, planID)
	if !ok || !slices.Contains(p.KeyIDs, keyID) {
		return UsagePlanKey{}, planNotFound()
	}
	return PlanKey(&key.Key), nil
}

// UsagePlanKeys returns the keys linked to a plan ordered by id; an
// unknown plan has none.
func (s *Service) UsagePlanKeys(sc awswire.Scope, planID string) []UsagePlanKey {
	p, ok := s.UsagePlan(sc, planID)
	if !ok {
		return nil
	}
	out := make([]UsagePlanKey, 0, len(p.KeyIDs))
	for _, id := range p.KeyIDs {
		if k, ok := s.APIKey(sc, id); ok {
			out = append(out, PlanKey(&k.Key))
		}
	}
	slices.SortFunc(out, func(a, b UsagePlanKey) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// DeleteUsagePlanKey unlinks an API key from a plan.
func (s *Service) DeleteUsagePlanKey(sc awswire.Scope, planID, keyID string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return keyNotFound()
	}
	if _, ok := d.keys.Get(keyID); !ok {
		return keyNotFound()
	}
	_, err := actors.EditRecord(s.records(), recordKey(sc, kindPlan, planID), d.plans, planID, errFn(planNotFound),
		func(cur *PlanState) (actors.Edit[PlanState, struct{}], error) {
			if !slices.Contains(cur.KeyIDs, keyID) {
				return actors.Edit[PlanState, struct{}]{}, planNotFound()
			}
			next, after := unlinkKey(d, cur, keyID)
			return actors.Edit[PlanState, struct{}]{Next: next, After: after}, nil
		})
	return err
}

// unlinkKey returns p without key keyID, and forgets the link in the
// keyPlans index once that is durable; nil when p does not hold the key.
func unlinkKey(d *dirs, p *PlanState, keyID string) (*PlanState, func()) {
	if !slices.Contains(p.KeyIDs, keyID) {
		return nil, nil
	}
	next := *p
	next.KeyIDs = slices.DeleteFunc(slices.Clone(p.KeyIDs), func(k string) bool { return k == keyID })
	return &next, func() {
		d.keyPlans.Remove(keyID, p.Plan.ID)
		dropLimits(d, p.Plan.ID, []string{keyID})
	}
}

// PlansOfKey returns the plans an API key is linked to, ordered by id,
// through the keyPlans index.
func (s *Service) PlansOfKey(sc awswire.Scope, keyID string) []*PlanState {
	return s.AppendPlansOfKey(nil, new([]string), sc, keyID)
}

// AppendPlansOfKey appends the plans an API key is linked to, ordered by
// id, to dst; *ids is scratch space, kept for the next call. The data
// plane passes buffers it reuses, so that a keyed request does not
// allocate for the lookup.
func (s *Service) AppendPlansOfKey(dst []*PlanState, ids *[]string, sc awswire.Scope, keyID string) []*PlanState {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return dst
	}
	*ids = d.keyPlans.AppendReferrers((*ids)[:0], keyID)
	for _, id := range *ids {
		if p, ok := d.plans.Get(id); ok && slices.Contains(p.KeyIDs, keyID) {
			dst = append(dst, p)
		}
	}
	return dst
}
