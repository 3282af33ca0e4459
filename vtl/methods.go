package vtl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The Java methods API Gateway's values answer. A method a value does not
// have yields null (which renders as nothing); a method that throws in
// Java (an index out of bounds, a bad regular expression) fails the render.

// prop is $v.name: a map's key, a host object's property, the loop's
// counters, or a bean getter (getName(), isName()) of a built-in value.
func (r *renderer) prop(v Value, name string) Value {
	switch c := v.(type) {
	case *Map:
		x, _ := c.Get(name)
		return x
	case Object:
		x, _ := c.Property(name)
		return x
	case *loop:
		x, _ := c.property(name)
		return x
	case *entry:
		switch name {
		case "key":
			return c.key
		case "value":
			return c.val
		}
		return nil
	case *defined:
		return nil
	}
	if name == "" {
		return nil
	}
	bean := strings.ToUpper(name[:1]) + name[1:]
	if x, err := r.call(v, "get"+bean, nil, 0); err == nil && x != nil {
		return x
	}
	if x, err := r.call(v, "is"+bean, nil, 0); err == nil {
		return x
	}
	return nil
}

// entry is one element of $map.entrySet().
type entry struct {
	key string
	val Value
}

func (e *entry) String() string { return e.key + "=" + String(e.val) }

var errArgs = errors.New("wrong number or type of arguments")

func (r *renderer) call(v Value, name string, args []Value, pos int) (Value, error) {
	switch c := v.(type) {
	case string:
		return r.stringMethod(c, name, args, pos)
	case *List:
		return r.listMethod(c, name, args, pos)
	case *Map:
		return r.mapMethod(c, name, args, pos)
	case int64, float64:
		return numberMethod(c, name, args)
	case bool:
		switch name {
		case "toString":
			return strconv.FormatBool(c), nil
		case "booleanValue":
			return c, nil
		case "equals":
			if len(args) == 1 {
				b, ok := args[0].(bool)
				return ok && b == c, nil
			}
		}
		return nil, nil
	case *loop:
		if len(args) == 0 {
			switch name {
			case "hasNext", "isFirst", "isLast", "getIndex", "getCount", "getHasNext":
				n := strings.TrimPrefix(strings.TrimPrefix(name, "get"), "is")
				n = strings.ToLower(n[:1]) + n[1:]
				x, _ := c.property(n)
				return x, nil
			}
		}
		return nil, nil
	case *entry:
		switch name {
		case "getKey":
			return c.key, nil
		case "getValue":
			return c.val, nil
		case "setValue":
			if len(args) == 1 {
				prev := c.val
				c.val = args[0]
				return prev, nil
			}
		case "toString":
			return c.String(), nil
		}
		return nil, nil
	case Object:
		x, ok, err := c.Call(name, args)
		if ok || err != nil {
			return x, err
		}
		if len(args) == 0 {
			for _, prefix := range [...]string{"get", "is"} {
				if rest, found := strings.CutPrefix(name, prefix); found && rest != "" {
					x, _ := c.Property(strings.ToLower(rest[:1]) + rest[1:])
					return x, nil
				}
			}
			if name == "toString" {
				return String(c), nil
			}
		}
		return nil, nil
	case *defined:
		if name == "toString" && len(args) == 0 {
			return r.str(c, pos)
		}
	}
	return nil, nil
}

func numberMethod(n Value, name string, args []Value) (Value, error) {
	switch name {
	case "toString":
		return String(n), nil
	case "intValue":
		i := int64(toFloat(n))
		if x, ok := n.(int64); ok {
			i = x
		}
		return int64(int32(i)), nil
	case "longValue":
		if x, ok := n.(int64); ok {
			return x, nil
		}
		return int64(toFloat(n)), nil
	case "doubleValue", "floatValue":
		return toFloat(n), nil
	case "equals":
		if len(args) == 1 && isNumber(args[0]) {
			c, _ := compareNumbers(n, args[0])
			_, ai := args[0].(int64)
			_, ni := n.(int64)
			return c == 0 && ai == ni, nil
		}
		return false, nil
	case "compareTo":
		if len(args) == 1 {
			if c, ok := compareNumbers(n, args[0]); ok {
				return int64(c), nil
			}
		}
		return nil, errArgs
	}
	return nil, nil
}

