package httpapi

import (
	"fmt"
	"testing"
)

// TestParseValue: mapping values are one source, or text with ${...} and
// bare $... references.
func TestParseValue(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"$request.header.X-Id", "[{1 x-id}]"},
		{"static", "[{0 static}]"},
		{"", "[{0 }]"},
		{"/new/$request.path.id", "[{0 /new/} {3 id}]"},
		{"from-${request.header.x-client}-${stageVariables.v}", "[{0 from-} {1 x-client} {0 -} {7 v}]"},
		{"a $context.requestId.", "[{0 a } {6 requestId} {0 .}]"},
		{"cost: $5 and ${unknown.x}", "[{0 cost: $5 and ${unknown.x}}]"},
		{"${request.header.a", "[{0 ${request.header.a}]"},
	} {
		if got := fmt.Sprint(parseValue(c.in)); got != c.want {
			t.Errorf("parseValue(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestJSONPath: body sources read dotted paths; numbers keep their text.
func TestJSONPath(t *testing.T) {
	body := []byte(`{"n": 12345678901234567890, "a": {"b": [{"c": "x"}, 2]}, "s": "text", "z": null}`)
	for path, want := range map[string]string{
		"n": "12345678901234567890", "a.b[0].c": "x", "a.b[1]": "2", "s": "text", "a.b": `[{"c":"x"},2]`,
		"z": "<none>", "missing": "<none>", "a.b[5]": "<none>", "s.x": "<none>",
	} {
		got, ok := jsonPath(body, path)
		if !ok {
			got = "<none>"
		}
		if got != want {
			t.Errorf("jsonPath(%q) = %q, want %q", path, got, want)
		}
	}
}
