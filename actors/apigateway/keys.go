package apigateway

import (
	"cmp"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// API keys and usage plans are single-record owners (records.go). A usage
// plan owns its links to API keys (PlanState.KeyIDs); an API key knows
// nothing of its plans, so deleting a key asks each plan holding it to let
// it go.

// Errors as API Gateway words them for keys and plans.
func keyNotFound() *awswire.Error  { return notFound("Invalid API Key identifier specified") }
func planNotFound() *awswire.Error { return notFound("Invalid Usage Plan ID specified") }

// errIDTaken reports a random id clash, retried with a new id.
var errIDTaken = Conflict("apigateway: id taken")

func idTaken() *awswire.Error { return errIDTaken }

// ---- API keys ----

// API key value bounds, as AWS enforces them.
const (
	keyValueMin = 20
	keyValueMax = 128
	keyValueLen = 40 // generated values
)

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// newKeyValue returns a generated API key value: 40 letters and digits, as
// AWS's look.
func newKeyValue() string {
	b := make([]byte, keyValueLen)
	for i := range b {
		b[i] = alnum[rand.IntN(len(alnum))]
	}
	return string(b)
}

// StageKey names a stage an API key is associated with (deprecated for
// usage plans, still stored and validated).
type StageKey struct {
	RestAPIID string `json:"restApiId"`
	StageName string `json:"stageName"`
}

// checkStage refuses a stage key naming a missing API or stage.
func (s *Service) checkStage(sc awswire.Scope, apiID, stage string) error {
	api, ok := s.API(sc, apiID)
	if !ok {
		return APINotFound(sc, apiID)
	}
	if _, ok := api.Stages[stage]; !ok {
		return notFound("Invalid stage identifier specified")
	}
	return nil
}

// CreateAPIKey creates k (its id, value and dates set here when empty),
// with stageKeys checked to exist. The value must be unique in the scope.
func (s *Service) CreateAPIKey(sc awswire.Scope, k APIKey, stageKeys []StageKey) (*KeyState, error) {
	if err := ValidateTags(k.Tags); err != nil {
		return nil, err
	}
	if k.Value != "" {
		switch {
		case len(k.Value) < keyValueMin:
			return nil, BadRequest("API Key value should be at least %d characters", keyValueMin)
		case len(k.Value) > keyValueMax:
			return nil, BadRequest("API Key value exceeds maximum size of %d characters", keyValueMax)
		}
	}
	k.StageKeys = make([]string, 0, len(stageKeys))
	for _, sk := range stageKeys {
		if err := s.checkStage(sc, sk.RestAPIID, sk.StageName); err != nil {
			return nil, err
		}
		v := sk.RestAPIID + "/" + sk.StageName
		if !slices.Contains(k.StageKeys, v) {
			k.StageKeys = append(k.StageKeys, v)
		}
	}
	d := s.scopes.Get(sc)
	if k.Value == "" {
		k.Value = newKeyValue()
	} else if _, taken := s.KeyByValue(sc, k.Value); taken {
		// A scan of the published keys: two creates racing with one value
		// may both pass, which only a value index would prevent.
		return nil, Conflict("API Key already exists")
	}
	now := awswire.Epoch(s.now().UnixMilli())
	k.CreatedDate, k.LastUpdatedDate = now, now
	k.Tags = maps.Clone(k.Tags)
	seq := s.seq.Add(1)
	for range 8 {
		k.ID = awswire.ShortID(10)
		st := &KeyState{Key: k, Seq: seq, Memo: new(actors.Memo)}
		r, err := createRecord(s, sc, kindAPIKey, d.keys, k.ID, st, idTaken)
		if err != errIDTaken {
			return r, err
		}
	}
	return nil, awswire.Unavailable(awswire.APIGateway)
}

// APIKey returns the published API key id.
func (s *Service) APIKey(sc awswire.Scope, id string) (*KeyState, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.keys.Get(id)
}

// APIKeys returns every API key of the scope ordered by id, the order
// positions page through.
func (s *Service) APIKeys(sc awswire.Scope) []*KeyState {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.keys.Snapshots(func(a, b *KeyState) int { return cmp.Compare(a.Key.ID, b.Key.ID) })
}

// KeyByValue finds the API key whose value is value (the data plane's
// lookup of an x-api-key header). It scans the scope's keys.
func (s *Service) KeyByValue(sc awswire.Scope, value string) (*KeyState, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	var found *KeyState
	for _, k := range d.keys.Snapshots(nil) {
		if k.Key.Value == value {
			found = k
			break
		}
	}
	return found, found != nil
}

// apiKeyPatch are the ApiKey paths UpdateApiKey accepts.
var apiKeyPatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/name", []string{"replace"}},
	{"/description", []string{"replace"}},
	{"/enabled", []string{"replace"}},
	{"/customerId", []string{"replace"}},
	{"/stageKeys", []string{"add", "remove"}},
}}

