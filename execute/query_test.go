package execute

import (
	"fmt"
	"testing"
)

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		{"empty", "", `[]`},
		{"one", "a=1", `[{"a" ["1"]}]`},
		{"repeated-in-order", "a=1&b=2&a=3", `[{"a" ["1" "3"]} {"b" ["2"]}]`},
		{"plus-is-space", "q=hello+world", `[{"q" ["hello world"]}]`},
		{"escaped-plus", "email=test%2Balias%40gmail.com", `[{"email" ["test+alias@gmail.com"]}]`},
		{"no-value", "flag&x=", `[{"flag" [""]} {"x" [""]}]`},
		{"empty-pairs", "&&a=1&", `[{"a" ["1"]}]`},
		{"bad-escape-kept", "a=%zz", `[{"a" ["%zz"]}]`},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			got := fmt.Sprintf("%q", ParseQuery(tc.raw))
			if got != tc.want {
				t.Errorf("ParseQuery(%q) = %s, want %s", tc.raw, got, tc.want)
			}
		})
	}
	q := ParseQuery("a=1&a=2")
	if q[0].Last() != "2" {
		t.Errorf("Last() = %q", q[0].Last())
	}
}
