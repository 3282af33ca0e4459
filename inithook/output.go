package inithook

import (
	"bytes"
	"log/slog"
)

// maxLine bounds one logged line. A longer line, or output that never ends
// a line, is logged in pieces of this size, so memory stays bounded.
const maxLine = 4096

// lineWriter logs each line written to it at Info. Each lineWriter is used
// by one goroutine (os/exec copies each stream on its own).
type lineWriter struct {
	log *slog.Logger
	buf []byte
	// split: the last piece was cut at maxLine, so a newline right after
	// it ends that line rather than an empty one.
	split bool
}

func newLineWriter(log *slog.Logger) *lineWriter {
	return &lineWriter{log: log, buf: make([]byte, 0, maxLine)}
}

// Write implements io.Writer; it never fails.
func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i >= 0 && len(w.buf)+i <= maxLine {
			w.buf = append(w.buf, p[:i]...)
			p = p[i+1:]
			if len(w.buf) > 0 || !w.split {
				w.emit()
			}
			w.split = false
			continue
		}
		// Invariant: len(w.buf) < maxLine, so take is at least 1.
		take := min(maxLine-len(w.buf), len(p))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		w.split = false
		if len(w.buf) == maxLine {
			w.emit()
			w.split = true
		}
	}
	return n, nil
}

// Flush logs what is left of an unterminated last line.
func (w *lineWriter) Flush() {
	if len(w.buf) > 0 {
		w.emit()
	}
}

func (w *lineWriter) emit() {
	line := bytes.TrimSuffix(w.buf, []byte{'\r'})
	w.log.Info("init script output", "line", string(line))
	w.buf = w.buf[:0]
}
