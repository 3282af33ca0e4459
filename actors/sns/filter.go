package sns

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
// follow "FilterPolicy: ".
func CompileFilterPolicy(text, scope string) (*FilterPolicy, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, policyError("failed to parse JSON. " + jsonReason(err))
	}
	if dec.More() {
		return nil, policyError("failed to parse JSON. Unexpected content after the policy")
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, policyError("failed to parse JSON. Filter policy must be a JSON object")
	}
	if err := checkDuplicateKeys(text); err != nil {
		return nil, err
	}
	root, err := compileNode(obj, scope, 0)
	if err != nil {
		return nil, err
	}
	if len(obj) > 0 {
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

// jsonReason words a JSON syntax error (AWS's parser words it its own
// way; the emulator does not copy it).
func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at offset %d", se.Error(), se.Offset)
	}
	return err.Error()
}

// checkDuplicateKeys refuses an object that repeats a key, as AWS's parser
// does (encoding/json keeps the last).
func checkDuplicateKeys(text string) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				ks, _ := k.(string)
				if seen[ks] {
					return policyError("Duplicated keys are not allowed.")
				}
				seen[ks] = true
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	if err := walk(); err != nil {
		if pe, ok := err.(policyError); ok {
			return pe
		}
	}
	return nil
}

func compileNode(obj map[string]any, scope string, depth int) (*policyNode, error) {
	n := &policyNode{}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := obj[k]
		if k == "$or" {
			alts, ok := v.([]any)
			if !ok || len(alts) < 2 {
				return nil, policyError("Or relationship must be an array of at least 2 objects")
			}
			var branch []*policyNode
			for _, a := range alts {
				ao, ok := a.(map[string]any)
				if !ok {
					return nil, policyError("Or relationship must be an array of at least 2 objects")
				}
				c, err := compileNode(ao, scope, depth)
				if err != nil {
					return nil, err
				}
				branch = append(branch, c)
			}
			n.ors = append(n.ors, branch)
			continue
		}
		switch tv := v.(type) {
		case []any:
			conds, err := compileConditions(tv)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, policyField{key: k, conds: conds})
		case map[string]any:
			if scope == ScopeAttributes {
				return nil, policyError("Filter policy scope MessageAttributes does not support nested filter policy")
			}
			c, err := compileNode(tv, scope, depth+1)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, policyField{key: k, child: c})
		default:
			return nil, policyError(fmt.Sprintf("%q must be an object or an array", k))
		}
	}
	return n, nil
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

