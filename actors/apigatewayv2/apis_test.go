package apigatewayv2

import (
	"testing"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
)

var apisScope = awswire.Scope{Account: "000000000000", Region: "us-east-1"}

func apisStr(s string) *string { return &s }

// apisNew creates an API, failing the test on error.
func apisNew(t *testing.T, s *Service, in APIInput) *HTTPAPI {
	t.Helper()
	r, err := s.NewAPI(apisScope, in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// apisState is the API's published state.
func apisState(t *testing.T, s *Service, id string) *HTTPAPI {
	t.Helper()
	a, ok := s.API(apisScope, id)
	if !ok {
		t.Fatalf("API %s not found", id)
	}
	return a
}

func TestAPIsQuickCreate(t *testing.T) {
	s := testService(t)
	for _, tc := range []struct {
		name, target, routeKey                string
		wantType, wantMethod, wantFormat, key string
	}{
		{name: "target=lambda", target: "arn:aws:lambda:us-east-1:123456789012:function:fn",
			wantType: "AWS_PROXY", wantMethod: "POST", wantFormat: "2.0", key: "$default"},
		{name: "target=url,routeKey=custom", target: "https://example.com/x", routeKey: "POST /demo",
			wantType: "HTTP_PROXY", wantMethod: "ANY", wantFormat: "1.0", key: "POST /demo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := APIInput{Name: apisStr("quick"), ProtocolType: apisStr("HTTP"), Target: &tc.target,
				CredentialsARN: apisStr("arn:aws:iam::123456789012:role/r")}
			if tc.routeKey != "" {
				in.RouteKey = &tc.routeKey
			}
			a := apisState(t, s, apisNew(t, s, in).API.APIID)
			if a.Integrations.Len() != 1 || a.Routes.Len() != 1 || a.Stages.Len() != 1 || a.Deployments.Len() != 1 {
				t.Fatalf("want one of each, got %d integrations, %d routes, %d stages, %d deployments",
					a.Integrations.Len(), a.Routes.Len(), a.Stages.Len(), a.Deployments.Len())
			}
			for _, i := range a.Integrations.All() {
				if !i.APIGatewayManaged || i.IntegrationType != tc.wantType || i.IntegrationMethod != tc.wantMethod ||
					i.PayloadFormatVersion != tc.wantFormat || i.TimeoutInMillis != 30000 || i.IntegrationURI != tc.target ||
					i.ConnectionType != "INTERNET" || len(i.IntegrationID) != 7 || i.CredentialsARN != *in.CredentialsARN {
					t.Fatalf("integration: %+v", i)
				}
				for _, r := range a.Routes.All() {
					if !r.APIGatewayManaged || r.RouteKey != tc.key || r.Target != "integrations/"+i.IntegrationID ||
						r.AuthorizationType != "NONE" || len(r.RouteID) != 7 {
						t.Fatalf("route: %+v", r)
					}
				}
			}
			st, _ := a.Stages.Get("$default")
			for _, d := range a.Deployments.All() {
				if !d.AutoDeployed || d.DeploymentStatus != "DEPLOYED" || d.Frozen == nil || d.Frozen.Routes.Len() != 1 {
					t.Fatalf("deployment: %+v", d)
				}
				if st == nil || !st.AutoDeploy || !st.APIGatewayManaged || st.DeploymentID != d.DeploymentID ||
					st.LastDeploymentStatusMessage != DeployedMessage(d.DeploymentID) {
					t.Fatalf("stage: %+v", st)
				}
			}
		})
	}
}

func TestAPIsRouteChangeAutoDeploys(t *testing.T) {
	s := testService(t)
	a := apisNew(t, s, APIInput{Name: apisStr("a"), ProtocolType: apisStr("HTTP"), Target: apisStr("https://example.com")})
	first := apisState(t, s, a.API.APIID).Stages.At("$default").DeploymentID
	var integration string
	for id := range a.Integrations.All() {
		integration = id
	}
	r, err := s.CreateRoute(apisScope, a.API.APIID, RouteInput{RouteKey: apisStr("GET /items/{id}"), Target: apisStr("integrations/" + integration)})
	if err != nil {
		t.Fatal(err)
	}
	now := apisState(t, s, a.API.APIID)
	st, _ := now.Stages.Get("$default")
	if st.DeploymentID == first || now.Deployments.Len() != 2 {
		t.Fatalf("no new deployment: stage %+v, %d deployments", st, now.Deployments.Len())
	}
	if _, ok := now.Deployments.At(st.DeploymentID).Frozen.Routes.Get(r.RouteID); !ok {
		t.Fatal("the new deployment does not hold the new route")
	}
	if _, ok := now.Deployments.At(first).Frozen.Routes.Get(r.RouteID); ok {
		t.Fatal("the first deployment changed")
	}
}

