package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/puzpuzpuz/xsync/v3"
)

// SyntaxError is a malformed or unsupported path.
type SyntaxError struct {
	Path string
	Pos  int // 0-based byte offset in Path
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("jsonpath %q: %s at position %d", e.Path, e.Msg, e.Pos)
}

type kind uint8

const (
	kProp   kind = iota // one or more property names
	kIndex              // one or more array indexes
	kSlice              // [from:to]
	kWild               // * or [*]
	kScan               // .. : the next step applies at every depth
	kFilter             // [?(...)]
)

type sliceKind uint8

const (
	sliceFrom    sliceKind = iota // [a:]
	sliceTo                       // [:b]
	sliceBetween                  // [a:b]
)

type step struct {
	kind   kind
	names  []string
	idx    []int
	sk     sliceKind
	from   int
	to     int
	filter expr
}

// definite reports whether the step selects at most one value; leaf says
// whether it is the path's last step (several names on a leaf merge into
// one object, as Jayway does).
func (s *step) definite(leaf bool) bool {
	switch s.kind {
	case kProp:
		return len(s.names) == 1 || leaf
	case kIndex:
		return len(s.idx) == 1
	}
	return false
}

// Path is a compiled JSONPath; it is immutable and safe for concurrent use.
type Path struct {
	src      string
	steps    []step
	definite bool
}

// String returns the source the path was compiled from.
func (p *Path) String() string { return p.src }

// Definite reports whether the path selects at most one value.
func (p *Path) Definite() bool { return p.definite }

// maxNesting bounds filter nesting (parentheses, paths inside filters) so
// that a hostile path cannot exhaust the stack.
const maxNesting = 64

// Compile parses src. Malformed and unsupported paths are *SyntaxError.
func Compile(src string) (*Path, error) {
	s := strings.TrimSpace(src)
	if s == "" {
		return nil, &SyntaxError{Path: src, Msg: "empty path"}
	}
	// Jayway reads a path without a root as a property path from the root.
	if s[0] != '$' && s[0] != '@' {
		s = "$." + s
	}
	if strings.HasSuffix(s, ".") {
		return nil, &SyntaxError{Path: src, Pos: len(src) - 1, Msg: "path must not end with '.' or '..'"}
	}
	p := &parser{src: src, s: s}
	if s[0] != '$' {
		return nil, p.fail(0, "path must start with '$'")
	}
	p.i = 1
	steps, err := p.steps(false)
	if err != nil {
		return nil, err
	}
	if p.i != len(s) {
		return nil, p.fail(p.i, "unexpected character")
	}
	return newPath(src, steps), nil
}

func newPath(src string, steps []step) *Path {
	def := true
	for i := range steps {
		if !steps[i].definite(i == len(steps)-1) {
			def = false
			break
		}
	}
	return &Path{src: src, steps: steps, definite: def}
}

// cacheMax bounds Lookup's cache; past it the cache starts over, which
// keeps memory bounded whatever paths templates use.
const cacheMax = 4096

type cached struct {
	p   *Path
	err error
}

var cache = xsync.NewMapOf[string, cached]()

// Lookup is Compile with a bounded cache, for paths that templates repeat
// on every request.
func Lookup(src string) (*Path, error) {
	if c, ok := cache.Load(src); ok {
		return c.p, c.err
	}
	p, err := Compile(src)
	if cache.Size() >= cacheMax {
		cache.Clear()
	}
	cache.Store(src, cached{p, err})
	return p, err
}

type parser struct {
	src   string // as given, for errors
	s     string // normalised
	i     int
	depth int
}

func (p *parser) fail(pos int, msg string) error {
	// Positions refer to the normalised path; shift back when "$." was added.
	if off := len(p.s) - len(strings.TrimSpace(p.src)); off > 0 {
		pos -= off
		if pos < 0 {
			pos = 0
		}
	}
	if lead := len(p.src) - len(strings.TrimLeft(p.src, " \t\r\n")); lead > 0 {
		pos += lead
	}
	return &SyntaxError{Path: p.src, Pos: pos, Msg: msg}
}

