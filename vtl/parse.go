package vtl

import (
	"strings"
)

// maxParseDepth bounds nesting of blocks, expressions and interpolated
// strings, so that a template of many thousand "#if(" fails to compile
// instead of exhausting the stack.
const maxParseDepth = 200

// compiler holds what one template's parsers share: the variable slots
// and the macros.
type compiler struct {
	src    string
	slots  map[string]int
	names  []string
	macros map[string]*macroDef
}

func (c *compiler) slot(name string) int {
	if i, ok := c.slots[name]; ok {
		return i
	}
	i := len(c.names)
	c.slots[name] = i
	c.names = append(c.names, name)
	return i
}

func (c *compiler) errAt(pos int, msg string) *Error {
	line, col := position(c.src, pos)
	return &Error{Line: line, Col: col, Msg: msg}
}

// position turns a byte offset into a 1-based line and column.
func position(src string, pos int) (int, int) {
	if pos > len(src) {
		pos = len(src)
	}
	line := 1 + strings.Count(src[:pos], "\n")
	col := pos - strings.LastIndexByte(src[:pos], '\n')
	return line, col
}

// parser reads one source text: the template, or the inside of a
// double-quoted string (base is then its offset in the template).
type parser struct {
	c        *compiler
	s        string
	base     int
	i        int
	depth    int
	inString bool
}

type stopKind uint8

const (
	stopEOF stopKind = iota
	stopEnd
	stopElse
	stopElseif
)

func (p *parser) fail(msg string) *Error { return p.c.errAt(p.base+p.i, msg) }

func (p *parser) failAt(i int, msg string) *Error { return p.c.errAt(p.base+i, msg) }

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxParseDepth {
		return p.fail("nesting too deep")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// directive is a "#name" or "#{name}" found at some offset.
type directive struct {
	name string
	end  int // offset after the name (and its closing brace)
}

func (p *parser) directiveAt(i int) (directive, bool) {
	j := i + 1
	braced := j < len(p.s) && p.s[j] == '{'
	if braced {
		j++
	}
	k := j
	for k < len(p.s) && isLetter(p.s[k]) {
		k++
	}
	if k == j {
		return directive{}, false
	}
	name := p.s[j:k]
	if braced {
		if k >= len(p.s) || p.s[k] != '}' {
			return directive{}, false
		}
		k++
	} else if k < len(p.s) && isIdentChar(p.s[k]) {
		return directive{}, false
	}
	return directive{name: name, end: k}, true
}

// known directives; "needsParen" ones are text when no '(' follows.
func knownDirective(name string) (known, needsParen bool) {
	switch name {
	case "set", "if", "elseif", "foreach", "define", "macro":
		return true, true
	case "else", "end", "break", "stop":
		return true, false
	}
	return false, false
}

// parenAfter reports where '(' starts after optional blanks at i.
func (p *parser) parenAfter(i int) (int, bool) {
	for i < len(p.s) && (p.s[i] == ' ' || p.s[i] == '\t') {
		i++
	}
	return i, i < len(p.s) && p.s[i] == '('
}

// eatLine consumes blanks and one line break after a directive, the way
// API Gateway's Velocity does; without a line break it consumes nothing.
func (p *parser) eatLine() {
	j := p.i
	for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
		j++
	}
	switch {
	case strings.HasPrefix(p.s[j:], "\r\n"):
		p.i = j + 2
	case j < len(p.s) && (p.s[j] == '\n' || p.s[j] == '\r'):
		p.i = j + 1
	}
}

