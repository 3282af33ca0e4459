package vtl

import (
	"math"
	"strings"
)

func exprPos(e expr) int {
	switch e := e.(type) {
	case *refExpr:
		return e.pos
	case *binary:
		return e.pos
	case *unary:
		return e.pos
	case *rangeLit:
		return e.pos
	}
	return 0
}

func (r *renderer) eval(e expr) (Value, error) {
	switch e := e.(type) {
	case *literal:
		return e.v, nil
	case *refExpr:
		return r.ref(e)
	case *interp:
		start := len(r.out)
		stopped := r.stopped
		err := r.block(e.body)
		r.stopped = stopped
		s := string(r.out[start:])
		r.out = r.out[:start]
		return s, err
	case *listLit:
		if err := r.charge(len(e.items), 0); err != nil {
			return nil, err
		}
		l := &List{Items: make([]Value, len(e.items))}
		for i, it := range e.items {
			v, err := r.eval(it)
			if err != nil {
				return nil, err
			}
			l.Items[i] = v
		}
		return l, nil
	case *mapLit:
		if err := r.charge(len(e.keys), 0); err != nil {
			return nil, err
		}
		m := NewMap(len(e.keys))
		for i := range e.keys {
			k, err := r.eval(e.keys[i])
			if err != nil {
				return nil, err
			}
			v, err := r.eval(e.vals[i])
			if err != nil {
				return nil, err
			}
			ks, err := r.str(k, 0)
			if err != nil {
				return nil, err
			}
			m.Put(ks, v)
		}
		return m, nil
	case *rangeLit:
		from, to, ok, err := r.rangeBounds(e)
		if err != nil || !ok {
			return nil, err
		}
		n := to - from
		if n < 0 {
			n = -n
		}
		if n >= int64(r.lim.MaxSteps) {
			return nil, r.limitAt(e.pos, "the range is too large")
		}
		if err := r.charge(int(n)+1, e.pos); err != nil {
			return nil, err
		}
		l := &List{Items: make([]Value, n+1)}
		for i := range l.Items {
			if from <= to {
				l.Items[i] = from + int64(i)
			} else {
				l.Items[i] = from - int64(i)
			}
		}
		return l, nil
	case *unary:
		x, err := r.eval(e.x)
		if err != nil {
			return nil, err
		}
		if e.op == opNot {
			return !truthy(x), nil
		}
		switch x := x.(type) {
		case int64:
			if x == math.MinInt64 {
				return -float64(x), nil
			}
			return -x, nil
		case float64:
			return -x, nil
		}
		return nil, nil
	case *binary:
		return r.binary(e)
	}
	return nil, nil
}

// rangeBounds evaluates [from..to]; ok is false when a bound is not an
// integer (Velocity then has nothing to iterate).
func (r *renderer) rangeBounds(e *rangeLit) (int64, int64, bool, error) {
	a, err := r.eval(e.from)
	if err != nil {
		return 0, 0, false, err
	}
	b, err := r.eval(e.to)
	if err != nil {
		return 0, 0, false, err
	}
	from, ok1 := toInt(a)
	to, ok2 := toInt(b)
	return from, to, ok1 && ok2, nil
}

// toInt reads an integer from an int64, an integral double or a numeric
// string (Velocity converts range bounds and indexes that way).
func toInt(v Value) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<62 {
			return int64(v), true
		}
	case string:
		n, ok := parseJavaInt(strings.TrimSpace(v))
		return n, ok
	}
	return 0, false
}

func parseJavaInt(s string) (int64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		s = s[1:]
		if s == "" {
			return 0, false
		}
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func (r *renderer) binary(e *binary) (Value, error) {
	l, err := r.eval(e.l)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case opAnd:
		if !truthy(l) {
			return false, nil
		}
		rv, err := r.eval(e.r)
		return truthy(rv), err
	case opOr:
		if truthy(l) {
			return true, nil
		}
		rv, err := r.eval(e.r)
		return truthy(rv), err
	}
	rv, err := r.eval(e.r)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case opEq, opNe:
		eq, err := r.equal(l, rv, e.pos)
		if err != nil {
			return nil, err
		}
		return eq == (e.op == opEq), nil
	case opLt, opLe, opGt, opGe:
		c, ok := compareNumbers(l, rv)
		if !ok {
			return false, nil // Velocity logs and answers false
		}
		switch e.op {
		case opLt:
			return c < 0, nil
		case opLe:
			return c <= 0, nil
		case opGt:
			return c > 0, nil
		}
		return c >= 0, nil
	case opAdd:
		if isNumber(l) && isNumber(rv) {
			return arith(e.op, l, rv), nil
		}
		_, ls := l.(string)
		_, rs := rv.(string)
		if !ls && !rs || l == nil || rv == nil {
			return nil, nil
		}
		a, err := r.str(l, e.pos)
		if err != nil {
			return nil, err
		}
		b, err := r.str(rv, e.pos)
		if err != nil {
			return nil, err
		}
		if len(a)+len(b) > r.lim.MaxOutput {
			return nil, r.limitAt(e.pos, "a string grew too large")
		}
		return a + b, nil
	}
	if !isNumber(l) || !isNumber(rv) {
		return nil, nil
	}
	return arith(e.op, l, rv), nil
}

