package execute

import "net/url"

// QueryParam is one query-string parameter with every value it was given,
// in order.
type QueryParam struct {
	Name   string
	Values []string
}

// ParseQuery form-decodes a raw query string as API Gateway does: "+" is a
// space, percent-escapes are decoded, and a name given twice keeps both
// values in order. Parameters keep the order of their first appearance. A
// malformed escape is kept as written.
func ParseQuery(raw string) []QueryParam {
	var out []QueryParam
	for raw != "" {
		var pair string
		pair, raw = cut(raw, '&')
		if pair == "" {
			continue
		}
		name, value := cut(pair, '=')
		name, value = unescape(name), unescape(value)
		i := 0
		for i < len(out) && out[i].Name != name {
			i++
		}
		if i == len(out) {
			out = append(out, QueryParam{Name: name})
		}
		out[i].Values = append(out[i].Values, value)
	}
	return out
}

// Last is the value API Gateway's single-value views hold: the last one.
func (p QueryParam) Last() string { return p.Values[len(p.Values)-1] }

func cut(s string, sep byte) (string, string) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

func unescape(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' || s[i] == '+' {
			if v, err := url.QueryUnescape(s); err == nil {
				return v
			}
			return s
		}
	}
	return s
}
