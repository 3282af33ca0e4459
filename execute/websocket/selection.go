package websocket

import (
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/vtl"
	"github.com/cloudemu/emulator/vtl/jsonpath"
)

// A selection expression (routeSelectionExpression,
// templateSelectionExpression) is text with references to the message:
// "$request.body.action", "${request.body.service}/${request.body.action}",
// or a literal such as "\$default"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-websocket-api-selection-expressions.html).

// expression is a selection expression, compiled once.
type expression struct {
	parts []exprPart
}

// exprPart is literal text, or a reference: a JSON path into the body
// (path nil: the whole body) or a header of the $connect request.
type exprPart struct {
	text   string
	ref    bool
	body   bool
	path   *jsonpath.Path
	header string
}

// compileExpression parses src; what cannot be read stays literal text.
func compileExpression(src string) *expression {
	e := &expression{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			e.parts = append(e.parts, exprPart{text: lit.String()})
			lit.Reset()
		}
	}
	if !strings.Contains(src, "${") && strings.HasPrefix(src, "$request.") {
		// The whole expression is one reference: "$request.body.detail-type".
		e.parts = append(e.parts, reference(src[1:]))
		return e
	}
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\\' && i+1 < len(src) && src[i+1] == '$':
			lit.WriteByte('$')
			i++
		case strings.HasPrefix(src[i:], "${"):
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				lit.WriteString(src[i:])
				i = len(src)
				continue
			}
			flush()
			e.parts = append(e.parts, reference(src[i+2:i+end]))
			i += end
		default:
			lit.WriteByte(src[i])
		}
	}
	flush()
	return e
}

// reference reads "request.body[.path]" or "request.header.name".
func reference(r string) exprPart {
	switch {
	case r == "request.body":
		return exprPart{ref: true, body: true}
	case strings.HasPrefix(r, "request.body."):
		p, err := jsonpath.Lookup("$." + r[len("request.body."):])
		if err != nil {
			return exprPart{ref: true}
		}
		return exprPart{ref: true, body: true, path: p}
	case strings.HasPrefix(r, "request.header."):
		return exprPart{ref: true, header: r[len("request.header."):]}
	}
	return exprPart{ref: true}
}

// eval evaluates the expression over a message: body is the parsed JSON
// (nil when the message is not JSON), raw the message as text, header the
// $connect request's headers. A reference that selects nothing is "";
// objects and arrays are their JSON text.
func (e *expression) eval(body vtl.Value, raw string, header func(string) string) string {
	if len(e.parts) == 1 && !e.parts[0].ref {
		return e.parts[0].text
	}
	var b strings.Builder
	for _, p := range e.parts {
		switch {
		case !p.ref:
			b.WriteString(p.text)
		case p.header != "":
			if header != nil {
				b.WriteString(header(p.header))
			}
		case p.body && p.path == nil:
			b.WriteString(raw)
		case p.body && body != nil:
			v, ok, err := p.path.Eval(body)
			if ok && err == nil {
				b.WriteString(valueText(v))
			}
		}
	}
	return b.String()
}

// valueText is how a selected JSON value reads as a route key.
func valueText(v vtl.Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case *vtl.Map, *vtl.List:
		return vtl.JSON(x)
	}
	return vtl.String(v)
}
