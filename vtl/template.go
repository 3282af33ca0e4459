package vtl

import (
	"errors"
	"fmt"
	"time"
)

// Error is a compile or render error, placed in the template's source.
type Error struct {
	Line, Col int // 1-based
	Msg       string
	cause     error
}

func (e *Error) Error() string { return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg) }

// Unwrap lets errors.Is find ErrLimit.
func (e *Error) Unwrap() error { return e.cause }

// ErrLimit is wrapped by render errors that stopped at one of Limits.
var ErrLimit = errors.New("vtl: render limit reached")

// Limits bound one render. A zero field takes DefaultLimits' value.
type Limits struct {
	MaxSteps  int           // directives evaluated plus loop iterations
	MaxDepth  int           // nesting of macro calls and evaluation
	MaxOutput int           // bytes of output
	Timeout   time.Duration // wall time
}

// DefaultLimits are generous for real mapping templates and small enough
// that a hostile one stops within milliseconds.
var DefaultLimits = Limits{MaxSteps: 1_000_000, MaxDepth: 64, MaxOutput: 10 << 20, Timeout: 2 * time.Second}

// Template is a compiled template; it is immutable and safe for
// concurrent renders.
type Template struct {
	src    string
	root   block
	names  []string // variable slots: names[i] is slot i
	macros map[string]*macroDef
	opts   Options
	// slots of the loop variables the engine sets itself
	foreachSlot, countSlot, hasNextSlot int
}

// Options change how a template behaves where API Gateway and Velocity
// differ. The zero value is API Gateway.
type Options struct {
	// Macros runs #macro definitions when called. API Gateway does not:
	// it prints the call as written.
	Macros bool
}

// Refers reports whether the template reads or writes the top-level
// variable name ($name), so that a caller can skip building variables a
// template never touches.
func (t *Template) Refers(name string) bool {
	for _, n := range t.names {
		if n == name {
			return true
		}
	}
	return false
}

// Compile parses src as API Gateway would. A syntax error is an *Error.
func Compile(src string) (*Template, error) { return CompileWith(src, Options{}) }

// CompileWith parses src with opts.
func CompileWith(src string, opts Options) (*Template, error) {
	c := &compiler{src: src, slots: map[string]int{}, macros: map[string]*macroDef{}}
	t := &Template{src: src, opts: opts}
	t.foreachSlot = c.slot("foreach")
	t.countSlot = c.slot("velocityCount")
	t.hasNextSlot = c.slot("velocityHasNext")
	p := &parser{c: c, s: src}
	root, stop, at, err := p.parseBlock()
	if err != nil {
		return nil, err
	}
	if stop != stopEOF {
		return nil, c.errAt(at, "#end, #else or #elseif without its #if, #foreach or #define")
	}
	t.root, t.names, t.macros = root, c.names, c.macros
	return t, nil
}
