package apigatewayv2

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/store"
)

// newMappedAPI creates an HTTP API with stages dev and prod, and a domain.
func newMappedAPI(t *testing.T, s *Service, domain string) string {
	t.Helper()
	name, proto := "mapped", "HTTP"
	a, err := s.NewAPI(apisScope, APIInput{Name: &name, ProtocolType: &proto})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{"dev", "prod"} {
		if _, err := s.CreateStage(apisScope, a.API.APIID, StageInput{StageName: &st}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := s.Domain(apisScope, domain); !ok {
		if _, err := s.CreateDomainName(apisScope, DomainName{DomainName: domain,
			DomainNameConfigurations: []DomainNameConfiguration{{CertificateARN: "arn:aws:acm:us-east-1:000000000000:certificate/abc"}}}); err != nil {
			t.Fatal(err)
		}
	}
	return a.API.APIID
}

func mappingKeys(t *testing.T, s *Service, domain string) []string {
	t.Helper()
	ms, err := s.APIMappings(apisScope, domain)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.APIMappingKey)
	}
	slices.Sort(out)
	return out
}

func TestDeletesDropMappings(t *testing.T) {
	s := testService(t)
	api := newMappedAPI(t, s, "api.example.com")
	other := newMappedAPI(t, s, "api.example.com")
	for _, m := range []APIMapping{{APIID: api, Stage: "dev", APIMappingKey: "dev"}, {APIID: api, Stage: "prod", APIMappingKey: "prod"},
		{APIID: other, Stage: "prod", APIMappingKey: "other"}} {
		if _, err := s.CreateAPIMapping(apisScope, "api.example.com", m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteStage(apisScope, api, "dev"); err != nil {
		t.Fatal(err)
	}
	if got := mappingKeys(t, s, "api.example.com"); !slices.Equal(got, []string{"other", "prod"}) {
		t.Fatalf("after deleting dev: %v", got)
	}
	if err := s.DeleteAPI(apisScope, api); err != nil {
		t.Fatal(err)
	}
	if got := mappingKeys(t, s, "api.example.com"); !slices.Equal(got, []string{"other"}) {
		t.Fatalf("after deleting the API: %v", got)
	}
}

// TestDeleteStageWhileMapping maps a stage while it is deleted: the mapping
// never outlives the stage.
func TestDeleteStageWhileMapping(t *testing.T) {
	s := testService(t)
	for i := range 50 {
		api := newMappedAPI(t, s, "race.example.com")
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, _ = s.CreateAPIMapping(apisScope, "race.example.com", APIMapping{APIID: api, Stage: "dev", APIMappingKey: "k" + api})
		}()
		go func() { defer wg.Done(); _ = s.DeleteStage(apisScope, api, "dev") }()
		wg.Wait()
		for _, k := range mappingKeys(t, s, "race.example.com") {
			if k == "k"+api {
				t.Fatalf("round %d: a mapping outlived its stage", i)
			}
		}
	}
}

// TestRestoreDropsDanglingMappings is the crash between an API's durable
// delete and its fan-out: after a restart its mappings are gone, durably.
func TestRestoreDropsDanglingMappings(t *testing.T) {
	dir := t.TempDir()
	open := func() store.Store {
		st, err := store.OpenBolt(dir, store.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := open()
	s := testService(t, actorstest.WithStore(st))
	gone := newMappedAPI(t, s, "crash.example.com")
	kept := newMappedAPI(t, s, "crash.example.com")
	for _, m := range []APIMapping{{APIID: gone, Stage: "dev", APIMappingKey: "gone"}, {APIID: kept, Stage: "dev", APIMappingKey: "kept"}} {
		if _, err := s.CreateAPIMapping(apisScope, "crash.example.com", m); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Apply(st.Epoch(), store.Del(apiKey(apisScope, gone)), store.DelPrefix(apiKey(apisScope, gone)+"/")); err != nil {
		t.Fatal(err)
	}
	s.Detach()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open()
	s = testService(t, actorstest.WithStore(st))
	if err := st.Load(s.Restore); err != nil {
		t.Fatal(err)
	}
	if err := s.RestoreDone(); err != nil {
		t.Fatal(err)
	}
	if got := mappingKeys(t, s, "crash.example.com"); !slices.Equal(got, []string{"kept"}) {
		t.Fatalf("mappings after restart: %v", got)
	}
	s.Detach()
	// The fix is durable: the domain's record itself no longer holds it.
	var rec DomainState
	if err := st.Load(func(key string, value []byte) error {
		if key == domainKey(apisScope, "crash.example.com") {
			return json.Unmarshal(value, &rec)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	if len(rec.Mappings) != 1 {
		t.Fatalf("persisted domain holds %d mappings, want 1", len(rec.Mappings))
	}
}
