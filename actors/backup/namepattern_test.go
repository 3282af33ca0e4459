package backup

import (
	"regexp"
	"testing"
)

func TestNamePatternsMatchTheModel(t *testing.T) {
	for _, c := range []struct {
		p  namePattern
		re *regexp.Regexp
	}{
		{vaultNamePattern, regexp.MustCompile(`^[a-zA-Z0-9\-\_]{2,50}$`)},
		{planNamePattern, regexp.MustCompile(`^[a-zA-Z0-9\-\_\.]{1,50}$`)},
	} {
		for _, s := range []string{"", "a", "ab", "a.b", "a-b_c", "a b", "é", "aé", "a\n", "ab\n", "a/b", "Z9", "..",
			"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a\x00", "[a]", "a^b", "a\\b"} {
			if got, want := c.p.MatchString(s), c.re.MatchString(s); got != want {
				t.Errorf("%+v.MatchString(%q) = %v, the model's pattern %v", c.p, s, got, want)
			}
		}
	}
}
