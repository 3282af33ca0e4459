package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/cloudemu/emulator/server/servertest"
)

// The benchmarks below measure WebSocket APIs end to end on loopback
// (figures in docs/websocket.md):
//
//	go test ./server -run '^$' -bench 'WebSocket' -benchtime 1x
//
// BenchmarkWebSocketIdle holds 10,000 idle connections from a child
// process (so that the emulator's process holds only its own side) and
// reports the emulator's memory per connection.

// raiseFileLimit lifts the soft open-file limit to the hard one.
func raiseFileLimit(tb testing.TB) uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		tb.Fatal(err)
	}
	l.Cur = l.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		tb.Fatal(err)
	}
	return l.Cur
}

// handshake is a minimal client upgrade request.
func handshake(path string) []byte {
	return []byte("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
}

// TestWebSocketIdleClient is BenchmarkWebSocketIdle's child: it opens
// WS_IDLE_CONNS raw connections to WS_IDLE_ADDR + WS_IDLE_PATH, says
// "ready", and holds them until its standard input closes.
func TestWebSocketIdleClient(t *testing.T) {
	addr := os.Getenv("WS_IDLE_ADDR")
	if addr == "" {
		t.Skip("run by BenchmarkWebSocketIdle")
	}
	raiseFileLimit(t)
	n, _ := strconv.Atoi(os.Getenv("WS_IDLE_CONNS"))
	req := handshake(os.Getenv("WS_IDLE_PATH"))
	conns := make([]net.Conn, 0, n)
	buf := make([]byte, 512)
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("after %d connections: %v", len(conns), err)
		}
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		got, err := c.Read(buf)
		if err != nil || !bytes.HasPrefix(buf[:got], []byte("HTTP/1.1 101")) {
			t.Fatalf("handshake %d: %v %q", len(conns), err, buf[:got])
		}
		conns = append(conns, c)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		_ = c.Close()
	}
}

// memInUse is the heap and stacks in use, after collecting twice.
func memInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

func BenchmarkWebSocketIdle(b *testing.B) {
	const n = 10000
	raiseFileLimit(b)
	srv := servertest.Start(b)
	a := newWSAPI(b, srv, "$request.body.action")
	a.mock("$default", `{"statusCode": 200}`, `ok`)
	a.deploy("dev")
	// One connection first, so that pools and caches exist before the
	// measure.
	c := a.dial("dev", nil)
	roundTrip(b, c, `{}`)
	for b.Loop() {
		before, goroutines := memInUse(), runtime.NumGoroutine()
		cmd := exec.Command(os.Args[0], "-test.run=^TestWebSocketIdleClient$", "-test.count=1")
		cmd.Env = append(os.Environ(), "WS_IDLE_ADDR="+srv.Addr, "WS_IDLE_CONNS="+strconv.Itoa(n),
			"WS_IDLE_PATH=/_aws/execute-api/"+a.id+"/dev")
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		began := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "ready" {
			_ = cmd.Wait()
			b.Fatalf("client: %q %v", line, err)
		}
		connected := time.Since(began)
		// Let the connections' reader goroutines settle into their wait.
		time.Sleep(500 * time.Millisecond)
		after, g := memInUse(), runtime.NumGoroutine()
		b.ReportMetric(float64(after-before)/n, "B/conn")
		b.ReportMetric(float64(g-goroutines)/n, "goroutines/conn")
		b.ReportMetric(float64(n)/connected.Seconds(), "conns/s")
		_ = stdin.Close()
		_ = cmd.Wait()
	}
}

// BenchmarkWebSocketEcho is one connection's round trip through a MOCK
// route: p50 and p99 in microseconds.
func BenchmarkWebSocketEcho(b *testing.B) {
	srv := servertest.Start(b)
	a := newWSAPI(b, srv, "$request.body.action")
	a.mock("echo", `{"statusCode": 200, "data": $input.json('$.data')}`, `$input.json('$.data')`)
	a.deploy("dev")
	c := a.dial("dev", nil)
	msg := []byte(`{"action":"echo","data":"hello"}`)
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if err := c.WriteMessage(websocket.TextMessage, msg); err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.ReadMessage(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkWebSocketFanout posts messages to 1,000 connections through
// @connections (16 callers, keep-alive) and waits until every client read
// its share: messages delivered per second.
func BenchmarkWebSocketFanout(b *testing.B) {
	const n, callers = 1000, 16
	raiseFileLimit(b)
	srv := servertest.Start(b)
	a := newWSAPI(b, srv, "$request.body.action")
	a.mock("whoami", `{"statusCode": 200}`, `$context.connectionId`)
	a.deploy("dev")
	conns := make([]*websocket.Conn, n)
	ids := make([]string, n)
	for i := range conns {
		conns[i] = a.dial("dev", nil)
		ids[i] = roundTrip(b, conns[i], `{"action":"whoami"}`)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: callers}}
	base := srv.URL + "/_aws/execute-api/" + a.id + "/dev/@connections/"
	b.ResetTimer()
	for b.Loop() {
		per := 10 // messages per connection
		var received atomic.Int64
		var readers sync.WaitGroup
		for _, c := range conns {
			readers.Add(1)
			go func() {
				defer readers.Done()
				for range per {
					_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
					if _, _, err := c.ReadMessage(); err != nil {
						return
					}
					received.Add(1)
				}
			}()
		}
		began := time.Now()
		var posters sync.WaitGroup
		var failed atomic.Int64
		for w := range callers {
			posters.Add(1)
			go func() {
				defer posters.Done()
				for k := w; k < n*per; k += callers {
					req, _ := http.NewRequestWithContext(context.Background(), "POST", base+ids[k%n], strings.NewReader("fan-out message"))
					resp, err := hc.Do(req)
					if err != nil || resp.StatusCode != 200 {
						failed.Add(1)
					}
					if resp != nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}
			}()
		}
		posters.Wait()
		readers.Wait()
		elapsed := time.Since(began)
		b.ReportMetric(float64(received.Load())/elapsed.Seconds(), "msgs/s")
		b.ReportMetric(float64(failed.Load()), "failed")
	}
}
