package functions

import (
	"bytes"
	"log/slog"
	"os"
	"sync"
	"syscall"
)

const (
	// TailSize is how much of an invocation's log LogTail keeps: Lambda's
	// LogType=Tail returns the last 4 KB.
	TailSize = 4096
	// maxLine splits a line longer than this, so a function that never
	// writes a newline cannot grow the buffer without bound.
	maxLine = 256 << 10
)

// output reads one instance's stdout and stderr — one pipe, so their lines
// keep the order they were written in — and hands each line to the log and
// to the invocation it belongs to.
//
// Reads happen under mu, both in the reader's loop and in sync: once sync
// has seen the pipe empty, every line written before it was taken and
// filed. A runtime writes its log lines before it posts the answer, so
// syncing after the answer puts all of an invocation's lines in its tail.
type output struct {
	file *os.File
	raw  syscall.RawConn
	log  *slog.Logger // tagged with the function
	done chan struct{}

	mu      sync.Mutex
	buf     []byte
	partial []byte
	sink    *invocation // lines belong to it; nil between invocations
}

func newOutput(r *os.File, log *slog.Logger) (*output, error) {
	raw, err := r.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &output{file: r, raw: raw, log: log, done: make(chan struct{}), buf: make([]byte, 8<<10)}, nil
}

// run reads until every writer of the pipe has closed it (the process and
// any child that inherited it are gone).
func (o *output) run() {
	defer close(o.done)
	_ = o.raw.Read(func(fd uintptr) bool { return o.drain(int(fd)) })
	o.file.Close()
}

// drainReads bounds one drain: a function that writes without pause must
// not hold mu (and so an invocation's end) forever.
const drainReads = 64

// drain files what the pipe holds now, up to drainReads reads; it reports
// true at the end of the file or on an error, false otherwise.
func (o *output) drain(fd int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for range drainReads {
		n, err := syscall.Read(fd, o.buf)
		switch {
		case n > 0:
			o.consume(o.buf[:n])
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return false
		default: // end of file, or the pipe failed
			o.flushPartial()
			return true
		}
	}
	return false
}

// sync files everything written to the pipe so far.
func (o *output) sync() {
	_ = o.raw.Control(func(fd uintptr) { o.drain(int(fd)) })
}

func (o *output) consume(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			o.partial = append(o.partial, b...)
			if len(o.partial) >= maxLine {
				o.flushPartial()
			}
			return
		}
		if len(o.partial) > 0 {
			o.partial = append(o.partial, b[:i]...)
			o.emit(o.partial)
			o.partial = o.partial[:0]
		} else {
			o.emit(b[:i])
		}
		b = b[i+1:]
	}
}

func (o *output) flushPartial() {
	if len(o.partial) > 0 {
		o.emit(o.partial)
		o.partial = o.partial[:0]
	}
}

func (o *output) emit(line []byte) {
	if inv := o.sink; inv != nil {
		inv.tail.add(line)
		o.log.Info(string(line), "requestId", inv.id)
		return
	}
	o.log.Info(string(line))
}

// attach files the lines that follow under inv.
func (o *output) attach(inv *invocation) {
	o.mu.Lock()
	o.sink = inv
	o.mu.Unlock()
}

// note adds a line of the platform's own (START, INIT_REPORT) to inv's
// tail, in order with the function's lines.
func (o *output) note(inv *invocation, line string) {
	o.mu.Lock()
	inv.tail.addString(line)
	o.mu.Unlock()
}

// detach files everything written so far under inv, then stops filing
// lines under it.
func (o *output) detach(inv *invocation) {
	o.sync()
	o.mu.Lock()
	if o.sink == inv {
		o.flushPartial()
		o.sink = nil
	}
	o.mu.Unlock()
}

// tail keeps the last TailSize bytes of what it is given, line by line.
type tail struct{ b []byte }

func (t *tail) add(line []byte) {
	t.b = append(t.b, line...)
	t.b = append(t.b, '\n')
	if len(t.b) > 2*TailSize {
		n := copy(t.b, t.b[len(t.b)-TailSize:])
		t.b = t.b[:n]
	}
}

func (t *tail) addString(s string) { t.add([]byte(s)) }
