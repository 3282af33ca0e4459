package apigateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
	"github.com/cloudemu/emulator/store"
)

// planStages lists a plan's stages as "api:stage".
func planStages(t *testing.T, s *Service, planID string) []string {
	t.Helper()
	p, ok := s.UsagePlan(keysScope, planID)
	if !ok {
		t.Fatalf("plan %s is gone", planID)
	}
	var out []string
	for _, st := range p.Plan.APIStages {
		out = append(out, st.APIID+":"+st.Stage)
	}
	return out
}

func newKey(t *testing.T, s *Service, name string) *KeyState {
	t.Helper()
	k, err := s.CreateAPIKey(keysScope, APIKey{Name: name}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newPlan(t *testing.T, s *Service, stages ...ApiStage) *PlanState {
	t.Helper()
	p, err := s.CreateUsagePlan(keysScope, UsagePlan{Name: "p", APIStages: stages})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDeleteAPIKeyUnlinksItsPlans(t *testing.T) {
	now := time.Now()
	s := keysService(t, &now)
	k, other := newKey(t, s, "k"), newKey(t, s, "other")
	p1, p2, p3 := newPlan(t, s), newPlan(t, s), newPlan(t, s)
	for _, p := range []*PlanState{p1, p2} {
		if _, err := s.CreateUsagePlanKey(keysScope, p.Plan.ID, k.Key.ID, KeyTypeAPIKey); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateUsagePlanKey(keysScope, p3.Plan.ID, other.Key.ID, KeyTypeAPIKey); err != nil {
		t.Fatal(err)
	}
	if got := len(s.PlansOfKey(keysScope, k.Key.ID)); got != 2 {
		t.Fatalf("PlansOfKey = %d plans, want 2", got)
	}
	if err := s.DeleteAPIKey(keysScope, k.Key.ID); err != nil {
		t.Fatal(err)
	}
	// Read your write: the plans no longer hold the key when the delete
	// returns.
	for _, p := range []*PlanState{p1, p2} {
		got, _ := s.UsagePlan(keysScope, p.Plan.ID)
		if len(got.KeyIDs) != 0 {
			t.Errorf("plan %s still holds %v", p.Plan.ID, got.KeyIDs)
		}
	}
	if got := s.PlansOfKey(keysScope, k.Key.ID); len(got) != 0 {
		t.Errorf("PlansOfKey of a deleted key = %d plans", len(got))
	}
	if got, _ := s.UsagePlan(keysScope, p3.Plan.ID); !slices.Equal(got.KeyIDs, []string{other.Key.ID}) {
		t.Errorf("an unrelated plan changed: %v", got.KeyIDs)
	}
	if _, ok := s.KeyByValue(keysScope, k.Key.Value); ok {
		t.Error("KeyByValue finds a deleted key")
	}
	if got, ok := s.KeyByValue(keysScope, other.Key.Value); !ok || got.Key.ID != other.Key.ID {
		t.Errorf("KeyByValue(other) = %v %v", got, ok)
	}
}

// TestPlanKeysRace links one key to two plans sharing a stage at the same
// time, many times over: at most one link may stand each time.
func TestPlanKeysRace(t *testing.T) {
	now := time.Now()
	s := keysService(t, &now)
	api := keysAPI(t, s, "prod")
	for i := range 50 {
		k := newKey(t, s, fmt.Sprint("k", i))
		a := newPlan(t, s, ApiStage{APIID: api, Stage: "prod"})
		b := newPlan(t, s, ApiStage{APIID: api, Stage: "prod"})
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, p := range []*PlanState{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[j] = s.CreateUsagePlanKey(keysScope, p.Plan.ID, k.Key.ID, KeyTypeAPIKey)
			}()
		}
		wg.Wait()
		if errs[0] == nil && errs[1] == nil {
			t.Fatalf("round %d: the key reaches prod through two plans", i)
		}
		for _, err := range errs {
			if err != nil {
				awswiretest.WantError(t, err, awswire.CodeConflict, "")
			}
		}
		linked := 0
		for _, p := range []*PlanState{a, b} {
			got, _ := s.UsagePlan(keysScope, p.Plan.ID)
			linked += len(got.KeyIDs)
		}
		if n := len(s.PlansOfKey(keysScope, k.Key.ID)); n != linked {
			t.Fatalf("round %d: PlansOfKey = %d, plans hold %d links", i, n, linked)
		}
	}
}

// TestDeleteKeyWhileLinking deletes a key while it is being linked: no
// plan may hold it afterwards.
func TestDeleteKeyWhileLinking(t *testing.T) {
	now := time.Now()
	s := keysService(t, &now)
	for i := range 50 {
		k := newKey(t, s, fmt.Sprint("k", i))
		p := newPlan(t, s)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); _, _ = s.CreateUsagePlanKey(keysScope, p.Plan.ID, k.Key.ID, KeyTypeAPIKey) }()
		go func() { defer wg.Done(); _ = s.DeleteAPIKey(keysScope, k.Key.ID) }()
		wg.Wait()
		// Either the link saw the key gone, or the delete saw the link
		// and waited for the plan to drop it.
		if got, _ := s.UsagePlan(keysScope, p.Plan.ID); len(got.KeyIDs) != 0 {
			t.Fatalf("round %d: plan holds deleted key %v", i, got.KeyIDs)
		}
	}
}

// TestDeleteAPIWhileCreatingPlan deletes an API while a plan naming its
// stage is created: the plan never keeps the stage of a deleted API.
func TestDeleteAPIWhileCreatingPlan(t *testing.T) {
	now := time.Now()
	s := keysService(t, &now)
	for i := range 50 {
		api := keysAPI(t, s, "prod")
		var plan *PlanState
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			plan, _ = s.CreateUsagePlan(keysScope, UsagePlan{Name: "p", APIStages: []ApiStage{{APIID: api, Stage: "prod"}}})
		}()
		go func() { defer wg.Done(); _ = s.DeleteRestAPI(keysScope, api) }()
		wg.Wait()
		if plan == nil {
			continue // refused: the API was already gone
		}
		if got := planStages(t, s, plan.Plan.ID); len(got) != 0 {
			t.Fatalf("round %d: plan keeps %v of a deleted API", i, got)
		}
	}
}

