package execute

import "strings"

// SubstituteStageVariables replaces ${stageVariables.name} in an
// integration URI or function name; an undefined variable is empty.
func SubstituteStageVariables(s string, vars map[string]string) string {
	const open = "${stageVariables."
	if !strings.Contains(s, open) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(vars[s[i+len(open):i+j]])
		s = s[i+j+1:]
	}
}

// ValidEndpoint reports an absolute http or https URL with a host.
func ValidEndpoint(u string) bool {
	rest, ok := strings.CutPrefix(u, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "https://"); !ok {
			return false
		}
	}
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	if host == "" || strings.ContainsAny(host, " \t\r\n@") || strings.HasPrefix(host, ":") {
		return false
	}
	return !strings.ContainsAny(u, " \t\r\n")
}

// FillPlaceholders replaces each {name} (or {name+}) in an integration URI
// with value(name); a placeholder without a value is left out.
func FillPlaceholders(uri string, value func(name string) (string, bool)) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(uri, '{')
		if i < 0 {
			b.WriteString(uri)
			return b.String()
		}
		j := strings.IndexByte(uri[i:], '}')
		if j < 0 {
			b.WriteString(uri)
			return b.String()
		}
		b.WriteString(uri[:i])
		if v, ok := value(strings.TrimSuffix(uri[i+1:i+j], "+")); ok {
			b.WriteString(v)
		}
		uri = uri[i+j+1:]
	}
}
