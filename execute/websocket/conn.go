package websocket

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/awswire"
)

// Socket is a connection's client side as the front provides it: a queue
// in front of one writer, so that frames from many callers (route
// responses, PostToConnection) never interleave.
type Socket interface {
	// Send queues one message; it MUST NOT wait for the network. It keeps
	// data: the caller MUST NOT change it afterwards. Errors: ErrGone once
	// the socket is closing, ErrBusy when the queue is full.
	Send(data []byte, binary bool) error
	// Close queues a close frame with code and reason after what is
	// queued, then closes the socket; the front reports the end through
	// Executor.Disconnect. It MAY be called more than once: after the
	// first it answers ErrGone.
	Close(code int, reason string) error
	// Closing reports a socket that is closing or closed.
	Closing() bool
}

// Socket errors.
var (
	// ErrGone: the connection is closed or closing (GoneException).
	ErrGone = errors.New("websocket: the connection is gone")
	// ErrBusy: the connection's send queue is full
	// (LimitExceededException).
	ErrBusy = errors.New("websocket: the connection's send queue is full")
)

// Conn is one client connection: what API Gateway knows of it, from
// $connect to $disconnect. Its fields are set at $connect and never change,
// except the last activity and the socket.
type Conn struct {
	// ID is the connection id, as AWS forms them ("L0SM9cOFvHcCIhw=").
	ID string
	// epoch is the executor's Close count when the connection began.
	epoch uint64

	apiID, stage, region string
	scope                awswire.Scope
	connectedAt          time.Time
	sourceIP, userAgent  string
	// domainName is the Host the client connected to: events carry it,
	// so that a function can call @connections back on it.
	domainName string
	// authorizer is what the $connect authorizer answered (nil: none).
	authorizer *authResult
	// protocol is the Sec-WebSocket-Protocol the $connect integration
	// answered, which the upgrade echoes.
	protocol string

	lastActive atomic.Int64 // Unix milliseconds
	socket     atomic.Pointer[socketBox]
	done       sync.Once
}

// socketBox holds an interface in an atomic pointer.
type socketBox struct{ s Socket }

// Protocol is the Sec-WebSocket-Protocol the $connect integration chose
// ("" when none).
func (c *Conn) Protocol() string { return c.protocol }

// ConnectedAt is when $connect accepted the connection.
func (c *Conn) ConnectedAt() time.Time { return c.connectedAt }

// LastActive is when a message last went either way.
func (c *Conn) LastActive() time.Time { return time.UnixMilli(c.lastActive.Load()) }

func (c *Conn) touch(t time.Time) { c.lastActive.Store(t.UnixMilli()) }

func (c *Conn) sock() Socket {
	if b := c.socket.Load(); b != nil {
		return b.s
	}
	return nil
}

// newID returns an id as API Gateway forms connection and request ids:
// 11 random bytes, 16 characters of URL-safe base64 ("JC1dgf9yoAMCK-g=").
func newID() string {
	var b [11]byte
	_, _ = rand.Read(b[:])
	return base64.URLEncoding.EncodeToString(b[:])
}
