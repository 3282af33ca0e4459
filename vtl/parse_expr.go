package vtl

import (
	"strconv"
	"strings"
)

// The expression half of the parser: references, arguments, operators
// and literals. parse.go holds the text and directives half.

// reference reads $name, $!name, ${name}, $!{name} with its properties,
// method calls and indexes, starting at i (a '$'). ok is false when the
// text there is not a reference (then it is printed as written).
func (p *parser) reference(i int) (*refExpr, bool, error) {
	j := i + 1
	if j < len(p.s) && p.s[j] == '!' {
		j++
	}
	formal := j < len(p.s) && p.s[j] == '{'
	if formal {
		j++
	}
	if j >= len(p.s) || !isIdentStart(p.s[j]) {
		return nil, false, nil
	}
	k := j
	for k < len(p.s) && isIdentChar(p.s[k]) {
		k++
	}
	r := &refExpr{name: p.s[j:k], pos: p.base + i}
	r.slot = p.c.slot(r.name)
	save := p.i
	p.i = k
	if err := p.enter(); err != nil {
		return nil, false, err
	}
	defer p.leave()
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '.' && p.i+1 < len(p.s) && isIdentStart(p.s[p.i+1]) {
			at := p.i
			k := p.i + 1
			for k < len(p.s) && isIdentChar(p.s[k]) {
				k++
			}
			name := p.s[p.i+1 : k]
			if k < len(p.s) && p.s[k] == '(' {
				p.i = k + 1
				args, err := p.args(')')
				if err != nil {
					return nil, false, err
				}
				r.parts = append(r.parts, refPart{kind: partMethod, name: name, args: args, pos: p.base + at})
				continue
			}
			r.parts = append(r.parts, refPart{kind: partProp, name: name, pos: p.base + at})
			p.i = k
			continue
		}
		if c == '[' {
			at := p.i
			p.i++
			idx, err := p.expr()
			if err == nil {
				p.space()
				if p.i < len(p.s) && p.s[p.i] == ']' {
					p.i++
					r.parts = append(r.parts, refPart{kind: partIndex, idx: idx, pos: p.base + at})
					continue
				}
			}
			// Not an index: the '[' is text.
			p.i = at
		}
		break
	}
	if formal {
		if p.i >= len(p.s) || p.s[p.i] != '}' {
			p.i = save
			return nil, false, nil
		}
		p.i++
	}
	r.raw = p.s[i:p.i]
	return r, true, nil
}

// args reads comma-separated expressions up to the closing byte.
func (p *parser) args(closing byte) ([]expr, error) {
	var args []expr
	p.space()
	if p.i < len(p.s) && p.s[p.i] == closing {
		p.i++
		return nil, nil
	}
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.fail("unterminated argument list")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case closing:
			p.i++
			return args, nil
		default:
			return nil, p.fail("expected ',' or '" + string(closing) + "'")
		}
	}
}

// Expressions, by precedence from loosest: || && (== !=) (< <= > >=)
// (+ -) (* / %) unary.

func (p *parser) expr() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.binaryLevel(0)
}

var levels = [...][]struct {
	sym, word string
	op        opKind
}{
	{{"||", "or", opOr}},
	{{"&&", "and", opAnd}},
	{{"==", "eq", opEq}, {"!=", "ne", opNe}},
	{{"<=", "le", opLe}, {">=", "ge", opGe}, {"<", "lt", opLt}, {">", "gt", opGt}},
	{{"+", "", opAdd}, {"-", "", opSub}},
	{{"*", "", opMul}, {"/", "", opDiv}, {"%", "", opMod}},
}

func (p *parser) binaryLevel(level int) (expr, error) {
	if level == len(levels) {
		return p.unaryExpr()
	}
	l, err := p.binaryLevel(level + 1)
	if err != nil {
		return nil, err
	}
	for n := 0; ; n++ {
		if n > 10_000 {
			return nil, p.fail("expression too long")
		}
		p.space()
		op, width, ok := p.operator(levels[level][:])
		if !ok {
			return l, nil
		}
		at := p.i
		p.i += width
		r, err := p.binaryLevel(level + 1)
		if err != nil {
			return nil, err
		}
		l = &binary{op: op, l: l, r: r, pos: p.base + at}
	}
}

func (p *parser) operator(ops []struct {
	sym, word string
	op        opKind
}) (opKind, int, bool) {
	rest := p.s[p.i:]
	for _, o := range ops {
		// The table lists longer symbols first, so "<" never eats "<=".
		if strings.HasPrefix(rest, o.sym) {
			return o.op, len(o.sym), true
		}
		if o.word != "" && strings.HasPrefix(rest, o.word) &&
			(len(rest) == len(o.word) || !isIdentChar(rest[len(o.word)])) {
			return o.op, len(o.word), true
		}
	}
	return 0, 0, false
}

