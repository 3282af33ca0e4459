package sns

import (
	"encoding/json"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Filter policies as SNS evaluates them
// (https://docs.aws.amazon.com/sns/latest/dg/sns-subscription-filter-policies.html):
// a policy is an object whose keys name message attributes (scope
// MessageAttributes) or members of the JSON body (scope MessageBody, where
// objects nest); each leaf is an array of conditions of which one must
// match; every key must match, and each "$or" needs one matching branch.

// Filter policy limits AWS documents.
const (
	maxFilterKeys         = 5
	maxFilterCombinations = 150
)

// The scopes a filter policy applies to.
const (
	ScopeAttributes = "MessageAttributes"
	ScopeBody       = "MessageBody"
)

// FilterPolicy is a compiled filter policy. It is immutable.
type FilterPolicy struct {
	root  *policyNode
	scope string
}

type policyNode struct {
	fields []policyField
	ors    [][]*policyNode
}

type policyField struct {
	key   string
	child *policyNode // a nested object (body scope)
	conds []condition
}

type condKind uint8

const (
	condExact condKind = iota + 1
	condPrefix
	condSuffix
	condIgnoreCase
	condAnythingBut
	condAnythingButPrefix
	condAnythingButIgnoreCase
	condNumeric
	condExists
	condCIDR
)

// value is one JSON scalar of a policy or a message: a string, a number,
// true, false or null.
type value struct {
	kind byte // 's' string, 'n' number, 't' true, 'f' false, 'z' null
	str  string
	num  float64
}

func (v value) equal(w value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case 's':
		return v.str == w.str
	case 'n':
		return v.num == w.num
	}
	return true
}

type condition struct {
	kind   condKind
	values []value // exact (one), anything-but (one or more)
	str    string  // prefix, suffix, equals-ignore-case patterns
	lo, hi float64 // numeric range
	loInc  bool
	hiInc  bool
	exists bool
	cidr   netip.Prefix
}

// policyError is a reason a filter policy is refused, without its
// "FilterPolicy: " prefix.
type policyError string

func (e policyError) Error() string { return string(e) }

// CompileFilterPolicy parses and checks a filter policy for scope
// (ScopeAttributes or ScopeBody). The error's text is AWS's reason, to
// follow "FilterPolicy: ", with the place in the policy its reader names.
func CompileFilterPolicy(text, scope string) (*FilterPolicy, error) {
	doc, r := parsePolicyJSON(text)
	if r != nil {
		return nil, policyError("failed to parse JSON. " + r.words(text))
	}
	if doc.kind != '{' {
		return nil, policyError(refuse(doc.seen(), "Filter policy must be a JSON object").words(text))
	}
	root, r := compileNode(doc, scope)
	if r != nil {
		return nil, policyError(r.words(text))
	}
	// The scope is checked once the whole policy was read, as AWS does.
	if scope == ScopeAttributes && root.nested() {
		return nil, policyError("Filter policy scope MessageAttributes does not support nested filter policy")
	}
	if len(doc.keys) > 0 {
		keys := map[string]bool{}
		countKeys(root, "", keys)
		if len(keys) > maxFilterKeys {
			return nil, policyError("Filter policy can not have more than 5 keys")
		}
		if root.combinations() > maxFilterCombinations {
			return nil, policyError("Filter policy is too complex")
		}
	}
	return &FilterPolicy{root: root, scope: scope}, nil
}

