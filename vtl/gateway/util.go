package gateway

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cloudemu/emulator/vtl"
)

// Util is $util. It is stateless.
type Util struct{}

// Property answers nothing: $util has only methods.
func (Util) Property(string) (vtl.Value, bool) { return nil, false }

// Call answers $util.escapeJavaScript, parseJson, urlEncode, urlDecode,
// base64Encode and base64Decode. A null argument gives null, as the Java
// methods do; a malformed one (bad JSON, bad escapes, bad base64) is an
// error, which fails the render as an exception does on API Gateway.
func (Util) Call(name string, args []vtl.Value) (vtl.Value, bool, error) {
	if len(args) != 1 {
		return nil, false, nil
	}
	switch name {
	case "escapeJavaScript", "parseJson", "urlEncode", "urlDecode", "base64Encode", "base64Decode":
	default:
		return nil, false, nil
	}
	s, ok := argString(args[0])
	if !ok {
		return nil, true, nil
	}
	switch name {
	case "escapeJavaScript":
		return EscapeJavaScript(s), true, nil
	case "parseJson":
		v, err := vtl.ParseJSON([]byte(s))
		if err != nil {
			return nil, true, fmt.Errorf("$util.parseJson: %w", err)
		}
		return v, true, nil
	case "urlEncode":
		return URLEncode(s), true, nil
	case "urlDecode":
		d, err := URLDecode(s)
		if err != nil {
			return nil, true, fmt.Errorf("$util.urlDecode: %w", err)
		}
		return d, true, nil
	case "base64Encode":
		return base64.StdEncoding.EncodeToString([]byte(s)), true, nil
	}
	d, err := base64Decode(s)
	if err != nil {
		return nil, true, fmt.Errorf("$util.base64Decode: %w", err)
	}
	return d, true, nil
}

const upperHex = "0123456789ABCDEF"

// EscapeJavaScript escapes s as Apache commons-lang's
// StringEscapeUtils.escapeJavaScript, which API Gateway's
// $util.escapeJavaScript is: ' " \ and / get a backslash; \b \f \n \r \t
// their short escapes; other control characters and everything outside
// ASCII become \uXXXX (upper-case hex, one per UTF-16 unit).
func EscapeJavaScript(s string) string {
	i := 0
	for i < len(s) && !needsJSEscape(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/4 + 8)
	start := 0 // s[start:i] is plain and not yet written
	for i < len(s) {
		c := s[i]
		if !needsJSEscape(c) {
			i++
			continue
		}
		b.WriteString(s[start:i])
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				writeU(&b, r1)
				writeU(&b, r2)
			} else {
				writeU(&b, r) // an invalid byte is U+FFFD
			}
			i += n
			start = i
			continue
		}
		switch c {
		case '\'', '"', '\\', '/':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			writeU(&b, rune(c))
		}
		i++
		start = i
	}
	b.WriteString(s[start:])
	return b.String()
}

func needsJSEscape(c byte) bool {
	return c < 0x20 || c >= 0x80 || c == '\'' || c == '"' || c == '\\' || c == '/'
}

func writeU(b *strings.Builder, r rune) {
	b.WriteString(`\u`)
	b.WriteByte(upperHex[r>>12&0xf])
	b.WriteByte(upperHex[r>>8&0xf])
	b.WriteByte(upperHex[r>>4&0xf])
	b.WriteByte(upperHex[r&0xf])
}

// URLEncode is Java's URLEncoder.encode(s, "UTF-8"), form encoding:
// letters, digits and . - * _ stay, a space becomes +, every other byte
// %XX. API Gateway turns {"some": "value"} into
// %7B%22some%22%3A+%22value%22%7D (docs/apigateway-execution.md §5).
func URLEncode(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !urlSafe(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case urlSafe(c):
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&0xf])
		}
	}
	return b.String()
}

func urlSafe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '-' || c == '*' || c == '_'
}

// errBadEscape is a malformed %XX, which Java's URLDecoder rejects.
var errBadEscape = errors.New("malformed %XX escape")

// URLDecode is Java's URLDecoder.decode(s, "UTF-8"): + is a space, %XX a
// byte; a malformed escape is an error.
func URLDecode(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b = append(b, ' ')
		case '%':
			if i+2 >= len(s) {
				return "", errBadEscape
			}
			h, ok1 := unhex(s[i+1])
			l, ok2 := unhex(s[i+2])
			if !ok1 || !ok2 {
				return "", errBadEscape
			}
			b = append(b, h<<4|l)
			i += 2
		default:
			b = append(b, c)
		}
	}
	// Invalid UTF-8 is replaced with U+FFFD, as Java's decoder does.
	return strings.ToValidUTF8(string(b), "\uFFFD"), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// base64Decode accepts standard base64 with or without padding.
func base64Decode(s string) (string, error) {
	enc := base64.StdEncoding
	if len(s)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	d, err := enc.DecodeString(s)
	if err != nil {
		return "", err
	}
	return string(d), nil
}
