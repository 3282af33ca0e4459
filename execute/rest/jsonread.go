package rest

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Functions answer JSON that API Gateway reads as its Java front end does
// (Jackson): member names match exactly, a member may be given twice (the
// last counts), and a scalar is read as text where text is wanted (true →
// "true", 1 → "1"). The readers below keep the members' order, which
// encoding/json's maps would lose, and walk the answer in place: a checked
// object's members are sub-slices of it.

// eachMember calls f for every member of the JSON object raw, in order,
// with its name unquoted. It reports false when raw is not one well-formed
// JSON object, or when f does. Values (without the space around them), and
// names without escapes, are sub-slices of raw.
func eachMember(raw []byte, f func(key, value []byte) bool) bool {
	return eachIn(raw, '{', f)
}

// eachElement calls f for every element of the JSON array raw.
func eachElement(raw []byte, f func(value []byte) bool) bool {
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
			key = unquoted(raw[i:kEnd])
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

// maxJSONDepth bounds the nesting a function's answer may have.
const maxJSONDepth = 1000

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd checks the JSON value that starts at b[i] (no space before it)
// and returns where it ends; ok is false when it is not well-formed.
func valueEnd(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxJSONDepth {
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
				i = skipSpace(b, i)
				if i >= len(b) || b[i] != ':' {
					return i, false
				}
				i = skipSpace(b, i+1)
			}
			if i, ok = valueEnd(b, i, depth+1); !ok {
				return i, false
			}
			i = skipSpace(b, i)
			switch {
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

// stringEnd checks the string at b[i] ('"'): escapes as JSON has them, no
// control character.
func stringEnd(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			i++
			if i >= len(b) {
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

// numberEnd checks JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
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
	switch {
	case i < len(b) && b[i] == '0':
		i++
	default:
		var ok bool
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	if i < len(b) && b[i] == '.' {
		var ok bool
		if i, ok = digits(i + 1); !ok {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		var ok bool
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	return i, true
}

// unquoted is the text of a well-formed JSON string: a sub-slice of q
// when it has no escape, else a copy.
func unquoted(q []byte) []byte {
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	return appendUnquoted(nil, q)
}

// appendUnquoted appends the text of the well-formed JSON string q to dst,
// as encoding/json reads it: a lone surrogate and each byte of invalid
// UTF-8 become U+FFFD.
func appendUnquoted(dst, q []byte) []byte {
	inner := q[1 : len(q)-1]
	for i := 0; i < len(inner); {
		c := inner[i]
		switch {
		case c == '\\':
			i++
			switch e := inner[i]; e {
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
				r := hex4(inner[i+1 : i+5])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 < len(inner) && inner[i+1] == '\\' && inner[i+2] == 'u' {
						r2 = hex4(inner[i+3 : i+7])
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				dst = utf8.AppendRune(dst, r)
			default: // " \ /
				dst = append(dst, e)
			}
			i++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(inner[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, inner[i:i+size]...)
			}
			i += size
		}
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

// jsonKind is the kind of a JSON value by its first byte.
type jsonKind byte

const (
	jsonNull jsonKind = iota
	jsonString
	jsonNumber
	jsonBool
	jsonObject
	jsonArray
)

// kindOf is the kind of a value as eachMember and eachElement yield it;
// nil (an absent member) is null.
func kindOf(v []byte) jsonKind {
	if len(v) == 0 {
		return jsonNull
	}
	switch v[0] {
	case '"':
		return jsonString
	case '{':
		return jsonObject
	case '[':
		return jsonArray
	case 't', 'f':
		return jsonBool
	case 'n':
		return jsonNull
	}
	return jsonNumber
}

// scalarText reads a scalar as text: a string's value, a number's or a
// boolean's JSON text. ok is false for objects and arrays; null is ("",
// jsonNull, true).
func scalarText(v []byte) (string, jsonKind, bool) {
	switch k := kindOf(v); k {
	case jsonString:
		return string(unquoted(v)), k, true
	case jsonNumber, jsonBool:
		return string(v), k, true
	case jsonNull:
		return "", k, true
	default:
		return "", k, false
	}
}

// appendScalar appends a scalar as text (as scalarText reads it) to dst.
func appendScalar(dst, v []byte) ([]byte, jsonKind, bool) {
	switch k := kindOf(v); k {
	case jsonString:
		return appendUnquoted(dst, v), k, true
	case jsonNumber, jsonBool:
		return append(dst, v...), k, true
	case jsonNull:
		return dst, k, true
	default:
		return dst, k, false
	}
}

// functionErrorMessage is a function error's errorMessage: the selection
// value of a non-proxy function integration (§2.8, recorded L-01), ""
// when the error payload has none.
func functionErrorMessage(payload []byte) string {
	msg := ""
	eachMember(payload, func(key, v []byte) bool {
		if string(key) == "errorMessage" {
			if s, k, ok := scalarText(v); ok && k != jsonNull {
				msg = s
			}
		}
		return true
	})
	return msg
}
