package jwtauth

import "testing"

func TestQuotable(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "the token has expired", "the token has expired"},
		{"quote", `say "hi"`, `say 'hi'`},
		{"backslash", `a\b`, "a/b"},
		{"newline", "a\r\nb", "a??b"},
		{"non-ascii", "é", "?"},
	} {
		t.Run("s="+tc.name, func(t *testing.T) {
			if got := quotable(tc.in); got != tc.want {
				t.Errorf("quotable(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got := quotable(string(make([]byte, 500))); len(got) != 200 {
		t.Errorf("quotable of 500 bytes: %d bytes, want 200", len(got))
	}
}

func TestForbiddenChallenge(t *testing.T) {
	e := forbidden([]string{`a"b`, "c"})
	const want = `Bearer scope="a'b c" error="insufficient_scope" error_description="the token does not have a valid scope"`
	if e.Status != 403 || e.WWWAuthenticate != want {
		t.Errorf("forbidden = %d %q, want 403 %q", e.Status, e.WWWAuthenticate, want)
	}
}
