package ses

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// A template part is Handlebars text: {{name}} and {{{name}}} insert the
// value at a dotted path (a.b.c) of the template data; {{#if x}},
// {{#unless x}} and {{#each x}} (with {{else}}, and this, @index, @key,
// @first and @last inside each) are the block helpers SES documents;
// {{! ...}} is a comment. Other helpers are kept as text.

// node is a literal run (text), a substitution (path) or a block.
type node struct {
	text  string
	path  []string
	block string // "if", "unless", "each"
	body  []node
	alt   []node // after {{else}}
}

// parseTemplate parses a template part; an unclosed tag or block, or a
// block closed by another's tag, is an error.
func parseTemplate(s string) ([]node, error) {
	p := &tplParser{rest: s}
	nodes, end, err := p.nodes()
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, fmt.Errorf("{{%s}} closes no block", end)
	}
	return nodes, nil
}

type tplParser struct{ rest string }

// nodes reads nodes up to the end of the text or a closing or else tag,
// which it returns ("/if", "else").
func (p *tplParser) nodes() ([]node, string, error) {
	var out []node
	for p.rest != "" {
		i := strings.Index(p.rest, "{{")
		if i < 0 {
			out = append(out, node{text: p.rest})
			p.rest = ""
			break
		}
		if i > 0 {
			out = append(out, node{text: p.rest[:i]})
		}
		p.rest = p.rest[i:]
		open, closing := "{{", "}}"
		if strings.HasPrefix(p.rest, "{{{") {
			open, closing = "{{{", "}}}"
		}
		j := strings.Index(p.rest[len(open):], closing)
		if j < 0 {
			return nil, "", fmt.Errorf("unclosed tag %q", clip(p.rest, 40))
		}
		tag := p.rest[:len(open)+j+len(closing)]
		inner := strings.TrimSpace(p.rest[len(open) : len(open)+j])
		p.rest = p.rest[len(tag):]
		switch {
		case strings.HasPrefix(inner, "!"):
			// A comment renders nothing.
		case inner == "else":
			return out, "else", nil
		case strings.HasPrefix(inner, "/") && blockHelper(strings.TrimSpace(inner[1:])):
			return out, inner, nil
		case strings.HasPrefix(inner, "#"):
			helper, arg, _ := strings.Cut(strings.TrimSpace(inner[1:]), " ")
			arg = strings.TrimSpace(arg)
			if !blockHelper(helper) || !simplePath(arg) {
				out = append(out, node{text: tag})
				continue
			}
			n := node{block: helper, path: splitPath(arg)}
			body, end, err := p.nodes()
			if err != nil {
				return nil, "", err
			}
			n.body = body
			if end == "else" {
				if n.alt, end, err = p.nodes(); err != nil {
					return nil, "", err
				}
			}
			if end != "/"+helper {
				return nil, "", fmt.Errorf("{{#%s %s}} is not closed by {{/%s}}", helper, arg, helper)
			}
			out = append(out, n)
		case simplePath(inner):
			out = append(out, node{path: splitPath(inner)})
		default:
			// Another helper, or a partial: kept as it is.
			out = append(out, node{text: tag})
		}
	}
	return out, "", nil
}

func blockHelper(name string) bool { return name == "if" || name == "unless" || name == "each" }

// simplePath reports whether s is a variable reference: a dotted path,
// this, or an @ variable.
func simplePath(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\n\"'()=|<>") || strings.ContainsAny(s[:1], "#/>^&!") {
		return false
	}
	return true
}

