package rest

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"testing"
)

// The recorded S3 payloads of EXECUTION's B-01…B-07 (apigateway-execution-
// recorded.md §7): RAW is gzip bytes, not UTF-8; MANGLED is how API Gateway
// stores it when it reads it as text.
const rawHex = "1f8b0800146cee6302ff4bcecf2d284a2d2e4e4d5148492c49d45128cec82fcd4951484a55c8cc2b4bccc94c51080d71d3b550282e29cacc4b0700b83910572f000000"

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

func TestValidUTF8MatchesRecordedMangling(t *testing.T) {
	raw, _ := hex.DecodeString(rawHex)
	if md5hex(raw) != "1e5a1bfed5308938e5549848bab02ac6" {
		t.Fatal("RAW vector")
	}
	mangled := validUTF8(raw)
	if len(mangled) != 99 || md5hex(mangled) != "7301f0a0e8fc87c6f03320bf795ffde7" {
		t.Fatalf("mangled: %d bytes, md5 %s; want 99 bytes, md5 7301f0a0…", len(mangled), md5hex(mangled))
	}
	text := []byte("this is a UTF8 text typed object")
	if got := validUTF8(text); &got[0] != &text[0] {
		t.Error("well-formed text was copied")
	}
	for in, want := range map[string]string{
		"a\xe2\x82b":   "a\uFFFDb",           // a truncated sequence is one replacement
		"a\xffb":       "a\uFFFDb",           // an invalid byte is one
		"\xed\xa0\x80": "\uFFFD\uFFFD\uFFFD", // a surrogate: each byte
		"\xf0\x9f\x98": "\uFFFD",
	} {
		if got := string(validUTF8([]byte(in))); got != want {
			t.Errorf("validUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestConvertTables(t *testing.T) {
	raw, _ := hex.DecodeString(rawHex)
	enc := []byte(base64.StdEncoding.EncodeToString(raw))
	enc2 := []byte(base64.StdEncoding.EncodeToString(enc))
	text := []byte("this is a UTF8 text typed object")
	text64 := []byte(base64.StdEncoding.EncodeToString(text))
	mangled := validUTF8(raw)
	type row struct {
		payloadBinary, targetBinary bool
		handling                    string
		in, want                    []byte // want nil: 500
	}
	rows := []row{
		// B-05: no contentHandling.
		{false, false, "", raw, mangled},
		{false, true, "", raw, nil},
		{false, true, "", enc, raw},
		{false, true, "", text, nil},
		{true, true, "", raw, raw},
		{true, false, "", raw, enc},
		{true, false, "", enc, enc2},
		{true, false, "", text, text64},
		// B-06: CONVERT_TO_TEXT.
		{false, true, "CONVERT_TO_TEXT", raw, mangled},
		{true, true, "CONVERT_TO_TEXT", raw, enc},
		{true, false, "CONVERT_TO_TEXT", text, text64},
		// B-07: CONVERT_TO_BINARY.
		{false, true, "CONVERT_TO_BINARY", raw, nil},
		{false, false, "CONVERT_TO_BINARY", enc, raw},
		{false, false, "CONVERT_TO_BINARY", text, nil},
		{true, false, "CONVERT_TO_BINARY", raw, raw},
	}
	for i, r := range rows {
		got, ok := convert(r.in, r.payloadBinary, r.targetBinary, r.handling)
		if r.want == nil {
			if ok {
				t.Errorf("row %d: converted, want a failure", i)
			}
			continue
		}
		if !ok || string(got) != string(r.want) {
			t.Errorf("row %d: got %q (%v), want %q", i, got, ok, r.want)
		}
	}
}

func TestIsBinary(t *testing.T) {
	types := []string{"image/png", "*/test", "application/*"}
	for mt, want := range map[string]bool{
		"image/png": true, "image/jpg": false, "image/*": false, "*/test": false, "random/test": false,
		"*/*": false, "application/whatever": true, "application": false, "": false, "IMAGE/PNG": true,
	} {
		if got := isBinary(types, mt); got != want {
			t.Errorf("isBinary(%q) = %v, want %v", mt, got, want)
		}
	}
	if !isBinary([]string{"*/*"}, "text/plain") {
		t.Error("*/* covers every type")
	}
}

func TestAccessFormat(t *testing.T) {
	f := parseAccessFormat(`$context.requestId ${context.stage} "$context.httpMethod $context.resourcePath." $context.nothing $5 $context.`)
	var got []string
	for _, p := range f.parts {
		if p.variable {
			got = append(got, p.text)
		}
	}
	want := []string{"requestId", "stage", "httpMethod", "resourcePath", "nothing"}
	if len(got) != len(want) {
		t.Fatalf("variables %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("variables %v, want %v", got, want)
		}
	}
}

func TestParseSource(t *testing.T) {
	for expr, want := range map[string]sourceKind{
		"'static'":                          srcStatic,
		"method.request.header.X":           srcRequest,
		"method.request.body":               srcRequestBody,
		"method.request.body.a.b":           srcRequestBody,
		"integration.response.header.ETag":  srcResponse,
		"integration.response.body.message": srcResponseBody,
		"context.identity.sourceIp":         srcContext,
		"stageVariables.host":               srcStageVariable,
	} {
		s, ok := parseSource(expr)
		if !ok || s.kind != want {
			t.Errorf("parseSource(%q) = %v %v, want kind %v", expr, s.kind, ok, want)
		}
	}
	for _, bad := range []string{"", "'", "method.request.header", "context.", "nothing.at.all", "method.request.body.[["} {
		if _, ok := parseSource(bad); ok {
			t.Errorf("parseSource(%q) accepted", bad)
		}
	}
}
