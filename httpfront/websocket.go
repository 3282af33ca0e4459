package httpfront

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/execute"
	wsexec "github.com/cloudemu/emulator/execute/websocket"
)

// WebSocket is the data plane of WebSocket APIs as the front drives it
// (execute/websocket.Executor): the front upgrades connections, reads
// frames and writes them; the data plane decides what they mean.
type WebSocket interface {
	// Owns reports whether apiID names a WebSocket API.
	Owns(apiID, region string) bool
	// Connect runs $connect; see execute/websocket.Executor.Connect.
	Connect(req *execute.Request, resp *execute.Response) (*wsexec.Conn, bool)
	// Open registers an upgraded connection with its socket.
	Open(c *wsexec.Conn, s wsexec.Socket)
	// Message runs one message from the client.
	Message(c *wsexec.Conn, body []byte, binary bool)
	// Disconnect reports a connection's end.
	Disconnect(c *wsexec.Conn, code int, reason string)
	// Limits are the quotas the front enforces.
	Limits() wsexec.Limits
}

// Connections cost little while idle: fasthttp lets go of a hijacked
// connection's request and its 16 KB reader (KeepHijackedConns), the
// socket reads through a 512-byte buffer, writes borrow a pooled buffer
// for the time of one message, and no goroutine runs for a connection but
// its reader (a writer runs only while frames are queued).

// wsWriteTimeout bounds writing one frame to a client.
const wsWriteTimeout = 10 * time.Second

// wsCloseWait is how long a connection waits for the client's answer to
// a close frame the emulator sent.
const wsCloseWait = 2 * time.Second

var wsUpgrader = websocket.Upgrader{
	ReadBufferSize:  512,
	WriteBufferSize: 4096,
	WriteBufferPool: &sync.Pool{},
	// API Gateway does not check Origin.
	CheckOrigin: func(*http.Request) bool { return true },
}

var (
	headerConnection = []byte("Connection")
	headerUpgrade    = []byte("Upgrade")
)

// isUpgrade reports whether the request asks for a WebSocket.
func isUpgrade(ctx *fasthttp.RequestCtx) bool {
	return tokenFold(ctx.Request.Header.PeekBytes(headerConnection), "upgrade") &&
		tokenFold(ctx.Request.Header.PeekBytes(headerUpgrade), "websocket")
}

// tokenFold reports whether a comma-separated header value holds token.
func tokenFold(v []byte, token string) bool {
	for _, t := range strings.Split(string(v), ",") {
		if strings.EqualFold(strings.TrimSpace(t), token) {
			return true
		}
	}
	return false
}

// validKey reports whether a Sec-WebSocket-Key is 16 bytes in base64.
func validKey(k []byte) bool {
	if len(k) != 24 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(string(k))
	return err == nil && len(b) == 16
}

// serveUpgrade serves an upgrade request to an execute-api address: false
// when the API is no WebSocket API (the request is served as any other).
func (s *Server) serveUpgrade(ctx *fasthttp.RequestCtx, t executeTarget) bool {
	if !s.websocket.Owns(b2s(t.apiID), b2s(t.region)) {
		return false
	}
	h := &ctx.Request.Header
	key := h.Peek("Sec-WebSocket-Key")
	if !ctx.IsGet() || string(h.Peek("Sec-WebSocket-Version")) != "13" || !validKey(key) {
		ctx.Response.Header.DisableNormalizing()
		ctx.SetStatusCode(fasthttp.StatusBadRequest)
		ctx.Response.Header.Set("Content-Type", "application/json")
		ctx.Response.Header.Set("Sec-WebSocket-Version", "13")
		ctx.SetBodyString(`{"message":"Bad Request"}`)
		ctx.SetConnectionClose()
		return true
	}
	if !s.reserveSocket() {
		ctx.Response.Header.DisableNormalizing()
		ctx.SetStatusCode(fasthttp.StatusTooManyRequests)
		ctx.Response.Header.Set("Content-Type", "application/json")
		ctx.Response.Header.Set("x-amzn-ErrorType", "LimitExceededException")
		ctx.SetBodyString(`{"message":"Limit Exceeded"}`)
		ctx.SetConnectionClose()
		return true
	}
	// The place is held until the socket ends; handed to the upgrade
	// once the connection is hijacked.
	held := true
	defer func() {
		if held {
			s.releaseSocket()
		}
	}()
	x := exchanges.Get().(*executeExchange)
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic while connecting a WebSocket", "requestId", x.req.RequestID,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			ctx.Response.Reset()
			ctx.SetStatusCode(500)
			ctx.SetBodyString(`{"message": "Internal server error"}`)
		}
		x.req = execute.Request{Headers: x.req.Headers[:0]}
		x.resp.Reset()
		exchanges.Put(x)
	}()
	req := s.fillRequest(ctx, t, x)
	conn, handled := s.websocket.Connect(req, &x.resp)
	if !handled {
		return false
	}
	if conn == nil {
		rh := &ctx.Response.Header
		rh.DisableNormalizing()
		ctx.SetStatusCode(x.resp.Status)
		for _, f := range x.resp.Headers {
			rh.Add(f.Name, f.Value)
		}
		ctx.SetBody(x.resp.Body)
		return true
	}
	// What the upgrade reads, copied: ctx is gone once the handler returns.
	up := &http.Request{Method: http.MethodGet, Host: string(ctx.Host()), Header: http.Header{
		"Connection":            {"Upgrade"},
		"Upgrade":               {"websocket"},
		"Sec-Websocket-Version": {"13"},
		"Sec-Websocket-Key":     {string(key)},
	}}
	var answer http.Header
	if p := conn.Protocol(); p != "" {
		answer = http.Header{"Sec-Websocket-Protocol": {p}}
	}
	ws := s.websocket
	held = false
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(c net.Conn) { s.upgrade(ws, c, conn, up, answer) })
	return true
}

