package httpfront

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// connLimits bounds the connections open at once, in all and from one
// address, WebSockets included. It wraps the listener rather than using
// fasthttp's MaxConnsPerIP, whose pooled connection wrapper is unsafe
// when a connection is closed while it is read (a shutdown, a refused
// request): its Close clears the connection another goroutine reads.
type connLimits struct {
	net.Listener
	max, perIP int // 0: no bound

	open atomic.Int64
	mu   sync.Mutex
	byIP map[netip.Addr]int
	// refusing bounds the goroutines that answer refused connections;
	// past it a refused connection is closed without an answer.
	refusing chan struct{}
}

// refusersMax bounds the refused connections answered at once.
const refusersMax = 64

// refusalWait bounds how long a refused connection is read before it is
// closed, so that the client's request is consumed and it reads the
// answer rather than a reset.
const refusalWait = time.Second

// The refusals, in the shape of API Gateway's own errors. The connection
// is closed after them.
var (
	refusedBusy = refusal(503, "Service Unavailable",
		`{"message":"Too many connections to the emulator (EMULATOR_MAX_CONNS)"}`)
	refusedPerIP = refusal(429, "Too Many Requests",
		`{"message":"Too many connections from this address (EMULATOR_MAX_CONNS_PER_IP)"}`)
)

func refusal(status int, reason, body string) []byte {
	return []byte("HTTP/1.1 " + strconv.Itoa(status) + " " + reason + "\r\n" +
		"Content-Type: application/json\r\nConnection: close\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

func limitConns(ln net.Listener, maxConns, perIP int) net.Listener {
	if maxConns <= 0 && perIP <= 0 {
		return ln
	}
	return &connLimits{Listener: ln, max: maxConns, perIP: perIP, byIP: map[netip.Addr]int{},
		refusing: make(chan struct{}, refusersMax)}
}

// Accept returns the next connection within the bounds; one past them is
// answered and closed here, and Accept goes on to the next.
func (l *connLimits) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c)
		if l.max > 0 && l.open.Add(1) > int64(l.max) {
			l.open.Add(-1)
			l.refuse(c, refusedBusy)
			continue
		}
		if l.max <= 0 {
			l.open.Add(1)
		}
		if l.perIP > 0 && ip.IsValid() {
			l.mu.Lock()
			n := l.byIP[ip]
			if n >= l.perIP {
				l.mu.Unlock()
				l.open.Add(-1)
				l.refuse(c, refusedPerIP)
				continue
			}
			l.byIP[ip] = n + 1
			l.mu.Unlock()
		}
		return &countedConn{Conn: c, l: l, ip: ip}, nil
	}
}

// release gives back the places of a closed connection.
func (l *connLimits) release(ip netip.Addr) {
	l.open.Add(-1)
	if l.perIP > 0 && ip.IsValid() {
		l.mu.Lock()
		if n := l.byIP[ip] - 1; n > 0 {
			l.byIP[ip] = n
		} else {
			delete(l.byIP, ip)
		}
		l.mu.Unlock()
	}
}

// refuse answers a connection past the bounds and closes it: in a
// goroutine of its own that reads what the client sent (so that closing
// does not reset the connection before the answer is read), or at once
// when refusersMax are already at it.
func (l *connLimits) refuse(c net.Conn, answer []byte) {
	select {
	case l.refusing <- struct{}{}:
	default:
		_ = c.Close()
		return
	}
	go func() {
		defer func() { <-l.refusing }()
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(refusalWait))
		if _, err := c.Write(answer); err != nil {
			return
		}
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
	}()
}

func remoteIP(c net.Conn) netip.Addr {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// countedConn holds its places until its first Close.
type countedConn struct {
	net.Conn
	l      *connLimits
	ip     netip.Addr
	closed atomic.Bool
}

// SyscallConn hands on the socket: an SQS long poll watches it for the
// client going away (sqshttp).
func (c *countedConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errNoSyscallConn
}

var errNoSyscallConn = errors.New("httpfront: the connection has no socket")

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	if c.closed.CompareAndSwap(false, true) {
		c.l.release(c.ip)
	}
	return err
}
