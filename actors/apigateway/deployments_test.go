package apigateway

import (
	"testing"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
	"github.com/cloudemu/emulator/pmap"
	"github.com/cloudemu/emulator/store"
)

var depScope = awswire.Scope{Account: "000000000000", Region: "us-east-1"}

// depAPI creates an API whose root has GET, with a MOCK integration when
// integrated.
func depAPI(t *testing.T, s *Service, integrated bool) string {
	t.Helper()
	r, err := s.CreateRestAPI(depScope, API{Name: "deployments"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &Method{HTTPMethod: "GET", AuthorizationType: "NONE"}
	if integrated {
		m.Integration = &Integration{Type: "MOCK"}
	}
	depSetRootMethod(t, s, r.API.ID, m)
	return r.API.ID
}

// depSetRootMethod replaces the root's GET as another group's PutMethod
// would: copying the resource.
func depSetRootMethod(t *testing.T, s *Service, apiID string, m *Method) {
	t.Helper()
	_, err := Mutate(s, depScope, apiID, func(t *Tx) (bool, error) {
		root := *at(t.State().Resources, t.State().API.RootResourceID)
		root.Methods = map[string]*Method{"GET": m}
		t.PutResource(&root)
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDeploymentFreezesConfiguration(t *testing.T) {
	s := testService(t, actorstest.WithStore(store.NewMemory()))
	apiID := depAPI(t, s, true)
	d, err := s.CreateDeployment(depScope, apiID, CreateDeploymentInput{StageName: depStr("dev")})
	if err != nil {
		t.Fatal(err)
	}
	// The method changes after the deployment: the deployment keeps the
	// configuration it froze.
	depSetRootMethod(t, s, apiID, &Method{HTTPMethod: "GET", AuthorizationType: "AWS_IAM", APIKeyRequired: true,
		Integration: &Integration{Type: "MOCK"}})
	api, _ := s.API(depScope, apiID)
	root := api.API.RootResourceID
	if got := at(api.Resources, root).Methods["GET"].AuthorizationType; got != "AWS_IAM" {
		t.Fatalf("live method not changed: %s", got)
	}
	frozen := at(api.Deployments, d.ID).Frozen
	if got := at(frozen.Resources, root).Methods["GET"]; got.AuthorizationType != "NONE" || got.APIKeyRequired {
		t.Fatalf("deployment changed with the live method: %+v", got)
	}
	if sum := APISummary(at(api.Deployments, d.ID)); sum["/"]["GET"].AuthorizationType != "NONE" {
		t.Fatalf("summary: %+v", sum)
	}
	if at(api.Stages, "dev").DeploymentID != d.ID {
		t.Fatalf("stage: %+v", at(api.Stages, "dev"))
	}
	d2, err := s.CreateDeployment(depScope, apiID, CreateDeploymentInput{})
	if err != nil {
		t.Fatal(err)
	}
	api, _ = s.API(depScope, apiID)
	if got := APISummary(at(api.Deployments, d2.ID))["/"]["GET"]; got.AuthorizationType != "AWS_IAM" || !got.APIKeyRequired {
		t.Fatalf("second deployment: %+v", got)
	}
	if at(api.Stages, "dev").DeploymentID != d.ID {
		t.Fatal("a deployment without a stage name moved the stage")
	}
}

func TestDeploymentRefusals(t *testing.T) {
	s := testService(t, actorstest.WithStore(store.NewMemory()))
	bare, err := s.CreateRestAPI(depScope, API{Name: "bare"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	noIntegration := depAPI(t, s, false)
	for _, tc := range []struct {
		name, api, code, msg string
	}{
		{"case=no-methods", bare.API.ID, awswire.CodeBadRequest, "The REST API doesn't contain any methods"},
		{"case=no-integration", noIntegration, awswire.CodeBadRequest, "No integration defined for method"},
		{"case=no-api", "nope", awswire.CodeNotFound, "Invalid API identifier specified 000000000000:nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateDeployment(depScope, tc.api, CreateDeploymentInput{})
			awswiretest.WantError(t, err, tc.code, tc.msg)
			if api, ok := s.API(depScope, tc.api); ok && api.Deployments.Len() != 0 {
				t.Fatal("a refused deployment was kept")
			}
		})
	}
}

func TestDeploymentsPersist(t *testing.T) {
	dir := t.TempDir()
	st, err := store.OpenBolt(dir, store.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := testService(t, actorstest.WithStore(st))
	apiID := depAPI(t, s, true)
	d, err := s.CreateDeployment(depScope, apiID, CreateDeploymentInput{StageName: depStr("prod"), Description: "v1",
		Variables: map[string]string{"v": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateStage(depScope, apiID, "prod", []PatchOp{
		{Op: "replace", Path: "/*/*/throttling/burstLimit", Value: depStr("7")},
	}); err != nil {
		t.Fatal(err)
	}
	depSetRootMethod(t, s, apiID, &Method{HTTPMethod: "GET", AuthorizationType: "AWS_IAM", Integration: &Integration{Type: "MOCK"}})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := store.OpenBolt(dir, store.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close() })
	s2 := testService(t, actorstest.WithStore(st2))
	if err := st2.Load(s2.Restore); err != nil {
		t.Fatal(err)
	}
	if err := s2.RestoreDone(); err != nil {
		t.Fatal(err)
	}
	got, err := s2.Deployment(depScope, apiID, d.ID)
	if err != nil || got.Description != "v1" || got.CreatedDate != d.CreatedDate {
		t.Fatalf("deployment: %v %+v", err, got)
	}
	if m := APISummary(got)["/"]["GET"]; m == nil || m.AuthorizationType != "NONE" {
		t.Fatalf("frozen configuration not restored: %+v", APISummary(got))
	}
	sg, err := s2.Stage(depScope, apiID, "prod")
	if err != nil || sg.DeploymentID != d.ID || sg.Variables["v"] != "1" ||
		sg.MethodSettings["*/*"] == nil || sg.MethodSettings["*/*"].ThrottlingBurstLimit != 7 {
		t.Fatalf("stage: %v %+v", err, sg)
	}
}

func depStr(s string) *string { return &s }

// at is m's value for k, or the zero value.
func at[V any](m pmap.Map[V], k string) V {
	v, _ := m.Get(k)
	return v
}
