package jsonpath

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/vtl"
)

// ErrTooComplex is returned when an evaluation visits more than maxVisits
// nodes or scans deeper than maxScanDepth: nested scans and filters can
// cost a power of the document's size, and a template must not be able to
// hang the emulator with one path.
var ErrTooComplex = errors.New("jsonpath: path too costly to evaluate on this document")

const (
	maxVisits    = 1 << 20
	maxScanDepth = 1000
)

// Eval applies the path to root. A definite path returns the value it
// selects, with ok false when nothing matches; an indefinite path always
// returns a *vtl.List (JSON) of its matches in document order, possibly
// empty. Selected values are shared with root, not copied. The only error
// is ErrTooComplex.
func (p *Path) Eval(root vtl.Value) (v vtl.Value, ok bool, err error) {
	if p.definite {
		v, ok = p.evalDefinite(root)
		return v, ok, nil
	}
	e := evaluator{root: root}
	e.walk(p.steps, root)
	if e.err != nil {
		return nil, false, e.err
	}
	if e.out == nil {
		e.out = []vtl.Value{}
	}
	return &vtl.List{Items: e.out, JSON: true}, true, nil
}

// evalDefinite follows a path of single steps without allocating (except
// for a merged multi-name leaf).
func (p *Path) evalDefinite(node vtl.Value) (vtl.Value, bool) {
	for i := range p.steps {
		s := &p.steps[i]
		switch s.kind {
		case kProp:
			m, ok := node.(*vtl.Map)
			if !ok {
				return nil, false
			}
			if len(s.names) > 1 {
				return merge(m, s.names), true
			}
			if node, ok = m.Get(s.names[0]); !ok {
				return nil, false
			}
		case kIndex:
			var ok bool
			if node, ok = index(node, s.idx[0]); !ok {
				return nil, false
			}
		}
	}
	return node, true
}

// merge is Jayway's leaf ['a','b']: one object of the names present.
func merge(m *vtl.Map, names []string) *vtl.Map {
	out := vtl.NewMap(len(names))
	out.JSON = true
	for _, n := range names {
		if v, ok := m.Get(n); ok {
			out.Put(n, v)
		}
	}
	return out
}

func index(node vtl.Value, i int) (vtl.Value, bool) {
	l, ok := node.(*vtl.List)
	if !ok {
		return nil, false
	}
	if i < 0 {
		i += len(l.Items)
	}
	if i < 0 || i >= len(l.Items) {
		return nil, false
	}
	return l.Items[i], true
}

// evaluator carries one indefinite evaluation: the document root that `$`
// in filters refers to, the matches so far, and the work budget that
// filters' own paths share.
type evaluator struct {
	root   vtl.Value
	out    []vtl.Value
	visits int
	depth  int
	err    error
}

// tick counts one visited node; false means the budget is spent.
func (e *evaluator) tick() bool {
	if e.err != nil {
		return false
	}
	e.visits++
	if e.visits > maxVisits {
		e.err = ErrTooComplex
		return false
	}
	return true
}

// walk applies steps to node, appending every match to e.out.
func (e *evaluator) walk(steps []step, node vtl.Value) {
	if !e.tick() {
		return
	}
	if len(steps) == 0 {
		e.out = append(e.out, node)
		return
	}
	s, rest := &steps[0], steps[1:]
	switch s.kind {
	case kProp:
		m, ok := node.(*vtl.Map)
		if !ok {
			return
		}
		if len(s.names) > 1 && len(rest) == 0 {
			e.out = append(e.out, merge(m, s.names))
			return
		}
		for _, n := range s.names {
			if v, ok := m.Get(n); ok {
				e.walk(rest, v)
			}
		}
	case kIndex:
		for _, i := range s.idx {
			if v, ok := index(node, i); ok {
				e.walk(rest, v)
			}
		}
	case kSlice:
		l, ok := node.(*vtl.List)
		if !ok || len(l.Items) == 0 {
			return
		}
		from, to := sliceBounds(s, len(l.Items))
		for i := from; i < to; i++ {
			if v, ok := index(l, i); ok {
				e.walk(rest, v)
			}
		}
	case kWild:
		switch n := node.(type) {
		case *vtl.Map:
			n.Range(func(_ string, v vtl.Value) bool {
				e.walk(rest, v)
				return e.err == nil
			})
		case *vtl.List:
			for _, v := range n.Items {
				e.walk(rest, v)
			}
		}
	case kFilter:
		switch n := node.(type) {
		case *vtl.Map:
			if e.test(s.filter, n) {
				e.walk(rest, n)
			}
		case *vtl.List:
			for _, v := range n.Items {
				if e.test(s.filter, v) {
					e.walk(rest, v)
				}
			}
		}
	case kScan:
		if len(rest) == 0 {
			return // Compile rejects a trailing '..'
		}
		e.scan(rest, node)
	}
}

