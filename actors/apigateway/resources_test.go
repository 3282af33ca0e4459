package apigateway

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodeNoEscape is encoding/json as restjson.Marshal configures it.
func encodeNoEscape(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func TestTemplatesJSON(t *testing.T) {
	in := Templates{"application/json": "{\"a\": \"<b>\"}", "text/plain": "", "application/xml": "x"}
	got := encodeNoEscape(t, struct {
		T Templates `json:"t,omitzero"`
		N Templates `json:"n,omitzero"`
		E Templates `json:"e,omitzero"`
	}{T: in, E: Templates{}})
	want := `{"t":{"application/json":"{\"a\": \"<b>\"}","application/xml":"x","text/plain":null},"e":{}}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	var back struct {
		T Templates `json:"t"`
	}
	if err := json.Unmarshal([]byte(got), &back); err != nil || len(back.T) != 3 || back.T["text/plain"] != "" || back.T["application/xml"] != "x" {
		t.Fatalf("decode: %v %v", err, back.T)
	}
}

func TestAppendResourceSummary(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Resource
		want string
	}{
		{"case=root", Resource{ID: "abc", Path: "/"}, `{"id":"abc","path":"/"}`},
		{"case=methods", Resource{ID: "x1", ParentID: "abc", PathPart: "{id+}", Path: "/{id+}",
			Methods: map[string]*Method{"POST": {}, "ANY": {}, "GET": {}}},
			`{"id":"x1","parentId":"abc","pathPart":"{id+}","path":"/{id+}","resourceMethods":{"ANY":{},"GET":{},"POST":{}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(AppendResourceSummary(nil, &tc.r)); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestResPathParts(t *testing.T) {
	for _, tc := range []struct {
		part          string
		valid, greedy bool
	}{
		{"users", true, false}, {"{user_id}", true, false}, {"{proxy+}", true, true}, {"{pro:xy+}", true, true},
		{"us:er_0-9", true, false}, {"v1.2", true, false},
		{"/users", false, false}, {"users/", false, false}, {"us{er", false, false}, {"us+er", false, false},
		{"{}", false, false}, {"{a}b", false, false}, {"{+}", false, false}, {"", false, false}, {"a b", false, false},
	} {
		t.Run("part="+tc.part, func(t *testing.T) {
			if got := pathPartRe.MatchString(tc.part); got != tc.valid {
				t.Fatalf("valid = %v", got)
			}
			if tc.valid && isGreedyPart(tc.part) != tc.greedy {
				t.Fatalf("greedy = %v", !tc.greedy)
			}
		})
	}
}
