package modelschema

import (
	"errors"
	"fmt"
	"testing"
)

func lookup(m map[string]string) Models {
	return func(name string) (string, bool) {
		s, ok := m[name]
		return s, ok
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		empty        bool
		refs         []string
	}{
		{"object", `{"type":"object"}`, false, nil},
		{"empty-object", `{}`, true, nil},
		{"empty-list", `[]`, true, nil},
		{"scalar", `"x"`, true, nil},
		{"refs", `{"a":{"$ref":"https://apigateway.amazonaws.com/restapis/r/models/A"},"b":[{"$ref":"http://apigateway.amazonaws.com/restapis/r/models/B#/x"}],"c":{"$ref":"https://apigateway.amazonaws.com/restapis/r/models/A"},"d":{"$ref":"#/definitions/x"}}`,
			false, []string{"A", "B"}},
	} {
		t.Run("schema="+tc.name, func(t *testing.T) {
			s, err := Parse(tc.schema)
			if err != nil {
				t.Fatal(err)
			}
			if s.Empty() != tc.empty {
				t.Errorf("Empty() = %v, want %v", s.Empty(), tc.empty)
			}
			if got := s.Refs(); fmt.Sprint(got) != fmt.Sprint(tc.refs) {
				t.Errorf("Refs() = %v, want %v", got, tc.refs)
			}
		})
	}
	for _, bad := range []string{"", "<xml/>", `{"a":1} {}`, `{"a":`, `[` + string(make([]byte, 0)) + `]]`} {
		if _, err := Parse(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	deep := ""
	for range 1000 {
		deep += "["
	}
	if _, err := Parse(deep); !errors.Is(err, ErrInvalid) {
		t.Errorf("a schema nested 1000 deep parsed: %v", err)
	}
}

func TestTemplate(t *testing.T) {
	models := map[string]string{
		"Pet":  `{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}}}`,
		"Loop": `{"type":"object","properties":{"next":{"$ref":"https://apigateway.amazonaws.com/restapis/x/models/Loop"}}}`,
	}
	const head = "#set($inputRoot = $input.path('$'))\n"
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"aws-doc-sample", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"op":{"type":"string"},"c":{"type":"number"}}}`,
			"{\n  \"a\" : 3.1415,\n  \"b\" : 3.1415,\n  \"op\" : \"foo\",\n  \"c\" : 3.1415\n}"},
		{"empty-object", `{"type":"object"}`, "{ }"},
		{"scalars", `{"properties":{"i":{"type":"integer"},"b":{"type":"boolean"},"n":{"type":["null","string"]},"e":{"type":"string","enum":["x","y"]}}}`,
			"{\n  \"i\" : 42,\n  \"b\" : true,\n  \"n\" : \"foo\",\n  \"e\" : \"x\"\n}"},
		{"nested", `{"properties":{"o":{"type":"object","properties":{"k":{"type":"string"}}}}}`,
			"{\n  \"o\" : {\n    \"k\" : \"foo\"\n  }\n}"},
		{"array-of-objects", `{"type":"array","items":{"type":"object","properties":{"k":{"type":"integer"}}}}`,
			"[\n  {\n    \"k\" : 42\n  }\n]"},
		{"array-of-strings", `{"properties":{"tags":{"type":"array","items":{"type":"string"}}}}`,
			"{\n  \"tags\" : [\n    \"foo\"\n  ]\n}"},
		{"array-without-items", `{"properties":{"any":{"type":"array"}}}`, "{\n  \"any\" : [ ]\n}"},
		{"model-ref", `{"properties":{"pet":{"$ref":"https://apigateway.amazonaws.com/restapis/x/models/Pet"}}}`,
			"{\n  \"pet\" : {\n    \"id\" : 42,\n    \"name\" : \"foo\"\n  }\n}"},
		{"pointer-ref", `{"definitions":{"d":{"type":"integer"}},"properties":{"v":{"$ref":"#/definitions/d"}}}`,
			"{\n  \"v\" : 42\n}"},
		{"recursive-ref", `{"properties":{"l":{"$ref":"https://apigateway.amazonaws.com/restapis/x/models/Loop"}}}`,
			"{\n  \"l\" : {\n    \"next\" : { }\n  }\n}"},
		{"escaped-key", `{"properties":{"a\"b":{"type":"string"}}}`, "{\n  \"a\\\"b\" : \"foo\"\n}"},
	} {
		t.Run("schema="+tc.name, func(t *testing.T) {
			got, err := Template("M", tc.schema, lookup(models))
			if err != nil || got != head+tc.want {
				t.Fatalf("got %v\n%s\nwant\n%s", err, got, head+tc.want)
			}
		})
	}
	if _, err := Template("X", "<xml/>", lookup(nil)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("not JSON: got %v, want ErrInvalid", err)
	}
}

func TestTemplateBounded(t *testing.T) {
	// Each model references the next twice: the expansion is exponential
	// unless bounded.
	models := map[string]string{}
	for i := range 40 {
		ref := fmt.Sprintf(`{"$ref":"https://apigateway.amazonaws.com/restapis/x/models/M%d"}`, i+1)
		models[fmt.Sprintf("M%d", i)] = `{"properties":{"a":` + ref + `,"b":` + ref + `}}`
	}
	got, err := Template("M0", models["M0"], lookup(models))
	if err != nil || len(got) > 2_000_000 {
		t.Fatalf("template: %v, %d bytes", err, len(got))
	}
}

func TestFlatten(t *testing.T) {
	models := lookup(map[string]string{"Pet": `{"type":"object","properties":{"id":{"type":"integer"}}}`})
	for _, tc := range []struct{ name, schema, want string }{
		{"ref", `{"type":"array","items":{"$ref":"https://apigateway.amazonaws.com/restapis/x/models/Pet"}}`,
			`{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}}}}`},
		{"no-ref", "{ \"type\" : \"object\" }", "{ \"type\" : \"object\" }"},
		{"not-json", "<xml/>", "<xml/>"},
	} {
		t.Run("schema="+tc.name, func(t *testing.T) {
			if got := Flatten("M", tc.schema, models); got != tc.want {
				t.Fatalf("got %s", got)
			}
		})
	}
}