func TestCreateAPIKeyValueRace(t *testing.T) {
	now := time.Now()
	s := keysService(t, &now)
	const value = "a-value-of-twenty-characters-or-more"
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.CreateAPIKey(keysScope, APIKey{Name: "k", Value: value}, nil)
		}()
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		if err == nil {
			created++
		} else {
			awswiretest.WantError(t, err, awswire.CodeConflict, "API Key already exists")
		}
	}
	if created != 1 {
		t.Fatalf("%d keys created with one value, want 1", created)
	}
	if _, ok := s.KeyByValue(keysScope, value); !ok {
		t.Fatal("KeyByValue does not find the key")
	}
}

func TestStageDeletionDropsReferences(t *testing.T) {
	now := time.Now()
	s := keysService(t, &now)
	api := keysAPI(t, s, "dev", "prod")
	p := newPlan(t, s, ApiStage{APIID: api, Stage: "dev"}, ApiStage{APIID: api, Stage: "prod"})
	if _, err := s.CreateDomainName(keysScope, DomainName{DomainName: "api.example.com"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []BasePathMapping{{BasePath: "dev", RestAPIID: api, Stage: "dev"},
		{BasePath: "all", RestAPIID: api}, {BasePath: "prod", RestAPIID: api, Stage: "prod"}} {
		if _, err := s.CreateBasePathMapping(keysScope, "api.example.com", "", m); err != nil {
			t.Fatal(err)
		}
	}
	mappings := func() []string {
		ms, err := s.BasePathMappings(keysScope, "api.example.com", "")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.BasePath)
		}
		return out
	}
	if err := s.DeleteStage(keysScope, api, "dev"); err != nil {
		t.Fatal(err)
	}
	if got := planStages(t, s, p.Plan.ID); !slices.Equal(got, []string{api + ":prod"}) {
		t.Errorf("plan stages after deleting dev: %v", got)
	}
	if got := mappings(); !slices.Equal(got, []string{"all", "prod"}) {
		t.Errorf("mappings after deleting dev: %v", got)
	}
	// A mapping re-pointed elsewhere is no longer dropped with its old
	// stage.
	other := keysAPI(t, s, "prod")
	if _, err := s.UpdateBasePathMapping(keysScope, "api.example.com", "", "prod",
		[]PatchOp{{Op: "replace", Path: "/restapiId", Value: keysPtr(other)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRestAPI(keysScope, api); err != nil {
		t.Fatal(err)
	}
	if got := planStages(t, s, p.Plan.ID); len(got) != 0 {
		t.Errorf("plan stages after deleting the API: %v", got)
	}
	if got := mappings(); !slices.Equal(got, []string{"prod"}) {
		t.Errorf("mappings after deleting the API: %v", got)
	}
}

// TestRestoreDropsDanglingReferences is the crash between a delete and its
// fan-out: the API's and the key's deletes are durable, the plan's and the
// domain's reactions are not. After a restart the references are gone, and
// durably so.
func TestRestoreDropsDanglingReferences(t *testing.T) {
	dir := t.TempDir()
	open := func() store.Store {
		st, err := store.OpenBolt(dir, store.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := open()
	now := time.Now()
	env := actorstest.New(t, actorstest.WithStore(st))
	s := New(env.Sys, st, func() time.Time { return now }, env.Log)
	gone, kept := keysAPI(t, s, "prod"), keysAPI(t, s, "prod")
	goneKey, keptKey := newKey(t, s, "gone"), newKey(t, s, "kept")
	p := newPlan(t, s, ApiStage{APIID: gone, Stage: "prod"}, ApiStage{APIID: kept, Stage: "prod"})
	for _, k := range []*KeyState{goneKey, keptKey} {
		if _, err := s.CreateUsagePlanKey(keysScope, p.Plan.ID, k.Key.ID, KeyTypeAPIKey); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateDomainName(keysScope, DomainName{DomainName: "api.example.com"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []BasePathMapping{{BasePath: "a", RestAPIID: gone}, {BasePath: "b", RestAPIID: kept, Stage: "prod"}} {
		if _, err := s.CreateBasePathMapping(keysScope, "api.example.com", "", m); err != nil {
			t.Fatal(err)
		}
	}
	// The crash: the deletes' own records are durable, their fan-out never
	// ran.
	if err := st.Apply(st.Epoch(), store.Del(apiKey(keysScope, gone)), store.DelPrefix(apiKey(keysScope, gone)+"/"),
		store.Del(recordKey(keysScope, kindAPIKey, goneKey.Key.ID))); err != nil {
		t.Fatal(err)
	}
	s.Detach()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = open()
	env = actorstest.New(t, actorstest.WithStore(st))
	s = New(env.Sys, st, func() time.Time { return now }, env.Log)
	if err := st.Load(s.Restore); err != nil {
		t.Fatal(err)
	}
	if err := s.RestoreDone(); err != nil {
		t.Fatal(err)
	}
	if got := planStages(t, s, p.Plan.ID); !slices.Equal(got, []string{kept + ":prod"}) {
		t.Errorf("plan stages after restart: %v", got)
	}
	if got, _ := s.UsagePlan(keysScope, p.Plan.ID); !slices.Equal(got.KeyIDs, []string{keptKey.Key.ID}) {
		t.Errorf("plan keys after restart: %v", got.KeyIDs)
	}
	if ms, _ := s.BasePathMappings(keysScope, "api.example.com", ""); len(ms) != 1 || ms[0].BasePath != "b" {
		t.Errorf("mappings after restart: %+v", ms)
	}
	if plans := s.PlansOfKey(keysScope, keptKey.Key.ID); len(plans) != 1 {
		t.Errorf("PlansOfKey(kept) = %d plans", len(plans))
	}
	if _, ok := s.KeyByValue(keysScope, keptKey.Key.Value); !ok {
		t.Error("the value index was not rebuilt")
	}
	s.Detach()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// The fix is durable: the plan's record itself no longer names them.
	st = open()
	var rec PlanState
	if err := st.Load(func(key string, value []byte) error {
		if key == recordKey(keysScope, kindPlan, p.Plan.ID) {
			return json.Unmarshal(value, &rec)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	if len(rec.Plan.APIStages) != 1 || len(rec.KeyIDs) != 1 {
		t.Errorf("persisted plan: stages %v, keys %v", rec.Plan.APIStages, rec.KeyIDs)
	}
}

// BenchmarkIndexLookups measures the data plane's lookups with 10,000 keys
// and 10,000 plans in the scope.
func BenchmarkIndexLookups(b *testing.B) {
	now := time.Now()
	env := actorstest.New(b)
	s := New(env.Sys, env.Store, func() time.Time { return now }, env.Log)
	var keys []*KeyState
	for i := range 10000 {
		k, err := s.CreateAPIKey(keysScope, APIKey{Name: fmt.Sprint("k", i)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		keys = append(keys, k)
		p, err := s.CreateUsagePlan(keysScope, UsagePlan{Name: "p"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.CreateUsagePlanKey(keysScope, p.Plan.ID, k.Key.ID, KeyTypeAPIKey); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("lookup=KeyByValue", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, ok := s.KeyByValue(keysScope, keys[i%len(keys)].Key.Value); !ok {
				b.Fatal("not found")
			}
			i++
		}
	})
	b.Run("lookup=PlansOfKey", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if len(s.PlansOfKey(keysScope, keys[i%len(keys)].Key.ID)) != 1 {
				b.Fatal("not found")
			}
			i++
		}
	})
}

// TestAPIByID finds REST APIs by id alone, across scopes.
func TestAPIByID(t *testing.T) {
	now := time.Now()
	s := keysService(t, &now)
	west := awswire.Scope{Account: "111111111111", Region: "us-west-2"}
	custom := map[string]string{CustomIDTag: "shared-id"}
	east, err := s.CreateRestAPI(keysScope, API{ID: "shared-id", Name: "east", Tags: custom}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateRestAPI(west, API{ID: "shared-id", Name: "west", Tags: custom}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ region, want string }{{"", "east"}, {"us-west-2", "west"}, {"eu-north-1", "east"}} {
		a, _, ok := s.APIByID("shared-id", tc.region)
		if !ok || a.API.Name != tc.want {
			t.Errorf("APIByID(region %q) = %v %v, want %s", tc.region, a, ok, tc.want)
		}
	}
	if err := s.DeleteRestAPI(keysScope, east.API.ID); err != nil {
		t.Fatal(err)
	}
	if a, sc, ok := s.APIByID("shared-id", ""); !ok || a.API.Name != "west" || sc != west {
		t.Errorf("after deleting east: %v %v %v", a, sc, ok)
	}
	if _, _, ok := s.APIByID("nope", ""); ok {
		t.Error("an unknown id was found")
	}
}
