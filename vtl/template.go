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
}

func (e *Error) Error() string { return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg) }

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
type Template struct{}

// Compile parses src. A syntax error is an *Error.
func Compile(src string) (*Template, error) {
	return nil, &Error{Line: 1, Col: 1, Msg: "not implemented"}
}

// Render renders t with vars as the top-level variables. vars is not
// modified: #set writes into the render's own scope, except through
// references into mutable values (#set($context.responseOverride.status
// = 400) changes the map vars holds, which is how overrides come out).
func (t *Template) Render(vars map[string]Value, lim Limits) (string, error) {
	return "", &Error{Line: 1, Col: 1, Msg: "not implemented"}
}