func TestAPIsUpdateQuickCreate(t *testing.T) {
	s := testService(t)
	a := apisNew(t, s, APIInput{Name: apisStr("a"), ProtocolType: apisStr("HTTP"), Target: apisStr("https://example.com")})
	id := a.API.APIID
	if _, err := s.UpdateAPI(apisScope, id, APIInput{Target: apisStr("arn:aws:lambda:us-east-1:123456789012:function:f"),
		RouteKey: apisStr("ANY /{proxy+}")}); err != nil {
		t.Fatal(err)
	}
	st := apisState(t, s, id)
	for _, i := range st.Integrations.All() {
		if i.IntegrationType != "AWS_PROXY" || i.IntegrationMethod != "POST" || i.PayloadFormatVersion != "2.0" {
			t.Fatalf("integration: %+v", i)
		}
	}
	for _, r := range st.Routes.All() {
		if r.RouteKey != "ANY /{proxy+}" || !r.APIGatewayManaged {
			t.Fatalf("route: %+v", r)
		}
	}
	_, err := s.UpdateAPI(apisScope, id, APIInput{Target: apisStr("")})
	awswiretest.WantError(t, err, awswire.CodeBadRequest, apisMsgTarget)

	plain := apisNew(t, s, APIInput{Name: apisStr("b"), ProtocolType: apisStr("HTTP")})
	_, err = s.UpdateAPI(apisScope, plain.API.APIID, APIInput{Target: apisStr("https://example.com")})
	awswiretest.WantError(t, err, awswire.CodeBadRequest, apisMsgQuickNotCreated)
}

