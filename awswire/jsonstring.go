package awswire

import "unicode/utf8"

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does, so that a hostile name cannot break the body; U+2028
// and U+2029 are escaped. Runs of bytes that need no escape are copied at
// once (a table look-up per byte).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s, false)
	return append(dst, '"')
}

// AppendStringContent appends s as the content of a JSON string (without
// the quotes), escaped as AppendString escapes.
func AppendStringContent(dst []byte, s string) []byte { return appendEscaped(dst, s, false) }

// AppendLowerString appends s as a JSON string with its ASCII letters
// lowercased: HTTP APIs lowercase header names (docs:
// http-api-develop-integrations-lambda, "All header names are lowercased").
func AppendLowerString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s, true)
	return append(dst, '"')
}

// plain[c] and plainLower[c] tell an ASCII byte that stands for itself in
// a JSON string (plainLower: and is not an upper-case letter).
var plain, plainLower = func() (p, l [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		p[c] = c != '"' && c != '\\'
		l[c] = p[c] && !('A' <= c && c <= 'Z')
	}
	return p, l
}()

func appendEscaped(dst []byte, s string, lower bool) []byte {
	table := &plain
	if lower {
		table = &plainLower
	}
	start := 0
	for i := 0; i < len(s); {
		// The common run: bytes that stand for themselves.
		for i < len(s) && table[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				if 'A' <= c && c <= 'Z' {
					dst = append(dst, c+'a'-'A')
				} else {
					dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				}
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\u202`...)
			dst = append(dst, hexDigits[r&0xf])
			start = i + size
		}
		i += size
	}
	return append(dst, s[start:]...)
}