// compileNode compiles an object of the policy, its keys in the order
// written (the first bad one is the one refused).
func compileNode(obj *jnode, scope string) (*policyNode, *refusal) {
	n := &policyNode{}
	seen := map[string]bool{}
	for i, k := range obj.keys {
		v := obj.vals[i]
		if seen[k] {
			return nil, refuse(-1, "Duplicated keys are not allowed.")
		}
		seen[k] = true
		if k == "$or" {
			if v.kind != '[' || len(v.vals) < 2 {
				return nil, refuse(v.seen(), "Or relationship must be an array of at least 2 objects")
			}
			var branch []*policyNode
			for _, a := range v.vals {
				if a.kind != '{' {
					return nil, refuse(a.seen(), "Or relationship must be an array of at least 2 objects")
				}
				c, r := compileNode(a, scope)
				if r != nil {
					return nil, r
				}
				branch = append(branch, c)
			}
			n.ors = append(n.ors, branch)
			continue
		}
		switch v.kind {
		case '[':
			conds, r := compileConditions(v)
			if r != nil {
				return nil, r
			}
			n.fields = append(n.fields, policyField{key: k, conds: conds})
		case '{':
			c, r := compileNode(v, scope)
			if r != nil {
				return nil, r
			}
			n.fields = append(n.fields, policyField{key: k, child: c})
		default:
			return nil, refuse(v.seen(), "%q must be an object or an array", k)
		}
	}
	slices.SortStableFunc(n.fields, func(a, b policyField) int { return strings.Compare(a.key, b.key) })
	return n, nil
}

// scalarOf is a policy value's scalar, if it is one.
func scalarOf(n *jnode) (value, bool) {
	switch n.kind {
	case 's':
		return value{kind: 's', str: n.str}, true
	case 'n':
		f, err := strconv.ParseFloat(n.str, 64)
		if err != nil {
			return value{}, false
		}
		return value{kind: 'n', num: f}, true
	case 't', 'f', 'z':
		return value{kind: n.kind}, true
	}
	return value{}, false
}

func scalar(v any) (value, bool) {
	switch tv := v.(type) {
	case string:
		return value{kind: 's', str: tv}, true
	case json.Number:
		f, err := tv.Float64()
		if err != nil {
			return value{}, false
		}
		return value{kind: 'n', num: f}, true
	case bool:
		if tv {
			return value{kind: 't'}, true
		}
		return value{kind: 'f'}, true
	case nil:
		return value{kind: 'z'}, true
	}
	return value{}, false
}

func compileConditions(list *jnode) ([]condition, *refusal) {
	if len(list.vals) == 0 {
		return nil, refuse(list.close, "Empty arrays are not allowed")
	}
	var out []condition
	for _, item := range list.vals {
		if v, ok := scalarOf(item); ok {
			out = append(out, condition{kind: condExact, values: []value{v}})
			continue
		}
		if item.kind != '{' {
			return nil, refuse(item.seen(), "Match value must be String, number, true, false, or null")
		}
		if len(item.keys) == 0 {
			return nil, refuse(item.close, "Empty objects are not allowed")
		}
		if len(item.keys) > 1 {
			return nil, refuse(item.vals[1].seen(), "Only one key allowed in match expression")
		}
		c, r := compileOperator(item.keys[0], item.vals[0])
		if r != nil {
			return nil, r
		}
		out = append(out, c)
	}
	return out, nil
}

func stringPattern(name string, arg *jnode) (string, *refusal) {
	if arg.kind != 's' {
		return "", refuse(arg.seen(), "%s match pattern must be a string", name)
	}
	return arg.str, nil
}

func compileOperator(name string, arg *jnode) (condition, *refusal) {
	switch name {
	case "prefix", "suffix", "equals-ignore-case":
		s, r := stringPattern(name, arg)
		if r != nil {
			return condition{}, r
		}
		kind := map[string]condKind{"prefix": condPrefix, "suffix": condSuffix, "equals-ignore-case": condIgnoreCase}[name]
		return condition{kind: kind, str: s}, nil
	case "exists":
		if arg.kind != 't' && arg.kind != 'f' {
			return condition{}, refuse(arg.seen(), "exists match pattern must be either true or false.")
		}
		return condition{kind: condExists, exists: arg.kind == 't'}, nil
	case "anything-but":
		return compileAnythingBut(arg)
	case "numeric":
		return compileNumeric(arg)
	case "cidr":
		// AWS's reader words a CIDR that is not a string as a prefix.
		s, r := stringPattern("prefix", arg)
		if r != nil {
			return condition{}, r
		}
		c, err := compileCIDR(s)
		if err != nil {
			return condition{}, refuse(-1, "%s", err.Error())
		}
		return c, nil
	}
	return condition{}, refuse(arg.seen(), "Unrecognized match type %s", name)
}

