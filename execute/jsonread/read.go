package jsonread

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of a JSON value by its first byte.
type Kind byte

// The kinds.
const (
	Null Kind = iota
	String
	Number
	Bool
	Object
	Array
)

// maxDepth bounds the nesting a value may have.
const maxDepth = 1000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// EachMember calls f for every member of the JSON object raw, in order,
// with its name Unquoted. It reports false when raw is not one well-formed
// JSON object, or when f does. Values (without the space around them), and
// names without escapes, are sub-slices of raw.
func EachMember(raw []byte, f func(key, value []byte) bool) bool {
	return eachIn(raw, '{', f)
}

// EachElement calls f for every element of the JSON array raw.
func EachElement(raw []byte, f func(value []byte) bool) bool {
	return eachIn(raw, '[', func(_, v []byte) bool { return f(v) })
}

// eachIn walks the object or array (open is '{' or '[') that is all of
// raw; key is nil for an array's elements.
func eachIn(raw []byte, open byte, f func(key, value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != open {
		return false
	}
	if end, ok := valueEnd(raw, i, 0); !ok || skipSpace(raw, end) != len(raw) {
		return false
	}
	// The value is well-formed: walk it without checking again (no
	// member or element starts with a closing bracket).
	var key []byte
	for i = skipSpace(raw, i+1); raw[i] != '}' && raw[i] != ']'; {
		if open == '{' {
			kEnd, _ := valueEnd(raw, i, 0)
			key = Unquoted(raw[i:kEnd])
			i = skipSpace(raw, skipSpace(raw, kEnd)+1) // past the colon
		}
		vEnd, _ := valueEnd(raw, i, 0)
		if !f(key, raw[i:vEnd]) {
			return false
		}
		i = skipSpace(raw, vEnd)
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return true
}

// trimSpace drops JSON's white space around b.
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// Check reports whether b, white space around it dropped, is exactly
// one well-formed JSON value, and returns that value.
func Check(b []byte) ([]byte, bool) {
	b = trimSpace(b)
	end, ok := valueEnd(b, 0, 0)
	return b, ok && end == len(b)
}

// valueEnd checks the JSON value that starts at b[i] (no space before it)
// and returns where it ends.
func valueEnd(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxDepth {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return stringEnd(b, i)
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == closing {
			return i + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return i, false
				}
				if i, ok = stringEnd(b, i); !ok {
					return i, false
				}
				if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
					return i, false
				}
				i = skipSpace(b, i+1)
			}
			if i, ok = valueEnd(b, i, depth+1); !ok {
				return i, false
			}
			switch i = skipSpace(b, i); {
			case i >= len(b):
				return i, false
			case b[i] == ',':
				i = skipSpace(b, i+1)
			case b[i] == closing:
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	case c == '-' || ('0' <= c && c <= '9'):
		return numberEnd(b, i)
	}
	return i, false
}

func literalEnd(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

// stringEnd checks the string at b[i] ('"'): JSON's escapes, no control
// character.
func stringEnd(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i++; i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 {
					return i, false
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

// numberEnd checks JSON's number grammar:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(b []byte, i int) (int, bool) {
	digits := func(i int) (int, bool) {
		start := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i, i > start
	}
	if b[i] == '-' {
		i++
	}
	ok := true
	if i < len(b) && b[i] == '0' {
		i++
	} else if i, ok = digits(i); !ok {
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i, ok = digits(i + 1); !ok {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	return i, true
}

// Iter walks the members of a checked object, or the elements of a checked
// array (key nil), in order. Values are sub-slices of the walked value.
type Iter struct {
	b   []byte
	i   int
	obj bool
}

// NewIter walks v, a checked object or array.
func NewIter(v []byte) Iter {
	return Iter{b: v, i: skipSpace(v, 1), obj: v[0] == '{'}
}

// next returns the next member (its name still quoted) or element.
func (it *Iter) Next() (key, value []byte, ok bool) {
	b, i := it.b, it.i
	if i >= len(b) || b[i] == '}' || b[i] == ']' {
		return nil, nil, false
	}
	if it.obj {
		end, _ := stringEnd(b, i)
		key = b[i:end]
		i = skipSpace(b, skipSpace(b, end)+1) // past the colon
	}
	end, _ := valueEnd(b, i, 0)
	value = b[i:end]
	if i = skipSpace(b, end); i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	it.i = i
	return key, value, true
}

// KeyIs reports whether the quoted member name q is name.
func KeyIs(q []byte, name string) bool {
	if len(q) == len(name)+2 && string(q[1:len(q)-1]) == name {
		return true
	}
	if bytes.IndexByte(q, '\\') < 0 {
		return false
	}
	return string(AppendUnquoted(nil, q)) == name
}

// AppendUnquoted appends the text of the checked JSON string q to dst, as
// encoding/json reads it: a lone surrogate and each byte of invalid UTF-8
// become U+FFFD.
func AppendUnquoted(dst, q []byte) []byte {
	inner := q[1 : len(q)-1]
	for len(inner) > 0 {
		// Copy the run up to the next escape in one go.
		run := inner
		if j := bytes.IndexByte(inner, '\\'); j >= 0 {
			run = inner[:j]
		}
		if utf8.Valid(run) {
			dst = append(dst, run...)
		} else {
			dst = appendValidUTF8(dst, run)
		}
		inner = inner[len(run):]
		if len(inner) == 0 {
			break
		}
		// inner[0] is a backslash of a checked escape.
		switch e := inner[1]; e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(inner[2:6])
			inner = inner[4:]
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(inner) >= 8 && inner[2] == '\\' && inner[3] == 'u' {
					r2 = hex4(inner[4:8])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					inner = inner[6:]
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // " \ /
			dst = append(dst, e)
		}
		inner = inner[2:]
	}
	return dst
}

// appendValidUTF8 appends b with each byte of invalid UTF-8 as U+FFFD.
func appendValidUTF8(dst, b []byte) []byte {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[:size]...)
		}
		b = b[size:]
	}
	return dst
}

// hex4 reads four hexadecimal digits.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c <= '9':
			r |= rune(c - '0')
		case c >= 'a':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// Unquoted is the text of a well-formed JSON string: a sub-slice of q
// when it has no escape, else a copy.
func Unquoted(q []byte) []byte {
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	return AppendUnquoted(nil, q)
}

// KindOf is the kind of a value as EachMember and EachElement yield it;
// nil (an absent member) is null.
func KindOf(v []byte) Kind {
	if len(v) == 0 {
		return Null
	}
	switch v[0] {
	case '"':
		return String
	case '{':
		return Object
	case '[':
		return Array
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	}
	return Number
}

// ScalarText reads a scalar as text: a string's value, a number's or a
// boolean's JSON text. ok is false for objects and arrays; null is ("",
// Null, true).
func ScalarText(v []byte) (string, Kind, bool) {
	switch k := KindOf(v); k {
	case String:
		return string(Unquoted(v)), k, true
	case Number, Bool:
		return string(v), k, true
	case Null:
		return "", k, true
	default:
		return "", k, false
	}
}

// AppendScalar appends a scalar as text (as ScalarText reads it) to dst.
func AppendScalar(dst, v []byte) ([]byte, Kind, bool) {
	switch k := KindOf(v); k {
	case String:
		return AppendUnquoted(dst, v), k, true
	case Number, Bool:
		return append(dst, v...), k, true
	case Null:
		return dst, k, true
	default:
		return dst, k, false
	}
}
