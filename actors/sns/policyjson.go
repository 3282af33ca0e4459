package sns

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SNS reads filter policies with Jackson and words its refusals after it,
// naming where in the policy the reader stood: the line and column after
// the token it had just read (after only the opening quote of a string
// whose text it did not need). jnode keeps those places so that the
// emulator's refusals name the same ones.

// jnode is one JSON value and where it is in the text.
type jnode struct {
	kind  byte // '{', '[', 's' string, 'n' number, 't', 'f', 'z' null
	start int  // offset of its first byte
	end   int  // offset after its token (after the opening bracket of '{' and '[')
	close int  // '{' and '[': offset after the closing bracket
	str   string
	keys  []string
	vals  []*jnode // members' values in order, or elements
}

// seen is where the reader stands once it knows the value's type.
func (n *jnode) seen() int {
	if n.kind == 's' {
		return n.start + 1
	}
	return n.end
}

// read is where the reader stands once it read the value's text.
func (n *jnode) read() int { return n.end }

// text is the value's text as Jackson prints it in messages.
func (n *jnode) text() string {
	switch n.kind {
	case 's', 'n':
		return n.str
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'z':
		return "null"
	}
	return string(n.kind)
}

// refusal is a filter policy refused at a place (at < 0: no place), or a
// policy that is not JSON (syntax).
type refusal struct {
	msg    string
	at     int
	syntax bool
}

func refuse(at int, format string, args ...any) *refusal {
	return &refusal{msg: fmt.Sprintf(format, args...), at: at}
}

// maxSourceShown is how much of the policy Jackson quotes in a location.
const maxSourceShown = 500

// words the refusal with its location in text.
func (r *refusal) words(text string) string {
	if r.at < 0 {
		return r.msg
	}
	at := min(r.at, len(text))
	line := 1 + strings.Count(text[:at], "\n")
	col := 1 + utf8.RuneCountInString(text[strings.LastIndexByte(text[:at], '\n')+1:at])
	if r.syntax {
		return fmt.Sprintf("%s\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: %d, column: %d]", r.msg, line, col)
	}
	src := `(String)"` + text + `"`
	if n := utf8.RuneCountInString(text); n > maxSourceShown {
		runes := []rune(text)
		src = `(String)"` + string(runes[:maxSourceShown]) + `"[truncated ` + strconv.Itoa(n-maxSourceShown) + ` chars]`
	}
	return fmt.Sprintf("%s\n at [Source: %s; line: %d, column: %d]", r.msg, src, line, col)
}

// jsonReader reads one JSON document into jnodes.
type jsonReader struct {
	text  string
	i     int
	depth int
}

// maxJSONDepth bounds nesting, as Jackson's reader does.
const maxJSONDepth = 1000

func parsePolicyJSON(text string) (*jnode, *refusal) {
	r := &jsonReader{text: text}
	n, err := r.value()
	if err != nil {
		return nil, err
	}
	r.space()
	if r.i < len(r.text) {
		return nil, r.unexpected("expected end of input")
	}
	return n, nil
}

func (r *jsonReader) syntax(at int, format string, args ...any) *refusal {
	return &refusal{msg: fmt.Sprintf(format, args...), at: at, syntax: true}
}