// UpdateAPIKey applies patch operations to an API key.
func (s *Service) UpdateAPIKey(sc awswire.Scope, id string, ops []PatchOp) (*KeyState, error) {
	var v Validation
	v.PatchOps("updateApiKeyInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, keyNotFound()
	}
	if _, ok := d.keys.Get(id); !ok {
		return nil, keyNotFound()
	}
	if err := apiKeyPatch.Check(ops); err != nil {
		return nil, err
	}
	// Stage keys name other owners: check them before entering this one.
	for _, o := range ops {
		if o.Path == "/stageKeys" && o.Op == "add" {
			apiID, stage, ok := strings.Cut(o.Val(), "/")
			if !ok || apiID == "" || stage == "" {
				return nil, BadRequest("Invalid stage key value specified: %s", o.Val())
			}
			if err := s.checkStage(sc, apiID, stage); err != nil {
				return nil, err
			}
		}
	}
	return mutateRecord(s, sc, kindAPIKey, d.keys, id, keyNotFound, func(cur *KeyState) (*KeyState, *KeyState, error) {
		next := *cur
		k := &next.Key
		k.StageKeys = slices.Clone(k.StageKeys)
		for _, o := range ops {
			switch o.Path {
			case "/name":
				k.Name = o.Val()
			case "/description":
				k.Description = o.Val()
			case "/customerId":
				k.CustomerID = o.Val()
			case "/enabled":
				// Java's Boolean.parseBoolean: anything but "true" is false.
				k.Enabled = strings.EqualFold(o.Val(), "true")
			case "/stageKeys":
				v := o.Val()
				k.StageKeys = slices.DeleteFunc(k.StageKeys, func(s string) bool { return s == v })
				if o.Op == "add" {
					k.StageKeys = append(k.StageKeys, v)
				}
			}
		}
		if k.StageKeys == nil {
			k.StageKeys = []string{}
		}
		k.LastUpdatedDate = awswire.Epoch(s.now().UnixMilli())
		next.Memo = new(actors.Memo)
		return &next, &next, nil
	})
}

// DeleteAPIKey deletes an API key and removes it from every usage plan
// holding it.
func (s *Service) DeleteAPIKey(sc awswire.Scope, id string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return keyNotFound()
	}
	if _, err := deleteRecord(s, sc, kindAPIKey, d.keys, id, keyNotFound); err != nil {
		return err
	}
	for _, p := range s.UsagePlans(sc) {
		if slices.Contains(p.KeyIDs, id) {
			s.unlinkKey(sc, d, p.Plan.ID, id)
		}
	}
	return nil
}

// unlinkKey removes key from plan, if both are still there.
func (s *Service) unlinkKey(sc awswire.Scope, d *dirs, planID, keyID string) {
	_, _ = mutateRecord(s, sc, kindPlan, d.plans, planID, planNotFound, func(cur *PlanState) (*PlanState, any, error) {
		if !slices.Contains(cur.KeyIDs, keyID) {
			return nil, nil, nil
		}
		next := *cur
		next.KeyIDs = slices.DeleteFunc(slices.Clone(cur.KeyIDs), func(k string) bool { return k == keyID })
		return &next, nil, nil
	})
}

// ---- usage plans ----

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
		if st.APIID == "" || st.Stage == "" || s.checkStage(sc, st.APIID, st.Stage) != nil {
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
	seq := s.seq.Add(1)
	for range 8 {
		// AWS's usage plan ids are 6 lowercase alphanumerics ("n371pt").
		p.ID = awswire.ShortID(6)
		st := &PlanState{Plan: p, Seq: seq}
		r, err := createRecord(s, sc, kindPlan, d.plans, p.ID, st, idTaken)
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
	return mutateRecord(s, sc, kindPlan, d.plans, id, planNotFound, func(cur *PlanState) (*PlanState, *PlanState, error) {
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
		for _, o := range ops {
			if err := s.patchPlan(sc, &next, o); err != nil {
				return nil, nil, err
			}
		}
		if p.Quota != nil {
			if err := checkQuotaBounds(p.Quota); err != nil {
				return nil, nil, err
			}
		}
		if p.APIStages == nil {
			p.APIStages = []ApiStage{}
		}
		return &next, &next, nil
	})
}

func (s *Service) patchPlan(sc awswire.Scope, st *PlanState, o PatchOp) error {
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
		return s.patchPlanStages(sc, p, o)
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

func (s *Service) patchPlanStages(sc awswire.Scope, p *UsagePlan, o PatchOp) error {
	apiID, stage, ok := splitAPIStage(o.Val())
	if !ok {
		return BadRequest("Invalid API Stage specified")
	}
	if s.checkStage(sc, apiID, stage) != nil {
		return invalidPlanStage(apiID, stage, p.ID)
	}
	i := slices.IndexFunc(p.APIStages, func(x ApiStage) bool { return x.APIID == apiID && x.Stage == stage })
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

// DeleteUsagePlan deletes a usage plan and its links to API keys. AWS
// refuses while the plan still names API stages.
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
			return actors.Change[PlanState]{End: true, Records: []actors.Record{actors.Del(key)}}, nil
		})
	}, planNotFound)
	return err
}