func compileAnythingBut(arg *jnode) (condition, *refusal) {
	switch arg.kind {
	case '[':
		if len(arg.vals) == 0 {
			return condition{}, refuse(arg.close, "Empty arrays are not allowed")
		}
		var vals []value
		for _, e := range arg.vals {
			if e.kind != 's' && e.kind != 'n' {
				return condition{}, refuse(e.seen(), "Inside anything but list, start|null|boolean is not supported.")
			}
			v, _ := scalarOf(e)
			vals = append(vals, v)
		}
		return condition{kind: condAnythingBut, values: vals}, nil
	case '{':
		if len(arg.keys) != 1 {
			return condition{}, refuse(arg.close, "Only one key allowed in match expression")
		}
		var kind condKind
		switch name := arg.keys[0]; name {
		case "prefix":
			kind = condAnythingButPrefix
		case "equals-ignore-case":
			kind = condAnythingButIgnoreCase
		default:
			return condition{}, refuse(arg.vals[0].seen(), "Unsupported anything-but pattern: %s", name)
		}
		s, r := stringPattern(arg.keys[0], arg.vals[0])
		if r != nil {
			return condition{}, r
		}
		return condition{kind: kind, str: s}, nil
	case 's', 'n':
		v, _ := scalarOf(arg)
		return condition{kind: condAnythingBut, values: []value{v}}, nil
	}
	return condition{}, refuse(arg.seen(), "Value of anything-but must be an array or single string/number value.")
}

// compileNumeric reads ["op", n] or [">"|">=", n, "<"|"<=", n] as AWS's
// reader does, refusing at the place it stands.
func compileNumeric(arg *jnode) (condition, *refusal) {
	if arg.kind != '[' {
		return condition{}, refuse(arg.seen(), "Value of numeric must be an array.")
	}
	el := arg.vals
	// next is where the reader stands once it has seen element i.
	next := func(i int) int {
		if i < len(el) {
			return el[i].seen()
		}
		return arg.close
	}
	c := condition{kind: condNumeric, lo: math.Inf(-1), hi: math.Inf(1)}
	if len(el) == 0 {
		return condition{}, refuse(arg.close, "Invalid member in numeric match: ]")
	}
	if el[0].kind != 's' {
		return condition{}, refuse(el[0].read(), "Invalid member in numeric match: %s", el[0].text())
	}
	number := func(i int, op string) (float64, *refusal) {
		name := op
		if op == "=" {
			name = "equals"
		}
		if i >= len(el) || el[i].kind != 'n' {
			return 0, refuse(next(i), "Value of %s must be numeric", name)
		}
		f, err := strconv.ParseFloat(el[i].str, 64)
		if err != nil {
			return 0, refuse(el[i].read(), "Value of %s must be numeric", name)
		}
		return f, nil
	}
	op := el[0].str
	switch op {
	case "=", "<", "<=", ">", ">=":
	default:
		return condition{}, refuse(next(1), "Unrecognized numeric range operator: %s", op)
	}
	f, r := number(1, op)
	if r != nil {
		return condition{}, r
	}
	switch op {
	case "=", "<", "<=":
		if len(el) > 2 {
			return condition{}, refuse(el[2].seen(), "Too many elements in numeric expression")
		}
		switch op {
		case "=":
			c.lo, c.hi, c.loInc, c.hiInc = f, f, true, true
		default:
			c.hi, c.hiInc = f, op == "<="
		}
		return c, nil
	}
	c.lo, c.loInc = f, op == ">="
	if len(el) == 2 {
		return c, nil
	}
	if el[2].kind != 's' {
		return condition{}, refuse(el[2].read(), "Bad value in numeric range: %s", el[2].text())
	}
	op2 := el[2].str
	if op2 != "<" && op2 != "<=" {
		return condition{}, refuse(el[2].read(), "Bad numeric range operator: %s", op2)
	}
	top, r := number(3, op2)
	if r != nil {
		return condition{}, r
	}
	if len(el) > 4 {
		return condition{}, refuse(el[4].seen(), "Too many terms in numeric range expression")
	}
	if top <= c.lo {
		return condition{}, refuse(arg.close, "Bottom must be less than top")
	}
	c.hi, c.hiInc = top, op2 == "<="
	return c, nil
}

