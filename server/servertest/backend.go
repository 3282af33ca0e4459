package servertest

import (
	"net"
	"sync"
	"testing"
	"time"
)

// FaultyBackend is an integration backend on loopback that reads each
// request and hands its connection to fault (close it, reset it, write
// garbage, hang); it returns the backend's base URL. It stops with t.
func FaultyBackend(t testing.TB, fault func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				if _, err := c.Read(make([]byte, 16<<10)); err == nil {
					fault(c)
				}
			})
		}
	})
	return "http://" + ln.Addr().String() + "/"
}
