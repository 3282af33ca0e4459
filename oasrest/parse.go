package oasrest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"sigs.k8s.io/yaml"
)

// MaxDepth is how deep a document may nest objects and arrays. Real
// documents stay far below it; past it a document is refused before any
// parser recurses into it.
const MaxDepth = 128

// Error is a document this package cannot import: Message is API Gateway's
// words for it (a BadRequestException's message).
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

// invalid is AWS's answer to a document that is not OpenAPI.
func invalid() *Error { return &Error{Message: "Invalid OpenAPI input."} }

// importErrors is AWS's answer to a document it read but cannot import.
func importErrors(format string, args ...any) *Error {
	return &Error{Message: "Errors found during import:\n\t" + fmt.Sprintf(format, args...)}
}

// anyMethodKey is the path-item key of API Gateway's ANY method. The parser
// carries it as a TRACE operation marked with anyMarker: API Gateway has no
// TRACE, and kin-openapi keeps no operation under an extension key.
const (
	anyMethodKey = "x-amazon-apigateway-any-method"
	anyMarker    = "x-emulator-any-method"
)

// Options are ImportRestApi's parameters.
type Options struct {
	// BasePath is what to do with the document's base path (Swagger's
	// basePath, the path of OpenAPI's first server URL): "ignore" (or ""),
	// "prepend" it to every path, or "split" off its first segment (the
	// stage) and prepend the rest.
	BasePath string
}

// Parse reads an OpenAPI 3.0 or Swagger 2.0 document, JSON or YAML, into
// the API it describes. A document that cannot be read or imported is an
// *Error.
func Parse(body []byte, o Options) (api *API, err error) {
	defer func() {
		// The document is the client's: whatever a parser does with it
		// must end in a 400, not in the front's panic handler.
		if r := recover(); r != nil {
			api, err = nil, invalid()
		}
	}()
	switch o.BasePath {
	case "", "ignore", "prepend", "split":
	default:
		return nil, &Error{Message: "Invalid basepath specified: " + o.BasePath + ". Valid options are ignore,prepend,split"}
	}
	doc, base, err := load(body)
	if err != nil {
		return nil, err
	}
	prefix := ""
	switch o.BasePath {
	case "prepend":
		prefix = strings.TrimRight(base, "/")
	case "split":
		parts := strings.SplitN(strings.Trim(base, "/"), "/", 2)
		if len(parts) == 2 {
			prefix = "/" + strings.TrimRight(parts[1], "/")
		}
	}
	return build(doc, prefix)
}

// serverBasePath is the path of an OpenAPI 3 document's first server URL,
// its variables at their defaults.
func serverBasePath(doc *openapi3.T) string {
	if len(doc.Servers) == 0 || doc.Servers[0] == nil {
		return ""
	}
	sv := doc.Servers[0]
	u := sv.URL
	for name, v := range sv.Variables {
		if v != nil {
			u = strings.ReplaceAll(u, "{"+name+"}", v.Default)
		}
	}
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		j := strings.IndexByte(u, '/')
		if j < 0 {
			return ""
		}
		u = u[j:]
	}
	if !strings.HasPrefix(u, "/") {
		u = "/" + u
	}
	return u
}