// parseBlock reads nodes until EOF or a block-ending directive, which it
// consumes and reports.
func (p *parser) parseBlock() (block, stopKind, int, error) {
	var b block
	textStart := p.i
	flush := func(end int) {
		if end > textStart {
			b = append(b, &textNode{s: p.s[textStart:end]})
		}
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '$':
			start := p.i
			ref, ok, err := p.reference(start)
			if err != nil {
				return nil, 0, 0, err
			}
			if !ok {
				if p.i == len(p.s)-1 && !p.inString {
					// API Gateway fails such a template (500).
					return nil, 0, 0, p.fail("a lone $ ends the template")
				}
				p.i++
				continue
			}
			flush(start)
			b = append(b, &refNode{ref: ref})
			textStart = p.i
			continue
		case '\\':
			start := p.i
			n := 0
			for p.i < len(p.s) && p.s[p.i] == '\\' {
				p.i++
				n++
			}
			nodes, handled, err := p.escaped(n)
			if err != nil {
				return nil, 0, 0, err
			}
			if handled {
				flush(start)
				b = append(b, nodes...)
				textStart = p.i
			}
			continue
		case '#':
			start := p.i
			if strings.HasPrefix(p.s[p.i:], "##") {
				flush(start)
				nl := strings.IndexByte(p.s[p.i:], '\n')
				if nl < 0 {
					p.i = len(p.s)
				} else {
					p.i += nl + 1
				}
				textStart = p.i
				continue
			}
			if strings.HasPrefix(p.s[p.i:], "#*") {
				flush(start)
				end := strings.Index(p.s[p.i+2:], "*#")
				if end < 0 {
					p.i = len(p.s)
				} else {
					p.i += 2 + end + 2
				}
				textStart = p.i
				continue
			}
			if strings.HasPrefix(p.s[p.i:], "#[[") {
				flush(start)
				end := strings.Index(p.s[p.i+3:], "]]#")
				if end < 0 {
					return nil, 0, 0, p.fail("unterminated #[[ ]]#")
				}
				b = append(b, &textNode{s: p.s[p.i+3 : p.i+3+end]})
				p.i += 3 + end + 3
				textStart = p.i
				continue
			}
			d, ok := p.directiveAt(p.i)
			if !ok {
				p.i++
				continue
			}
			known, needsParen := knownDirective(d.name)
			paren, hasParen := p.parenAfter(d.end)
			if !known {
				if n, ok := p.macroCall(start, d, paren, hasParen); ok {
					flush(start)
					b = append(b, n)
					textStart = p.i
					continue
				}
				p.i = d.end
				continue
			}
			if needsParen && !hasParen {
				p.i = d.end
				continue
			}
			switch d.name {
			case "end", "else":
				flush(start)
				p.i = d.end
				p.eatLine()
				if d.name == "end" {
					return b, stopEnd, start, nil
				}
				return b, stopElse, start, nil
			case "elseif":
				flush(start)
				p.i = paren
				return b, stopElseif, start, nil
			case "set":
				// Blanks alone between the previous token and #set
				// are swallowed with it, as API Gateway does.
				if !blank(p.s[textStart:start]) || (len(b) > 0 && isText(b[len(b)-1])) {
					flush(start)
				}
			default:
				flush(start)
			}
			p.i = paren
			n, err := p.directive(d.name, start)
			if err != nil {
				return nil, 0, 0, err
			}
			if n != nil {
				b = append(b, n)
			}
			textStart = p.i
			continue
		}
		p.i++
	}
	flush(p.i)
	return b, stopEOF, p.i, nil
}

func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}

func isText(n node) bool { _, ok := n.(*textNode); return ok }