func (r *jsonReader) space() {
	for r.i < len(r.text) {
		switch r.text[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// unexpected refuses the character at r.i.
func (r *jsonReader) unexpected(what string) *refusal {
	if r.i >= len(r.text) {
		return r.syntax(r.i, "Unexpected end-of-input: %s", what)
	}
	c, _ := utf8.DecodeRuneInString(r.text[r.i:])
	return r.syntax(r.i, "Unexpected character ('%c' (code %d)): %s", c, c, what)
}

func (r *jsonReader) value() (*jnode, *refusal) {
	r.space()
	if r.i >= len(r.text) {
		return nil, r.syntax(r.i, "No content to map due to end-of-input")
	}
	start := r.i
	switch c := r.text[r.i]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"':
		s, err := r.string()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: 's', start: start, end: r.i, str: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		for r.i < len(r.text) && strings.IndexByte("+-.eE0123456789", r.text[r.i]) >= 0 {
			r.i++
		}
		raw := r.text[start:r.i]
		if _, err := strconv.ParseFloat(raw, 64); err != nil || !json.Valid([]byte(raw)) {
			return nil, r.syntax(r.i, "Invalid numeric value: %s", raw)
		}
		return &jnode{kind: 'n', start: start, end: r.i, str: raw}, nil
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		for r.i < len(r.text) {
			c := r.text[r.i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				break
			}
			r.i++
		}
		word := r.text[start:r.i]
		kinds := map[string]byte{"true": 't', "false": 'f', "null": 'z'}
		k, ok := kinds[word]
		if !ok {
			return nil, r.syntax(r.i, "Unrecognized token '%s': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')", word)
		}
		return &jnode{kind: k, start: start, end: r.i}, nil
	}
	return nil, r.unexpected("expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')")
}

// string reads a string at r.i (its opening quote) and decodes it.
func (r *jsonReader) string() (string, *refusal) {
	start := r.i
	r.i++
	for r.i < len(r.text) {
		switch c := r.text[r.i]; {
		case c == '\\':
			r.i += 2
		case c == '"':
			r.i++
			var s string
			if err := json.Unmarshal([]byte(r.text[start:r.i]), &s); err != nil {
				return "", r.syntax(r.i, "Unrecognized character escape in string value")
			}
			return s, nil
		case c < 0x20:
			return "", r.syntax(r.i+1, "Illegal unquoted character ((CTRL-CHAR, code %d)): has to be escaped using backslash to be included in string value", c)
		default:
			r.i++
		}
	}
	r.i = len(r.text)
	return "", r.syntax(r.i, "Unexpected end-of-input: was expecting closing quote for a string value")
}

func (r *jsonReader) object() (*jnode, *refusal) {
	n := &jnode{kind: '{', start: r.i, end: r.i + 1}
	r.i++
	if r.depth++; r.depth > maxJSONDepth {
		return nil, r.syntax(r.i, "Document nesting depth exceeds the maximum allowed")
	}
	defer func() { r.depth-- }()
	r.space()
	if r.i < len(r.text) && r.text[r.i] == '}' {
		r.i++
		n.close = r.i
		return n, nil
	}
	for {
		r.space()
		if r.i >= len(r.text) || r.text[r.i] != '"' {
			if r.i >= len(r.text) {
				return nil, r.unexpected("expected close marker for Object")
			}
			return nil, r.unexpected("was expecting double-quote to start field name")
		}
		key, err := r.string()
		if err != nil {
			return nil, err
		}
		r.space()
		if r.i >= len(r.text) || r.text[r.i] != ':' {
			return nil, r.unexpected("was expecting a colon to separate field name and value")
		}
		r.i++
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, key)
		n.vals = append(n.vals, v)
		r.space()
		if r.i < len(r.text) && r.text[r.i] == ',' {
			r.i++
			continue
		}
		if r.i < len(r.text) && r.text[r.i] == '}' {
			r.i++
			n.close = r.i
			return n, nil
		}
		return nil, r.unexpected("was expecting comma to separate Object entries")
	}
}

func (r *jsonReader) array() (*jnode, *refusal) {
	n := &jnode{kind: '[', start: r.i, end: r.i + 1}
	r.i++
	if r.depth++; r.depth > maxJSONDepth {
		return nil, r.syntax(r.i, "Document nesting depth exceeds the maximum allowed")
	}
	defer func() { r.depth-- }()
	r.space()
	if r.i < len(r.text) && r.text[r.i] == ']' {
		r.i++
		n.close = r.i
		return n, nil
	}
	for {
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
		r.space()
		if r.i < len(r.text) && r.text[r.i] == ',' {
			r.i++
			continue
		}
		if r.i < len(r.text) && r.text[r.i] == ']' {
			r.i++
			n.close = r.i
			return n, nil
		}
		return nil, r.unexpected("was expecting comma to separate Array entries")
	}
}
