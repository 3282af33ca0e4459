package rest

import (
	"strings"

	"github.com/cloudemu/emulator/vtl"
	"github.com/cloudemu/emulator/vtl/jsonpath"
)

// paramMapping is one entry of requestParameters (integration request) or
// responseParameters (integration and gateway responses): a target and the
// source of its value.
type paramMapping struct {
	// where and name are the target: header, querystring, path,
	// multivalueheader or multivaluequerystring, and the parameter name.
	where, name string
	src         source
}

// sourceKind says where a mapped value comes from.
type sourceKind uint8

const (
	srcStatic        sourceKind = iota // 'literal'
	srcRequest                         // method.request.{path,querystring,header,...}.name
	srcRequestBody                     // method.request.body[.jsonpath]
	srcResponse                        // integration.response.{header,multivalueheader}.name
	srcResponseBody                    // integration.response.body[.jsonpath]
	srcContext                         // context.name
	srcStageVariable                   // stageVariables.name
)

type source struct {
	kind  sourceKind
	where string // request/response parameter group
	name  string // parameter, context variable or stage variable name; the literal
	path  *jsonpath.Path
}

// parseMapping reads "prefix{where}.{name}" → expression. ok is false for
// a target or source this emulator cannot evaluate (the control plane
// refuses them; a restored state may still hold one).
func parseMapping(target, prefix, expr string) (paramMapping, bool) {
	where, name, ok := strings.Cut(strings.TrimPrefix(target, prefix), ".")
	if !ok || name == "" || !strings.HasPrefix(target, prefix) {
		return paramMapping{}, false
	}
	src, ok := parseSource(expr)
	if !ok {
		return paramMapping{}, false
	}
	return paramMapping{where: where, name: name, src: src}, true
}

func parseSource(expr string) (source, bool) {
	if len(expr) >= 2 && expr[0] == '\'' && expr[len(expr)-1] == '\'' {
		return source{kind: srcStatic, name: expr[1 : len(expr)-1]}, true
	}
	for _, p := range []struct {
		prefix string
		kind   sourceKind
	}{{"method.request.", srcRequest}, {"integration.response.", srcResponse}} {
		rest, ok := strings.CutPrefix(expr, p.prefix)
		if !ok {
			continue
		}
		if rest == "body" || strings.HasPrefix(rest, "body.") {
			s := source{kind: srcRequestBody}
			if p.kind == srcResponse {
				s.kind = srcResponseBody
			}
			if jp, ok := strings.CutPrefix(rest, "body."); ok {
				path, err := jsonpath.Lookup("$." + jp)
				if err != nil {
					return source{}, false
				}
				s.path = path
			}
			return s, true
		}
		where, name, ok := strings.Cut(rest, ".")
		if !ok || name == "" {
			return source{}, false
		}
		return source{kind: p.kind, where: where, name: name}, true
	}
	if name, ok := strings.CutPrefix(expr, "context."); ok && name != "" {
		return source{kind: srcContext, name: name}, true
	}
	if name, ok := strings.CutPrefix(expr, "stageVariables."); ok && name != "" {
		return source{kind: srcStageVariable, name: name}, true
	}
	return source{}, false
}

// bodyValue evaluates a body source: the whole body, or the JSON value a
// JSONPath selects (as JSON text, strings unquoted).
func bodyValue(body []byte, path *jsonpath.Path) (string, bool) {
	if path == nil {
		return string(body), true
	}
	root, err := vtl.ParseJSON(body)
	if err != nil {
		return "", false
	}
	v, found, err := path.Eval(root)
	if err != nil || !found || v == nil {
		return "", false
	}
	if s, ok := v.(string); ok {
		return s, true
	}
	return vtl.JSON(v), true
}
