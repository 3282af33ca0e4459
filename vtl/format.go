package vtl

import (
	"math"
	"strconv"
)

// maxTextLen bounds String and JSON outside a render, whose own limit
// applies inside one.
const maxTextLen = 64 << 20

// Stringer is implemented by host objects that render as text, such as
// API Gateway's $input (whose toString is the body).
type Stringer interface {
	String() string
}

// String is how v renders in a template: Java's toString as API Gateway
// shows it. nil renders as nothing, lists from JSON as compact JSON, other
// lists as "[a, b]", maps as "{k=v, k2=v2}", doubles as Java prints them.
func String(v Value) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return string(appendString(nil, v, 0, maxTextLen))
}

// appendString appends v's rendering. Inside collections a null is
// "null", as Java's AbstractCollection prints it.
// It stops adding elements once b is longer than limit, so that a list
// holding itself cannot run away.
func appendString(b []byte, v Value, depth, limit int) []byte {
	if depth > maxJSONDepth || len(b) > limit {
		return b
	}
	switch v := v.(type) {
	case nil:
		if depth > 0 {
			return append(b, "null"...)
		}
		return b
	case string:
		return append(b, v...)
	case bool:
		return strconv.AppendBool(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return appendJavaDouble(b, v)
	case *List:
		if v.JSON {
			return appendJSON(b, v, depth, limit)
		}
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendString(b, it, depth+1, limit)
		}
		return append(b, ']')
	case *Map:
		b = append(b, '{')
		for i, e := range v.entries {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, e.key...)
			b = append(b, '=')
			b = appendString(b, e.val, depth+1, limit)
		}
		return append(b, '}')
	case Stringer:
		return append(b, v.String()...)
	}
	return b
}

// appendJavaDouble formats f as Java's Double.toString: the shortest
// digits that round-trip, plain between 10^-3 and 10^7 with at least one
// fractional digit, "computerized scientific" (1.0E10) outside.
func appendJavaDouble(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	if f >= 1e-3 && f < 1e7 {
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		for i := len(b) - 1; i >= 0 && b[i] != '-'; i-- {
			if b[i] == '.' {
				return b
			}
		}
		return append(b, ".0"...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d[.ddd]e±XX
	mant, exp := e, []byte(nil)
	for i, c := range e {
		if c == 'e' {
			mant, exp = e[:i], e[i+1:]
			break
		}
	}
	b = append(b, mant...)
	if len(mant) == 1 {
		b = append(b, ".0"...)
	}
	b = append(b, 'E')
	if exp[0] == '-' {
		b = append(b, '-')
	}
	exp = exp[1:]
	for len(exp) > 1 && exp[0] == '0' {
		exp = exp[1:]
	}
	return append(b, exp...)
}
