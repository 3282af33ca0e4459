package modelschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ErrInvalid is the error for a schema that is not JSON.
var ErrInvalid = errors.New("modelschema: the schema is not JSON")

// Models looks up the schema of one of the API's models by name.
type Models func(name string) (schema string, ok bool)

// modelRef is how a schema names another model of the API.
var modelRef = regexp.MustCompile(`^https?://apigateway\.amazonaws\.com/restapis/[^/]+/models/([^/#?]+)`)

// Schema is a parsed model schema.
type Schema struct{ root *node }

// Parse reads a schema. It fails with ErrInvalid when s is not one JSON
// value.
func Parse(s string) (*Schema, error) {
	n, err := parse(s)
	if err != nil {
		return nil, ErrInvalid
	}
	return &Schema{root: n}, nil
}

// Empty reports whether the schema has no member (an object) or item (a
// list): AWS refuses such a schema, as it refuses a scalar.
func (s *Schema) Empty() bool {
	n := s.root
	return (n.kind != 'o' || len(n.keys) == 0) && (n.kind != 'a' || len(n.items) == 0)
}

// Refs returns the names of the API's models the schema references, each
// once, in the order they appear. A nil Schema references none.
func (s *Schema) Refs() []string {
	if s == nil {
		return nil
	}
	var names []string
	s.root.walk(func(k *node) {
		ref, ok := k.get("$ref")
		if !ok || ref.kind != 's' {
			return
		}
		m := modelRef.FindStringSubmatch(ref.text)
		if m != nil && !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	})
	return names
}

// String returns the value of the top-level member key when it is a
// string ("title", "$schema").
func (s *Schema) String(key string) (string, bool) {
	v, ok := s.root.get(key)
	if !ok || v.kind != 's' {
		return "", false
	}
	return v.text, true
}

// node is a parsed JSON value that keeps its members in the order
// they were written: templates list properties in schema order.
type node struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' boolean, 'z' null
	keys  []string
	vals  []*node
	items []*node
	text  string // a string's value, a number's or a boolean's literal
}

func parse(s string) (*node, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	n, err := readNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("modelschema: data after the JSON value")
	}
	return n, nil
}

// maxDepth bounds how deep a schema nests, so that a hostile one
// cannot exhaust the stack.
const maxDepth = 512

func readNode(dec *json.Decoder, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, errors.New("modelschema: nested too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("modelschema: object key is not a string")
				}
				v, err := readNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys, n.vals = append(n.keys, k), append(n.vals, v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &node{kind: 'a'}
			for dec.More() {
				v, err := readNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			_, err := dec.Token()
			return n, err
		}
		return nil, errors.New("modelschema: unexpected delimiter")
	case string:
		return &node{kind: 's', text: t}, nil
	case json.Number:
		return &node{kind: 'n', text: t.String()}, nil
	case bool:
		return &node{kind: 'b', text: strconv.FormatBool(t)}, nil
	case nil:
		return &node{kind: 'z'}, nil
	}
	return nil, errors.New("modelschema: unexpected token")
}

// get returns the first member called key of an object.
func (n *node) get(key string) (*node, bool) {
	if n == nil || n.kind != 'o' {
		return nil, false
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i], true
		}
	}
	return nil, false
}