// steps parses the tokens after a root. In a filter (sub), the path ends
// at the first character that cannot continue it.
func (p *parser) steps(sub bool) ([]step, error) {
	var out []step
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '.':
			if p.i+1 < len(p.s) && p.s[p.i+1] == '.' {
				out = append(out, step{kind: kScan})
				p.i += 2
			} else {
				p.i++
			}
			if p.i >= len(p.s) {
				return nil, p.fail(p.i, "path must not end with '.' or '..'")
			}
			switch p.s[p.i] {
			case '.':
				return nil, p.fail(p.i, "unexpected '.'")
			case '[':
				st, err := p.bracket()
				if err != nil {
					return nil, err
				}
				out = append(out, st)
			case '*':
				p.i++
				out = append(out, step{kind: kWild})
			default:
				st, err := p.dotProperty(sub)
				if err != nil {
					return nil, err
				}
				out = append(out, st)
			}
		case '[':
			st, err := p.bracket()
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		default:
			if sub {
				return out, nil
			}
			return nil, p.fail(p.i, "expected '.' or '['")
		}
	}
	return out, nil
}

// dotProperty reads a name after '.'.
func (p *parser) dotProperty(sub bool) (step, error) {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '.' || c == '[' || c == ' ' || c == '(' {
			break
		}
		if sub && strings.IndexByte(")=!<>&|,\t\r\n", c) >= 0 {
			break
		}
		p.i++
	}
	if p.i == start {
		return step{}, p.fail(start, "expected a property name")
	}
	if p.i < len(p.s) && p.s[p.i] == '(' {
		return step{}, p.fail(start, "functions are not supported")
	}
	if !sub && p.i < len(p.s) && p.s[p.i] == ' ' {
		return step{}, p.fail(p.i, "use bracket notation ['my prop'] for names with blanks")
	}
	return step{kind: kProp, names: []string{p.s[start:p.i]}}, nil
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// bracket parses [...] starting at '['.
func (p *parser) bracket() (step, error) {
	open := p.i
	p.i++
	p.skipSpace()
	if p.i >= len(p.s) {
		return step{}, p.fail(open, "unclosed '['")
	}
	var st step
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		st.kind = kProp
		for {
			name, err := p.quoted()
			if err != nil {
				return step{}, err
			}
			st.names = append(st.names, name)
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				p.skipSpace()
				if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
					return step{}, p.fail(p.i, "expected a quoted property name")
				}
				continue
			}
			break
		}
	case c == '*':
		p.i++
		st.kind = kWild
	case c == '?':
		p.i++
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != '(' {
			return step{}, p.fail(p.i, "expected '(' after '?'")
		}
		p.i++
		e, err := p.orExpr()
		if err != nil {
			return step{}, err
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return step{}, p.fail(p.i, "expected ')' closing the filter")
		}
		p.i++
		st.kind, st.filter = kFilter, e
	case c == '-' || c == ':' || (c >= '0' && c <= '9'):
		end := strings.IndexByte(p.s[p.i:], ']')
		if end < 0 {
			return step{}, p.fail(open, "unclosed '['")
		}
		var err error
		st, err = p.indexes(p.s[p.i:p.i+end], p.i)
		if err != nil {
			return step{}, err
		}
		p.i += end
	default:
		return step{}, p.fail(p.i, "unexpected character in brackets")
	}
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != ']' {
		return step{}, p.fail(p.i, "expected ']'")
	}
	p.i++
	return st, nil
}

// quoted reads a '...' or "..." name, unescaping backslashes.
func (p *parser) quoted() (string, error) {
	q := p.s[p.i]
	start := p.i
	p.i++
	var b strings.Builder
	plain := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == q {
			var name string
			if b.Len() == 0 {
				name = p.s[plain:p.i]
			} else {
				b.WriteString(p.s[plain:p.i])
				name = b.String()
			}
			p.i++
			return name, nil
		}
		if c != '\\' {
			p.i++
			continue
		}
		b.WriteString(p.s[plain:p.i])
		if p.i+1 >= len(p.s) {
			break
		}
		e := p.s[p.i+1]
		p.i += 2
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if p.i+4 > len(p.s) {
				return "", p.fail(p.i-2, "bad \\u escape")
			}
			r, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
			if err != nil {
				return "", p.fail(p.i-2, "bad \\u escape")
			}
			b.WriteRune(rune(r))
			p.i += 4
		default:
			b.WriteByte(e)
		}
		plain = p.i
	}
	return "", p.fail(start, "unclosed quote")
}