// Strings index in UTF-16 code units, as Java does.

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func javaLen(s string) int {
	if isASCII(s) {
		return len(s)
	}
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// units is s as UTF-16 when it is not ASCII.
func units(s string) []uint16 { return utf16.Encode([]rune(s)) }

func javaSub(s string, begin, end int) (string, error) {
	n := javaLen(s)
	if begin < 0 || end > n || begin > end {
		return "", fmt.Errorf("begin %d, end %d, length %d", begin, end, n)
	}
	if isASCII(s) {
		return s[begin:end], nil
	}
	return string(utf16.Decode(units(s)[begin:end])), nil
}

// javaIndex is indexOf(sub, from) in UTF-16 units.
func javaIndex(s, sub string, from int, last bool) int64 {
	if from < 0 {
		from = 0
	}
	if isASCII(s) && isASCII(sub) {
		if last {
			if from > len(s) {
				from = len(s)
			}
			end := min(from+len(sub), len(s))
			return int64(strings.LastIndex(s[:end], sub))
		}
		if from > len(s) {
			return -1
		}
		i := strings.Index(s[from:], sub)
		if i < 0 {
			return -1
		}
		return int64(i + from)
	}
	u, w := units(s), units(sub)
	match := func(i int) bool {
		if i+len(w) > len(u) {
			return false
		}
		for j := range w {
			if u[i+j] != w[j] {
				return false
			}
		}
		return true
	}
	if last {
		for i := min(from, len(u)-len(w)); i >= 0; i-- {
			if match(i) {
				return int64(i)
			}
		}
		return -1
	}
	for i := from; i <= len(u)-len(w); i++ {
		if match(i) {
			return int64(i)
		}
	}
	return -1
}

func argString(args []Value, i int) (string, bool) {
	if i >= len(args) {
		return "", false
	}
	switch a := args[i].(type) {
	case string:
		return a, true
	case nil:
		return "", false
	}
	return String(args[i]), true
}

func argInt(args []Value, i int) (int, bool) {
	if i >= len(args) {
		return 0, false
	}
	n, ok := toInt(args[i])
	if !ok || n > 1<<31 || n < -(1<<31) {
		return 0, false
	}
	return int(n), true
}

// javaTrim removes leading and trailing characters up to ' ', as
// String.trim does.
func javaTrim(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

func (r *renderer) stringMethod(s, name string, args []Value, pos int) (Value, error) {
	a0, has0 := argString(args, 0)
	switch len(args) {
	case 0:
		switch name {
		case "length", "size":
			return int64(javaLen(s)), nil
		case "isEmpty":
			return s == "", nil
		case "isBlank":
			return strings.TrimSpace(s) == "", nil
		case "trim":
			return javaTrim(s), nil
		case "strip":
			return strings.TrimSpace(s), nil
		case "toLowerCase":
			return strings.ToLower(s), nil
		case "toUpperCase":
			return strings.ToUpper(s), nil
		case "toString", "intern":
			return s, nil
		case "hashCode":
			var h int32
			for _, u := range units(s) {
				h = 31*h + int32(u)
			}
			return int64(h), nil
		}
	case 1:
		switch name {
		case "contains":
			return has0 && strings.Contains(s, a0), nil
		case "startsWith":
			return has0 && strings.HasPrefix(s, a0), nil
		case "endsWith":
			return has0 && strings.HasSuffix(s, a0), nil
		case "equals":
			x, ok := args[0].(string)
			return ok && x == s, nil
		case "equalsIgnoreCase":
			x, ok := args[0].(string)
			return ok && strings.EqualFold(x, s), nil
		case "compareTo":
			if !has0 {
				return nil, errArgs
			}
			return int64(strings.Compare(s, a0)), nil
		case "concat":
			if !has0 {
				return nil, errArgs
			}
			if len(s)+len(a0) > r.lim.MaxOutput {
				return nil, r.limitAt(pos, "a string grew too large")
			}
			return s + a0, nil
		case "indexOf", "lastIndexOf":
			if !has0 {
				return nil, errArgs
			}
			from := javaLen(s)
			if name == "indexOf" {
				from = 0
			}
			return javaIndex(s, a0, from, name == "lastIndexOf"), nil
		case "charAt":
			i, ok := argInt(args, 0)
			if !ok {
				return nil, errArgs
			}
			c, err := javaSub(s, i, i+1)
			if err != nil {
				return nil, fmt.Errorf("index %d out of bounds for length %d", i, javaLen(s))
			}
			return c, nil
		case "substring":
			i, ok := argInt(args, 0)
			if !ok {
				return nil, errArgs
			}
			return javaSub(s, i, javaLen(s))
		case "matches":
			if !has0 {
				return nil, errArgs
			}
			re, err := javaRegexp(a0, true)
			if err != nil {
				return nil, err
			}
			return re.MatchString(s), nil
		case "split":
			if !has0 {
				return nil, errArgs
			}
			return r.split(s, a0, 0, pos)
		}
	case 2:
		a1, has1 := argString(args, 1)
		switch name {
		case "substring":
			i, ok1 := argInt(args, 0)
			j, ok2 := argInt(args, 1)
			if !ok1 || !ok2 {
				return nil, errArgs
			}
			return javaSub(s, i, j)
		case "indexOf", "lastIndexOf":
			from, ok := argInt(args, 1)
			if !has0 || !ok {
				return nil, errArgs
			}
			return javaIndex(s, a0, from, name == "lastIndexOf"), nil
		case "startsWith":
			off, ok := argInt(args, 1)
			if !has0 || !ok {
				return nil, errArgs
			}
			rest, err := javaSub(s, min(max(off, 0), javaLen(s)), javaLen(s))
			return err == nil && off >= 0 && strings.HasPrefix(rest, a0), nil
		case "replace":
			if !has0 || !has1 {
				return nil, errArgs
			}
			n := strings.Count(s, a0)
			if len(s)+n*(len(a1)-len(a0)) > r.lim.MaxOutput {
				return nil, r.limitAt(pos, "a string grew too large")
			}
			return strings.ReplaceAll(s, a0, a1), nil
		case "replaceAll", "replaceFirst":
			if !has0 || !has1 {
				return nil, errArgs
			}
			return r.replaceRegexp(s, a0, a1, name == "replaceFirst", pos)
		case "split":
			limit, ok := argInt(args, 1)
			if !has0 || !ok {
				return nil, errArgs
			}
			return r.split(s, a0, limit, pos)
		}
	}
	return nil, nil
}

func (r *renderer) listMethod(l *List, name string, args []Value, pos int) (Value, error) {
	switch len(args) {
	case 0:
		switch name {
		case "size":
			return int64(len(l.Items)), nil
		case "isEmpty":
			return len(l.Items) == 0, nil
		case "clear":
			clear(l.Items)
			l.Items = l.Items[:0]
			return nil, nil
		case "toString":
			return r.str(l, pos)
		}
	case 1:
		switch name {
		case "get":
			i, ok := argInt(args, 0)
			if !ok {
				return nil, errArgs
			}
			if i < 0 || i >= len(l.Items) {
				return nil, fmt.Errorf("index %d out of bounds for length %d", i, len(l.Items))
			}
			return l.Items[i], nil
		case "add":
			if err := r.charge(1, pos); err != nil {
				return nil, err
			}
			l.Items = append(l.Items, args[0])
			return true, nil
		case "addAll":
			o, ok := args[0].(*List)
			if !ok {
				return nil, errArgs
			}
			if err := r.charge(len(o.Items)+1, pos); err != nil {
				return nil, err
			}
			l.Items = append(l.Items, o.Items...)
			return len(o.Items) > 0, nil
		case "contains", "indexOf", "lastIndexOf":
			found := -1
			r.budget = 100_000
			for i, it := range l.Items {
				if eq, _ := sameKindEqual(it, args[0], &r.budget); eq {
					found = i
					if name != "lastIndexOf" {
						break
					}
				}
			}
			if name == "contains" {
				return found >= 0, nil
			}
			return int64(found), nil
		case "remove":
			if i, ok := args[0].(int64); ok {
				if i < 0 || i >= int64(len(l.Items)) {
					return nil, fmt.Errorf("index %d out of bounds for length %d", i, len(l.Items))
				}
				prev := l.Items[i]
				l.Items = append(l.Items[:i], l.Items[i+1:]...)
				return prev, nil
			}
			r.budget = 100_000
			for i, it := range l.Items {
				if eq, _ := sameKindEqual(it, args[0], &r.budget); eq {
					l.Items = append(l.Items[:i], l.Items[i+1:]...)
					return true, nil
				}
			}
			return false, nil
		case "equals":
			r.budget = 100_000
			eq, _ := sameKindEqual(l, args[0], &r.budget)
			return eq, nil
		}
	case 2:
		switch name {
		case "set", "add":
			i, ok := argInt(args, 0)
			limit := len(l.Items)
			if name == "add" {
				limit++
			}
			if !ok || i < 0 || i >= limit {
				return nil, fmt.Errorf("index %d out of bounds for length %d", i, len(l.Items))
			}
			if name == "set" {
				prev := l.Items[i]
				l.Items[i] = args[1]
				return prev, nil
			}
			if err := r.charge(1, pos); err != nil {
				return nil, err
			}
			l.Items = append(l.Items, nil)
			copy(l.Items[i+1:], l.Items[i:])
			l.Items[i] = args[1]
			return nil, nil
		case "subList":
			i, ok1 := argInt(args, 0)
			j, ok2 := argInt(args, 1)
			if !ok1 || !ok2 || i < 0 || j > len(l.Items) || i > j {
				return nil, errArgs
			}
			return &List{Items: append([]Value(nil), l.Items[i:j]...), JSON: l.JSON}, nil
		}
	}
	return nil, nil
}

func (r *renderer) mapMethod(m *Map, name string, args []Value, pos int) (Value, error) {
	key := func() (string, error) { return r.str(args[0], pos) }
	switch len(args) {
	case 0:
		switch name {
		case "size":
			return int64(m.Len()), nil
		case "isEmpty":
			return m.Len() == 0, nil
		case "keySet", "values", "entrySet":
			if err := r.charge(m.Len(), pos); err != nil {
				return nil, err
			}
			l := &List{Items: make([]Value, m.Len())}
			for i, e := range m.entries {
				switch name {
				case "keySet":
					l.Items[i] = e.key
				case "values":
					l.Items[i] = e.val
				default:
					l.Items[i] = &entry{key: e.key, val: e.val}
				}
			}
			return l, nil
		case "clear":
			clear(m.entries)
			m.entries, m.index = m.entries[:0], nil
			return nil, nil
		case "toString":
			return r.str(m, pos)
		}
	case 1:
		switch name {
		case "get", "containsKey", "remove":
			k, err := key()
			if err != nil {
				return nil, err
			}
			switch name {
			case "get":
				v, _ := m.Get(k)
				return v, nil
			case "containsKey":
				_, ok := m.Get(k)
				return ok, nil
			}
			return m.Remove(k), nil
		case "containsValue":
			r.budget = 100_000
			found := false
			m.Range(func(_ string, v Value) bool {
				found, _ = sameKindEqual(v, args[0], &r.budget)
				return !found
			})
			return found, nil
		case "putAll":
			o, ok := args[0].(*Map)
			if !ok {
				return nil, errArgs
			}
			if err := r.charge(o.Len()+1, pos); err != nil {
				return nil, err
			}
			for _, e := range o.entries {
				m.Put(e.key, e.val)
			}
			return nil, nil
		case "equals":
			r.budget = 100_000
			eq, _ := sameKindEqual(m, args[0], &r.budget)
			return eq, nil
		}
	case 2:
		switch name {
		case "put", "putIfAbsent", "getOrDefault":
			k, err := key()
			if err != nil {
				return nil, err
			}
			switch name {
			case "getOrDefault":
				if v, ok := m.Get(k); ok {
					return v, nil
				}
				return args[1], nil
			case "putIfAbsent":
				if v, ok := m.Get(k); ok && v != nil {
					return v, nil
				}
			}
			if err := r.charge(1, pos); err != nil {
				return nil, err
			}
			return m.Put(k, args[1]), nil
		}
	}
	return nil, nil
}