// splitPath splits a dotted path; each leading ../ becomes a ".." step.
func splitPath(s string) []string {
	var out []string
	for strings.HasPrefix(s, "../") {
		out, s = append(out, ".."), s[3:]
	}
	if s == "" {
		return append(out, "this")
	}
	return append(out, strings.Split(s, ".")...)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// parseTemplateData reads TemplateData, which must be a JSON object. For
// TestRenderTemplate (render) v1's error is InvalidRenderingParameter.
func parseTemplateData(a API, data string, render bool) (map[string]any, error) {
	var vars map[string]any
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	err := dec.Decode(&vars)
	if err == nil && dec.More() {
		err = errors.New("data after the object")
	}
	if err == nil && vars == nil {
		err = errors.New("not an object")
	}
	if err != nil {
		if render && a == V1 {
			return nil, awswire.Errorf(awswire.SES, codeInvalidRendering, "Template rendering data is invalid: %s", err.Error())
		}
		return nil, a.Invalid("Invalid TemplateData: the data must be a JSON object (%s).", err.Error())
	}
	return vars, nil
}

// render renders the three parts of c with vars; missing names the first
// variable of the top-level context that vars lacks (then the result is
// not sendable, as on AWS). Inside blocks, a missing value renders empty.
func render(c TemplateContent, vars map[string]any) (out TemplateContent, missing string) {
	parts := [3]*string{&c.Subject, &c.Text, &c.HTML}
	dst := [3]*string{&out.Subject, &out.Text, &out.HTML}
	written := 0
	for i, p := range parts {
		nodes, err := parseTemplate(*p)
		if err != nil {
			// Checked at create: a stored template parses.
			*dst[i] = *p
			continue
		}
		r := renderer{missing: missing, written: written}
		r.nodes(nodes, &renderScope{value: vars}, true)
		*dst[i], missing, written = r.b.String(), r.missing, r.written
		if r.tooLarge {
			return out, renderTooLarge
		}
	}
	return out, missing
}

// maxRenderedBytes bounds a rendered message's three parts together: v1's
// largest message (v2's is 40 MB, but the emulator's requests are 10 MB by
// default). A few tags over large data would otherwise write without end
// ({{#each a}}{{../s}}{{/each}}).
const maxRenderedBytes = 10 << 20

// renderTooLarge is render's missing when the output passes
// maxRenderedBytes: a rendering failure, as a missing variable is.
const renderTooLarge = "(the rendered message is larger than 10485760 bytes)"

// renderScope is one context of a render: the value `this` names, the @
// variables of an each iteration, and the enclosing scope.
type renderScope struct {
	value  any
	at     map[string]any
	parent *renderScope
}

type renderer struct {
	b       strings.Builder
	missing string
	// steps bounds the work of one render (each over large data).
	steps int
	// written counts the bytes of the parts rendered so far; past
	// maxRenderedBytes the render stops, tooLarge.
	written  int
	tooLarge bool
}

// write appends s unless that passes maxRenderedBytes.
func (r *renderer) write(s string) {
	if r.written+len(s) > maxRenderedBytes {
		r.tooLarge = true
		return
	}
	r.written += len(s)
	r.b.WriteString(s)
}

const maxRenderSteps = 1 << 20

func (r *renderer) nodes(nodes []node, sc *renderScope, top bool) {
	for _, n := range nodes {
		if r.steps++; r.steps > maxRenderSteps || r.tooLarge {
			return
		}
		switch {
		case n.block != "":
			v, _ := sc.lookup(n.path)
			switch n.block {
			case "if":
				if truthy(v) {
					r.nodes(n.body, sc, top)
				} else {
					r.nodes(n.alt, sc, top)
				}
			case "unless":
				if !truthy(v) {
					r.nodes(n.body, sc, top)
				} else {
					r.nodes(n.alt, sc, top)
				}
			case "each":
				r.each(n, v, sc)
			}
		case n.path != nil:
			v, ok := sc.lookup(n.path)
			if !ok {
				if top && r.missing == "" {
					r.missing = strings.Join(n.path, ".")
				}
				continue
			}
			r.write(text(v))
		default:
			r.write(n.text)
		}
	}
}

func (r *renderer) each(n node, v any, sc *renderScope) {
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			r.nodes(n.alt, sc, false)
		}
		for i, item := range x {
			if r.tooLarge {
				return
			}
			r.nodes(n.body, &renderScope{value: item, parent: sc, at: map[string]any{
				"index": json.Number(strconv.Itoa(i)), "first": i == 0, "last": i == len(x)-1}}, false)
		}
	case map[string]any:
		if len(x) == 0 {
			r.nodes(n.alt, sc, false)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if r.tooLarge {
				return
			}
			r.nodes(n.body, &renderScope{value: x[k], parent: sc, at: map[string]any{
				"key": k, "index": json.Number(strconv.Itoa(i)), "first": i == 0, "last": i == len(keys)-1}}, false)
		}
	default:
		r.nodes(n.alt, sc, false)
	}
}

// lookup resolves a path in sc: this, @variables, ../ for the enclosing
// scope, else members of the scope's value.
func (sc *renderScope) lookup(path []string) (any, bool) {
	for len(path) > 1 && path[0] == ".." {
		if sc.parent != nil {
			sc = sc.parent
		}
		path = path[1:]
	}
	if strings.HasPrefix(path[0], "@") && len(path) == 1 {
		v, ok := sc.at[path[0][1:]]
		return v, ok
	}
	cur := sc.value
	if path[0] == "this" {
		path = path[1:]
	}
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// truthy is Handlebars' truth: false, null, "", 0 and empty lists are
// false.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case []any:
		return len(x) > 0
	}
	return true
}

// text is a value as Handlebars prints it: strings and numbers as they
// are, null as nothing, objects and arrays as JSON.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// buildMIME writes a rendered message as SES would send it: a subject and
// a multipart/alternative body of its text and HTML parts.
func buildMIME(from string, to []string, c TemplateContent) string {
	var b bytes.Buffer
	if from != "" {
		fmt.Fprintf(&b, "From: %s\r\n", from)
	}
	if len(to) > 0 {
		fmt.Fprintf(&b, "To: %s\r\n", strings.Join(to, ", "))
	}
	fmt.Fprintf(&b, "Subject: %s\r\nMIME-Version: 1.0\r\n", mime.QEncoding.Encode("UTF-8", c.Subject))
	mw := multipart.NewWriter(&b)
	fmt.Fprintf(&b, "Content-Type: multipart/alternative; boundary=%q\r\n\r\n", mw.Boundary())
	for _, p := range []struct{ typ, body string }{{"text/plain", c.Text}, {"text/html", c.HTML}} {
		if p.body == "" {
			continue
		}
		w, _ := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {p.typ + "; charset=UTF-8"},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		qw := quotedprintable.NewWriter(w)
		_, _ = qw.Write([]byte(p.body))
		_ = qw.Close()
	}
	_ = mw.Close()
	return b.String()
}
