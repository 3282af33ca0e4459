package oasrest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/oasrest"
)

func TestParseRefuses(t *testing.T) {
	cases := []struct{ name, doc, msg string }{
		{"empty", "", "Invalid OpenAPI input."},
		{"json=malformed", `{"openapi": "3.0.1",`, "Invalid OpenAPI input."},
		{"yaml=malformed", "openapi: 3.0.1\ninfo: [", "Invalid OpenAPI input."},
		{"version=1", `{"swagger": "1.2"}`, "Invalid OpenAPI input."},
		{"ref=alias-cycle", `{"openapi": "3.0.1", "info": {"title": "c", "version": "1"}, "paths": {},
		  "components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}}}}`, "Errors found during import"},
		{"ref=missing", `{"openapi": "3.0.1", "info": {"title": "m", "version": "1"}, "paths": {"/a": {"get": {"responses": {"200": {"description": "ok",
		  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nope"}}}}}}}}}`, "Errors found during import"},
		{"ref=external", `{"openapi": "3.0.1", "info": {"title": "m", "version": "1"}, "paths": {},
		  "components": {"schemas": {"A": {"$ref": "/etc/passwd#/x"}}}}`, "Errors found during import"},
		{"nesting=deep", `{"openapi": "3.0.1", "x": ` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}`, "Invalid OpenAPI input: the document nests deeper"},
		{"validator=unknown", `{"openapi": "3.0.1", "info": {"title": "v", "version": "1"}, "paths": {}, "x-amazon-apigateway-request-validator": "nope"}`,
			"Errors found during import:\n\tUnable to find request validator 'nope'"},
		{"scheme=unknown", `{"openapi": "3.0.1", "info": {"title": "s", "version": "1"}, "paths": {"/a": {"get": {"security": [{"nope": []}], "responses": {}}}}}`,
			"Errors found during import:\n\tUnable to find security scheme 'nope'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := oasrest.Parse([]byte(tc.doc), oasrest.Options{})
			var pe *oasrest.Error
			if !errors.As(err, &pe) || !strings.HasPrefix(pe.Message, tc.msg) {
				t.Fatalf("want %q..., got %v", tc.msg, err)
			}
			t.Log(pe.Message)
		})
	}
}

func TestParseSwaggerAnyMethodAndModels(t *testing.T) {
	doc := `swagger: "2.0"
info: {title: s, version: "1"}
basePath: /v1
paths:
  /things/{id}:
    x-amazon-apigateway-any-method:
      parameters:
        - {name: id, in: path, required: true, type: string}
        - {name: body, in: body, schema: {$ref: "#/definitions/Thing"}}
      responses: {"200": {description: ok}}
      x-amazon-apigateway-integration: {type: mock}
definitions:
  Thing:
    type: object
    properties:
      next: {$ref: "#/definitions/Thing"}
`
	api, err := oasrest.Parse([]byte(doc), oasrest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range api.Resources {
		paths = append(paths, r.Path)
	}
	if strings.Join(paths, " ") != "/ /things /things/{id}" {
		t.Fatalf("paths %v", paths)
	}
	m := api.Resources[2].Methods
	if len(m) != 1 || m[0].HTTPMethod != "ANY" || !m[0].RequestParameters["method.request.path.id"] || m[0].RequestModels["application/json"] != "Thing" {
		t.Fatalf("methods %+v", m)
	}
	if len(api.Models) != 1 || !strings.Contains(api.Models[0].Schema, oasrest.ModelURLPrefix+"Thing") {
		t.Fatalf("models %+v", api.Models)
	}
}

func TestParseBasePath(t *testing.T) {
	swagger := `{"swagger": "2.0", "info": {"title": "b", "version": "1"}, "basePath": "/stage/api/",
	  "paths": {"/things": {"get": {"responses": {"200": {"description": "ok"}}}}}}`
	oas3 := `{"openapi": "3.0.1", "info": {"title": "b", "version": "1"},
	  "servers": [{"url": "https://example.com/{basePath}", "variables": {"basePath": {"default": "stage/api"}}}],
	  "paths": {"/things": {"get": {"responses": {"200": {"description": "ok"}}}}}}`
	for _, doc := range []struct{ name, text string }{{"swagger", swagger}, {"oas30", oas3}} {
		for _, tc := range []struct{ mode, want string }{
			{"", "/things"}, {"ignore", "/things"}, {"prepend", "/stage/api/things"}, {"split", "/api/things"},
		} {
			t.Run("doc="+doc.name+"/basepath="+tc.mode, func(t *testing.T) {
				api, err := oasrest.Parse([]byte(doc.text), oasrest.Options{BasePath: tc.mode})
				if err != nil {
					t.Fatal(err)
				}
				last := api.Resources[len(api.Resources)-1]
				if last.Path != tc.want || len(last.Methods) != 1 {
					t.Fatalf("resources %+v", api.Resources)
				}
			})
		}
	}
	if _, err := oasrest.Parse([]byte(swagger), oasrest.Options{BasePath: "sideways"}); err == nil {
		t.Fatal("basepath=sideways accepted")
	}
}

func TestParseInlineSchemasAndPolicy(t *testing.T) {
	doc := `swagger: "2.0"
info: {title: s, version: "1"}
x-amazon-apigateway-policy: {Version: "2012-10-17", Statement: []}
x-amazon-apigateway-documentation: {version: "1", documentationParts: []}
paths:
  /a:
    post:
      parameters:
        - {name: body, in: body, schema: {type: object, properties: {n: {type: integer}}}}
      responses: {"200": {description: ok, schema: {type: object, properties: {n: {type: integer}}}}}
  /b:
    put:
      parameters:
        - {name: body, in: body, schema: {type: object, properties: {n: {type: integer}}}}
      responses: {"201": {description: ok, schema: {type: string}}}
`
	api, err := oasrest.Parse([]byte(doc), oasrest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(api.Warnings) != 0 || api.Policy != `{"Statement":[],"Version":"2012-10-17"}` {
		t.Fatalf("warnings %v, policy %q", api.Warnings, api.Policy)
	}
	// One schema written three times is one model; another is another.
	names := map[string]bool{}
	for _, m := range api.Models {
		names[m.Name] = true
	}
	if len(api.Models) != 2 {
		t.Fatalf("models %+v", api.Models)
	}
	var post, put oasrest.Method
	for _, r := range api.Resources {
		for _, m := range r.Methods {
			switch r.Path + " " + m.HTTPMethod {
			case "/a POST":
				post = m
			case "/b PUT":
				put = m
			}
		}
	}
	in := post.RequestModels["application/json"]
	if !names[in] || put.RequestModels["application/json"] != in || post.Responses[0].ResponseModels["application/json"] != in ||
		put.Responses[0].ResponseModels["application/json"] == in || !names[put.Responses[0].ResponseModels["application/json"]] {
		t.Fatalf("post %+v put %+v", post, put)
	}
}

func TestParseAnyMethodReferences(t *testing.T) {
	doc := `{"openapi": "3.0.1", "info": {"title": "a", "version": "1"},
	  "paths": {"/p/{id}": {"x-amazon-apigateway-any-method": {
	    "parameters": [{"$ref": "#/components/parameters/Id"}],
	    "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
	    "responses": {"200": {"description": "ok"}}, "x-amazon-apigateway-integration": {"type": "mock"}}}},
	  "components": {"parameters": {"Id": {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}},
	    "schemas": {"Thing": {"type": "object"}}}}`
	api, err := oasrest.Parse([]byte(doc), oasrest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var m *oasrest.Method
	for i := range api.Resources {
		if api.Resources[i].Path == "/p/{id}" && len(api.Resources[i].Methods) == 1 {
			m = &api.Resources[i].Methods[0]
		}
	}
	if m == nil || m.HTTPMethod != "ANY" || !m.RequestParameters["method.request.path.id"] || m.RequestModels["application/json"] != "Thing" ||
		m.Integration == nil || m.Integration.Type != "MOCK" {
		t.Fatalf("ANY method %+v", m)
	}
}
