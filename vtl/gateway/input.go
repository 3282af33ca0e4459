package gateway

import (
	"fmt"
	"strings"

	"github.com/cloudemu/emulator/vtl"
	"github.com/cloudemu/emulator/vtl/jsonpath"
)

// emptyBody is what $input.body is, and what $input.json and $input.path
// read, when the body is empty: API Gateway shows "{}"
// (docs/apigateway-execution.md §5, test_input_body_formatting).
const emptyBody = "{}"

// Input is $input. It parses the body at most once, on the first
// $input.json or $input.path.
type Input struct {
	body                []byte
	path, query, header map[string]string
	// src, when set, answers the parameters instead of the maps.
	src ParamSource

	bodyStr  string
	haveStr  bool
	parsed   bool
	root     vtl.Value // the body as values; valid when isJSON
	isJSON   bool
	paramMap *vtl.Map
}

// Property answers $input.body.
func (in *Input) Property(name string) (vtl.Value, bool) {
	if name == "body" {
		return in.Body(), true
	}
	return nil, false
}

// Body is the raw body as a string, "{}" when empty.
func (in *Input) Body() string {
	if !in.haveStr {
		in.haveStr = true
		if len(in.body) == 0 {
			in.bodyStr = emptyBody
		} else {
			in.bodyStr = string(in.body)
		}
	}
	return in.bodyStr
}

// Call answers $input.json(p), $input.path(p), $input.params() and
// $input.params(name).
func (in *Input) Call(name string, args []vtl.Value) (vtl.Value, bool, error) {
	switch name {
	case "json", "path":
		if len(args) != 1 {
			return nil, false, nil
		}
		src, ok := argString(args[0])
		if !ok {
			return nil, true, fmt.Errorf("$input.%s: the JSONPath is null", name)
		}
		v, found, err := in.eval(src)
		if err != nil {
			return nil, true, fmt.Errorf("$input.%s(%q): %w", name, src, err)
		}
		if name == "path" {
			if !found {
				return nil, true, nil
			}
			return v, true, nil
		}
		if !found {
			// Nothing matched, or the body is not JSON: a JSON empty
			// string (docs/apigateway-execution.md §5).
			return `""`, true, nil
		}
		return vtl.JSON(v), true, nil
	case "params":
		switch len(args) {
		case 0:
			return in.Params(), true, nil
		case 1:
			k, ok := argString(args[0])
			if !ok {
				return "", true, nil
			}
			return in.Param(k), true, nil
		}
	}
	return nil, false, nil
}

// eval applies a JSONPath to the body; found is false when nothing
// matches or the body is not JSON.
func (in *Input) eval(src string) (vtl.Value, bool, error) {
	p, err := jsonpath.Lookup(src)
	if err != nil {
		return nil, false, err
	}
	if !in.parsed {
		in.parsed = true
		data := in.body
		if len(data) == 0 {
			data = []byte(emptyBody)
		}
		root, err := vtl.ParseJSON(data)
		in.root, in.isJSON = root, err == nil
	}
	if !in.isJSON {
		return nil, false, nil
	}
	return p.Eval(in.root)
}

// ParamSource gives $input.params its values without building maps first:
// the data plane's view of a request. InputParam looks up one parameter
// of a group ("path", "querystring", "header"; headers without regard to
// case); InputParams returns a whole group, for $input.params().
type ParamSource interface {
	InputParam(group, name string) (string, bool)
	InputParams(group string) map[string]string
}

// NewInputFrom returns $input over a body whose parameters src answers.
func NewInputFrom(body []byte, src ParamSource) *Input {
	return &Input{body: body, src: src}
}

// Params is $input.params(): {path={...}, querystring={...}, header={...}}.
// The same map is returned on every call of a render, so changes a
// template makes to it stay visible, as on a Java object.
func (in *Input) Params() *vtl.Map {
	if in.paramMap == nil && in.src != nil {
		in.path, in.query, in.header = in.src.InputParams("path"), in.src.InputParams("querystring"), in.src.InputParams("header")
	}
	if in.paramMap == nil {
		m := vtl.NewMap(3)
		m.Put("path", stringMap(in.path))
		m.Put("querystring", stringMap(in.query))
		m.Put("header", stringMap(in.header))
		in.paramMap = m
	}
	return in.paramMap
}

// Param is $input.params(name): the path parameter, else the query
// string parameter, else the header; "" when none has the name. Headers
// match without regard to case when no exact name matches, as HTTP header
// names are case-insensitive.
func (in *Input) Param(name string) string {
	if in.src != nil {
		for _, g := range [...]string{"path", "querystring", "header"} {
			if v, ok := in.src.InputParam(g, name); ok {
				return v
			}
		}
		return ""
	}
	if v, ok := in.path[name]; ok {
		return v
	}
	if v, ok := in.query[name]; ok {
		return v
	}
	if v, ok := in.header[name]; ok {
		return v
	}
	for k, v := range in.header {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
