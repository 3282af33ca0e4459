package rest_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

// The faults a backend can commit.
var (
	faultHang     = func(c net.Conn) { time.Sleep(2 * time.Second) }
	faultReset    = func(c net.Conn) { _ = c.(*net.TCPConn).SetLinger(0) }
	faultGarbage  = func(c net.Conn) { _, _ = c.Write([]byte("HELLO THERE\r\n\r\n")) }
	faultBinary   = func(c net.Conn) { _, _ = c.Write([]byte{0, 1, 2, 0xff, '\n', '\n'}) }
	faultTruncate = func(c net.Conn) {
		_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"))
	}
	faultResetMid = func(c net.Conn) {
		_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"))
		_ = c.(*net.TCPConn).SetLinger(0)
	}
)

// TestBackendFaults: an HTTP backend that hangs answers 504 after
// timeoutInMillis, one that resets the connection 504 (a network error),
// one that answers what is not HTTP, or a truncated answer, 502; none is
// a 500 of the emulator's own, and the emulator goes on serving.
func TestBackendFaults(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		path  string
		fault func(net.Conn)
	}{
		{"/hang", faultHang}, {"/reset", faultReset}, {"/garbage", faultGarbage}, {"/binary", faultBinary},
		{"/truncated", faultTruncate}, {"/resetmid", faultResetMid},
	} {
		rid := f.resource(c.path)
		f.method(rid, "GET", nil)
		f.integration(rid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy,
			IntegrationHttpMethod: aws.String("GET"), Uri: aws.String(servertest.FaultyBackend(t, c.fault)),
			TimeoutInMillis: aws.Int32(200)})
	}
	f.mock("/ok", "GET", `{"ok": true}`)
	f.deploy("dev", nil)

	start := time.Now()
	a := f.call("GET", "dev", "/hang", nil, "")
	a.want(t, 504, `{"message": "Endpoint request timed out"}`)
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("the timeout took %v", took)
	}
	f.call("GET", "dev", "/reset", nil, "").want(t, 504, `{"message": "Network error communicating with endpoint"}`)
	f.call("GET", "dev", "/resetmid", nil, "").want(t, 504, `{"message": "Network error communicating with endpoint"}`)
	for _, p := range []string{"/garbage", "/binary", "/truncated"} {
		a := f.call("GET", "dev", p, nil, "")
		a.want(t, 502, `{"message": "Internal server error"}`)
		if a.header.Get("x-amzn-ErrorType") != "InternalServerErrorException" {
			t.Errorf("%s: headers %v", p, a.header)
		}
	}
	f.call("GET", "dev", "/ok", nil, "").want(t, 200, `{"ok": true}`)
	resp, err := http.Get(f.srv.URL + "/_emulator/health")
	f.must(err)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("health: %d", resp.StatusCode)
	}
}

// TestBackendMaxConns: EMULATOR_BACKEND_MAX_CONNS bounds the connections
// to one backend; the requests past it wait for a free connection within
// their timeout and are all answered.
func TestBackendMaxConns(t *testing.T) {
	const limit, calls = 2, 8
	var open, peak atomic.Int32
	release := make(chan struct{})
	be := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		_, _ = w.Write([]byte("done"))
	}))
	be.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			n := open.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	be.Start()
	t.Cleanup(be.Close)
	f := newFixture(t, servertest.WithConfig(func(c *config.Config) { c.BackendMaxConns = limit }))
	rid := f.resource("/held")
	f.method(rid, "GET", nil)
	f.integration(rid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy,
		IntegrationHttpMethod: aws.String("GET"), Uri: aws.String(be.URL + "/"), TimeoutInMillis: aws.Int32(10000)})
	f.deploy("dev", nil)

	answers := make(chan answer, calls)
	for range calls {
		go func() { answers <- f.call("GET", "dev", "/held", nil, "") }()
	}
	// Every call reaches the emulator; limit of them reach the backend,
	// and no more while they are held.
	for deadline := time.Now().Add(5 * time.Second); open.Load() < limit && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if n := open.Load(); n != limit {
		t.Errorf("%d connections to the backend while %d calls wait, want %d", n, calls, limit)
	}
	close(release)
	for range calls {
		select {
		case a := <-answers:
			a.want(t, 200, "done")
		case <-time.After(10 * time.Second):
			t.Fatal("a call was not answered")
		}
	}
	if p := peak.Load(); p > limit {
		t.Errorf("peak %d connections to the backend, want at most %d", p, limit)
	}
}
