package vtl

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/puzpuzpuz/xsync/v3"
)

// Java regular expressions run on Go's regexp: the common syntax is the
// same; what RE2 lacks (back-references, lookaround) fails the render as
// a PatternSyntaxException fails it in Java. Compiled patterns are cached,
// bounded, because templates pass the same few literals on every request.

const regexpCacheMax = 1024

var regexpCache = xsync.NewMapOf[string, *regexp.Regexp]()

// javaRegexp compiles pattern; whole anchors it at both ends (matches()).
func javaRegexp(pattern string, whole bool) (*regexp.Regexp, error) {
	key := pattern
	if whole {
		key = "\x00" + pattern
	}
	if re, ok := regexpCache.Load(key); ok {
		return re, nil
	}
	src := pattern
	if whole {
		src = `^(?:` + pattern + `)$`
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("bad regular expression %q: %v", pattern, err)
	}
	if regexpCache.Size() >= regexpCacheMax {
		regexpCache.Clear()
	}
	regexpCache.Store(key, re)
	return re, nil
}

// javaReplacement turns a Java replacement string ($1, ${name}, \$) into
// Go's template syntax.
func javaReplacement(repl string, groups int) (string, error) {
	if !strings.ContainsAny(repl, `$\`) {
		return repl, nil
	}
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch c {
		case '\\':
			i++
			if i >= len(repl) {
				return "", fmt.Errorf("character to be escaped is missing")
			}
			if repl[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(repl[i])
			}
		case '$':
			i++
			if i >= len(repl) {
				return "", fmt.Errorf("illegal group reference: group index is missing")
			}
			if repl[i] == '{' {
				end := strings.IndexByte(repl[i:], '}')
				if end < 0 {
					return "", fmt.Errorf("named capturing group is missing trailing '}'")
				}
				b.WriteString("${" + repl[i+1:i+end] + "}")
				i += end
				continue
			}
			if repl[i] < '0' || repl[i] > '9' {
				return "", fmt.Errorf("illegal group reference")
			}
			// Java reads further digits only while the group exists.
			n := int(repl[i] - '0')
			for i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9' && n*10+int(repl[i+1]-'0') <= groups {
				i++
				n = n*10 + int(repl[i]-'0')
			}
			if n > groups {
				return "", fmt.Errorf("no group %d", n)
			}
			fmt.Fprintf(&b, "${%d}", n)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func (r *renderer) replaceRegexp(s, pattern, repl string, first bool, pos int) (Value, error) {
	re, err := javaRegexp(pattern, false)
	if err != nil {
		return nil, err
	}
	tmpl, err := javaReplacement(repl, re.NumSubexp())
	if err != nil {
		return nil, err
	}
	limit := 1
	if !first {
		limit = -1
	}
	matches := re.FindAllStringSubmatchIndex(s, limit)
	if len(matches) == 0 {
		return s, nil
	}
	// Bound the result before building it: each match expands to at most
	// the template plus every group it names.
	if len(s)+len(matches)*(len(tmpl)+len(s)*strings.Count(tmpl, "$")) > r.lim.MaxOutput && len(matches) > 1 {
		var n int
		for _, m := range matches {
			n += len(re.ExpandString(nil, tmpl, s, m)) - (m[1] - m[0])
			if len(s)+n > r.lim.MaxOutput {
				return nil, r.limitAt(pos, "a string grew too large")
			}
		}
	}
	var b []byte
	last := 0
	for _, m := range matches {
		b = append(b, s[last:m[0]]...)
		b = re.ExpandString(b, tmpl, s, m)
		last = m[1]
	}
	b = append(b, s[last:]...)
	if len(b) > r.lim.MaxOutput {
		return nil, r.limitAt(pos, "a string grew too large")
	}
	return string(b), nil
}

// split is String.split: limit 0 drops trailing empty strings, a
// positive limit caps the parts, a negative one keeps them all. A
// zero-width match at the start yields no leading empty string.
func (r *renderer) split(s, pattern string, limit int, pos int) (Value, error) {
	var parts []string
	if len(pattern) == 1 && !strings.ContainsAny(pattern, `.$|()[{^?*+\`) ||
		len(pattern) == 2 && pattern[0] == '\\' && !isIdentChar(pattern[1]) {
		sep := pattern[len(pattern)-1:]
		n := -1
		if limit > 0 {
			n = limit
		}
		parts = strings.SplitN(s, sep, n)
	} else {
		re, err := javaRegexp(pattern, false)
		if err != nil {
			return nil, err
		}
		n := -1
		if limit > 0 {
			n = limit
		}
		if !re.MatchString(s) {
			parts = []string{s}
		} else {
			parts = re.Split(s, n)
			if loc := re.FindStringIndex(s); loc != nil && loc[0] == 0 && loc[1] == 0 && len(parts) > 0 && parts[0] == "" && s != "" {
				parts = parts[1:]
			}
		}
	}
	if limit == 0 && len(parts) > 1 || limit == 0 && s != "" {
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
	}
	if err := r.charge(len(parts), pos); err != nil {
		return nil, err
	}
	l := &List{Items: make([]Value, len(parts))}
	for i, p := range parts {
		l.Items[i] = p
	}
	return l, nil
}
