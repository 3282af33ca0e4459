package gateway

import (
	"testing"
	"unicode/utf8"

	"github.com/cloudemu/emulator/vtl"
)

// FuzzMockStatus: the lenient parser never panics and only answers codes
// it read.
func FuzzMockStatus(f *testing.F) {
	for _, s := range []string{`{"statusCode": 200}`, `{statusCode: 200}`, `{'statusCode':404, a: 1}`,
		`{a: "statusCode", statusCode: 5}`, `{statusCode:`, `{`, ``, `{"statusCode": 1e3}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, ok := MockStatus(s)
		if ok && (code < 0 || code > 999) {
			t.Fatalf("MockStatus(%q) = %d", s, code)
		}
		if !ok && code != 0 {
			t.Fatalf("MockStatus(%q) = %d without ok", s, code)
		}
	})
}

// FuzzURLCoding: decoding what URLEncode wrote gives the input back, and
// EscapeJavaScript's output is ASCII.
func FuzzURLCoding(f *testing.F) {
	for _, s := range []string{"", "a b", `{"some": "value"}`, "é😀", "%zz", "a+b*c~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		got, err := URLDecode(URLEncode(s))
		if err != nil || got != s {
			t.Fatalf("URLDecode(URLEncode(%q)) = %q, %v", s, got, err)
		}
		URLDecode(s)
		e := EscapeJavaScript(s)
		for i := 0; i < len(e); i++ {
			if e[i] >= 0x80 {
				t.Fatalf("EscapeJavaScript(%q) = %q is not ASCII", s, e)
			}
		}
	})
}

// FuzzInput: $input.json and $input.path never panic, whatever the body
// and the path.
func FuzzInput(f *testing.F) {
	f.Add(`{"a": [1, {"b": "c"}]}`, "$.a[1].b")
	f.Add(`[1, 2, 3]`, "$[*]")
	f.Add(`not json`, "$")
	f.Add(``, "$..x")
	f.Fuzz(func(t *testing.T, body, path string) {
		in := &Input{body: []byte(body)}
		for _, m := range []string{"json", "path"} {
			v, ok, _ := in.Call(m, []vtl.Value{path})
			if !ok {
				t.Fatalf("%s not answered", m)
			}
			if s, isStr := v.(string); m == "json" && isStr && s == "" {
				t.Fatalf("json(%q) on %q rendered nothing", path, body)
			}
		}
	})
}