func (p *parser) unaryExpr() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.space()
	at := p.i
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "!") && !strings.HasPrefix(rest, "!="):
		p.i++
		x, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		return &unary{op: opNot, x: x, pos: p.base + at}, nil
	case strings.HasPrefix(rest, "not") && (len(rest) == 3 || !isIdentChar(rest[3])):
		p.i += 3
		x, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		return &unary{op: opNot, x: x, pos: p.base + at}, nil
	case strings.HasPrefix(rest, "-") && len(rest) > 1 && !(rest[1] >= '0' && rest[1] <= '9' || rest[1] == '.'):
		p.i++
		x, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		return &unary{op: opNeg, x: x, pos: p.base + at}, nil
	}
	return p.primary()
}

func (p *parser) primary() (expr, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.fail("unexpected end of template in an expression")
	}
	at := p.i
	c := p.s[p.i]
	switch {
	case c == '$':
		r, ok, err := p.reference(p.i)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, p.fail("malformed reference")
		}
		return r, nil
	case c == '"' || c == '\'':
		return p.stringLit()
	case c >= '0' && c <= '9' || c == '-' || c == '.' && p.i+1 < len(p.s) && p.s[p.i+1] >= '0' && p.s[p.i+1] <= '9':
		return p.number()
	case c == '(':
		p.i++
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, p.fail("expected ')'")
		}
		p.i++
		return e, nil
	case c == '[':
		p.i++
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return &listLit{}, nil
		}
		first, err := p.expr()
		if err != nil {
			return nil, err
		}
		p.space()
		if strings.HasPrefix(p.s[p.i:], "..") {
			p.i += 2
			to, err := p.expr()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ']' {
				return nil, p.fail("expected ']' to close the range")
			}
			p.i++
			return &rangeLit{from: first, to: to, pos: p.base + at}, nil
		}
		l := &listLit{items: []expr{first}}
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			rest, err := p.args(']')
			if err != nil {
				return nil, err
			}
			l.items = append(l.items, rest...)
			return l, nil
		}
		if p.i >= len(p.s) || p.s[p.i] != ']' {
			return nil, p.fail("expected ',' or ']'")
		}
		p.i++
		return l, nil
	case c == '{':
		p.i++
		m := &mapLit{}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		for {
			k, err := p.expr()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.fail("expected ':' in a map")
			}
			p.i++
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			m.keys = append(m.keys, k)
			m.vals = append(m.vals, v)
			p.space()
			if p.i >= len(p.s) {
				return nil, p.fail("unterminated map")
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == '}' {
				p.i++
				return m, nil
			}
			return nil, p.fail("expected ',' or '}' in a map")
		}
	case isIdentStart(c):
		k := p.i
		for k < len(p.s) && isIdentChar(p.s[k]) {
			k++
		}
		switch p.s[p.i:k] {
		case "true":
			p.i = k
			return &literal{v: true}, nil
		case "false":
			p.i = k
			return &literal{v: false}, nil
		case "null":
			p.i = k
			return &literal{v: nil}, nil
		}
	}
	return nil, p.fail("unexpected " + strconv.QuoteRune(rune(c)) + " in an expression")
}

func (p *parser) number() (expr, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	float := false
	if p.i+1 < len(p.s) && p.s[p.i] == '.' && p.s[p.i+1] >= '0' && p.s[p.i+1] <= '9' {
		float = true
		p.i++
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
	}
	if p.i == digits {
		return nil, p.fail("malformed number")
	}
	lit := p.s[start:p.i]
	if !float {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return &literal{v: n}, nil
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, p.failAt(start, "malformed number "+lit)
	}
	return &literal{v: f}, nil
}

// stringLit reads '...' (as written) or "..." (references and directives
// inside are rendered). A doubled quote stands for one; backslashes are
// not escapes.
func (p *parser) stringLit() (expr, error) {
	q := p.s[p.i]
	start := p.i
	p.i++
	var b strings.Builder
	chunk := p.i
	for {
		k := strings.IndexByte(p.s[p.i:], q)
		if k < 0 {
			return nil, p.failAt(start, "unterminated string")
		}
		p.i += k + 1
		if p.i < len(p.s) && p.s[p.i] == q {
			b.WriteString(p.s[chunk:p.i])
			p.i++
			chunk = p.i
			continue
		}
		b.WriteString(p.s[chunk : p.i-1])
		break
	}
	s := b.String()
	if q == '\'' || !strings.ContainsAny(s, "$#\\") {
		return &literal{v: s}, nil
	}
	sub := &parser{c: p.c, s: s, base: p.base + start + 1, depth: p.depth, inString: true}
	if err := sub.enter(); err != nil {
		return nil, err
	}
	body, stop, at, err := sub.parseBlock()
	if err != nil {
		return nil, err
	}
	if stop != stopEOF {
		return nil, sub.failAt(at, "#end, #else or #elseif without its #if")
	}
	if len(body) == 1 {
		if t, ok := body[0].(*textNode); ok {
			return &literal{v: t.s}, nil
		}
	}
	return &interp{body: body}, nil
}