func isNumber(v Value) bool {
	switch v.(type) {
	case int64, float64:
		return true
	}
	return false
}

func toFloat(v Value) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// arith is Velocity's MathUtils on two numbers: integers stay integers
// (overflowing into a double rather than wrapping), a double anywhere
// makes a double, and division or remainder by zero is null.
func arith(op opKind, l, r Value) Value {
	a, aInt := l.(int64)
	b, bInt := r.(int64)
	if aInt && bInt {
		switch op {
		case opAdd:
			s := a + b
			if (s > a) == (b > 0) {
				return s
			}
		case opSub:
			d := a - b
			if (d < a) == (b > 0) {
				return d
			}
		case opMul:
			if a == 0 || b == 0 {
				return int64(0)
			}
			p := a * b
			if p/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64) {
				return p
			}
		case opDiv:
			if b == 0 {
				return nil
			}
			if !(a == math.MinInt64 && b == -1) {
				return a / b
			}
		case opMod:
			if b == 0 {
				return nil
			}
			if b == -1 {
				return int64(0)
			}
			return a % b
		}
	}
	x, y := toFloat(l), toFloat(r)
	switch op {
	case opAdd:
		return x + y
	case opSub:
		return x - y
	case opMul:
		return x * y
	case opDiv:
		if y == 0 {
			return nil
		}
		return x / y
	case opMod:
		if y == 0 {
			return nil
		}
		return math.Mod(x, y)
	}
	return nil
}

func compareNumbers(l, r Value) (int, bool) {
	if !isNumber(l) || !isNumber(r) {
		return 0, false
	}
	a, aInt := l.(int64)
	b, bInt := r.(int64)
	if aInt && bInt {
		switch {
		case a < b:
			return -1, true
		case a > b:
			return 1, true
		}
		return 0, true
	}
	x, y := toFloat(l), toFloat(r)
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

// equal is Velocity's ==: numbers by value, values of one kind by Java's
// equals, values of different kinds by their text ("1" == 1).
func (r *renderer) equal(a, b Value, pos int) (bool, error) {
	r.budget = 100_000
	if eq, decided := sameKindEqual(a, b, &r.budget); decided {
		return eq, nil
	}
	if a == nil || b == nil {
		return a == nil && b == nil, nil
	}
	x, err := r.str(a, pos)
	if err != nil {
		return false, err
	}
	y, err := r.str(b, pos)
	if err != nil {
		return false, err
	}
	return x == y, nil
}

// sameKindEqual compares two values of one kind; decided is false when
// their kinds differ. budget bounds the work on large or cyclic values.
func sameKindEqual(a, b Value, budget *int) (eq, decided bool) {
	*budget--
	if *budget < 0 {
		return false, true
	}
	if isNumber(a) && isNumber(b) {
		c, _ := compareNumbers(a, b)
		return c == 0, true
	}
	switch x := a.(type) {
	case nil:
		return b == nil, b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y, ok
	case bool:
		y, ok := b.(bool)
		return ok && x == y, ok
	case *List:
		y, ok := b.(*List)
		if !ok {
			return false, false
		}
		if x == y {
			return true, true
		}
		if len(x.Items) != len(y.Items) {
			return false, true
		}
		for i := range x.Items {
			if eq, _ := sameKindEqual(x.Items[i], y.Items[i], budget); !eq {
				return false, true
			}
		}
		return true, true
	case *Map:
		y, ok := b.(*Map)
		if !ok {
			return false, false
		}
		if x == y {
			return true, true
		}
		if x.Len() != y.Len() {
			return false, true
		}
		for _, e := range x.entries {
			v, ok := y.Get(e.key)
			if !ok {
				return false, true
			}
			if eq, _ := sameKindEqual(e.val, v, budget); !eq {
				return false, true
			}
		}
		return true, true
	}
	return false, false
}
