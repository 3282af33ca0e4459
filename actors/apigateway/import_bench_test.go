package apigateway

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/oasrest"
)

// doc200 is an OpenAPI 3.0 document of 200 paths, each with a GET (MOCK
// integration with a template and an integration response) and a POST
// (HTTP_PROXY with a path parameter), and one model.
func doc200() []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.1","info":{"title":"bench","version":"1"},"paths":{`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/items%d/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],`+
			`"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Item"}}}}},`+
			`"x-amazon-apigateway-integration":{"type":"mock","requestTemplates":{"application/json":"{\"statusCode\": 200}"},`+
			`"responses":{"default":{"statusCode":"200","responseTemplates":{"application/json":"{\"id\": \"$input.params('id')\"}"}}}}},`+
			`"post":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}},`+
			`"x-amazon-apigateway-integration":{"type":"http_proxy","httpMethod":"POST","uri":"http://127.0.0.1:9/items/{id}",`+
			`"requestParameters":{"integration.request.path.id":"method.request.path.id"}}}}`, i)
	}
	b.WriteString(`},"components":{"schemas":{"Item":{"type":"object","properties":{"id":{"type":"string"}}}}}}`)
	return []byte(b.String())
}

// BenchmarkImportRestAPI200 parses a 200-path document and imports it: one
// write of the new API's owner for its 201 resources, 400 methods, their
// integrations and the model.
func BenchmarkImportRestAPI200(b *testing.B) {
	s := testService(b)
	body := doc200()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		doc, err := oasrest.Parse(body, oasrest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.ImportRestAPI(actorstest.Scope, doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExportRestAPI200 describes a deployed 200-path API's frozen
// configuration and writes it as OpenAPI 3.0 JSON.
func BenchmarkExportRestAPI200(b *testing.B) {
	s := testService(b)
	doc, err := oasrest.Parse(doc200(), oasrest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r, err := s.ImportRestAPI(actorstest.Scope, doc)
	if err != nil {
		b.Fatal(err)
	}
	cfg := &r.Config
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := oasrest.Export(Describe(cfg), oasrest.ExportOptions{APIGateway: true, Host: "x.execute-api.us-east-1.amazonaws.com", Stage: "prod"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse200 is the parsing part of BenchmarkImportRestAPI200.
func BenchmarkParse200(b *testing.B) {
	body := doc200()
	b.ReportAllocs()
	for range b.N {
		if _, err := oasrest.Parse(body, oasrest.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
