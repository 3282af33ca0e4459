package apigateway

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// API keys and usage plans are single-record owners (records.go). A usage
// plan owns its links to API keys (PlanState.KeyIDs); the scope's keyPlans
// index says which plans hold a key, so that a deleted key tells exactly
// those plans to let it go, and the keyValues index finds a key by its
// value (the data plane's x-api-key lookup) without a scan.

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
	if _, ok := api.Stages.Get(stage); !ok {
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
	// The value is claimed before the key exists, so that two creates
	// racing with one value cannot both pass.
	if k.Value == "" {
		for k.Value = newKeyValue(); !d.claimValue(k.Value); k.Value = newKeyValue() {
		}
	} else if !d.claimValue(k.Value) {
		return nil, Conflict("API Key already exists")
	}
	now := awswire.Epoch(s.now().UnixMilli())
	k.CreatedDate, k.LastUpdatedDate = now, now
	k.Tags = maps.Clone(k.Tags)
	seq := s.seq.Next()
	for range 8 {
		k.ID = awswire.ShortID(10)
		st := &KeyState{Key: k, Seq: seq, Memo: new(actors.Memo)}
		r, err := createRecord(s, sc, kindAPIKey, d.keys, k.ID, st, idTaken)
		if err == errIDTaken {
			continue
		}
		if err != nil {
			d.keyValues.Delete(k.Value)
			return nil, err
		}
		d.keyValues.Store(k.Value, k.ID)
		return r, nil
	}
	d.keyValues.Delete(k.Value)
	return nil, awswire.Unavailable(awswire.APIGateway)
}

// claimValue reserves an API key value for a key being created.
func (d *dirs) claimValue(v string) bool {
	_, taken := d.keyValues.LoadOrStore(v, "")
	return !taken
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
// lookup of an x-api-key header), through the scope's value index.
func (s *Service) KeyByValue(sc awswire.Scope, value string) (*KeyState, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	id, ok := d.keyValues.Load(value)
	if !ok || id == "" {
		return nil, false
	}
	return d.keys.Get(id)
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

// DeleteAPIKey deletes an API key. Its owner then tells every usage plan
// holding it to let it go; DeleteAPIKey returns once they have, so that
// the caller reads its own write.
func (s *Service) DeleteAPIKey(sc awswire.Scope, id string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return keyNotFound()
	}
	_, pending, err := actors.EndRecord(s.records(), recordKey(sc, kindAPIKey, id), d.keys, id, errFn(keyNotFound),
		func(last *KeyState) []actors.Pending {
			d.keyValues.Compute(last.Key.Value, func(cur string, loaded bool) (string, bool) {
				return cur, !loaded || cur == id
			})
			var out []actors.Pending
			for _, planID := range d.keyPlans.Referrers(id) {
				out = append(out, s.tellPlan(sc, d, planID, func(p *PlanState) (*PlanState, func()) { return unlinkKey(d, p, id) }))
			}
			return out
		})
	if err != nil {
		return err
	}
	s.settle(pending)
	return nil
}

// settle waits for what an owner told others, so that the caller reads its
// own write; a failure there is logged, as the owner's own change stands.
func (s *Service) settle(pending []actors.Pending) {
	if err := actors.WaitAll(pending); err != nil {
		s.log.Warn("an owner did not take a change it was told of", "err", err)
	}
}