// escaped handles n backslashes just read before p.i. Before a reference
// or a directive, pairs of backslashes print one and an odd one prints
// what follows as written; anywhere else backslashes are text.
func (p *parser) escaped(n int) ([]node, bool, error) {
	if p.i >= len(p.s) {
		return nil, false, nil
	}
	half := &textNode{s: strings.Repeat(`\`, n/2)}
	switch p.s[p.i] {
	case '$':
		save := p.i
		ref, ok, err := p.reference(p.i)
		if err != nil || !ok {
			p.i = save
			return nil, false, err
		}
		if n%2 == 1 {
			return []node{&textNode{s: half.s + ref.raw}}, true, nil
		}
		return []node{half, &refNode{ref: ref}}, true, nil
	case '#':
		d, ok := p.directiveAt(p.i)
		if !ok {
			return nil, false, nil
		}
		if known, _ := knownDirective(d.name); !known {
			return nil, false, nil
		}
		if n%2 == 1 {
			s := half.s + p.s[p.i:d.end]
			p.i = d.end
			return []node{&textNode{s: s}}, true, nil
		}
		// An even run: the backslashes print halved and the directive
		// runs; parseBlock sees the '#' next.
		return []node{half}, true, nil
	}
	return nil, false, nil
}

// macroCall reads "#name(args)"; ok is false when it is plain text.
func (p *parser) macroCall(start int, d directive, paren int, hasParen bool) (node, bool) {
	if !hasParen {
		return nil, false
	}
	save := p.i
	p.i = paren + 1
	var args []expr
	for {
		p.space()
		if p.i >= len(p.s) {
			p.i = save
			return nil, false
		}
		if p.s[p.i] == ')' {
			p.i++
			break
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		e, err := p.expr()
		if err != nil {
			p.i = save
			return nil, false
		}
		args = append(args, e)
	}
	return &macroCall{name: d.name, args: args, raw: p.s[start:p.i], pos: p.base + start}, true
}

// directive parses a directive whose '(' (if any) is at p.i.
func (p *parser) directive(name string, start int) (node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	switch name {
	case "break":
		return &breakNode{}, nil
	case "stop":
		return &stopNode{}, nil
	case "set":
		p.i++ // (
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '$' {
			return nil, p.fail("#set needs a reference on the left")
		}
		target, ok, err := p.reference(p.i)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, p.fail("#set needs a reference on the left")
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '=' {
			return nil, p.fail("expected '=' in #set")
		}
		p.i++
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.closeParen("#set"); err != nil {
			return nil, err
		}
		return &setNode{target: target, value: v, pos: p.base + start}, nil
	case "if":
		return p.ifChain(start)
	case "foreach":
		p.i++
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '$' {
			return nil, p.fail("#foreach needs a variable")
		}
		v, ok, err := p.reference(p.i)
		if err != nil {
			return nil, err
		}
		if !ok || len(v.parts) > 0 {
			return nil, p.fail("#foreach needs a plain variable")
		}
		p.space()
		if !strings.HasPrefix(p.s[p.i:], "in") || p.i+2 < len(p.s) && isIdentChar(p.s[p.i+2]) {
			return nil, p.fail("expected 'in' in #foreach")
		}
		p.i += 2
		it, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.closeParen("#foreach"); err != nil {
			return nil, err
		}
		body, err := p.body("#foreach", start)
		if err != nil {
			return nil, err
		}
		return &foreachNode{slot: v.slot, iter: it, body: body, pos: p.base + start}, nil
	case "define":
		p.i++
		p.space()
		v, ok, err := p.reference(p.i)
		if err != nil {
			return nil, err
		}
		if !ok || len(v.parts) > 0 {
			return nil, p.fail("#define needs a plain variable")
		}
		if err := p.closeParen("#define"); err != nil {
			return nil, err
		}
		body, err := p.body("#define", start)
		if err != nil {
			return nil, err
		}
		return &defineNode{slot: v.slot, body: body}, nil
	case "macro":
		p.i++
		p.space()
		j := p.i
		for p.i < len(p.s) && (isIdentChar(p.s[p.i]) || p.s[p.i] == '-') {
			p.i++
		}
		if j == p.i {
			return nil, p.fail("#macro needs a name")
		}
		m := &macroDef{name: p.s[j:p.i]}
		for {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i >= len(p.s) || p.s[p.i] != '$' {
				break
			}
			v, ok, err := p.reference(p.i)
			if err != nil {
				return nil, err
			}
			if !ok || len(v.parts) > 0 {
				return nil, p.fail("#macro parameters are plain variables")
			}
			m.params = append(m.params, v.slot)
		}
		if err := p.closeParen("#macro"); err != nil {
			return nil, err
		}
		body, err := p.body("#macro", start)
		if err != nil {
			return nil, err
		}
		m.body = body
		if _, dup := p.c.macros[m.name]; !dup {
			p.c.macros[m.name] = m
		}
		return nil, nil
	}
	return nil, p.fail("unknown directive #" + name)
}

// body reads a block that must end with #end.
func (p *parser) body(what string, start int) (block, error) {
	b, stop, at, err := p.parseBlock()
	if err != nil {
		return nil, err
	}
	switch stop {
	case stopEnd:
		return b, nil
	case stopEOF:
		return nil, p.failAt(start, what+" has no #end")
	}
	return nil, p.failAt(at, "#else or #elseif outside #if")
}

func (p *parser) ifChain(start int) (node, error) {
	n := &ifNode{}
	for {
		p.i++ // (
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.closeParen("#if"); err != nil {
			return nil, err
		}
		b, stop, at, err := p.parseBlock()
		if err != nil {
			return nil, err
		}
		n.conds = append(n.conds, cond)
		n.blocks = append(n.blocks, b)
		switch stop {
		case stopEnd:
			return n, nil
		case stopEOF:
			return nil, p.failAt(start, "#if has no #end")
		case stopElse:
			b, err := p.body("#else", at)
			if err != nil {
				return nil, err
			}
			n.orElse = b
			return n, nil
		}
		// #elseif: p.i is at its '('.
	}
}

// closeParen reads the directive's ')' and the line break after it.
func (p *parser) closeParen(what string) error {
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != ')' {
		return p.fail("expected ')' to close " + what)
	}
	p.i++
	p.eatLine()
	return nil
}

// space skips whitespace inside directives and expressions.
func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}