// walk calls fn on n and everything under it.
func (n *node) walk(fn func(*node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, v := range n.vals {
		v.walk(fn)
	}
	for _, v := range n.items {
		v.walk(fn)
	}
}

// pointer resolves a JSON Pointer ("#/definitions/x") inside n.
func (n *node) pointer(ref string) (*node, bool) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	cur := n
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if seg == "" {
			continue
		}
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch cur.kind {
		case 'o':
			v, ok := cur.get(seg)
			if !ok {
				return nil, false
			}
			cur = v
		case 'a':
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(cur.items) {
				return nil, false
			}
			cur = cur.items[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// budget bounds what a template expands to: references may nest a
// model many times over.
const budget = 10000

// templateGen writes the sample mapping template of a schema.
type templateGen struct {
	models   Models
	parsed   map[string]*node
	visiting map[string]bool
	budget   int
	b        strings.Builder
}

// Template generates the sample mapping template GetModelTemplate answers
// for the model name with schema, as AWS writes it: the $inputRoot line,
// then the schema's shape with sample values ("foo" for strings, 42 for
// integers, 3.1415 for numbers, true for booleans), two spaces of
// indentation a level, an object without properties as "{ }". References
// to the API's other models (looked up in models) and to "#/..." pointers
// are followed. It fails with ErrInvalid when schema is not JSON.
func Template(name, schema string, models Models) (string, error) {
	root, err := parse(schema)
	if err != nil {
		return "", ErrInvalid
	}
	g := &templateGen{models: models, parsed: map[string]*node{name: root},
		visiting: map[string]bool{name: true}, budget: budget}
	g.b.WriteString("#set($inputRoot = $input.path('$'))\n")
	g.value(root, root, 0)
	return g.b.String(), nil
}

// resolve follows n's $ref, returning the schema it names and the
// document its own pointers resolve in, and the model it entered (to
// leave on the way out), if any.
func (g *templateGen) resolve(n, doc *node) (*node, *node, string) {
	for range 32 {
		ref, ok := n.get("$ref")
		if !ok || ref.kind != 's' {
			return n, doc, ""
		}
		if strings.HasPrefix(ref.text, "#") {
			t, ok := doc.pointer(ref.text)
			if !ok || t == n {
				return nil, doc, ""
			}
			n = t
			continue
		}
		mm := modelRef.FindStringSubmatch(ref.text)
		if mm == nil {
			return nil, doc, ""
		}
		name := mm[1]
		if g.visiting[name] {
			return nil, doc, ""
		}
		target, ok := g.parsed[name]
		if !ok {
			schema, ok := g.models(name)
			if !ok {
				return nil, doc, ""
			}
			p, err := parse(schema)
			if err != nil {
				return nil, doc, ""
			}
			g.parsed[name], target = p, p
		}
		return target, target, name
	}
	return nil, doc, ""
}

func (g *templateGen) value(n, doc *node, indent int) {
	g.budget--
	n, doc, entered := g.resolve(n, doc)
	if entered != "" {
		g.visiting[entered] = true
		defer delete(g.visiting, entered)
	}
	if n == nil || g.budget < 0 {
		g.b.WriteString("{ }")
		return
	}
	switch schemaType(n) {
	case "object":
		props, _ := n.get("properties")
		if props == nil || props.kind != 'o' || len(props.keys) == 0 {
			g.b.WriteString("{ }")
			return
		}
		pad := strings.Repeat(" ", indent+2)
		g.b.WriteString("{\n")
		for i, k := range props.keys {
			if i > 0 {
				g.b.WriteString(",\n")
			}
			g.b.WriteString(pad)
			g.b.Write(quote(k))
			g.b.WriteString(" : ")
			g.value(props.vals[i], doc, indent+2)
		}
		g.b.WriteString("\n" + strings.Repeat(" ", indent) + "}")
	case "array":
		items, _ := n.get("items")
		if items != nil && items.kind == 'a' && len(items.items) > 0 {
			items = items.items[0]
		}
		if items == nil || items.kind != 'o' {
			g.b.WriteString("[ ]")
			return
		}
		g.b.WriteString("[\n" + strings.Repeat(" ", indent+2))
		g.value(items, doc, indent+2)
		g.b.WriteString("\n" + strings.Repeat(" ", indent) + "]")
	case "string":
		if e, ok := n.get("enum"); ok && len(e.items) > 0 && e.items[0].kind == 's' {
			g.b.Write(quote(e.items[0].text))
			return
		}
		g.b.WriteString(`"foo"`)
	case "integer":
		g.b.WriteString("42")
	case "number":
		g.b.WriteString("3.1415")
	case "boolean":
		g.b.WriteString("true")
	default:
		g.b.WriteString("null")
	}
}

// schemaType is the JSON Schema type of n: its "type" (the first that is
// not "null" of a list), else what its members imply.
func schemaType(n *node) string {
	if t, ok := n.get("type"); ok {
		switch t.kind {
		case 's':
			return t.text
		case 'a':
			for _, it := range t.items {
				if it.kind == 's' && it.text != "null" {
					return it.text
				}
			}
			return "null"
		}
	}
	if _, ok := n.get("items"); ok {
		return "array"
	}
	if e, ok := n.get("enum"); ok && len(e.items) > 0 {
		switch e.items[0].kind {
		case 's':
			return "string"
		case 'n':
			return "number"
		case 'b':
			return "boolean"
		}
	}
	return "object"
}

func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Flatten returns the schema of model name with the references to the
// API's other models replaced by their schemas (GetModel's flatten). A
// schema that is not JSON, or has no such reference, is returned as it is;
// a reference that would recurse is kept.
func Flatten(name, schema string, models Models) string {
	root, err := parse(schema)
	if err != nil {
		return schema
	}
	changed := false
	budget := budget
	var flat func(n *node, visiting map[string]bool) *node
	flat = func(n *node, visiting map[string]bool) *node {
		budget--
		if budget < 0 {
			return n
		}
		if ref, ok := n.get("$ref"); ok && ref.kind == 's' {
			if mm := modelRef.FindStringSubmatch(ref.text); mm != nil && !visiting[mm[1]] {
				if other, ok := models(mm[1]); ok {
					if p, err := parse(other); err == nil {
						changed = true
						next := maps.Clone(visiting)
						next[mm[1]] = true
						return flat(p, next)
					}
				}
			}
		}
		if len(n.vals) == 0 && len(n.items) == 0 {
			return n
		}
		cp := *n
		cp.vals = make([]*node, len(n.vals))
		for i, v := range n.vals {
			cp.vals[i] = flat(v, visiting)
		}
		cp.items = make([]*node, len(n.items))
		for i, v := range n.items {
			cp.items[i] = flat(v, visiting)
		}
		return &cp
	}
	out := flat(root, map[string]bool{name: true})
	if !changed {
		return schema
	}
	var b bytes.Buffer
	out.write(&b)
	return b.String()
}

// write appends n as compact JSON.
func (n *node) write(b *bytes.Buffer) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(quote(k))
			b.WriteByte(':')
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, v := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			v.write(b)
		}
		b.WriteByte(']')
	case 's':
		b.Write(quote(n.text))
	case 'z':
		b.WriteString("null")
	default:
		b.WriteString(n.text)
	}
}
