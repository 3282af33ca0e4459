package sqshttp

import (
	"context"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// pollContext is the context of a long poll: done when the server shuts
// down or when the client closes its connection, so that the queue's owner
// drops the waiter instead of handing messages to a client that left.
// fasthttp tells a handler neither, so the connection is watched, from the
// first time the poll waits (Done) until the handler ends (stop), by
// peeking at its socket: a read of nothing means the peer closed.
type pollContext struct {
	context.Context
	conn net.Conn

	once   sync.Once
	done   chan struct{}
	closed sync.Once
	stopCh chan struct{}
	exited chan struct{}
}

func newPollContext(ctx *fasthttp.RequestCtx) *pollContext {
	return &pollContext{Context: ctx, conn: ctx.Conn()}
}

// Done starts watching on its first call.
func (p *pollContext) Done() <-chan struct{} {
	p.once.Do(p.start)
	return p.done
}

// Err is Canceled once Done is closed.
func (p *pollContext) Err() error {
	if p.done == nil {
		return nil
	}
	select {
	case <-p.done:
		return context.Canceled
	default:
		return nil
	}
}

func (p *pollContext) cancel() { p.closed.Do(func() { close(p.done) }) }

func (p *pollContext) start() {
	p.done = make(chan struct{})
	p.stopCh = make(chan struct{})
	parent := p.Context.Done()
	go func() {
		select {
		case <-parent:
			p.cancel()
		case <-p.stopCh:
		}
	}()
	sc, ok := p.conn.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	p.exited = make(chan struct{})
	go func() {
		defer close(p.exited)
		if peerClosed(raw) {
			p.cancel()
		}
	}()
}

// stop ends the watch before the handler returns: fasthttp reads the
// connection's next request once the handler is done, and the watch holds
// the connection's read side.
func (p *pollContext) stop() {
	if p.done == nil {
		return
	}
	close(p.stopCh)
	if p.exited == nil {
		return
	}
	select {
	case <-p.exited:
		return
	default:
	}
	// A deadline in the past wakes the watch; fasthttp sets its own
	// deadline before it reads again.
	_ = p.conn.SetReadDeadline(time.Now())
	<-p.exited
	_ = p.conn.SetReadDeadline(time.Time{})
}
