package rest

import (
	"strings"

	"github.com/cloudemu/emulator/execute"
)

// accessFormat is a stage's accessLogSettings.format, split once into
// literal text and $context variables.
type accessFormat struct {
	parts []formatPart
}

type formatPart struct {
	text     string
	variable bool
}

// parseAccessFormat splits a format on $context.name and ${context.name}.
func parseAccessFormat(f string) *accessFormat {
	out := &accessFormat{}
	for {
		i := strings.Index(f, "$")
		if i < 0 {
			break
		}
		rest, braced := f[i+1:], false
		if strings.HasPrefix(rest, "{") {
			rest, braced = rest[1:], true
		}
		name, ok := strings.CutPrefix(rest, "context.")
		if !ok {
			out.parts = append(out.parts, formatPart{text: f[:i+1]})
			f = f[i+1:]
			continue
		}
		n := 0
		for n < len(name) && isNameByte(name[n]) {
			n++
		}
		for n > 0 && name[n-1] == '.' {
			n--
		}
		end := len(f) - len(name) + n
		if n == 0 {
			out.parts = append(out.parts, formatPart{text: f[:i+1]})
			f = f[i+1:]
			continue
		}
		if braced {
			if n >= len(name) || name[n] != '}' {
				out.parts = append(out.parts, formatPart{text: f[:i+1]})
				f = f[i+1:]
				continue
			}
			end++
		}
		if i > 0 {
			out.parts = append(out.parts, formatPart{text: f[:i]})
		}
		out.parts = append(out.parts, formatPart{text: name[:n], variable: true})
		f = f[end:]
	}
	if f != "" {
		out.parts = append(out.parts, formatPart{text: f})
	}
	return out
}

func isNameByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// render writes the line; a variable with no value is "-", as AWS writes
// it.
func (f *accessFormat) render(inv *invocation) string {
	var b strings.Builder
	for _, p := range f.parts {
		if !p.variable {
			b.WriteString(p.text)
			continue
		}
		if v, ok := inv.contextValue(p.text); ok && v != "" {
			b.WriteString(v)
		} else {
			b.WriteByte('-')
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxFormats bounds the cache of parsed formats: stages change their
// format rarely; past the bound the cache starts over.
const maxFormats = 1024

// accessLog writes a stage's access-log line at info level.
func (e *Executor) accessLog(inv *invocation, format string) {
	f, ok := e.formats.Load(format)
	if !ok {
		if e.formats.Size() >= maxFormats {
			e.formats.Clear()
		}
		f, _ = e.formats.LoadOrStore(format, parseAccessFormat(format))
	}
	e.log.Info(f.render(inv), "log", "access", "api", inv.req.APIID, "stage", inv.req.Stage)
}

func isHop(name string) bool { return execute.IsHopHeader(name) }
