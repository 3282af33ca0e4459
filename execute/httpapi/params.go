package httpapi

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/execute"
)

// Parameter mapping (docs/apigatewayv2.md, "Parameter mapping"): an
// integration's requestParameters and responseParameters change headers,
// query strings, the path and the status, from values that name parts of
// the request, the response, the context or the stage variables.

// source kinds.
const (
	srcLiteral = iota
	srcHeader
	srcQuery
	srcPathParam
	srcPath
	srcBody
	srcContext
	srcStageVar
	srcRespHeader
	srcRespBody
)

// source is one value a mapping or an identity source names.
type source struct {
	kind int
	name string // header (lowercase), parameter, JSON path, context variable; the text of a literal
}

// parseSource reads "$request.header.X", "$request.querystring.x",
// "$request.path.x", "$request.path", "$request.body.a.b", "$context.x",
// "$stageVariables.x", "$response.header.X", "$response.body.a"; ok is
// false for anything else.
func parseSource(s string) (source, bool) {
	for _, p := range []struct {
		prefix string
		kind   int
	}{
		{"$request.header.", srcHeader}, {"$request.querystring.", srcQuery}, {"$request.path.", srcPathParam},
		{"$request.body.", srcBody}, {"$context.", srcContext}, {"$stageVariables.", srcStageVar},
		{"$response.header.", srcRespHeader}, {"$response.body.", srcRespBody},
	} {
		if name, ok := strings.CutPrefix(s, p.prefix); ok && name != "" {
			if p.kind == srcHeader || p.kind == srcRespHeader {
				name = strings.ToLower(name)
			}
			return source{kind: p.kind, name: name}, true
		}
	}
	if s == "$request.path" {
		return source{kind: srcPath}, true
	}
	return source{}, false
}

// value is a mapping's value: literal text and sources, concatenated.
type value []source

// parseValue reads a mapping value: one source ("$request.header.x"), or
// text with references, "${request.header.x}" or "$request.header.x" (a
// reference's name runs to the first character that is not a letter,
// digit, ".", "_" or "-"), or plain text.
func parseValue(s string) value {
	if src, ok := parseSource(s); ok {
		return value{src}
	}
	var out value
	lit := 0 // start of the pending literal text
	flush := func(end int) {
		if end > lit {
			out = append(out, source{kind: srcLiteral, name: s[lit:end]})
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		var ref string
		var next int
		if strings.HasPrefix(s[i:], "${") {
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				continue
			}
			ref, next = "$"+s[i+2:i+j], i+j+1
		} else {
			j := i + 1
			for j < len(s) && isRefChar(s[j]) {
				j++
			}
			ref, next = s[i:j], j
		}
		src, ok := parseSource(strings.TrimRight(ref, "."))
		if !ok {
			continue
		}
		if strings.HasSuffix(ref, ".") { // a sentence's full stop is text
			next--
		}
		flush(i)
		out = append(out, src)
		lit = next
		i = next - 1
	}
	flush(len(s))
	if len(out) == 0 {
		out = append(out, source{kind: srcLiteral})
	}
	return out
}

func isRefChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// mapping is one parameter mapping: an action on a target, with a value.
type mapping struct {
	action string // "append", "overwrite", "remove"
	target string // "header", "querystring", "path", "statuscode"
	name   string // the header (as written) or query string name
	value  value
}

// compileMappings reads requestParameters or one status's
// responseParameters, in key order (so that the outcome does not depend on
// a map's order).
func compileMappings(m map[string]string) []mapping {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []mapping
	for _, k := range keys {
		action, target, ok := strings.Cut(k, ":")
		if !ok {
			continue
		}
		mp := mapping{action: strings.ToLower(action), value: parseValue(m[k])}
		where, name, _ := strings.Cut(target, ".")
		mp.target, mp.name = strings.ToLower(where), name
		out = append(out, mp)
	}
	return out
}

// resolve gives a source's value in a request's (and, for a response
// mapping, its backend response's) terms.
func (inv *invocation) resolve(s source) (string, bool) {
	switch s.kind {
	case srcLiteral:
		return s.name, true
	case srcHeader:
		return inv.headerValue(s.name)
	case srcQuery:
		var out string
		found := false
		for _, q := range inv.queryParams() {
			if q.Name == s.name {
				out, found = joinComma(out, q.Values, found), true
			}
		}
		return out, found
	case srcPathParam:
		for i, n := range inv.route.vars {
			if n == s.name && i < len(inv.vals) {
				return inv.vals[i], true
			}
		}
		return "", false
	case srcPath:
		return inv.path, true
	case srcBody:
		return jsonPath(inv.req.Body, s.name)
	case srcContext:
		return inv.contextValue(s.name)
	case srcStageVar:
		v, ok := inv.stage.StageVariables[s.name]
		return v, ok
	case srcRespHeader:
		if inv.backendResp == nil {
			return "", false
		}
		return joinedHeader(inv.backendResp.Headers, s.name)
	case srcRespBody:
		if inv.backendResp == nil {
			return "", false
		}
		return jsonPath(inv.backendResp.Body, s.name)
	}
	return "", false
}

// render gives a mapping value as text; ok is false when a single source
// it is made of is missing (the mapping is then skipped).
func (inv *invocation) render(v value) (string, bool) {
	if len(v) == 1 {
		return inv.resolve(v[0])
	}
	var b strings.Builder
	for _, s := range v {
		x, _ := inv.resolve(s)
		b.WriteString(x)
	}
	return b.String(), true
}

func joinComma(acc string, vals []string, more bool) string {
	for _, v := range vals {
		if more {
			acc += ","
		}
		acc += v
		more = true
	}
	return acc
}

// headerValue is a request header (name lowercase), duplicates joined with
// commas as HTTP APIs pass them on.
func (inv *invocation) headerValue(name string) (string, bool) {
	return joinedHeader(inv.req.Headers, name)
}

// joinedHeader is header name's values joined with commas.
func joinedHeader(hs execute.Headers, name string) (string, bool) {
	out, found := "", false
	for _, h := range hs {
		if len(h.Name) == len(name) && strings.EqualFold(h.Name, name) {
			if found {
				out += "," + h.Value
			} else {
				out, found = h.Value, true
			}
		}
	}
	return out, found
}

// jsonPath reads a dotted path ("a.b", "a[0].b") from a JSON body; objects
// and arrays come back as JSON text.
func jsonPath(body []byte, path string) (string, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber() // numbers keep their text: 12345678901234567890 stays so
	if d.Decode(&v) != nil {
		return "", false
	}
	path = strings.TrimPrefix(path, "$.")
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return r == '.' }) {
		name, idx, hasIdx := strings.Cut(part, "[")
		if name != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return "", false
			}
			if v, ok = m[name]; !ok {
				return "", false
			}
		}
		for hasIdx {
			var rest string
			idx, rest, _ = strings.Cut(idx, "]")
			n, err := strconv.Atoi(idx)
			a, ok := v.([]any)
			if err != nil || !ok || n < 0 || n >= len(a) {
				return "", false
			}
			v = a[n]
			idx, hasIdx = strings.CutPrefix(rest, "[")
		}
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case nil:
		return "", false
	default:
		b, _ := json.Marshal(x)
		return string(b), true
	}
}