// reserveSocket takes a place for a WebSocket connection: false when
// MaxWebSockets are open or connecting.
func (s *Server) reserveSocket() bool {
	if s.sockets.Add(1) > s.maxSockets && s.maxSockets > 0 {
		s.sockets.Add(-1)
		return false
	}
	return true
}

func (s *Server) releaseSocket() { s.sockets.Add(-1) }

// upgrade completes the handshake on a hijacked connection and starts its
// reader. It returns at once, so that fasthttp releases the request.
func (s *Server) upgrade(ws WebSocket, c net.Conn, conn *wsexec.Conn, up *http.Request, answer http.Header) {
	raw := c
	var pre []byte
	if u, ok := c.(interface{ UnsafeConn() net.Conn }); ok {
		raw = u.UnsafeConn()
		// Bytes the client sent after its request (it should wait for
		// the handshake's answer) may sit in fasthttp's reader: take them
		// without waiting, then read the connection itself.
		_ = raw.SetReadDeadline(time.Unix(1, 0))
		var buf [512]byte
		for {
			n, err := c.Read(buf[:])
			pre = append(pre, buf[:n]...)
			if n == 0 || err != nil {
				break
			}
		}
		_ = raw.SetReadDeadline(time.Time{})
	}
	lim := ws.Limits()
	g := &frameGuard{Conn: raw, pre: pre, limit: uint64(lim.FrameBytes)}
	wc, err := wsUpgrader.Upgrade(&hijackedWriter{conn: g}, up, answer)
	if err != nil {
		s.releaseSocket()
		_ = raw.Close()
		s.log.Debug("WebSocket upgrade failed", "connectionId", conn.ID, "error", err)
		return
	}
	sock := &wsSocket{log: s.log, ws: ws, conn: conn, c: wc, raw: raw, release: s.releaseSocket, queueMax: lim.SendQueue,
		queueBytes: 4 * lim.MessageBytes,
		idle:       lim.IdleTimeout, maxAge: lim.MaxAge, closeCode: 1006, opened: time.Now()}
	sock.active.Store(sock.opened.UnixNano())
	sock.mu.Lock()
	sock.timer = time.AfterFunc(lim.IdleTimeout, sock.checkIdle)
	sock.mu.Unlock()
	ws.Open(conn, sock)
	go sock.read(int64(lim.MessageBytes))
}

// hijackedWriter is the http.ResponseWriter the upgrade writes its answer
// through: the hijacked connection, with no buffer of its own.
type hijackedWriter struct {
	conn net.Conn
	h    http.Header
}

func (w *hijackedWriter) Header() http.Header {
	if w.h == nil {
		w.h = http.Header{}
	}
	return w.h
}

func (w *hijackedWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *hijackedWriter) WriteHeader(int)             {}

func (w *hijackedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return w.conn, bufio.NewReadWriter(bufio.NewReaderSize(w.conn, 16), bufio.NewWriterSize(w.conn, 16)), nil
}

