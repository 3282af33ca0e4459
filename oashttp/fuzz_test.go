package oashttp

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzParse: no document makes Parse panic or answer something other than
// an API or an *Error, and what it reads exports.
func FuzzParse(f *testing.F) {
	full, _ := os.ReadFile("testdata/full.yaml")
	f.Add(full)
	f.Add([]byte(`{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"$ref": "#/paths/~1a"}}}`))
	f.Add([]byte(`{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {"$default": {"x-amazon-apigateway-any-method": {}}}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		api, err := Parse(doc, BasePathPrepend)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if _, err := Export(api, ExportOptions{IncludeExtensions: true, YAML: true}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestParseHostile(t *testing.T) {
	for _, c := range []struct{ name, doc string }{
		{"deep-json", `{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "x": ` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + `}`},
		{"deep-yaml", "openapi: 3.0.1\ninfo: {title: x, version: '1'}\nx: " + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + "\n"},
		{"alias-bomb", "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
			"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
			"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\nopenapi: 3.0.1\n"},
		{"huge", `{"openapi": "3.0.1", "info": {"title": "` + strings.Repeat("x", MaxDocument) + `"}}`},
	} {
		t.Run("doc="+c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc), "")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
