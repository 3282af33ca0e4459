package httpfront

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// idleServer serves a front with short timeouts on a loopback port.
func idleServer(t *testing.T, timeout time.Duration) string {
	t.Helper()
	s, err := NewServer(testLogger(), ServerOptions{DefaultRegion: "us-east-1", MaxBodyBytes: 1 << 20,
		ReadTimeout: timeout, IdleTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.FastHTTP().Serve(ln) }()
	t.Cleanup(func() { _ = s.FastHTTP().Shutdown() })
	return ln.Addr().String()
}

// readAll reads what the server sends until it closes (bounded).
func readAll(t *testing.T, c net.Conn, within time.Duration) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(within))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server neither answered nor closed within %s (read %q)", within, b)
	}
	return string(b)
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
}

// roundTrip sends one whole request and reads its whole answer, leaving
// the connection idle.
func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader) {
	t.Helper()
	send(t, c, request)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotImplemented {
		t.Fatalf("first request: %d", resp.StatusCode)
	}
}

// wantShaped checks a raw answer's status line and error code.
func wantShaped(t *testing.T, got, status, code string) {
	t.Helper()
	if !strings.HasPrefix(got, "HTTP/1.1 "+status+" ") || !strings.Contains(got, "x-amzn-ErrorType: "+code+"\r\n") {
		t.Fatalf("got %q, want a shaped %s %s", got, status, code)
	}
}

const request = "GET /restapis HTTP/1.1\r\nHost: localhost\r\n\r\n"

// TestIdleConnectionsCloseSilently: a connection on which no request
// started is closed with nothing written when the timeout fires; one on
// which a request started gets an answer, never a 5xx.
func TestIdleConnectionsCloseSilently(t *testing.T) {
	const timeout = 300 * time.Millisecond
	addr := idleServer(t, timeout)

	t.Run("conn=never-used", func(t *testing.T) {
		c := dial(t, addr)
		if got := readAll(t, c, 10*timeout); got != "" {
			t.Fatalf("an unused connection received %q", got)
		}
	})
	t.Run("conn=keep-alive-after-a-request", func(t *testing.T) {
		c := dial(t, addr)
		br := bufio.NewReader(c)
		roundTrip(t, c, br)
		// Past the idle timeout: EOF, with zero bytes.
		_ = c.SetReadDeadline(time.Now().Add(10 * timeout))
		b, err := io.ReadAll(br)
		if len(b) != 0 || err != nil {
			t.Fatalf("an idle keep-alive connection received %q (%v)", b, err)
		}
	})
	// What started gets an answer, never a 5xx: the client is waiting for
	// one.
	for _, tc := range []struct {
		name, sent   string
		status, code string
		// firstCloses: on a new connection, a body that stops short fails
		// like a read that got nothing (fasthttp has dropped the request
		// by the time it reports it), so the connection is closed.
		firstCloses bool
	}{
		{"half-request-line", "GET /resta", "408", "RequestTimeoutException", false},
		{"half-headers", "GET /restapis HTTP/1.1\r\nHost: local", "408", "RequestTimeoutException", false},
		// The headers are whole; the body they declare stops short.
		{"half-body", "POST /restapis HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"name\":", "408", "RequestTimeoutException", true},
		{"half-chunked-body", "POST /restapis HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"name\":", "408", "RequestTimeoutException", true},
		{"malformed", "NOT HTTP AT ALL\r\n\r\n", "400", "BadRequestException", false},
	} {
		t.Run("conn=request-started/sent="+tc.name, func(t *testing.T) {
			c := dial(t, addr)
			send(t, c, tc.sent)
			got := readAll(t, c, 10*timeout)
			if tc.firstCloses {
				if got != "" {
					t.Fatalf("got %q, want the connection closed", got)
				}
				return
			}
			wantShaped(t, got, tc.status, tc.code)
		})
		t.Run("conn=keep-alive-then-started/sent="+tc.name, func(t *testing.T) {
			c := dial(t, addr)
			br := bufio.NewReader(c)
			roundTrip(t, c, br)
			send(t, c, tc.sent)
			_ = c.SetReadDeadline(time.Now().Add(10 * timeout))
			b, err := io.ReadAll(br)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("the server neither answered nor closed (read %q)", b)
			}
			wantShaped(t, string(b), tc.status, tc.code)
		})
	}
}

// countingConn counts the bytes a client reads from a connection, and
// whether the server closed it.
type countingConn struct {
	net.Conn
	read   atomic.Int64
	closed atomic.Bool
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	if err == io.EOF {
		c.closed.Store(true)
	}
	return n, err
}

// TestPooledClientAfterIdle: Go's HTTP client keeps a connection in its
// pool; past the idle timeout the server closes it without a byte (the
// client would log "Unsolicited response received on idle HTTP channel"
// and read it as the next answer), and the next request goes through.
func TestPooledClientAfterIdle(t *testing.T) {
	const timeout = 300 * time.Millisecond
	addr := idleServer(t, timeout)
	var conns []*countingConn
	var dialer net.Dialer
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, a)
			if err != nil {
				return nil, err
			}
			cc := &countingConn{Conn: c}
			conns = append(conns, cc) // requests run one at a time
			return cc, nil
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	get := func(t *testing.T) {
		t.Helper()
		resp, err := client.Get("http://" + addr + "/restapis")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotImplemented {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}

	get(t)
	if len(conns) != 1 {
		t.Fatalf("%d connections dialled", len(conns))
	}
	pooled := conns[0]
	answered := pooled.read.Load()
	t.Run("wait=past-idle-timeout", func(t *testing.T) {
		deadline := time.Now().Add(10 * timeout)
		for !pooled.closed.Load() && time.Now().Before(deadline) {
			time.Sleep(timeout / 10)
		}
		if !pooled.closed.Load() {
			t.Fatalf("the pooled connection is still open after %s", 10*timeout)
		}
		if n := pooled.read.Load(); n != answered {
			t.Fatalf("the idle connection received %d unrequested bytes", n-answered)
		}
	})
	t.Run("request=after-idle", get)
}