// load decodes body into an OpenAPI 3 document with its references
// resolved, and returns the document's base path.
func load(body []byte) (*openapi3.T, string, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, "", invalid()
	}
	if body[0] != '{' {
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, "", invalid()
		}
		body = j
	}
	if depth(body) > MaxDepth {
		return nil, "", &Error{Message: fmt.Sprintf("Invalid OpenAPI input: the document nests deeper than %d levels.", MaxDepth)}
	}
	var head struct {
		Swagger any `json:"swagger"`
		OpenAPI any `json:"openapi"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, "", invalid()
	}
	switch {
	case head.Swagger == "2.0":
		return loadSwagger(body)
	case isOAS3(head.OpenAPI):
		doc, err := load3(body)
		if err != nil {
			return nil, "", err
		}
		return doc, serverBasePath(doc), nil
	}
	return nil, "", invalid()
}

func isOAS3(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, "3.")
}

func load3(b []byte) (*openapi3.T, error) {
	l := openapi3.NewLoader()
	l.IsExternalRefsAllowed = false
	// The text is JSON by now: encoding/json decodes it several times
	// faster than the loader's YAML path, which matters for documents of
	// megabytes.
	doc := &openapi3.T{}
	if err := json.Unmarshal(b, doc); err != nil {
		return nil, invalid()
	}
	if err := markAnyMethods(doc); err != nil {
		return nil, err
	}
	if err := l.ResolveRefsIn(doc, nil); err != nil {
		return nil, refError(err)
	}
	return doc, nil
}

// refError words a loader failure: a reference it could not follow is
// named, anything else is not OpenAPI.
func refError(err error) *Error {
	msg := err.Error()
	for _, w := range []string{"ref", "resolve", "reference", "fragment"} {
		if !strings.Contains(msg, w) {
			continue
		}
		return importErrors("Unable to resolve a reference: %s", msg)
	}
	return invalid()
}

// markAnyMethods moves each path's ANY operation, which kin-openapi keeps
// as an extension of the path item, to a TRACE operation, marked.
func markAnyMethods(doc *openapi3.T) error {
	if doc.Paths == nil {
		return nil
	}
	for path, item := range doc.Paths.Map() {
		ext, ok := item.Extensions[anyMethodKey]
		if !ok || item == nil {
			continue
		}
		b, err := json.Marshal(ext)
		if err != nil {
			return invalid()
		}
		op := new(openapi3.Operation)
		if err := json.Unmarshal(b, op); err != nil {
			return importErrors("Invalid %s of path '%s'", anyMethodKey, path)
		}
		delete(item.Extensions, anyMethodKey)
		if op.Extensions == nil {
			op.Extensions = map[string]any{}
		}
		op.Extensions[anyMarker] = true
		item.Trace = op
	}
	return nil
}

func loadSwagger(body []byte) (*openapi3.T, string, error) {
	var doc2 openapi2.T
	if err := json.Unmarshal(body, &doc2); err != nil {
		return nil, "", invalid()
	}
	anyOps := map[string]*openapi2.Operation{}
	for path, item := range doc2.Paths {
		if item == nil {
			continue
		}
		ext, ok := item.Extensions[anyMethodKey]
		if !ok {
			continue
		}
		b, err := json.Marshal(ext)
		if err != nil {
			return nil, "", invalid()
		}
		op := new(openapi2.Operation)
		if err := json.Unmarshal(b, op); err != nil {
			return nil, "", invalid()
		}
		delete(item.Extensions, anyMethodKey)
		anyOps[path] = op
	}
	doc3, err := openapi2conv.ToV3(&doc2)
	if err != nil {
		return nil, "", refError(err)
	}
	for path, op := range anyOps {
		item := doc3.Paths.Value(path)
		if item == nil {
			item = &openapi3.PathItem{}
			doc3.Paths.Set(path, item)
		}
		op3, err := openapi2conv.ToV3Operation(doc3.Components, doc2.Paths[path], op, doc2.Consumes)
		if err != nil {
			return nil, "", refError(err)
		}
		if op3.Extensions == nil {
			op3.Extensions = map[string]any{}
		}
		op3.Extensions[anyMarker] = true
		item.Trace = op3
	}
	// The base path is applied by Parse, as the import's basepath asks.
	doc3.Servers = nil
	b, err := json.Marshal(doc3)
	if err != nil {
		return nil, "", invalid()
	}
	doc, err := load3(b)
	if err != nil {
		return nil, "", err
	}
	return doc, doc2.BasePath, nil
}

// depth is how deep the JSON text b nests.
func depth(b []byte) int {
	d, most := 0, 0
	inStr, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// ext decodes the extension called name of exts into v; it reports whether
// the extension was there.
func ext(exts map[string]any, name string, v any) (bool, error) {
	raw, ok := exts[name]
	if !ok {
		return false, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return true, err
	}
	return true, json.Unmarshal(b, v)
}

func sorted[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func fmtAny(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
