package vtl

import (
	"strconv"

	"github.com/cloudemu/emulator/awswire"
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
		return awswire.AppendJavaDouble(b, v)
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