// indexes parses the inside of [1], [1,2], [-1], [1:3], [:2], [2:].
func (p *parser) indexes(s string, at int) (step, error) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ':'); i >= 0 {
		a, b := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
		if strings.IndexByte(b, ':') >= 0 {
			return step{}, p.fail(at, "slice steps are not supported")
		}
		st := step{kind: kSlice}
		var err error
		switch {
		case a != "" && b != "":
			st.sk = sliceBetween
			if st.from, err = atoi(a); err == nil {
				st.to, err = atoi(b)
			}
		case a != "":
			st.sk = sliceFrom
			st.from, err = atoi(a)
		case b != "":
			st.sk = sliceTo
			st.to, err = atoi(b)
		default:
			return step{}, p.fail(at, "empty slice")
		}
		if err != nil {
			return step{}, p.fail(at, "bad slice bound")
		}
		return st, nil
	}
	st := step{kind: kIndex}
	for part := range strings.SplitSeq(s, ",") {
		n, err := atoi(strings.TrimSpace(part))
		if err != nil {
			return step{}, p.fail(at, "bad array index")
		}
		st.idx = append(st.idx, n)
	}
	return st, nil
}

func atoi(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	return int(n), err
}

// expr is a filter expression.
type expr interface {
	eval(node any, e *evaluator) bool
}

type andExpr struct{ l, r expr }
type orExpr struct{ l, r expr }
type notExpr struct{ e expr }

// existsExpr is [?(@.a)]: true when the path selects something.
type existsExpr struct{ p operand }

type cmpExpr struct {
	op   string
	l, r operand
}

// operand is a path relative to @ or $, or a literal.
type operand struct {
	path *Path
	rel  bool // @ rather than $
	lit  any  // when path is nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return p.fail(p.i, "filter nested too deeply")
	}
	return nil
}

func (p *parser) orExpr() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	l, err := p.andExpr()
	if err != nil {
		return nil, err
	}
	for {
		p.skipSpace()
		if !strings.HasPrefix(p.s[p.i:], "||") {
			return l, nil
		}
		p.i += 2
		r, err := p.andExpr()
		if err != nil {
			return nil, err
		}
		l = orExpr{l, r}
	}
}

func (p *parser) andExpr() (expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		p.skipSpace()
		if !strings.HasPrefix(p.s[p.i:], "&&") {
			return l, nil
		}
		p.i += 2
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = andExpr{l, r}
	}
}

func (p *parser) unary() (expr, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return nil, p.fail(p.i, "unexpected end of filter")
	}
	switch p.s[p.i] {
	case '!':
		if strings.HasPrefix(p.s[p.i:], "!=") {
			return nil, p.fail(p.i, "unexpected '!='")
		}
		p.i++
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		return notExpr{e}, nil
	case '(':
		p.i++
		e, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, p.fail(p.i, "expected ')'")
		}
		p.i++
		return e, nil
	}
	l, err := p.operand()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	for _, op := range [...]string{"==", "!=", "<=", ">=", "<", ">"} {
		if strings.HasPrefix(p.s[p.i:], op) {
			p.i += len(op)
			r, err := p.operand()
			if err != nil {
				return nil, err
			}
			return cmpExpr{op, l, r}, nil
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == '=' || isWordStart(p.s[p.i])) {
		return nil, p.fail(p.i, "unsupported filter operator")
	}
	if l.path == nil {
		return nil, p.fail(p.i, "a literal alone is not a filter")
	}
	return existsExpr{l}, nil
}

func isWordStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (p *parser) operand() (operand, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return operand{}, p.fail(p.i, "expected an operand")
	}
	switch c := p.s[p.i]; {
	case c == '@' || c == '$':
		if err := p.enter(); err != nil {
			return operand{}, err
		}
		defer func() { p.depth-- }()
		start := p.i
		p.i++
		steps, err := p.steps(true)
		if err != nil {
			return operand{}, err
		}
		return operand{path: newPath(p.s[start:p.i], steps), rel: c == '@'}, nil
	case c == '\'' || c == '"':
		s, err := p.quoted()
		if err != nil {
			return operand{}, err
		}
		return operand{lit: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		p.i++
		for p.i < len(p.s) && strings.IndexByte("0123456789.eE+-", p.s[p.i]) >= 0 {
			p.i++
		}
		num := p.s[start:p.i]
		if n, err := strconv.ParseInt(num, 10, 64); err == nil {
			return operand{lit: n}, nil
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return operand{}, p.fail(start, "bad number")
		}
		return operand{lit: f}, nil
	}
	for _, w := range [...]struct {
		s string
		v any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if strings.HasPrefix(p.s[p.i:], w.s) {
			p.i += len(w.s)
			return operand{lit: w.v}, nil
		}
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return operand{}, p.fail(p.i, fmt.Sprintf("unexpected %q in filter", r))
}
