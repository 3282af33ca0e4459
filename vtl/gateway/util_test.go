package gateway

import (
	"errors"
	"testing"

	"github.com/cloudemu/emulator/vtl"
)

func TestEscapeJavaScript(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello world", "hello world"},
		{"empty", "", ""},
		// AWS docs: escapeJavaScript escapes single quotes; templates in
		// the wild undo it with .replaceAll("\\'", "'").
		{"singleQuote", "it's", `it\'s`},
		{"doubleQuote", `say "hi"`, `say \"hi\"`},
		{"backslash", `a\b`, `a\\b`},
		{"slash", "a/b", `a\/b`},
		{"newline", "a\nb", `a\nb`},
		{"tab", "a\tb", `a\tb`},
		{"cr", "a\rb", `a\rb`},
		{"backspace", "a\bb", `a\bb`},
		{"formfeed", "a\fb", `a\fb`},
		{"control", "a\x01b\x1f", `a\u0001b\u001F`},
		{"del", "a\x7fb", "a\x7fb"},
		{"latin1", "café", `caf\u00E9`},
		{"bmp", "5€", `5\u20AC`},
		{"astral", "😀", `\uD83D\uDE00`},
		{"invalidUTF8", "a\xffb", `a\uFFFDb`},
		{"mixed", "x'é\ny", `x\'\u00E9\ny`},
		{"json", `{"a":[1,"x"]}`, `{\"a\":[1,\"x\"]}`},
	}
	for _, tc := range tests {
		t.Run("in="+tc.name, func(t *testing.T) {
			if got := EscapeJavaScript(tc.in); got != tc.want {
				t.Errorf("EscapeJavaScript(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestEscapeJavaScriptPlainDoesNotAllocate(t *testing.T) {
	s := "nothing to escape here 123"
	if n := testing.AllocsPerRun(100, func() { EscapeJavaScript(s) }); n != 0 {
		t.Errorf("allocs = %v, want 0", n)
	}
}

func TestURLEncode(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// Recorded on AWS (docs/apigateway-execution.md §5).
		{"aws", `{"some": "value"}`, "%7B%22some%22%3A+%22value%22%7D"},
		{"safeSet", "aZ09.-*_", "aZ09.-*_"},
		{"tilde", "a~b", "a%7Eb"},
		{"reserved", "a=b&c/d?e", "a%3Db%26c%2Fd%3Fe"},
		{"utf8", "é", "%C3%A9"},
		{"plus", "a+b", "a%2Bb"},
	}
	for _, tc := range tests {
		t.Run("in="+tc.name, func(t *testing.T) {
			if got := URLEncode(tc.in); got != tc.want {
				t.Errorf("URLEncode(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestURLDecode(t *testing.T) {
	tests := []struct {
		name, in, want string
		bad            bool
	}{
		{"aws", "%7B%22some%22%3A+%22value%22%7D", `{"some": "value"}`, false},
		{"plain", "abc", "abc", false},
		{"lowerHex", "%c3%a9", "é", false},
		{"plus", "a+b", "a b", false},
		{"invalidUTF8", "%FF", "\uFFFD", false},
		{"badHex", "%zz", "", true},
		{"short", "%4", "", true},
		{"trailing", "abc%", "", true},
	}
	for _, tc := range tests {
		t.Run("in="+tc.name, func(t *testing.T) {
			got, err := URLDecode(tc.in)
			if tc.bad {
				if err == nil {
					t.Fatalf("URLDecode(%q) = %q, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("URLDecode(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestUtilCall(t *testing.T) {
	tests := []struct {
		name   string
		method string
		arg    vtl.Value
		want   vtl.Value
		err    bool
	}{
		{"base64Encode", "base64Encode", "hello world", "aGVsbG8gd29ybGQ=", false},
		{"base64Decode", "base64Decode", "aGVsbG8gd29ybGQ=", "hello world", false},
		{"base64DecodeUnpadded", "base64Decode", "aGVsbG8gd29ybGQ", "hello world", false},
		{"base64DecodeBad", "base64Decode", "!!!!", nil, true},
		{"base64EncodeNumber", "base64Encode", int64(42), "NDI=", false},
		{"nullGivesNull", "escapeJavaScript", nil, nil, false},
		{"escapeNumber", "escapeJavaScript", int64(7), "7", false},
		{"parseJsonScalar", "parseJson", "12", int64(12), false},
		{"parseJsonBad", "parseJson", "{nope", nil, true},
		{"urlDecodeBad", "urlDecode", "%", nil, true},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			got, ok, err := Util{}.Call(tc.method, []vtl.Value{tc.arg})
			if !ok {
				t.Fatalf("%s: not a method", tc.method)
			}
			if tc.err != (err != nil) {
				t.Fatalf("%s(%v): err = %v, want error %v", tc.method, tc.arg, err, tc.err)
			}
			if got != tc.want {
				t.Errorf("%s(%v) = %#v, want %#v", tc.method, tc.arg, got, tc.want)
			}
		})
	}
	if _, ok, _ := (Util{}).Call("nope", []vtl.Value{"x"}); ok {
		t.Error("unknown method answered")
	}
	if _, ok, _ := (Util{}).Call("escapeJavaScript", nil); ok {
		t.Error("escapeJavaScript() without its argument answered")
	}
}

func TestMockStatus(t *testing.T) {
	tests := []struct {
		name, in string
		want     int
		ok       bool
	}{
		{"json", `{"statusCode": 200}`, 200, true},
		{"jsonCompact", `{"statusCode":404}`, 404, true},
		{"jsonMoreKeys", `{"a": 1, "statusCode": 302, "b": [1]}`, 302, true},
		{"jsonBlank", "\n  {\"statusCode\": 500}\n", 500, true},
		// CDK's CORS preflight template (docs/apigateway-execution.md §5).
		{"unquotedKey", `{ statusCode: 200 }`, 200, true},
		{"singleQuotedKey", `{'statusCode': 204}`, 204, true},
		{"unquotedMoreKeys", `{foo: 1, statusCode: 201}`, 201, true},
		{"stringValue", `{"statusCode": "200"}`, 0, false},
		{"floatValue", `{"statusCode": 200.5}`, 0, false},
		{"missing", `{"status": 200}`, 0, false},
		{"notObject", `[200]`, 0, false},
		{"empty", ``, 0, false},
		{"garbage", `statusCode: 200`, 0, false},
		{"keyInsideValue", `{foo: xstatusCode: 200}`, 0, false},
		{"unquotedString", `{statusCode: abc}`, 0, false},
	}
	for _, tc := range tests {
		t.Run("in="+tc.name, func(t *testing.T) {
			got, ok := MockStatus(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("MockStatus(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestUtilErrorsUnwrap(t *testing.T) {
	_, _, err := Util{}.Call("parseJson", []vtl.Value{"{"})
	var je *vtl.JSONError
	if !errors.As(err, &je) {
		t.Errorf("parseJson error %v does not wrap *vtl.JSONError", err)
	}
}