func compileCIDR(s string) (condition, error) {
	addr, bits, ok := strings.Cut(s, "/")
	if !ok {
		return condition{}, policyError("Malformed CIDR, one '/' required")
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return condition{}, policyError("Nonstandard IP address: " + addr)
	}
	n, err := strconv.Atoi(bits)
	if err != nil {
		return condition{}, policyError("Malformed CIDR, mask bits must be an integer")
	}
	p, err := ip.Prefix(n)
	if err != nil {
		return condition{}, policyError("Malformed CIDR, mask bits must be an integer")
	}
	return condition{kind: condCIDR, cidr: p}, nil
}

// nested reports whether a key of n holds an object.
func (n *policyNode) nested() bool {
	for _, f := range n.fields {
		if f.child != nil {
			return true
		}
	}
	for _, branch := range n.ors {
		if slices.ContainsFunc(branch, (*policyNode).nested) {
			return true
		}
	}
	return false
}

func countKeys(n *policyNode, path string, keys map[string]bool) {
	for _, f := range n.fields {
		if f.child != nil {
			countKeys(f.child, path+f.key+".", keys)
			continue
		}
		keys[path+f.key] = true
	}
	for _, branch := range n.ors {
		for _, b := range branch {
			countKeys(b, path, keys)
		}
	}
}

// combinations is how AWS measures a policy's complexity: the product of
// the number of values of each key, $or branches adding up.
func (n *policyNode) combinations() int {
	total := 1
	for _, f := range n.fields {
		c := len(f.conds)
		if f.child != nil {
			c = f.child.combinations()
		}
		total = satMul(total, c)
	}
	for _, branch := range n.ors {
		sum := 0
		for _, b := range branch {
			sum += b.combinations()
		}
		total = satMul(total, sum)
	}
	return total
}

func satMul(a, b int) int {
	if a > 1<<20 || b > 1<<20 {
		return 1 << 40
	}
	return a * b
}

// Attribute is a message attribute as published.
type Attribute struct {
	DataType    string
	StringValue string
	BinaryValue []byte
}

// MatchAttributes reports whether message attributes satisfy the policy
// (scope MessageAttributes).
func (p *FilterPolicy) MatchAttributes(attrs map[string]Attribute) bool {
	return p.root.match(func(key string) ([]value, bool) {
		a, ok := attrs[key]
		if !ok {
			return nil, false
		}
		return attributeValues(a), true
	}, nil)
}

// attributeValues are the values a filter compares an attribute with: a
// String's text, a Number's number, a String.Array's elements; a Binary
// compares with nothing (only exists matches it).
func attributeValues(a Attribute) []value {
	switch {
	case strings.HasPrefix(a.DataType, "String.Array"):
		dec := json.NewDecoder(strings.NewReader(a.StringValue))
		dec.UseNumber()
		var list []any
		if err := dec.Decode(&list); err != nil {
			return nil
		}
		var out []value
		for _, e := range list {
			if v, ok := scalar(e); ok {
				out = append(out, v)
			}
		}
		return out
	case strings.HasPrefix(a.DataType, "Number"):
		f, err := strconv.ParseFloat(strings.TrimSpace(a.StringValue), 64)
		if err != nil {
			return nil
		}
		return []value{{kind: 'n', num: f}}
	case strings.HasPrefix(a.DataType, "String"):
		return []value{{kind: 's', str: a.StringValue}}
	}
	return nil
}

