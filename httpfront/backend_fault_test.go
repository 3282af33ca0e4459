package httpfront_test

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/cloudemu/emulator/server/servertest"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/httpfront"
)

// TestBackendFaults: each way a backend can fail maps to the error the
// data plane tells apart, within the request's timeout.
func TestBackendFaults(t *testing.T) {
	linger0 := func(c net.Conn) { _ = c.(*net.TCPConn).SetLinger(0) }
	cases := []struct {
		name  string
		fault func(net.Conn)
		want  error
	}{
		{"hang", func(net.Conn) { time.Sleep(time.Second) }, execute.ErrBackendTimeout},
		{"reset", linger0, execute.ErrBackendUnreachable},
		{"close", func(net.Conn) {}, execute.ErrBackendUnreachable},
		{"garbage", func(c net.Conn) { _, _ = c.Write([]byte("HELLO THERE\r\n\r\n")) }, execute.ErrBackendMalformed},
		{"binary", func(c net.Conn) { _, _ = c.Write([]byte{0, 1, 2, 0xff, '\n', '\n'}) }, execute.ErrBackendMalformed},
		{"truncated", func(c net.Conn) {
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"))
		}, execute.ErrBackendMalformed},
		{"reset mid-body", func(c net.Conn) {
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"))
			linger0(c)
		}, execute.ErrBackendUnreachable},
		{"endless header", func(c net.Conn) {
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nX: "))
			for range 64 {
				if _, err := c.Write(make([]byte, 1024)); err != nil {
					return
				}
			}
		}, execute.ErrBackendMalformed},
		{"body over the limit", func(c net.Conn) {
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 20971520\r\n\r\n"))
		}, execute.ErrBackendMalformed},
	}
	b := httpfront.NewBackend(4)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var resp execute.BackendResponse
			start := time.Now()
			err := b.Do(&execute.BackendRequest{Method: "GET", URL: servertest.FaultyBackend(t, tc.fault), Timeout: 300 * time.Millisecond}, &resp)
			if !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}
