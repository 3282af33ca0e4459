package apigateway

import (
	"regexp"
	"testing"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
	"github.com/cloudemu/emulator/modelschema"
	"github.com/cloudemu/emulator/pmap"
)

var modelsScope = awswire.Scope{Account: "000000000000", Region: "us-east-1"}

// aPI creates an API with the default models, as CreateRestApi does.
func aPI(t *testing.T, s *Service) *RestAPI {
	t.Helper()
	r, err := s.CreateRestAPI(modelsScope, API{Name: "models"}, func(t *Tx) error {
		DefaultModels(t)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// putMethodAt puts a method on the resource at path (created under the
// root when missing), as the resources group's PutMethod would.
func putMethodAt(t *testing.T, s *Service, apiID, path string, m *Method) {
	t.Helper()
	_, err := Mutate(s, modelsScope, apiID, func(t *Tx) (bool, error) {
		st := t.State()
		var res *Resource
		for _, r := range st.Resources.All() {
			if r.Path == path {
				c := *r
				res = &c
			}
		}
		if res == nil {
			res = &Resource{ID: NewID(6, nil), ParentID: st.API.RootResourceID, PathPart: path[1:], Path: path}
		}
		ms := map[string]*Method{}
		for k, v := range res.Methods {
			ms[k] = v
		}
		ms[m.HTTPMethod] = m
		res.Methods = ms
		t.PutResource(res)
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var iDRe = regexp.MustCompile(`^[a-z0-9]{6}$`)

func TestDefaultModels(t *testing.T) {
	s := testService(t)
	r := aPI(t, s)
	ms, err := s.Models(modelsScope, r.API.ID)
	if err != nil || len(ms) != 2 {
		t.Fatalf("models: %v %+v", err, ms)
	}
	want := []struct{ name, desc, title, template string }{
		{"Empty", "This is a default empty schema model", "Empty Schema", "#set($inputRoot = $input.path('$'))\n{ }"},
		{"Error", "This is a default error schema model", "Error Schema", "#set($inputRoot = $input.path('$'))\n{\n  \"message\" : \"foo\"\n}"},
	}
	for i, w := range want {
		t.Run("name="+w.name, func(t *testing.T) {
			m := ms[i]
			if m.Name != w.name || m.Description != w.desc || m.ContentType != "application/json" || !iDRe.MatchString(m.ID) {
				t.Fatalf("model: %+v", m)
			}
			n, err := modelschema.Parse(m.Schema)
			if err != nil {
				t.Fatal(err)
			}
			if title, _ := n.String("title"); title != w.title {
				t.Fatalf("schema: %s", m.Schema)
			}
			tpl, err := s.GetModelTemplate(modelsScope, r.API.ID, w.name)
			if err != nil || tpl != w.template {
				t.Fatalf("template: %v %q", err, tpl)
			}
		})
	}
	// Calling it again (cloneFrom, a restore) keeps the models as they are.
	before := ms[0].ID
	if _, err := Mutate(s, modelsScope, r.API.ID, func(t *Tx) (bool, error) { DefaultModels(t); return true, nil }); err != nil {
		t.Fatal(err)
	}
	if _, m, _ := s.GetModel(modelsScope, r.API.ID, "Empty"); m.ID != before {
		t.Fatalf("DefaultModels replaced Empty: %s -> %s", before, m.ID)
	}
}

func TestDeleteReferenced(t *testing.T) {
	s := testService(t)
	r := aPI(t, s)
	id := r.API.ID
	m, err := s.CreateModel(modelsScope, id, ModelInput{Name: ptr("MySchema"), ContentType: ptr("application/json"),
		Schema: ptr(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	auth, err := s.CreateAuthorizer(modelsScope, id, AuthorizerInput{Name: ptr("a"), Type: ptr("TOKEN"),
		AuthorizerURI:  ptr("arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:f/invocations"),
		IdentitySource: ptr("method.request.header.Authorization")})
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.CreateRequestValidator(modelsScope, id, ValidatorInput{Name: "v"})
	if err != nil {
		t.Fatal(err)
	}
	putMethodAt(t, s, id, "/", &Method{HTTPMethod: "ANY", AuthorizationType: "CUSTOM", AuthorizerID: auth.ID,
		RequestValidatorID: v.ID, RequestModels: map[string]string{"application/json": m.Name}})
	awswiretest.WantError(t, s.DeleteModel(modelsScope, id, m.Name), awswire.CodeConflict,
		"Cannot delete model 'MySchema', is referenced in method request: //ANY")
	awswiretest.WantError(t, s.DeleteAuthorizer(modelsScope, id, auth.ID), awswire.CodeConflict,
		"Cannot delete authorizer, is referenced in method: ANY//")
	awswiretest.WantError(t, s.DeleteRequestValidator(modelsScope, id, v.ID), awswire.CodeConflict,
		"Cannot delete request validator, is referenced in method: ANY//")

	// With two users AWS names one; this package names the deeper path (MD-03).
	putMethodAt(t, s, id, "/test", &Method{HTTPMethod: "ANY", AuthorizationType: "NONE",
		RequestModels: map[string]string{"application/json": m.Name}})
	awswiretest.WantError(t, s.DeleteModel(modelsScope, id, m.Name), awswire.CodeConflict,
		"Cannot delete model 'MySchema', is referenced in method request: /test/ANY")

	putMethodAt(t, s, id, "/test", &Method{HTTPMethod: "ANY", AuthorizationType: "NONE",
		MethodResponses: map[string]*MethodResponse{"200": {StatusCode: "200", ResponseModels: map[string]string{"application/json": m.Name}}}})
	awswiretest.WantError(t, s.DeleteModel(modelsScope, id, m.Name), awswire.CodeConflict,
		"Cannot delete model 'MySchema', is referenced in method request: //ANY")
	putMethodAt(t, s, id, "/", &Method{HTTPMethod: "ANY", AuthorizationType: "NONE"})
	awswiretest.WantError(t, s.DeleteModel(modelsScope, id, m.Name), awswire.CodeConflict,
		"Cannot delete model 'MySchema', is referenced in method response: /test/ANY")

	// Once no method uses them, they go.
	putMethodAt(t, s, id, "/", &Method{HTTPMethod: "ANY", AuthorizationType: "NONE"})
	putMethodAt(t, s, id, "/test", &Method{HTTPMethod: "ANY", AuthorizationType: "NONE"})
	for _, err := range []error{s.DeleteModel(modelsScope, id, m.Name), s.DeleteAuthorizer(modelsScope, id, auth.ID),
		s.DeleteRequestValidator(modelsScope, id, v.ID)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.GetModel(modelsScope, id, m.Name); err == nil {
		t.Fatal("model still there")
	}
}

func ptr[T any](v T) *T { return &v }

func TestEffectiveGatewayResponse(t *testing.T) {
	put := func(g GatewayResponse) *GatewayResponse { return &g }
	c := &Config{GatewayResponses: pmap.Of(map[string]*GatewayResponse{
		"DEFAULT_5XX": put(GatewayResponse{ResponseType: "DEFAULT_5XX", StatusCode: "599",
			ResponseParameters: map[string]string{"gatewayresponse.header.x": "'y'"},
			ResponseTemplates:  map[string]string{"text/plain": "oops"}}),
		"AUTHORIZER_FAILURE": put(GatewayResponse{ResponseType: "AUTHORIZER_FAILURE", StatusCode: "500",
			ResponseParameters: map[string]string{"gatewayresponse.header.a": "'b'"},
			ResponseTemplates:  defaultGatewayTemplates()}),
		"DEFAULT_4XX": put(GatewayResponse{ResponseType: "DEFAULT_4XX",
			ResponseParameters: map[string]string{}, ResponseTemplates: map[string]string{"application/json": "{}"}}),
	})}
	for _, tc := range []struct {
		typ, status, template string
		params, isDefault     bool
	}{
		{"INTEGRATION_FAILURE", "599", "", true, true},                     // inherits DEFAULT_5XX
		{"API_CONFIGURATION_ERROR", "599", "", true, true},                 // inherits DEFAULT_5XX
		{"AUTHORIZER_FAILURE", "500", DefaultGatewayTemplate, true, false}, // put: its own
		{"DEFAULT_5XX", "599", "", true, false},
		{"THROTTLED", "429", "{}", false, true}, // DEFAULT_4XX has no status: keeps its own
		{"DEFAULT_4XX", "", "{}", false, false},
	} {
		t.Run("type="+tc.typ, func(t *testing.T) {
			g := EffectiveGatewayResponse(c, tc.typ)
			if g.ResponseType != tc.typ || g.StatusCode != tc.status || g.DefaultResponse != tc.isDefault ||
				g.ResponseTemplates["application/json"] != tc.template || (len(g.ResponseParameters) > 0) != tc.params ||
				g.ResponseParameters == nil || g.ResponseTemplates == nil {
				t.Fatalf("got %+v", g)
			}
		})
	}
	if g := EffectiveGatewayResponse(&Config{}, "WAF_FILTERED"); g.StatusCode != "403" || !g.DefaultResponse ||
		len(g.ResponseParameters) != 0 || g.ResponseTemplates["application/json"] != DefaultGatewayTemplate {
		t.Fatalf("default: %+v", g)
	}
	if EffectiveGatewayResponse(&Config{}, "NOPE") != nil {
		t.Fatal("unknown type answered")
	}
}
