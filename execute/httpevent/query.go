package httpevent

import "github.com/cloudemu/emulator/awswire"

// The query views are written straight from the raw query string, without
// building a parameter list: a name's values are gathered by scanning the
// pairs again for the same form-decoded name. Decoding follows
// execute.ParseQuery ("+" is a space, percent-escapes are decoded, a
// component with a malformed escape is kept as written), which AWS's
// recorded HTTP API event matches: literalPlus=a+b → "a b", encodedPlus=a%2Bb
// → "a+b" (hotsock/voker vokerhttp/testdata/apigwv2-request.json, captured
// live).

// nextPair cuts the first non-empty name=value pair off raw.
func nextPair(raw string) (name, value, rest string, ok bool) {
	for raw != "" {
		pair := raw
		rest = ""
		for i := 0; i < len(raw); i++ {
			if raw[i] == '&' {
				pair, rest = raw[:i], raw[i+1:]
				break
			}
		}
		if pair == "" {
			raw = rest
			continue
		}
		name, value = pair, ""
		for i := 0; i < len(pair); i++ {
			if pair[i] == '=' {
				name, value = pair[:i], pair[i+1:]
				break
			}
		}
		return name, value, rest, true
	}
	return "", "", "", false
}

// wellEscaped reports whether every "%" in s starts an escape of two
// hexadecimal digits (else the component is kept as written).
func wellEscaped(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// decoder yields the bytes of a form-decoded query component.
type decoder struct {
	s   string
	raw bool // a malformed escape: the component as written
	i   int
}

func newDecoder(s string) decoder { return decoder{s: s, raw: !wellEscaped(s)} }

func (d *decoder) next() (byte, bool) {
	if d.i >= len(d.s) {
		return 0, false
	}
	c := d.s[d.i]
	d.i++
	if d.raw {
		return c, true
	}
	switch c {
	case '+':
		return ' ', true
	case '%':
		c = unhex(d.s[d.i])<<4 | unhex(d.s[d.i+1])
		d.i += 2
	}
	return c, true
}

// sameName reports whether two raw components decode to the same text.
func sameName(a, b string) bool {
	if a == b {
		return true
	}
	da, db := newDecoder(a), newDecoder(b)
	for {
		ca, oka := da.next()
		cb, okb := db.next()
		if oka != okb || ca != cb {
			return false
		}
		if !oka {
			return true
		}
	}
}

// appendDecoded appends the decoded component s as JSON string content
// (without quotes) to dst.
func appendDecoded(dst []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if s[i] == '%' || s[i] == '+' {
			plain = false
			break
		}
	}
	if plain {
		return awswire.AppendStringContent(dst, s)
	}
	// Decode into dst, then escape the decoded bytes in place: decoding
	// never lengthens a component, so decode after the current end and
	// escape from there.
	start := len(dst)
	d := newDecoder(s)
	for {
		c, ok := d.next()
		if !ok {
			break
		}
		dst = append(dst, c)
	}
	decoded := dst[start:]
	if !needsEscape(decoded) {
		return dst
	}
	// Rare: the decoded text holds quotes, controls or invalid UTF-8.
	tmp := string(decoded)
	return awswire.AppendStringContent(dst[:start], tmp)
}

// decodedName is the component s decoded (a map key for long queries).
func decodedName(s string) string {
	d := newDecoder(s)
	b := make([]byte, 0, len(s))
	for {
		c, ok := d.next()
		if !ok {
			return string(b)
		}
		b = append(b, c)
	}
}
