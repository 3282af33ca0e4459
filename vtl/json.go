package vtl

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/cloudemu/emulator/awswire"
)

// maxJSONDepth bounds nesting so that hostile input cannot exhaust the
// stack; real payloads stay far below it.
const maxJSONDepth = 512

// ParseJSON turns JSON text into values: objects become *Map and arrays
// *List, both marked JSON; integers that fit become int64, other numbers
// float64. It is a hand-written scanner because it runs once per request
// on the hot path of every mapping template that reads the body.
func ParseJSON(data []byte) (Value, error) {
	p := jsonParser{s: string(data)}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.fail("unexpected data after the top-level value")
	}
	return v, nil
}

// JSONError is malformed JSON, with the byte offset where it went wrong.
type JSONError struct {
	Offset int
	Msg    string
}

func (e *JSONError) Error() string {
	return "invalid JSON at offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

type jsonParser struct {
	s string // one copy of the input; strings without escapes slice it
	i int
	// Stacks shared by all nesting levels: a container's members gather
	// here and are copied out once, in one allocation of the right size.
	entries []mapEntry
	items   []Value
}

func (p *jsonParser) fail(msg string) error { return &JSONError{Offset: p.i, Msg: msg} }

func (p *jsonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (Value, error) {
	if p.i >= len(p.s) {
		return nil, p.fail("unexpected end of input")
	}
	if depth > maxJSONDepth {
		return nil, p.fail("nesting too deep")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return s, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return false, nil
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return nil, nil
	}
	return nil, p.fail("unexpected character " + strconv.QuoteRune(rune(p.s[p.i])))
}

func (p *jsonParser) object(depth int) (Value, error) {
	p.i++ // {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return &Map{JSON: true}, nil
	}
	base := len(p.entries)
	defer func() { p.entries = p.entries[:base] }()
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.fail("expected a string key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.fail("expected ':'")
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.entries = append(p.entries, mapEntry{k, v})
		p.space()
		if p.i >= len(p.s) {
			return nil, p.fail("unterminated object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return newJSONMap(p.entries[base:]), nil
		default:
			return nil, p.fail("expected ',' or '}'")
		}
	}
}

func (p *jsonParser) array(depth int) (Value, error) {
	p.i++ // [
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return &List{JSON: true}, nil
	}
	base := len(p.items)
	defer func() { p.items = p.items[:base] }()
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, v)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.fail("unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return &List{Items: slices.Clone(p.items[base:]), JSON: true}, nil
		default:
			return nil, p.fail("expected ',' or ']'")
		}
	}
}

func (p *jsonParser) number() (Value, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return nil, p.fail("malformed number")
	}
	integral := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		integral = false
		if digits() == 0 {
			return nil, p.fail("malformed number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		integral = false
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("malformed number")
		}
	}
	lit := p.s[start:p.i]
	if integral {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.fail("malformed number")
	}
	return f, nil
}

// str reads a string literal at p.i (which is '"'); without escapes the
// result shares the input's memory. Raw control characters are accepted,
// as the lenient JSON reader behind API Gateway's templates accepts them.
func (p *jsonParser) str() (string, error) {
	p.i++
	start := p.i
	end := strings.IndexByte(p.s[start:], '"')
	if end < 0 {
		return "", p.fail("unterminated string")
	}
	if bs := strings.IndexByte(p.s[start:start+end], '\\'); bs >= 0 {
		p.i = start + bs
		return p.strEscaped(start)
	}
	p.i = start + end + 1
	return p.s[start : start+end], nil
}

func (p *jsonParser) strEscaped(start int) (string, error) {
	var b strings.Builder
	b.WriteString(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.s) {
			break
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.fail("malformed \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if strings.HasPrefix(p.s[p.i:], "\\u") {
					p.i += 2
					if r2, ok = p.hex4(); !ok {
						return "", p.fail("malformed \\u escape")
					}
				}
				r = utf16.DecodeRune(r, r2)
			}
			b.WriteRune(r)
		default:
			p.i--
			return "", p.fail("unknown escape")
		}
	}
	return "", p.fail("unterminated string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// newJSONMap builds a map from parsed members; a repeated key keeps its
// first place and its last value, as LinkedHashMap.put does.
func newJSONMap(members []mapEntry) *Map {
	m := &Map{entries: make([]mapEntry, 0, len(members)), JSON: true}
	for _, e := range members {
		m.Put(e.key, e.val)
	}
	return m
}

// JSON is the compact JSON text of v, as API Gateway prints JSON values:
// no spaces, '/' and non-ASCII left as they are. Strings are escaped by
// the same writer as the emulator's own JSON.
func JSON(v Value) string {
	var b []byte
	b = appendJSON(b, v, 0, maxTextLen)
	return string(b)
}

func appendJSON(b []byte, v Value, depth, limit int) []byte {
	if depth > maxJSONDepth || len(b) > limit {
		return append(b, "null"...)
	}
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return awswire.AppendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return append(b, "null"...)
		}
		return awswire.AppendJavaDouble(b, v)
	case *List:
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, it, depth+1, limit)
		}
		return append(b, ']')
	case *Map:
		b = append(b, '{')
		for i, e := range v.entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = awswire.AppendString(b, e.key)
			b = append(b, ':')
			b = appendJSON(b, e.val, depth+1, limit)
		}
		return append(b, '}')
	}
	return awswire.AppendString(b, String(v))
}
