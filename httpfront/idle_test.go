package httpfront

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
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

const request = "GET /restapis HTTP/1.1\r\nHost: localhost\r\n\r\n"

func TestIdleConnectionsCloseSilently(t *testing.T) {
	const timeout = 300 * time.Millisecond
	addr := idleServer(t, timeout)

	t.Run("conn=never-used", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if got := readAll(t, c, 10*timeout); got != "" {
			t.Fatalf("an unused connection received %q", got)
		}
	})
	t.Run("conn=keep-alive-after-a-request", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, request); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotImplemented {
			t.Fatalf("first request: %d", resp.StatusCode)
		}
		if got := readAll(t, c, 10*timeout); got != "" {
			t.Fatalf("an idle keep-alive connection received %q", got)
		}
	})
	t.Run("conn=request-started", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// Half a request: it started, so it gets an answer.
		if _, err := io.WriteString(c, "GET /restapis HTTP/1.1\r\nHost: local"); err != nil {
			t.Fatal(err)
		}
		got := readAll(t, c, 10*timeout)
		if !strings.HasPrefix(got, "HTTP/1.1 408") || !strings.Contains(got, "RequestTimeoutException") {
			t.Fatalf("a started request got %q, want a shaped 408", got)
		}
	})
}

// TestPooledClientAfterIdle: Go's HTTP client reuses a pooled connection
// only if the server did not answer on it unasked; a request after the idle
// timeout goes through on a fresh connection.
func TestPooledClientAfterIdle(t *testing.T) {
	const timeout = 300 * time.Millisecond
	addr := idleServer(t, timeout)
	client := &http.Client{Timeout: 5 * time.Second}
	for i := range 2 {
		resp, err := client.Get("http://" + addr + "/restapis")
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotImplemented {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
		time.Sleep(3 * timeout)
	}
}