// scan is Jayway's deep scan: at every node, pre-order, the next step is
// applied where it can match, then the scan descends into the children.
func (e *evaluator) scan(steps []step, node vtl.Value) {
	if !e.tick() {
		return
	}
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > maxScanDepth {
		e.err = ErrTooComplex
		return
	}
	switch n := node.(type) {
	case *vtl.Map:
		if e.scanMatches(&steps[0], n) {
			e.walk(steps, n)
		}
		n.Range(func(_ string, v vtl.Value) bool {
			e.scan(steps, v)
			return e.err == nil
		})
	case *vtl.List:
		if e.scanMatches(&steps[0], n) {
			e.walk(steps, n)
		}
		for _, v := range n.Items {
			e.scan(steps, v)
		}
	}
}

// scanMatches is the predicate Jayway's scan applies before a step.
func (e *evaluator) scanMatches(s *step, node vtl.Value) bool {
	switch s.kind {
	case kProp:
		m, ok := node.(*vtl.Map)
		if !ok {
			return false
		}
		if len(s.names) > 1 {
			return true
		}
		_, ok = m.Get(s.names[0])
		return ok
	case kIndex, kSlice:
		_, ok := node.(*vtl.List)
		return ok
	case kFilter:
		// Jayway tests the filter on the node itself, so an array is
		// entered only through the scan's descent (no duplicates).
		return e.test(s.filter, node)
	}
	return true
}

func sliceBounds(s *step, n int) (from, to int) {
	switch s.sk {
	case sliceFrom:
		from = s.from
		if from < 0 {
			from = max(0, n+from)
		}
		return from, n
	case sliceTo:
		to = s.to
		if to < 0 {
			to += n
		}
		return 0, min(n, to)
	}
	return s.from, min(n, s.to)
}

// test evaluates a filter on node; a spent budget makes it false.
func (e *evaluator) test(x expr, node vtl.Value) bool {
	if e.err != nil {
		return false
	}
	return x.eval(node, e)
}

func (x andExpr) eval(node any, e *evaluator) bool { return x.l.eval(node, e) && x.r.eval(node, e) }
func (x orExpr) eval(node any, e *evaluator) bool  { return x.l.eval(node, e) || x.r.eval(node, e) }
func (x notExpr) eval(node any, e *evaluator) bool { return !x.e.eval(node, e) }

func (x existsExpr) eval(node any, e *evaluator) bool {
	_, ok := x.p.value(node, e)
	return ok
}

// value resolves an operand; ok is false when a path selects nothing.
func (o operand) value(node any, e *evaluator) (any, bool) {
	if o.path == nil {
		return o.lit, true
	}
	base := e.root
	if o.rel {
		base = node
	}
	if o.path.definite {
		return o.path.evalDefinite(base)
	}
	// An indefinite path selects "something" only when it matches. It
	// runs on the same evaluator so that it spends the same budget.
	saved := e.out
	e.out = nil
	e.walk(o.path.steps, base)
	got := e.out
	e.out = saved
	if len(got) == 0 {
		return nil, false
	}
	return &vtl.List{Items: got, JSON: true}, true
}

func (x cmpExpr) eval(node any, e *evaluator) bool {
	l, lok := x.l.value(node, e)
	r, rok := x.r.value(node, e)
	if !lok || !rok {
		return false
	}
	switch x.op {
	case "==":
		return e.equal(l, r)
	case "!=":
		return !e.equal(l, r)
	}
	c, ok := compare(l, r)
	if !ok {
		return false
	}
	switch x.op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0 // ">="
}

// number reads a JSON number, and a numeric string as Jayway's value
// nodes do when compared with a number.
func number(v any, fromString bool) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, !math.IsNaN(n)
	case string:
		if fromString {
			f, err := strconv.ParseFloat(n, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// equal compares deeply; every node compared spends budget, since
// comparing each node of a document with the whole document is quadratic.
func (e *evaluator) equal(l, r any) bool {
	if !e.tick() {
		return false
	}
	if a, ok := l.(int64); ok {
		if b, ok := r.(int64); ok {
			return a == b
		}
	}
	_, ls := l.(string)
	_, rs := r.(string)
	if a, ok := number(l, !rs); ok {
		if b, ok := number(r, !ls); ok {
			return a == b
		}
	}
	switch a := l.(type) {
	case nil:
		return r == nil
	case string:
		b, ok := r.(string)
		return ok && a == b
	case bool:
		b, ok := r.(bool)
		return ok && a == b
	case *vtl.Map:
		b, ok := r.(*vtl.Map)
		if !ok || a.Len() != b.Len() {
			return false
		}
		same := true
		a.Range(func(k string, v vtl.Value) bool {
			w, ok := b.Get(k)
			same = ok && e.equal(v, w)
			return same
		})
		return same
	case *vtl.List:
		b, ok := r.(*vtl.List)
		if !ok || len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !e.equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// compare orders two numbers or two strings; anything else does not
// compare, as in Jayway.
func compare(l, r any) (int, bool) {
	if a, ok := l.(string); ok {
		b, ok := r.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(a, b), true
	}
	a, ok := number(l, false)
	if !ok {
		return 0, false
	}
	b, ok := number(r, false)
	if !ok {
		return 0, false
	}
	switch {
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	}
	return 0, true
}
