package apigatewayv2

import (
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
	"github.com/cloudemu/emulator/store"
)

var depScope = awswire.Scope{Account: "000000000000", Region: "us-east-1"}

// depAPI creates an API of protocol with no routes.
func depAPI(t *testing.T, s *Service, protocol string) string {
	t.Helper()
	a, err := s.CreateAPI(depScope, API{Name: "deployments", ProtocolType: protocol,
		RouteSelectionExpression: "$request.method $request.path"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a.API.APIID
}

// depPutRoute adds or replaces a route as CreateRoute and UpdateRoute do:
// a new Route value through the Tx.
func depPutRoute(t *testing.T, s *Service, apiID string, r Route) {
	t.Helper()
	if r.AuthorizationType == "" {
		r.AuthorizationType = "NONE"
	}
	_, err := Mutate(s, depScope, apiID, func(tx *Tx) (bool, error) {
		tx.PutRoute(&r)
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func depAPIState(t *testing.T, s *Service, apiID string) *HTTPAPI {
	t.Helper()
	api, ok := s.API(depScope, apiID)
	if !ok {
		t.Fatalf("API %s not found", apiID)
	}
	return api
}

func depStr(s string) *string { return &s }

func depBool(b bool) *bool { return &b }

func TestDeploymentFreezesConfiguration(t *testing.T) {
	s := testService(t, actorstest.WithStore(store.NewMemory()))
	apiID := depAPI(t, s, "HTTP")
	depPutRoute(t, s, apiID, Route{RouteID: "r1", RouteKey: "GET /items", Target: "integrations/aaa"})
	d, err := s.CreateDeployment(depScope, apiID, CreateDeploymentInput{Description: depStr("first")})
	if err != nil {
		t.Fatal(err)
	}
	if d.AutoDeployed || d.DeploymentStatus != "DEPLOYED" || d.Description != "first" || len(d.DeploymentID) != 6 {
		t.Fatalf("deployment = %+v", d)
	}

	// The route changes and another is added after the deployment: the
	// deployment keeps what it froze.
	depPutRoute(t, s, apiID, Route{RouteID: "r1", RouteKey: "GET /items", Target: "integrations/bbb"})
	depPutRoute(t, s, apiID, Route{RouteID: "r2", RouteKey: "POST /items"})
	api := depAPIState(t, s, apiID)
	if got := api.Routes.At("r1").Target; got != "integrations/bbb" {
		t.Fatalf("live route not changed: %s", got)
	}
	frozen := api.Deployments.At(d.DeploymentID).Frozen
	if got := frozen.Routes.At("r1").Target; got != "integrations/aaa" {
		t.Fatalf("frozen route target = %s, want integrations/aaa", got)
	}
	if _, ok := frozen.Routes.Get("r2"); ok || frozen.Routes.Len() != 1 {
		t.Fatalf("frozen routes = %v, want only r1", frozen.Routes)
	}

	// A second deployment sees the change; the first still does not.
	d2, err := s.CreateDeployment(depScope, apiID, CreateDeploymentInput{})
	if err != nil {
		t.Fatal(err)
	}
	api = depAPIState(t, s, apiID)
	if got := api.Deployments.At(d2.DeploymentID).Frozen.Routes.At("r1").Target; got != "integrations/bbb" {
		t.Fatalf("second deployment's target = %s", got)
	}
	if got := api.Deployments.At(d.DeploymentID).Frozen.Routes.At("r1").Target; got != "integrations/aaa" {
		t.Fatalf("first deployment changed: %s", got)
	}
}

func TestDeploymentRefusals(t *testing.T) {
	s := testService(t, actorstest.WithStore(store.NewMemory()))
	httpAPI := depAPI(t, s, "HTTP")
	wsAPI := depAPI(t, s, "WEBSOCKET")
	for _, tc := range []struct {
		name, apiID string
		in          CreateDeploymentInput
		code, msg   string
	}{
		{"protocol=HTTP/no-routes", httpAPI, CreateDeploymentInput{}, awswire.CodeBadRequest,
			"Unable to deploy API because no routes exist in this API"},
		{"protocol=WEBSOCKET/no-routes", wsAPI, CreateDeploymentInput{}, awswire.CodeBadRequest,
			"At least one route is required before deploying the Api"},
		{"stage=unknown", httpAPI, CreateDeploymentInput{StageName: depStr("nope")}, awswire.CodeNotFound,
			"Invalid stage identifier specified"},
		{"api=unknown", "nope", CreateDeploymentInput{}, awswire.CodeNotFound,
			"Invalid API identifier specified 000000000000:nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateDeployment(depScope, tc.apiID, tc.in)
			awswiretest.WantError(t, err, tc.code, tc.msg)
		})
	}
}

// TestAutoDeployFollowsRouteChanges drives the whole autoDeploy flow: a
// stage created with autoDeploy before any route has no deployment; each
// route change then deploys and re-points it, while a stage without
// autoDeploy stays where it was.
func TestAutoDeployFollowsRouteChanges(t *testing.T) {
	s := testService(t, actorstest.WithStore(store.NewMemory()))
	apiID := depAPI(t, s, "HTTP")
	auto, err := s.CreateStage(depScope, apiID, StageInput{StageName: depStr("auto"), AutoDeploy: depBool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if auto.DeploymentID != "" || auto.LastDeploymentStatusMessage != "" || !auto.AutoDeploy {
		t.Fatalf("auto stage before any route = %+v", auto)
	}

	depPutRoute(t, s, apiID, Route{RouteID: "r1", RouteKey: "GET /a", Target: "integrations/one"})
	api := depAPIState(t, s, apiID)
	first := api.Stages.At("auto").DeploymentID
	d, ok := api.Deployments.Get(first)
	if !ok {
		t.Fatalf("auto stage not deployed: %+v", api.Stages.At("auto"))
	}
	if !d.AutoDeployed || d.Description != "Automatic deployment triggered by changes to the Api configuration" {
		t.Fatalf("auto deployment = %+v", d)
	}
	if got, want := api.Stages.At("auto").LastDeploymentStatusMessage, "Successfully deployed stage with deployment ID '"+first+"'"; got != want {
		t.Fatalf("lastDeploymentStatusMessage = %q, want %q", got, want)
	}
	if d.Frozen.Routes.At("r1").Target != "integrations/one" {
		t.Fatalf("auto deployment froze %+v", d.Frozen.Routes)
	}

	// A manual stage on that deployment does not follow changes.
	if _, err := s.CreateStage(depScope, apiID, StageInput{StageName: depStr("manual"), DeploymentID: &first}); err != nil {
		t.Fatal(err)
	}
	depPutRoute(t, s, apiID, Route{RouteID: "r1", RouteKey: "GET /a", Target: "integrations/two"})
	api = depAPIState(t, s, apiID)
	second := api.Stages.At("auto").DeploymentID
	if second == first || second == "" {
		t.Fatalf("auto stage not re-pointed: %s -> %s", first, second)
	}
	if got := api.Deployments.At(second).Frozen.Routes.At("r1").Target; got != "integrations/two" {
		t.Fatalf("second auto deployment froze target %s", got)
	}
	if got := api.Deployments.At(first).Frozen.Routes.At("r1").Target; got != "integrations/one" {
		t.Fatalf("first auto deployment changed to %s", got)
	}
	if got := api.Stages.At("manual").DeploymentID; got != first {
		t.Fatalf("manual stage moved to %s", got)
	}
	if api.Deployments.Len() != 2 {
		t.Fatalf("deployments = %d, want 2", api.Deployments.Len())
	}

	// A stage change is not a configuration change: no new deployment.
	if _, err := s.UpdateStage(depScope, apiID, "auto", StageInput{Description: depStr("x")}); err != nil {
		t.Fatal(err)
	}
	if n := depAPIState(t, s, apiID).Deployments.Len(); n != 2 {
		t.Fatalf("stage update deployed: %d deployments", n)
	}

	// An authorizer is configuration: creating one redeploys.
	if _, err := s.CreateAuthorizer(depScope, apiID, AuthorizerInput{Name: depStr("jwt"), AuthorizerType: depStr("JWT"),
		IdentitySource:   []string{"$request.header.Authorization"},
		JWTConfiguration: &JWTConfiguration{Issuer: "https://issuer.example.com", Audience: []string{"aud"}}}); err != nil {
		t.Fatal(err)
	}
	api = depAPIState(t, s, apiID)
	third := api.Stages.At("auto").DeploymentID
	if third == second || api.Deployments.At(third).Frozen.Authorizers.Len() != 1 {
		t.Fatalf("authorizer change did not redeploy: %s", third)
	}
}

func TestAutoDeploySwitchedOnDeploys(t *testing.T) {
	s := testService(t, actorstest.WithStore(store.NewMemory()))
	apiID := depAPI(t, s, "HTTP")
	depPutRoute(t, s, apiID, Route{RouteID: "r1", RouteKey: "$default"})

	// Created with autoDeploy on an API that has routes: deployed at once.
	st, err := s.CreateStage(depScope, apiID, StageInput{StageName: depStr("$default"), AutoDeploy: depBool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if st.DeploymentID == "" || st.LastDeploymentStatusMessage != DeployedMessage(st.DeploymentID) {
		t.Fatalf("created auto stage = %+v", st)
	}

	// Switched on later: deployed at once too.
	st, err = s.CreateStage(depScope, apiID, StageInput{StageName: depStr("dev")})
	if err != nil {
		t.Fatal(err)
	}
	if st.DeploymentID != "" {
		t.Fatalf("manual stage got deployment %s", st.DeploymentID)
	}
	st, err = s.UpdateStage(depScope, apiID, "dev", StageInput{AutoDeploy: depBool(true)})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := depAPIState(t, s, apiID).Deployments.Get(st.DeploymentID)
	if !ok || !d.AutoDeployed {
		t.Fatalf("switching autoDeploy on: stage %+v, deployment %+v", st, d)
	}

	// With autoDeploy on, the deployment is not the client's to choose.
	_, err = s.UpdateStage(depScope, apiID, "dev", StageInput{DeploymentID: &st.DeploymentID})
	awswiretest.WantError(t, err, awswire.CodeBadRequest, "")
	// Switching it off in the same request makes it the client's again.
	if _, err := s.UpdateStage(depScope, apiID, "dev", StageInput{AutoDeploy: depBool(false), DeploymentID: &st.DeploymentID}); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteDeploymentInUse(t *testing.T) {
	s := testService(t, actorstest.WithStore(store.NewMemory()))
	apiID := depAPI(t, s, "HTTP")
	depPutRoute(t, s, apiID, Route{RouteID: "r1", RouteKey: "GET /"})
	d, err := s.CreateDeployment(depScope, apiID, CreateDeploymentInput{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateStage(depScope, apiID, StageInput{StageName: depStr("dev"), DeploymentID: &d.DeploymentID}); err != nil {
		t.Fatal(err)
	}
	awswiretest.WantError(t, s.DeleteDeployment(depScope, apiID, d.DeploymentID), awswire.CodeBadRequest,
		"Active stages pointing to this deployment must be moved or deleted")
	if err := s.DeleteStage(depScope, apiID, "dev"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDeployment(depScope, apiID, d.DeploymentID); err != nil {
		t.Fatal(err)
	}
	awswiretest.WantError(t, s.DeleteDeployment(depScope, apiID, d.DeploymentID), awswire.CodeNotFound, "Invalid Deployment identifier specified")
}

func TestDeleteAuthorizerInUse(t *testing.T) {
	s := testService(t, actorstest.WithStore(store.NewMemory()))
	apiID := depAPI(t, s, "HTTP")
	a, err := s.CreateAuthorizer(depScope, apiID, AuthorizerInput{Name: depStr("lambda"), AuthorizerType: depStr("REQUEST"),
		AuthorizerURI:                  depStr("arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:f/invocations"),
		AuthorizerPayloadFormatVersion: depStr("2.0"), IdentitySource: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	depPutRoute(t, s, apiID, Route{RouteID: "r2", RouteKey: "POST /pdf/generate", AuthorizationType: "CUSTOM", AuthorizerID: a.AuthorizerID})
	depPutRoute(t, s, apiID, Route{RouteID: "r1", RouteKey: "GET /pdf", AuthorizationType: "CUSTOM", AuthorizerID: a.AuthorizerID})
	awswiretest.WantError(t, s.DeleteAuthorizer(depScope, apiID, a.AuthorizerID), awswire.CodeConflict,
		"Cannot delete authorizer 'lambda', is referenced in route: GET /pdf")
	depPutRoute(t, s, apiID, Route{RouteID: "r1", RouteKey: "GET /pdf"})
	depPutRoute(t, s, apiID, Route{RouteID: "r2", RouteKey: "POST /pdf/generate"})
	if err := s.DeleteAuthorizer(depScope, apiID, a.AuthorizerID); err != nil {
		t.Fatal(err)
	}
}

func TestStageLastUpdatedDate(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	sys := actors.NewSystem(log, 5*time.Second)
	t.Cleanup(sys.Shutdown)
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli())
	s := New(sys, store.NewMemory(), func() time.Time { return time.UnixMilli(clock.Load()) }, log)
	tick := func() awswire.ISOTime { return awswire.ISOTime(clock.Add(int64(time.Minute / time.Millisecond))) }

	apiID := depAPI(t, s, "HTTP")
	depPutRoute(t, s, apiID, Route{RouteID: "r1", RouteKey: "GET /"})
	created := awswire.ISOTime(clock.Load())
	if _, err := s.CreateStage(depScope, apiID, StageInput{StageName: depStr("dev"),
		RouteSettings: map[string]*RouteSettings{"GET /": {}},
		AccessLogSettings: &AccessLogSettings{DestinationARN: "arn:aws:logs:us-east-1:000000000000:log-group:g",
			Format: "$context.requestId"}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func() error
	}{
		{"op=UpdateStage", func() error {
			_, err := s.UpdateStage(depScope, apiID, "dev", StageInput{Description: depStr("d")})
			return err
		}},
		{"op=CreateDeployment", func() error {
			_, err := s.CreateDeployment(depScope, apiID, CreateDeploymentInput{StageName: depStr("dev")})
			return err
		}},
		{"op=DeleteRouteSettings", func() error { return s.DeleteRouteSettings(depScope, apiID, "dev", "GET /") }},
		{"op=DeleteAccessLogSettings", func() error { return s.DeleteAccessLogSettings(depScope, apiID, "dev") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := tick()
			if err := tc.change(); err != nil {
				t.Fatal(err)
			}
			st := depAPIState(t, s, apiID).Stages.At("dev")
			if st.LastUpdatedDate != now || st.CreatedDate != created {
				t.Fatalf("createdDate %v lastUpdatedDate %v, want %v and %v", st.CreatedDate, st.LastUpdatedDate, created, now)
			}
		})
	}
}
