package execute

import (
	"slices"
	"testing"
)

func TestHeaders(t *testing.T) {
	h := Headers{{"Accept", "a"}, {"X-Multi", "1"}, {"x-multi", "2"}}
	if v, ok := h.Get("X-MULTI"); !ok || v != "2" {
		t.Errorf("Get = %q %v, want the last value", v, ok)
	}
	if got := h.Values("x-multi"); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("Values = %v", got)
	}
	h = h.Set("X-Multi", "3")
	if got := h.Values("x-multi"); !slices.Equal(got, []string{"3"}) || len(h) != 2 {
		t.Errorf("after Set: %v", h)
	}
	if _, ok := h.Del("accept").Get("Accept"); ok {
		t.Error("Del left the header")
	}
}

func TestRemapped(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proxy bool
		want  string
	}{
		{"Date", true, "x-amzn-Remapped-Date"},
		{"content-length", true, "x-amzn-Remapped-content-length"},
		{"User-Agent", true, "User-Agent"},
		{"User-Agent", false, "x-amzn-Remapped-User-Agent"},
		{"X-Custom", false, "X-Custom"},
	} {
		if got := Remapped(tc.name, tc.proxy); got != tc.want {
			t.Errorf("Remapped(%q, proxy=%v) = %q, want %q", tc.name, tc.proxy, got, tc.want)
		}
	}
	if !IsHopHeader("transfer-encoding") || IsHopHeader("Accept") {
		t.Error("IsHopHeader")
	}
	if !IsRestrictedMapping("X-Amzn-Trace-Id", false) || IsRestrictedMapping("Authorization", false) || !IsRestrictedMapping("authorization", true) {
		t.Error("IsRestrictedMapping")
	}
}

func TestSelectionPattern(t *testing.T) {
	for _, tc := range []struct {
		pattern, value string
		want           bool
	}{
		{`2\d{2}`, "200", true},
		{`2\d{2}`, "2000", false}, // whole value, not a prefix
		{`.*four hundred.*`, "Error: Raising four hundred from within the Lambda function", true},
		{`.+`, "", false},
		{`.+`, "line one\nline two", false}, // . does not cross a line break
		{`4\d{2}`, "404", true},
	} {
		p, err := CompileSelection(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Matches(tc.value); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.pattern, tc.value, got, tc.want)
		}
	}
	if _, err := CompileSelection(`(a)\1`); err == nil {
		t.Error("a back-reference compiled")
	}
}