// dropPlanStages removes the API stage (every stage of the API when stage
// is "") from the usage plans that name it. It asks each plan's owner, so
// it MUST NOT run inside an owner.
func (s *Service) dropPlanStages(sc awswire.Scope, apiID, stage string) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return
	}
	match := func(x ApiStage) bool { return x.APIID == apiID && (stage == "" || x.Stage == stage) }
	for _, p := range s.UsagePlans(sc) {
		if !slices.ContainsFunc(p.Plan.APIStages, match) {
			continue
		}
		// A plan deleted meanwhile has nothing left to drop.
		_, _ = mutateRecord(s, sc, kindPlan, d.plans, p.Plan.ID, planNotFound, func(cur *PlanState) (*PlanState, any, error) {
			if !slices.ContainsFunc(cur.Plan.APIStages, match) {
				return nil, nil, nil
			}
			next := *cur
			next.Plan.APIStages = slices.DeleteFunc(slices.Clone(cur.Plan.APIStages), match)
			return &next, nil, nil
		})
	}
}

// ---- usage plan keys ----

// PlanKey is an API key as usage plan key replies show it.
func PlanKey(k *APIKey) UsagePlanKey {
	return UsagePlanKey{ID: k.ID, Name: k.Name, Type: KeyTypeAPIKey, Value: k.Value}
}

// CreateUsagePlanKey links an existing API key to a usage plan. A key may
// not reach one API stage through two plans.
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
	key, ok := d.keys.Get(keyID)
	if !ok {
		return UsagePlanKey{}, keyNotFound()
	}
	others := s.UsagePlans(sc)
	_, err := mutateRecord(s, sc, kindPlan, d.plans, planID, planNotFound, func(cur *PlanState) (*PlanState, any, error) {
		if slices.Contains(cur.KeyIDs, keyID) {
			return nil, nil, Conflict("Usage Plan %s already contains API Key %s", planID, keyID)
		}
		for _, o := range others {
			if o.Plan.ID == planID || !slices.Contains(o.KeyIDs, keyID) {
				continue
			}
			for _, st := range cur.Plan.APIStages {
				if slices.ContainsFunc(o.Plan.APIStages, func(x ApiStage) bool { return x.APIID == st.APIID && x.Stage == st.Stage }) {
					return nil, nil, Conflict("Usage Plan %s cannot be added because API Key %s cannot reference multiple Usage Plans with the same API Stage: %s:%s",
						planID, keyID, st.APIID, st.Stage)
				}
			}
		}
		next := *cur
		next.KeyIDs = append(slices.Clone(cur.KeyIDs), keyID)
		return &next, nil, nil
	})
	if err != nil {
		return UsagePlanKey{}, err
	}
	// A key deleted while it was being linked leaves no link behind.
	if _, ok := d.keys.Get(keyID); !ok {
		s.unlinkKey(sc, d, planID, keyID)
		return UsagePlanKey{}, keyNotFound()
	}
	return PlanKey(&key.Key), nil
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
	_, err := mutateRecord(s, sc, kindPlan, d.plans, planID, planNotFound, func(cur *PlanState) (*PlanState, any, error) {
		if !slices.Contains(cur.KeyIDs, keyID) {
			return nil, nil, planNotFound()
		}
		next := *cur
		next.KeyIDs = slices.DeleteFunc(slices.Clone(cur.KeyIDs), func(k string) bool { return k == keyID })
		return &next, nil, nil
	})
	return err
}

// PlansOfKey returns the plans an API key is linked to, ordered by id.
func (s *Service) PlansOfKey(sc awswire.Scope, keyID string) []*PlanState {
	var out []*PlanState
	for _, p := range s.UsagePlans(sc) {
		if slices.Contains(p.KeyIDs, keyID) {
			out = append(out, p)
		}
	}
	return out
}
