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
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// A template part is Handlebars text: {{name}} and {{{name}}} insert the
// value at a dotted path (a.b.c) of the template data; {{! ...}} is a
// comment. Block helpers ({{#if}}, {{#each}}) are not rendered: their tags
// are kept as text.

// segment is a literal run (path == "") or a substitution.
type segment struct {
	text string
	path []string
}

// parseTemplate splits a template part into segments; an unclosed tag is
// an error.
func parseTemplate(s string) ([]segment, error) {
	var out []segment
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			out = append(out, segment{text: s})
			break
		}
		if i > 0 {
			out = append(out, segment{text: s[:i]})
		}
		s = s[i:]
		open, closing := "{{", "}}"
		if strings.HasPrefix(s, "{{{") {
			open, closing = "{{{", "}}}"
		}
		j := strings.Index(s[len(open):], closing)
		if j < 0 {
			return nil, fmt.Errorf("unclosed tag %q", clip(s, 40))
		}
		tag := s[:len(open)+j+len(closing)]
		inner := strings.TrimSpace(s[len(open) : len(open)+j])
		s = s[len(tag):]
		switch {
		case strings.HasPrefix(inner, "!"):
			// A comment renders nothing.
		case inner == "" || strings.ContainsAny(inner[:1], "#/>^&") || inner == "else" || strings.ContainsAny(inner, " \t\n"):
			// A helper or a block: kept as it is.
			out = append(out, segment{text: tag})
		default:
			out = append(out, segment{path: strings.Split(inner, ".")})
		}
	}
	return out, nil
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
// variable vars lacks (then the result is not sendable, as on AWS).
func render(c TemplateContent, vars map[string]any) (out TemplateContent, missing string) {
	parts := [3]*string{&c.Subject, &c.Text, &c.HTML}
	dst := [3]*string{&out.Subject, &out.Text, &out.HTML}
	for i, p := range parts {
		segs, err := parseTemplate(*p)
		if err != nil {
			// Checked at create: a stored template parses.
			*dst[i] = *p
			continue
		}
		var b strings.Builder
		for _, sg := range segs {
			if sg.path == nil {
				b.WriteString(sg.text)
				continue
			}
			v, ok := lookup(vars, sg.path)
			if !ok {
				if missing == "" {
					missing = strings.Join(sg.path, ".")
				}
				continue
			}
			b.WriteString(text(v))
		}
		*dst[i] = b.String()
	}
	return out, missing
}

func lookup(vars map[string]any, path []string) (any, bool) {
	var cur any = vars
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
