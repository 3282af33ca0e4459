package httpevent

import (
	"bytes"
	"unicode/utf8"
)

// needsEscape reports whether b may not stand as JSON string content as it
// is.
func needsEscape(b []byte) bool {
	ascii := true
	for _, c := range b {
		switch {
		case c < 0x20 || c == '"' || c == '\\':
			return true
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return !ascii && (!utf8.Valid(b) || bytes.Contains(b, []byte("\u2028")) || bytes.Contains(b, []byte("\u2029")))
}