// apisPutAuthorizer adds an authorizer as the authorizers' group would.
func apisPutAuthorizer(t *testing.T, s *Service, apiID string, a *Authorizer) {
	t.Helper()
	if _, err := Mutate(s, apisScope, apiID, func(t *Tx) (bool, error) {
		t.PutAuthorizer(a)
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestRoutesAuthorization(t *testing.T) {
	s := testService(t)
	id := apisNew(t, s, APIInput{Name: apisStr("auth"), ProtocolType: apisStr("HTTP")}).API.APIID
	apisPutAuthorizer(t, s, id, &Authorizer{AuthorizerID: "jwt111", AuthorizerType: "JWT", Name: "j"})
	apisPutAuthorizer(t, s, id, &Authorizer{AuthorizerID: "req111", AuthorizerType: "REQUEST", Name: "r"})
	n := 0
	key := func() *string { n++; return apisStr("GET /r" + string(rune('a'+n))) }
	for _, tc := range []struct {
		name      string
		in        RouteInput
		code, msg string
	}{
		{name: "type=JWT,authorizer=jwt,scopes", in: RouteInput{AuthorizationType: apisStr("JWT"), AuthorizerID: apisStr("jwt111"),
			AuthorizationScopes: []string{"read"}}},
		{name: "type=CUSTOM,authorizer=request", in: RouteInput{AuthorizationType: apisStr("CUSTOM"), AuthorizerID: apisStr("req111")}},
		{name: "type=AWS_IAM", in: RouteInput{AuthorizationType: apisStr("AWS_IAM")}},
		{name: "type=JWT,authorizer=request", in: RouteInput{AuthorizationType: apisStr("JWT"), AuthorizerID: apisStr("req111")},
			code: awswire.CodeBadRequest, msg: routeMsgJWTAuthorizer},
		{name: "type=JWT,authorizer=none", in: RouteInput{AuthorizationType: apisStr("JWT")},
			code: awswire.CodeBadRequest, msg: routeMsgJWTAuthorizer},
		{name: "type=CUSTOM,authorizer=jwt", in: RouteInput{AuthorizationType: apisStr("CUSTOM"), AuthorizerID: apisStr("jwt111")},
			code: awswire.CodeBadRequest, msg: routeMsgCustomAuthorizer},
		{name: "type=CUSTOM,authorizer=missing", in: RouteInput{AuthorizationType: apisStr("CUSTOM"), AuthorizerID: apisStr("nope")},
			code: awswire.CodeBadRequest, msg: routeMsgCustomAuthorizer},
		{name: "type=NONE,scopes", in: RouteInput{AuthorizationType: apisStr("NONE"), AuthorizationScopes: []string{"x"}},
			code: awswire.CodeBadRequest, msg: routeMsgScopes},
		{name: "type=bogus", in: RouteInput{AuthorizationType: apisStr("COGNITO_USER_POOLS")},
			code: awswire.CodeBadRequest, msg: routeMsgAuthType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.RouteKey = key()
			r, err := s.CreateRoute(apisScope, id, in)
			if tc.code != "" {
				awswiretest.WantError(t, err, tc.code, tc.msg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.AuthorizationType != *in.AuthorizationType || r.AuthorizerID != derefStr(in.AuthorizerID) ||
				len(r.AuthorizationScopes) != len(in.AuthorizationScopes) {
				t.Fatalf("route: %+v", r)
			}
		})
	}

	r, err := s.CreateRoute(apisScope, id, RouteInput{RouteKey: apisStr("GET /secure"), AuthorizationType: apisStr("JWT"),
		AuthorizerID: apisStr("jwt111"), AuthorizationScopes: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.UpdateRoute(apisScope, id, r.RouteID, RouteInput{AuthorizerID: apisStr("jwt111")})
	awswiretest.WantError(t, err, awswire.CodeBadRequest, routeMsgAuthorizerOnly)
	up, err := s.UpdateRoute(apisScope, id, r.RouteID, RouteInput{AuthorizationType: apisStr("NONE")})
	if err != nil || up.AuthorizerID != "" || up.AuthorizationScopes != nil || up.AuthorizationType != "NONE" {
		t.Fatalf("detach: %v %+v", err, up)
	}
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestRoutesCheckKey(t *testing.T) {
	for _, tc := range []struct {
		proto, key string
		msg        string // "" when valid
	}{
		{proto: "HTTP", key: "$default"},
		{proto: "HTTP", key: "ANY /{proxy+}"},
		{proto: "HTTP", key: "GET /items/{id}"},
		{proto: "HTTP", key: "GET /"},
		{proto: "HTTP", key: "POST /a-b_c.d/~x/v1:run"},
		{proto: "HTTP", key: "GET /a/{b}/c/{d+}"},
		{proto: "WEBSOCKET", key: "$connect"},
		{proto: "WEBSOCKET", key: "sendMessage"},
		{proto: "HTTP", key: "", msg: routeMsgKeyRequired},
		{proto: "WEBSOCKET", key: "", msg: routeMsgKeyRequired},
		{proto: "HTTP", key: "$connect", msg: "format"},
		{proto: "HTTP", key: "GET", msg: "format"},
		{proto: "HTTP", key: "get /x", msg: "format"},
		{proto: "HTTP", key: "FETCH /x", msg: "format"},
		{proto: "HTTP", key: "GET x", msg: "format"},
		{proto: "HTTP", key: "GET  /x", msg: "format"},
		{proto: "HTTP", key: "GET /a//b", msg: routeMsgPathParts},
		{proto: "HTTP", key: "GET /a/", msg: routeMsgPathParts},
		{proto: "HTTP", key: "GET /{eventId}.json", msg: routeMsgPathParts},
		{proto: "HTTP", key: "GET /{proxy+}/x", msg: routeMsgPathParts},
		{proto: "HTTP", key: "GET /{a}/{a}", msg: routeMsgPathParts},
		{proto: "HTTP", key: "GET /{}", msg: routeMsgPathParts},
		{proto: "HTTP", key: "GET /a b", msg: routeMsgPathParts},
		{proto: "HTTP", key: "GET /a?b", msg: routeMsgPathParts},
	} {
		t.Run("proto="+tc.proto+",key="+tc.key, func(t *testing.T) {
			err := routeCheckKey(tc.proto, tc.key)
			switch tc.msg {
			case "":
				if err != nil {
					t.Fatal(err)
				}
			case "format":
				awswiretest.WantError(t, err, awswire.CodeBadRequest, "Invalid route key specified: "+tc.key+routeMsgKeyFormat[len("Invalid route key specified: %s"):])
			default:
				awswiretest.WantError(t, err, awswire.CodeBadRequest, tc.msg)
			}
		})
	}
}

func TestRoutesVarsClash(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		clash bool
	}{
		{a: "/orgs/{orgId}/stages/{stageId}/q", b: "/orgs/{orgId}/stages/{stage_id}/q", clash: true},
		{a: "/items/{id}", b: "/items/{name}", clash: true},
		{a: "/items/{id}", b: "/items/{proxy+}", clash: true},
		{a: "/items/{id}", b: "/items/{id}/parts"},
		{a: "/items/{id}", b: "/users/{name}"},
		{a: "/items/{id}", b: "/items/special"},
		{a: "/{proxy+}", b: "/items/{id}"},
		{a: "/", b: "/{id}"},
	} {
		t.Run("a="+tc.a+",b="+tc.b, func(t *testing.T) {
			x := RouteIndex{}.update(nil, &Route{RouteID: "b", RouteKey: "GET " + tc.b})
			if _, got := x.clash("POST "+tc.a, "a"); got != tc.clash {
				t.Fatalf("got %v", got)
			}
			if _, got := x.clash("POST "+tc.a, "b"); got {
				t.Fatal("a route clashes with itself")
			}
		})
	}
}

func TestAPIsUpdateRedeploysOnlyOnChange(t *testing.T) {
	s := testService(t)
	id := apisNew(t, s, APIInput{Name: apisStr("a"), ProtocolType: apisStr("HTTP"), Target: apisStr("https://example.com")}).API.APIID
	for _, tc := range []struct {
		name string
		in   APIInput
		want int // deployments after the update
	}{
		{name: "change=none", in: APIInput{Name: apisStr("a")}, want: 1},
		{name: "change=description", in: APIInput{Description: apisStr("d")}, want: 2},
		{name: "change=none-again", in: APIInput{Description: apisStr("d")}, want: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.UpdateAPI(apisScope, id, tc.in); err != nil {
				t.Fatal(err)
			}
			if n := apisState(t, s, id).Deployments.Len(); n != tc.want {
				t.Fatalf("%d deployments, want %d", n, tc.want)
			}
		})
	}
	if err := s.DeleteCORS(apisScope, id); err != nil {
		t.Fatal(err)
	}
	if n := apisState(t, s, id).Deployments.Len(); n != 2 {
		t.Fatalf("deleting no CORS configuration redeployed: %d deployments", n)
	}
}
