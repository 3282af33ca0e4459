package oashttp

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, doc []byte, basePath string) *API {
	t.Helper()
	api, err := Parse(doc, basePath)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return api
}

func TestParseFull(t *testing.T) {
	doc, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	api := mustParse(t, doc, "")
	if api.Name != "imported" || api.Description != "every extension" || api.Version != "2024-01-01" || api.ImportExportVersion != "1.0" {
		t.Fatalf("top: %+v", api)
	}
	if api.CORS == nil || api.CORS.MaxAge == nil || *api.CORS.MaxAge != 300 || !reflect.DeepEqual(api.CORS.AllowOrigins, []string{"https://example.com"}) {
		t.Fatalf("cors: %+v", api.CORS)
	}
	if api.DisableExecuteAPIEndpoint == nil || *api.DisableExecuteAPIEndpoint {
		t.Fatalf("disable: %v", api.DisableExecuteAPIEndpoint)
	}
	if len(api.Integrations) != 4 {
		t.Fatalf("integrations (the two /pets ones are one): %d", len(api.Integrations))
	}
	keys := map[string]Route{}
	for _, r := range api.Routes {
		keys[r.Key] = r
	}
	want := map[string]string{"GET /pets": "NONE", "POST /pets": "JWT", "ANY /pets/{petId}": "CUSTOM", "GET /signed": "AWS_IAM", "$default": "NONE"}
	if len(keys) != len(want) {
		t.Fatalf("routes: %+v", api.Routes)
	}
	for k, auth := range want {
		if keys[k].AuthorizationType != auth || keys[k].Integration < 0 {
			t.Errorf("route %s: %+v", k, keys[k])
		}
	}
	if keys["GET /pets"].Integration != keys["POST /pets"].Integration {
		t.Error("identical integrations are not shared")
	}
	if r := keys["POST /pets"]; r.Authorizer != "jwt" || !reflect.DeepEqual(r.Scopes, []string{"pets:write"}) {
		t.Errorf("jwt route: %+v", r)
	}
	if keys["GET /pets"].OperationName != "listPets" {
		t.Errorf("operation name: %+v", keys["GET /pets"])
	}
	if len(api.Authorizers) != 2 {
		t.Fatalf("authorizers: %+v", api.Authorizers)
	}
	la := api.Authorizers[1]
	if la.Type != "REQUEST" || !reflect.DeepEqual(la.IdentitySource, []string{"$request.header.Authorization", "$request.querystring.token"}) ||
		la.ResultTTLInSeconds == nil || *la.ResultTTLInSeconds != 60 || la.EnableSimpleResponses == nil || !*la.EnableSimpleResponses {
		t.Errorf("request authorizer: %+v", la)
	}
	if len(api.Warnings) != 1 || !strings.Contains(api.Warnings[0], "binary-media-types") {
		t.Errorf("warnings: %v", api.Warnings)
	}
	in := api.Integrations[keys["GET /pets"].Integration]
	if in.Type != "HTTP_PROXY" || in.TimeoutInMillis == nil || *in.TimeoutInMillis != 15000 || in.TLSConfig == nil ||
		in.RequestParameters["append:header.x-imported"] != "yes" || in.ResponseParameters["200"]["overwrite:header.x-mapped"] != "done" {
		t.Errorf("integration: %+v", in)
	}

	for _, c := range []struct{ mode, key string }{{"prepend", "GET /v1/pets"}, {"split", "GET /pets"}, {"ignore", "GET /pets"}} {
		t.Run("basepath="+c.mode, func(t *testing.T) {
			if got := mustParse(t, doc, c.mode).Routes[1].Key; got != c.key {
				t.Errorf("key %q, want %q", got, c.key)
			}
		})
	}
}

func TestParseRoundTrip(t *testing.T) {
	doc, _ := os.ReadFile("testdata/full.yaml")
	api := mustParse(t, doc, "")
	api.Warnings = nil
	api.DisableExecuteAPIEndpoint = nil // false is not exported
	for _, y := range []bool{false, true} {
		out, err := Export(api, ExportOptions{ServerURL: "https://x/{basePath}", YAML: y, IncludeExtensions: true})
		if err != nil {
			t.Fatal(err)
		}
		back := mustParse(t, out, "")
		back.ServerURL = api.ServerURL
		if !reflect.DeepEqual(back, api) {
			t.Errorf("yaml=%v: round trip differs:\n%+v\n%+v\n%s", y, back, api, out)
		}
	}
}

func TestParseRefused(t *testing.T) {
	for _, c := range []struct{ name, doc, where string }{
		{"empty", "", ""},
		{"malformed-json", `{"openapi": "3.0.1", "info": {`, ""},
		{"malformed-yaml", "openapi: 3.0.1\ninfo: [\n  title: x", ""},
		{"swagger2", `{"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {}}`, "openapi"},
		{"openapi31", `{"openapi": "3.1.0", "info": {"title": "x", "version": "1"}, "paths": {}}`, "openapi"},
		{"no-title", `{"openapi": "3.0.1", "info": {"version": "1"}, "paths": {}}`, "info.title"},
		{"unknown-type", `{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"get": {"responses": {}, "x-amazon-apigateway-integration": {"type": "mock"}}}}}`,
			"paths./a.get.x-amazon-apigateway-integration.type"},
		{"bad-timeout", `{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"get": {"responses": {}, "x-amazon-apigateway-integration": {"type": "http_proxy", "timeoutInMillis": "soon"}}}}}`,
			"paths./a.get.x-amazon-apigateway-integration.timeoutInMillis"},
		{"unknown-scheme", `{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"get": {"responses": {}, "security": [{"nope": []}]}}}}`,
			"paths./a.get.security"},
		{"ref-cycle", `{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"$ref": "#/paths/~1b"}, "/b": {"$ref": "#/paths/~1a"}}}`, "paths./a"},
		{"external-ref", `{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"$ref": "http://127.0.0.1:1/x.json"}}}`, ""},
	} {
		t.Run("doc="+c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc), "")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if c.where != "" && e.Where != c.where {
				t.Errorf("where = %q, want %q (%v)", e.Where, c.where, err)
			}
		})
	}
}

// A schema that refers to itself is legal OpenAPI and must load.
func TestParseSchemaCycle(t *testing.T) {
	doc := `{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {},
	  "components": {"schemas": {"A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
	  "B": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}}}}}`
	if _, err := Parse([]byte(doc), ""); err != nil {
		t.Fatal(err)
	}
}
