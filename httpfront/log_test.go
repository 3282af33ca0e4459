package httpfront

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func testLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// logLines collects JSON log lines; it is safe for concurrent use.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// requests returns the request log lines written for requestID.
func (l *logLines) requests(t *testing.T, requestID string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", sc.Bytes())
		}
		if m["msg"] == "request" && m["requestId"] == requestID {
			out = append(out, m)
		}
	}
	return out
}

// startLogged runs a front at level whose handlers answer GetRestApi (200
// for "ok", NotFoundException otherwise) and panic in ListBackupJobs.
func startLogged(t *testing.T, level slog.Level) (*Server, *logLines, *fasthttp.HostClient) {
	t.Helper()
	lines := &logLines{}
	log := slog.New(slog.NewJSONHandler(lines, &slog.HandlerOptions{Level: level}))
	s, err := NewServer(log, ServerOptions{
		DefaultRegion: "us-east-1",
		MaxBodyBytes:  1 << 20,
		Handlers: map[awswire.Service]map[string]restjson.Handler{
			awswire.APIGateway: {"GetRestApi": func(c *restjson.Call) error {
				if id, _ := c.Label("restapi_id"); id != "ok" {
					return awswire.New(awswire.APIGateway, awswire.CodeNotFound, "Invalid API identifier specified")
				}
				c.Raw(200, []byte(`{"id":"ok"}`))
				return nil
			}},
			awswire.Backup: {"ListBackupJobs": func(*restjson.Call) error { panic("boom") }},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
	t.Cleanup(func() { _ = ln.Close() })
	go func() { _ = s.FastHTTP().Serve(ln) }()
	return s, lines, &fasthttp.HostClient{Addr: "mem", Dial: func(string) (net.Conn, error) { return ln.Dial() }}
}

const signedAPIGateway = "AWS4-HMAC-SHA256 Credential=123456789012/20261125/eu-west-1/apigateway/aws4_request, SignedHeaders=host, Signature=0f"

// logCase is one request and the request log line it must produce.
type logCase struct {
	name, method, uri, body string
	header                  []string
	// level, status, operation and errorCode of the line.
	level               string
	status              int
	operation, code     string
	account, regionName string
}

var logCases = []logCase{
	{name: "result=success", method: "GET", uri: "/restapis/ok", header: []string{"Authorization", signedAPIGateway},
		level: "DEBUG", status: 200, operation: "apigateway.GetRestApi", account: "123456789012", regionName: "eu-west-1"},
	{name: "result=4xx", method: "GET", uri: "/restapis/missing", header: []string{"Authorization", signedAPIGateway},
		level: "DEBUG", status: 404, operation: "apigateway.GetRestApi", code: "NotFoundException",
		account: "123456789012", regionName: "eu-west-1"},
	{name: "result=unknown-operation", method: "GET", uri: "/no/such/path",
		level: "WARN", status: 404, code: "UnknownOperationException", account: "000000000000", regionName: "us-east-1"},
	{name: "result=panic", method: "GET", uri: "/backup-jobs",
		level: "WARN", status: 500, operation: "backup.ListBackupJobs", code: "ServiceUnavailableException",
		account: "000000000000", regionName: "us-east-1"},
	{name: "result=not-emulated", method: "POST", uri: "/", body: "{}", header: []string{
		"X-Amz-Target", "DynamoDB_20120810.ListTables", "Content-Type", "application/x-amz-json-1.0",
		"Authorization", "AWS4-HMAC-SHA256 Credential=test/20261125/eu-central-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0f"},
		level: "WARN", status: 501, operation: "dynamodb.ListTables", code: "NotImplemented",
		account: "000000000000", regionName: "eu-central-1"},
	{name: "result=cloudwatch", method: "POST", uri: "/", body: "{}", header: []string{
		"X-Amz-Target", "GraniteServiceVersion20100801.ListMetrics", "Content-Type", "application/x-amz-json-1.0"},
		level: "WARN", status: 501, operation: "monitoring.ListMetrics", code: "NotImplemented",
		account: "000000000000", regionName: "us-east-1"},
}

func (lc logCase) send(t *testing.T, c *fasthttp.HostClient) (status int, requestID string) {
	t.Helper()
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(lc.method)
	req.SetRequestURI("http://mem" + lc.uri)
	for i := 0; i+1 < len(lc.header); i += 2 {
		req.Header.Set(lc.header[i], lc.header[i+1])
	}
	req.SetBodyString(lc.body)
	if err := c.Do(req, resp); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode(), string(resp.Header.Peek(restjson.HeaderRequestID))
}

// TestRequestLog checks the request log at each level: at debug exactly one
// line per request with every field; at info and warn only 5xx and unknown
// operations, one line each; at error none.
func TestRequestLog(t *testing.T) {
	for _, lvl := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
		t.Run("level="+strings.ToLower(lvl.String()), func(t *testing.T) {
			_, lines, c := startLogged(t, lvl)
			for _, lc := range logCases {
				t.Run(lc.name, func(t *testing.T) {
					status, id := lc.send(t, c)
					if status != lc.status || id == "" {
						t.Fatalf("answered %d (request id %q), want %d", status, id, lc.status)
					}
					got := lines.requests(t, id)
					want := 0
					if lc.level == "DEBUG" && lvl <= slog.LevelDebug || lc.level == "WARN" && lvl <= slog.LevelWarn {
						want = 1
					}
					if len(got) != want {
						t.Fatalf("%d request lines, want %d: %v", len(got), want, got)
					}
					if want == 0 {
						return
					}
					l := got[0]
					for k, v := range map[string]any{
						"level": lc.level, "method": lc.method, "path": lc.uri, "operation": lc.operation,
						"account": lc.account, "region": lc.regionName, "status": float64(lc.status),
						"errorCode": lc.code, "requestId": id, "component": "httpfront",
					} {
						if l[k] != v {
							t.Errorf("%s = %#v, want %#v", k, l[k], v)
						}
					}
					if d, ok := l["latency"].(float64); !ok || d <= 0 {
						t.Errorf("latency = %#v, want a positive duration", l["latency"])
					}
				})
			}
		})
	}
}

// TestRequestLogInProcess checks that a request handed to Handle directly,
// without fasthttp's server and its request time, is still timed.
func TestRequestLogInProcess(t *testing.T) {
	s, lines, _ := startLogged(t, slog.LevelDebug)
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.SetRequestURI("/restapis/ok")
	s.Handle(&ctx)
	got := lines.requests(t, string(ctx.Response.Header.Peek(restjson.HeaderRequestID)))
	if len(got) != 1 || got[0]["operation"] != "apigateway.GetRestApi" || got[0]["latency"].(float64) <= 0 {
		t.Fatalf("%v", got)
	}
}

// TestRequestLogParseError checks that a request fasthttp could not read is
// logged too, with its error code.
func TestRequestLogParseError(t *testing.T) {
	s, lines, _ := startLogged(t, slog.LevelDebug)
	ln := fasthttputil.NewInmemoryListener()
	defer ln.Close()
	go func() { _ = s.FastHTTP().Serve(ln) }()
	conn, err := ln.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /backup-vaults HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	var resp fasthttp.Response
	if err := resp.Read(bufio.NewReader(conn)); err != nil {
		t.Fatal(err)
	}
	got := lines.requests(t, string(resp.Header.Peek(restjson.HeaderRequestID)))
	if resp.StatusCode() != 400 || len(got) != 1 || got[0]["level"] != "DEBUG" || got[0]["errorCode"] == "" {
		t.Fatalf("%d %s: %v", resp.StatusCode(), resp.Body(), got)
	}
}