// errFrameTooLarge is a client frame over the frame quota.
var errFrameTooLarge = errors.New("httpfront: WebSocket frame over the size limit")

// frameGuard watches the frame headers a client sends and fails the read
// of a frame longer than the limit, before its payload is read: the
// WebSocket library bounds messages, not frames. It only observes the
// bytes; the library does the framing.
type frameGuard struct {
	net.Conn
	pre   []byte
	limit uint64

	hdr       [14]byte
	hn, need  int
	remaining uint64
	err       error
}

func (g *frameGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	var n int
	var err error
	if len(g.pre) > 0 {
		n = copy(p, g.pre)
		if g.pre = g.pre[n:]; len(g.pre) == 0 {
			g.pre = nil
		}
	} else {
		n, err = g.Conn.Read(p)
	}
	if n > 0 {
		if e := g.observe(p[:n]); e != nil {
			// The messages before the oversized frame are still
			// delivered; the next read fails.
			g.err = e
			return n, nil
		}
	}
	return n, err
}

// observe follows the frames in b: header bytes are gathered until the
// payload length is known, payload bytes skipped.
func (g *frameGuard) observe(b []byte) error {
	for len(b) > 0 {
		if g.remaining > 0 {
			k := min(uint64(len(b)), g.remaining)
			g.remaining -= k
			b = b[k:]
			continue
		}
		g.hdr[g.hn] = b[0]
		g.hn++
		b = b[1:]
		if g.hn == 2 {
			g.need = 2
			switch g.hdr[1] & 0x7f {
			case 126:
				g.need += 2
			case 127:
				g.need += 8
			}
			if g.hdr[1]&0x80 != 0 {
				g.need += 4 // the mask
			}
		}
		if g.hn < 2 || g.hn < g.need {
			continue
		}
		var length uint64
		switch l := g.hdr[1] & 0x7f; l {
		case 126:
			length = uint64(binary.BigEndian.Uint16(g.hdr[2:4]))
		case 127:
			length = binary.BigEndian.Uint64(g.hdr[2:10])
		default:
			length = uint64(l)
		}
		if length > g.limit {
			return errFrameTooLarge
		}
		g.remaining, g.hn, g.need = length, 0, 0
	}
	return nil
}

// outFrame is a queued message or close.
type outFrame struct {
	data   []byte
	binary bool
	close  bool
	code   int
	reason string
}

// wsSocket is one connection's socket: its owner. Frames are queued and
// written by one writer at a time, started when the queue fills and gone
// when it empties, so that concurrent senders never interleave frames
// and an idle connection runs no writer. It implements
// execute/websocket.Socket.
type wsSocket struct {
	log  *slog.Logger
	ws   WebSocket
	conn *wsexec.Conn
	c    *websocket.Conn
	raw  net.Conn
	// release gives the connection's place back (Server.releaseSocket).
	release func()

	queueMax     int
	idle, maxAge time.Duration
	// opened and active (unix ns) are the wall clock's, for the idle and
	// age quotas: the emulator's clock may be frozen.
	opened time.Time
	active atomic.Int64

	mu    sync.Mutex
	queue []outFrame
	// queued is the bytes in queue, bounded by queueBytes so that a
	// client that does not read holds little.
	queued, queueBytes int
	draining           bool
	closing            bool // a close is queued or sent
	closed             bool // the reader ended
	timer              *time.Timer
	// closeCode and closeReason are what $disconnect reports: the
	// client's close, the emulator's, or 1006.
	closeCode   int
	closeReason string
}

// Send implements execute/websocket.Socket.
func (s *wsSocket) Send(data []byte, binary bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.closed {
		return wsexec.ErrGone
	}
	if len(s.queue) >= s.queueMax || (s.queued > 0 && s.queued+len(data) > s.queueBytes) {
		return wsexec.ErrBusy
	}
	s.queued += len(data)
	s.queue = append(s.queue, outFrame{data: data, binary: binary})
	s.startLocked()
	return nil
}

// Close implements execute/websocket.Socket.
func (s *wsSocket) Close(code int, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.closed {
		return wsexec.ErrGone
	}
	s.closing = true
	s.closeCode, s.closeReason = code, reason
	s.queue = append(s.queue, outFrame{close: true, code: code, reason: reason})
	s.startLocked()
	return nil
}

// Closing implements execute/websocket.Socket.
func (s *wsSocket) Closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing || s.closed
}

