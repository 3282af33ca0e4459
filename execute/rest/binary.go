package rest

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Payload encodings (docs/apigateway-execution.md, recorded B-01…B-09): a payload is
// binary when its media type is one of the API's binaryMediaTypes;
// contentHandling converts between binary and base64 text; text that is
// not UTF-8 is read as Java reads it, each ill-formed sequence replaced by
// U+FFFD.

// isBinary reports whether media type mt is one of types: exactly, or
// through an entry "*/*" or "type/*". A wildcard in mt never matches, nor
// does an entry "*/subtype".
func isBinary(types []string, mt string) bool {
	if mt == "" || len(types) == 0 || strings.IndexByte(mt, '*') >= 0 {
		return false
	}
	for _, t := range types {
		switch {
		case t == "*/*":
			return true
		case strings.EqualFold(t, mt):
			return true
		case strings.HasSuffix(t, "/*") && !strings.HasPrefix(t, "*"):
			if len(mt) > len(t)-1 && strings.EqualFold(mt[:len(t)-1], t[:len(t)-1]) {
				return true
			}
		}
	}
	return false
}

// convert applies contentHandling to a payload. payloadBinary says what
// the payload is; targetBinary what the receiver takes when no handling is
// set (the request direction passes binary through and keeps text as
// text). ok is false when text that must become binary is not base64.
func convert(body []byte, payloadBinary, targetBinary bool, handling string) ([]byte, bool) {
	switch handling {
	case "CONVERT_TO_TEXT":
		if payloadBinary {
			return base64Encode(body), true
		}
		return validUTF8(body), true
	case "CONVERT_TO_BINARY":
		if payloadBinary {
			return body, true
		}
		return base64Decode(body)
	}
	switch {
	case payloadBinary && targetBinary:
		return body, true
	case payloadBinary:
		return base64Encode(body), true
	case targetBinary:
		return base64Decode(body)
	}
	return validUTF8(body), true
}

func base64Encode(b []byte) []byte {
	out := make([]byte, base64.StdEncoding.EncodedLen(len(b)))
	base64.StdEncoding.Encode(out, b)
	return out
}

func base64Decode(b []byte) ([]byte, bool) {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n, err := base64.StdEncoding.Decode(out, b)
	if err != nil {
		return nil, false
	}
	return out[:n], true
}

// validUTF8 returns b with every ill-formed sequence replaced by U+FFFD,
// one per maximal subpart (as Java and Python decode), b itself when it is
// well-formed.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			out = append(out, b[i:i+size]...)
			i += size
			continue
		}
		out = append(out, "\uFFFD"...)
		i += maximalSubpart(b[i:])
	}
	return out
}

// maximalSubpart is the length of the ill-formed sequence at the start of
// b: the longest prefix of a well-formed sequence, at least one byte.
func maximalSubpart(b []byte) int {
	c := b[0]
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k == 0 && (x < lo || x > hi) || k > 0 && (x < 0x80 || x > 0xBF) {
			return n
		}
		n++
	}
	return n
}
