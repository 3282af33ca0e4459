package apigateway

import (
	"testing"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/bench"
	"github.com/cloudemu/emulator/oasrest"
)

// doc200 is the 200-path document of the import benchmarks.
func doc200() []byte { return bench.OpenAPIDocument(200) }

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
