package gateway

import (
	"maps"
	"slices"

	"github.com/cloudemu/emulator/vtl"
)

// Request is what one render of a mapping template sees.
type Request struct {
	// Body is the method request body (request templates) or the
	// integration response body (response templates). It is read, never
	// copied until a template asks for it, so it must not change during
	// the render.
	Body []byte
	// PathParams, QueryParams and Headers feed $input.params. Map order
	// is not kept: $input.params() lists each group sorted by name.
	PathParams, QueryParams, Headers map[string]string
	// StageVariables becomes $stageVariables.
	StageVariables map[string]string
	// Context becomes $context; build it with NewContext. When nil, an
	// empty context (with its override maps) is used.
	Context *vtl.Map
}

// Vars returns the variables of one render: input, util, context and
// stageVariables.
func Vars(req Request) map[string]vtl.Value {
	ctx := req.Context
	if ctx == nil {
		ctx = NewContext(Context{})
	}
	return map[string]vtl.Value{
		"input":          NewInput(req.Body, req.PathParams, req.QueryParams, req.Headers),
		"util":           Util{},
		"context":        ctx,
		"stageVariables": Strings(req.StageVariables),
	}
}

// NewInput returns $input over a body and the parameters $input.params()
// reads; see Request for what each holds.
func NewInput(body []byte, path, query, header map[string]string) *Input {
	return &Input{body: body, path: path, query: query, header: header}
}

// Strings returns m as a template map ($stageVariables), sorted by key.
func Strings(m map[string]string) *vtl.Map { return stringMap(m) }

// stringMap copies m into a *vtl.Map, sorted by key so that renders are
// reproducible.
func stringMap(m map[string]string) *vtl.Map {
	out := vtl.NewMap(len(m))
	if len(m) == 1 {
		for k, v := range m {
			out.Put(k, v)
		}
		return out
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out.Put(k, m[k])
	}
	return out
}

// argString reads a method argument as Java would pass it to a String
// parameter; ok is false for null.
func argString(v vtl.Value) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", false
	case string:
		return v, true
	}
	return vtl.String(v), true
}