// MatchBody reports whether a message body satisfies the policy (scope
// MessageBody). A body that is not a JSON object matches no policy with a
// key.
func (p *FilterPolicy) MatchBody(body string) bool {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var obj any
	if err := dec.Decode(&obj); err != nil {
		obj = nil
	}
	return p.root.matchBody([]any{obj})
}

// Match applies the policy in its scope.
func (p *FilterPolicy) Match(body string, attrs map[string]Attribute) bool {
	if p.scope == ScopeBody {
		return p.MatchBody(body)
	}
	return p.MatchAttributes(attrs)
}

// match evaluates a flat node: lookup returns a key's values and whether
// it is present.
func (n *policyNode) match(lookup func(string) ([]value, bool), _ any) bool {
	for _, f := range n.fields {
		vals, present := lookup(f.key)
		if !matchConds(f.conds, vals, present) {
			return false
		}
	}
	for _, branch := range n.ors {
		if !slices.ContainsFunc(branch, func(b *policyNode) bool { return b.match(lookup, nil) }) {
			return false
		}
	}
	return true
}

// matchBody evaluates a node against candidate objects (an array of
// objects in the body stands for each of them).
func (n *policyNode) matchBody(objs []any) bool {
	for _, f := range n.fields {
		var vals []value
		var children []any
		present := false
		for _, o := range objs {
			m, ok := o.(map[string]any)
			if !ok {
				continue
			}
			v, ok := m[f.key]
			if !ok {
				continue
			}
			present = true
			flatten(v, &vals, &children)
		}
		if f.child != nil {
			if !f.child.matchBody(children) {
				return false
			}
			continue
		}
		if !matchConds(f.conds, vals, present) {
			return false
		}
	}
	for _, branch := range n.ors {
		if !slices.ContainsFunc(branch, func(b *policyNode) bool { return b.matchBody(objs) }) {
			return false
		}
	}
	return true
}

func flatten(v any, vals *[]value, objs *[]any) {
	switch tv := v.(type) {
	case []any:
		for _, e := range tv {
			flatten(e, vals, objs)
		}
	case map[string]any:
		*objs = append(*objs, tv)
	default:
		if s, ok := scalar(v); ok {
			*vals = append(*vals, s)
		}
	}
}

func matchConds(conds []condition, vals []value, present bool) bool {
	for _, c := range conds {
		if c.kind == condExists {
			if c.exists == present {
				return true
			}
			continue
		}
		if !present {
			continue
		}
		for _, v := range vals {
			if c.matches(v) {
				return true
			}
		}
	}
	return false
}

func (c condition) matches(v value) bool {
	switch c.kind {
	case condExact:
		return c.values[0].equal(v)
	case condPrefix:
		return v.kind == 's' && strings.HasPrefix(v.str, c.str)
	case condSuffix:
		return v.kind == 's' && strings.HasSuffix(v.str, c.str)
	case condIgnoreCase:
		return v.kind == 's' && strings.EqualFold(v.str, c.str)
	case condAnythingBut:
		return !slices.ContainsFunc(c.values, v.equal)
	case condAnythingButPrefix:
		return v.kind == 's' && !strings.HasPrefix(v.str, c.str)
	case condAnythingButIgnoreCase:
		return v.kind == 's' && !strings.EqualFold(v.str, c.str)
	case condNumeric:
		if v.kind != 'n' {
			return false
		}
		if v.num < c.lo || (v.num == c.lo && !c.loInc) {
			return false
		}
		return v.num < c.hi || (v.num == c.hi && c.hiInc)
	case condCIDR:
		if v.kind != 's' {
			return false
		}
		ip, err := netip.ParseAddr(v.str)
		return err == nil && c.cidr.Contains(ip)
	}
	return false
}