func (s *wsSocket) startLocked() {
	if !s.draining {
		s.draining = true
		go s.drain()
	}
}

// drain writes the queue in order until it is empty.
func (s *wsSocket) drain() {
	for {
		s.mu.Lock()
		if len(s.queue) == 0 || s.closed {
			s.queue, s.queued = s.queue[:0], 0
			if cap(s.queue) > 16 {
				s.queue = nil
			}
			s.draining = false
			s.mu.Unlock()
			return
		}
		f := s.queue[0]
		s.queue[0] = outFrame{}
		s.queue = s.queue[1:]
		s.queued -= len(f.data)
		s.mu.Unlock()
		var err error
		if f.close {
			err = s.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(f.code, f.reason),
				time.Now().Add(wsWriteTimeout))
			// The reader ends with the client's answer, or at this
			// deadline.
			_ = s.raw.SetReadDeadline(time.Now().Add(wsCloseWait))
		} else {
			_ = s.c.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
			kind := websocket.TextMessage
			if f.binary {
				kind = websocket.BinaryMessage
			}
			err = s.c.WriteMessage(kind, f.data)
			s.active.Store(time.Now().UnixNano())
		}
		if err != nil {
			// A client that does not read ends its connection.
			_ = s.raw.Close()
		}
	}
}

// checkIdle closes the connection once it was idle or open too long.
func (s *wsSocket) checkIdle() {
	now := time.Now()
	deadline := time.Unix(0, s.active.Load()).Add(s.idle)
	if age := s.opened.Add(s.maxAge); age.Before(deadline) {
		deadline = age
	}
	if !now.Before(deadline) {
		_ = s.Close(1001, "Going away")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.timer.Reset(deadline.Sub(now))
	}
}

// read is the connection's reader: one message at a time, each run to its
// end before the next is read.
func (s *wsSocket) read(limit int64) {
	defer s.finish()
	defer func() {
		// A failure in a message's handling ends this connection, not
		// the emulator.
		if r := recover(); r != nil {
			s.log.Error("panic while serving a WebSocket message", "connectionId", s.conn.ID, "panic", fmt.Sprint(r),
				"stack", string(debug.Stack()))
			s.mu.Lock()
			s.closing, s.closeCode, s.closeReason = true, 1011, "Internal server error"
			s.mu.Unlock()
			_ = s.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1011, "Internal server error"),
				time.Now().Add(time.Second))
		}
	}()
	s.c.SetReadLimit(limit)
	s.c.SetCloseHandler(func(code int, text string) error {
		s.mu.Lock()
		answered := s.closing
		if !s.closing {
			s.closing = true
			s.closeCode, s.closeReason = code, text
		}
		s.mu.Unlock()
		if !answered {
			// Answer the client's close with its code, as RFC 6455 asks.
			if code == websocket.CloseNoStatusReceived {
				code = websocket.CloseNormalClosure
			}
			_ = s.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""),
				time.Now().Add(time.Second))
		}
		return nil
	})
	for {
		kind, data, err := s.c.ReadMessage()
		if err != nil {
			s.readFailed(err)
			return
		}
		s.active.Store(time.Now().UnixNano())
		s.ws.Message(s.conn, data, kind == websocket.BinaryMessage)
	}
}

// readFailed records why the reader ended.
func (s *wsSocket) readFailed(err error) {
	code, reason := 0, ""
	switch {
	case errors.Is(err, errFrameTooLarge):
		code, reason = websocket.CloseMessageTooBig, "Message too big"
		_ = s.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason),
			time.Now().Add(time.Second))
	case errors.Is(err, websocket.ErrReadLimit):
		// The library sent 1009 itself.
		code, reason = websocket.CloseMessageTooBig, "Message too big"
	}
	s.mu.Lock()
	if code != 0 && !s.closing {
		s.closing = true
		s.closeCode, s.closeReason = code, reason
	}
	s.mu.Unlock()
}

// finish ends the connection once its reader ended.
func (s *wsSocket) finish() {
	s.mu.Lock()
	s.closed = true
	clear(s.queue)
	s.queue, s.queued = nil, 0
	code, reason := s.closeCode, s.closeReason
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	_ = s.raw.Close()
	if s.release != nil {
		s.release()
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic while running $disconnect", "connectionId", s.conn.ID, "panic", fmt.Sprint(r),
				"stack", string(debug.Stack()))
		}
	}()
	s.ws.Disconnect(s.conn, code, reason)
}
