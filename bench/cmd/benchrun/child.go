package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// defaultGrace is how long a child gets between SIGTERM and SIGKILL.
const defaultGrace = 5 * time.Second

// procs tracks every child benchrun starts so that all of them are stopped
// on the way out, whatever the way out is.
type procs struct {
	log   *slog.Logger
	grace time.Duration

	mu   sync.Mutex
	list []*child
}

// child is one started process and its process group.
type child struct {
	name    string
	cmd     *exec.Cmd
	started time.Time // just before exec, for start-up timings
	done    chan struct{}
	waitErr error // set before done is closed
}

// start execs path with args and env. The child's stdout and stderr go to
// stdout and stderr, both os.Stderr if nil (our stdout is the report).
func (p *procs) start(name, path string, args, env []string, stdout, stderr io.Writer) (*child, error) {
	if stdout == nil {
		stdout = os.Stderr
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = sysProcAttr()
	// Wait also waits for the stdout copy; a grandchild holding the pipe
	// must not hang it.
	cmd.WaitDelay = time.Second
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	c.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("benchrun: start %s: %w", name, err)
	}
	p.mu.Lock()
	p.list = append(p.list, c)
	p.mu.Unlock()
	go func() {
		c.waitErr = cmd.Wait()
		close(c.done)
	}()
	p.log.Debug("child started", "name", name, "pid", cmd.Process.Pid)
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// exited reports whether the child has exited.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the child's group, then SIGKILL if it has not
// exited after grace, and reports whether SIGKILL was needed. A child that
// had already exited is left alone: its pid may have been reaped and reused.
func (c *child) stop(grace time.Duration) (killed bool) {
	if c.exited() {
		return false
	}
	pgid := c.pid() // Setpgid makes the group id the child's pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		killed = true
	}
	// Also end whatever the child left behind in its group. The group id is
	// not handed out again while a member lives, and Linux hands out pids in
	// sequence, so this reaches only our own processes.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-c.done
	return killed
}

// stop stops c and forgets it.
func (p *procs) stop(c *child) (killed bool) {
	p.mu.Lock()
	p.list = slices.DeleteFunc(p.list, func(x *child) bool { return x == c })
	p.mu.Unlock()
	return c.stop(p.grace)
}

// stopAll stops every child, in parallel so that slow ones do not add up.
func (p *procs) stopAll() {
	p.mu.Lock()
	list := p.list
	p.list = nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range list {
		wg.Go(func() {
			if c.stop(p.grace) {
				p.log.Warn("child ignored SIGTERM, killed", "name", c.name, "pid", c.pid())
			}
		})
	}
	wg.Wait()
}

// firstLine is an io.Writer that hands the first line written to it to
// line and forwards everything after it to rest.
type firstLine struct {
	line chan string
	rest io.Writer
	buf  []byte
	sent bool
}

func newFirstLine(rest io.Writer) *firstLine {
	return &firstLine{line: make(chan string, 1), rest: rest}
}

// Write implements io.Writer. exec calls it from a single goroutine.
func (f *firstLine) Write(p []byte) (int, error) {
	if f.sent {
		return f.rest.Write(p)
	}
	f.buf = append(f.buf, p...)
	i := bytes.IndexByte(f.buf, '\n')
	if i < 0 {
		if len(f.buf) > 4096 {
			return 0, errors.New("benchrun: first line too long")
		}
		return len(p), nil
	}
	f.sent = true
	f.line <- string(bytes.TrimRight(f.buf[:i], "\r"))
	if i+1 < len(f.buf) {
		if _, err := f.rest.Write(f.buf[i+1:]); err != nil {
			return 0, err
		}
	}
	f.buf = nil
	return len(p), nil
}

// startBare re-executes self as "serve-bare" and returns the child and the
// address it printed.
func (p *procs) startBare(ctx context.Context, self string, extra ...string) (*child, string, error) {
	out := newFirstLine(os.Stderr)
	name := "bare"
	if len(extra) > 0 {
		name = "bare-proxy"
	}
	c, err := p.start(name, self, append([]string{"serve-bare", "-addr", "127.0.0.1:0"}, extra...), os.Environ(), out, nil)
	if err != nil {
		return nil, "", err
	}
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case line := <-out.line:
		addr, ok := bytes.CutPrefix([]byte(line), []byte("listening "))
		if !ok {
			return nil, "", fmt.Errorf("benchrun: bare server said %q, want \"listening <addr>\"", line)
		}
		return c, string(addr), nil
	case <-c.done:
		return nil, "", fmt.Errorf("benchrun: bare server exited: %v", c.waitErr)
	case <-ctx.Done():
		return nil, "", ctx.Err()
	case <-t.C:
		return nil, "", errors.New("benchrun: bare server printed no address within 10s")
	}
}

// startEmulator starts bin on a free loopback port with the emulator's
// environment plus extra, and returns the child and its address. It does
// not wait for the emulator to be ready (see waitHealthy).
func (p *procs) startEmulator(name, bin string, extra []string) (*child, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	env := append(os.Environ(), "EMULATOR_HOST=127.0.0.1", "EMULATOR_PORT="+strconv.Itoa(port))
	env = append(env, extra...)
	c, err := p.start(name, bin, nil, env, nil, nil)
	if err != nil {
		return nil, "", err
	}
	return c, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
}

// startMoto starts moto_server (bin) on a free loopback port and returns
// the child, its address and the tail of its output. moto logs a line per
// request, so its output is kept for the error messages only. It does not
// wait for moto to be ready (see waitReady; it answers GET / once up).
func (p *procs) startMoto(name, bin string) (*child, string, *tail, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", nil, err
	}
	out := &tail{max: 4096}
	c, err := p.start(name, bin, []string{"-H", "127.0.0.1", "-p", strconv.Itoa(port)}, os.Environ(), out, out)
	if err != nil {
		return nil, "", nil, err
	}
	return c, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), out, nil
}

// tail is an io.Writer that keeps the last max bytes written to it.
type tail struct {
	max int
	mu  sync.Mutex
	buf []byte
}

// Write implements io.Writer.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// freePort asks the kernel for a free loopback port. The port is closed
// again before the child binds it, so another process could take it in
// between; on a quiet machine that does not happen.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("benchrun: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
