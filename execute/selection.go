package execute

import (
	"fmt"
	"regexp"
)

// SelectionPattern is an integration response's selectionPattern, compiled
// once per deployment. API Gateway matches it as Java's String.matches
// does: against the whole value, "." not matching a line break.
type SelectionPattern struct{ re *regexp.Regexp }

// CompileSelection compiles a selectionPattern. Java syntax that RE2 lacks
// (back-references, lookaround) fails, as an invalid pattern fails on AWS
// when the method runs.
func CompileSelection(pattern string) (SelectionPattern, error) {
	re, err := regexp.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		return SelectionPattern{}, fmt.Errorf("execute: selection pattern %q: %w", pattern, err)
	}
	return SelectionPattern{re}, nil
}

// Matches reports whether the whole of v matches.
func (p SelectionPattern) Matches(v string) bool { return p.re != nil && p.re.MatchString(v) }