func compileConditions(list []any) ([]condition, error) {
	if len(list) == 0 {
		return nil, policyError("Empty arrays are not allowed")
	}
	var out []condition
	for _, item := range list {
		if v, ok := scalar(item); ok {
			out = append(out, condition{kind: condExact, values: []value{v}})
			continue
		}
		op, ok := item.(map[string]any)
		if !ok {
			return nil, policyError("Match value must be String, number, true, false, or null")
		}
		if len(op) != 1 {
			return nil, policyError("Only one key allowed in match expression")
		}
		for name, arg := range op {
			c, err := compileOperator(name, arg)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func stringPattern(name string, arg any) (string, error) {
	s, ok := arg.(string)
	if !ok {
		return "", policyError(name + " match pattern must be a string")
	}
	return s, nil
}

func compileOperator(name string, arg any) (condition, error) {
	switch name {
	case "prefix", "suffix", "equals-ignore-case":
		s, err := stringPattern(name, arg)
		if err != nil {
			return condition{}, err
		}
		kind := map[string]condKind{"prefix": condPrefix, "suffix": condSuffix, "equals-ignore-case": condIgnoreCase}[name]
		return condition{kind: kind, str: s}, nil
	case "exists":
		b, ok := arg.(bool)
		if !ok {
			return condition{}, policyError("exists match pattern must be either true or false.")
		}
		return condition{kind: condExists, exists: b}, nil
	case "anything-but":
		return compileAnythingBut(arg)
	case "numeric":
		return compileNumeric(arg)
	case "cidr":
		s, ok := arg.(string)
		if !ok {
			return condition{}, policyError("prefix match pattern must be a string")
		}
		return compileCIDR(s)
	}
	return condition{}, policyError("Unrecognized match type " + name)
}

func compileAnythingBut(arg any) (condition, error) {
	switch tv := arg.(type) {
	case []any:
		var vals []value
		for _, e := range tv {
			v, ok := scalar(e)
			if !ok || v.kind == 't' || v.kind == 'f' || v.kind == 'z' {
				return condition{}, policyError("Inside anything but list, start|null|boolean is not supported.")
			}
			vals = append(vals, v)
		}
		if len(vals) == 0 {
			return condition{}, policyError("Empty arrays are not allowed")
		}
		return condition{kind: condAnythingBut, values: vals}, nil
	case map[string]any:
		if len(tv) != 1 {
			return condition{}, policyError("Only one key allowed in match expression")
		}
		for name, a := range tv {
			var kind condKind
			switch name {
			case "prefix":
				kind = condAnythingButPrefix
			case "equals-ignore-case":
				kind = condAnythingButIgnoreCase
			default:
				return condition{}, policyError("Unsupported anything-but pattern: " + name)
			}
			s, err := stringPattern(name, a)
			if err != nil {
				return condition{}, err
			}
			return condition{kind: kind, str: s}, nil
		}
	}
	v, ok := scalar(arg)
	if !ok || v.kind == 't' || v.kind == 'f' || v.kind == 'z' {
		return condition{}, policyError("Value of anything-but must be an array or single string/number value.")
	}
	return condition{kind: condAnythingBut, values: []value{v}}, nil
}

func compileNumeric(arg any) (condition, error) {
	list, ok := arg.([]any)
	if !ok {
		return condition{}, policyError("Value of numeric must be an array.")
	}
	c := condition{kind: condNumeric, lo: math.Inf(-1), hi: math.Inf(1)}
	if len(list) == 0 {
		return condition{}, policyError("Invalid member in numeric match: ]")
	}
	opOf := func(i int) (string, error) {
		s, ok := list[i].(string)
		if !ok {
			v, _ := scalar(list[i])
			return "", policyError("Invalid member in numeric match: " + v.text())
		}
		return s, nil
	}
	numOf := func(i int, op string) (float64, error) {
		name := op
		if op == "=" {
			name = "equals"
		}
		if i >= len(list) {
			return 0, policyError("Value of " + name + " must be numeric")
		}
		n, ok := list[i].(json.Number)
		if !ok {
			return 0, policyError("Value of " + name + " must be numeric")
		}
		f, err := n.Float64()
		if err != nil {
			return 0, policyError("Value of " + name + " must be numeric")
		}
		return f, nil
	}
	op, err := opOf(0)
	if err != nil {
		return condition{}, err
	}
	switch op {
	case "=":
		f, err := numOf(1, op)
		if err != nil {
			return condition{}, err
		}
		if len(list) > 2 {
			return condition{}, policyError("Too many elements in numeric expression")
		}
		c.lo, c.hi, c.loInc, c.hiInc = f, f, true, true
		return c, nil
	case "<", "<=":
		f, err := numOf(1, op)
		if err != nil {
			return condition{}, err
		}
		if len(list) > 2 {
			return condition{}, policyError("Too many elements in numeric expression")
		}
		c.hi, c.hiInc = f, op == "<="
		return c, nil
	case ">", ">=":
		f, err := numOf(1, op)
		if err != nil {
			return condition{}, err
		}
		c.lo, c.loInc = f, op == ">="
	default:
		return condition{}, policyError("Unrecognized numeric range operator: " + op)
	}
	if len(list) == 2 {
		return c, nil
	}
	op2, ok := list[2].(string)
	if !ok {
		v, _ := scalar(list[2])
		return condition{}, policyError("Bad value in numeric range: " + v.text())
	}
	if op2 != "<" && op2 != "<=" {
		return condition{}, policyError("Bad numeric range operator: " + op2)
	}
	f, err := numOf(3, op2)
	if err != nil {
		return condition{}, err
	}
	if len(list) > 4 {
		return condition{}, policyError("Too many terms in numeric range expression")
	}
	if f <= c.lo {
		return condition{}, policyError("Bottom must be less than top")
	}
	c.hi, c.hiInc = f, op2 == "<="
	return c, nil
}

func (v value) text() string {
	switch v.kind {
	case 's':
		return v.str
	case 'n':
		return strconv.FormatFloat(v.num, 'f', -1, 64)
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	return "null"
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
