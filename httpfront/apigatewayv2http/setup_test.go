package apigatewayv2http_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"

	"github.com/cloudemu/emulator/server/servertest"
)

// testAccount is the account unsigned and test-signed requests act as.
const testAccount = "000000000000"

func newClient(srv *servertest.Server) *apigatewayv2.Client {
	return regionClient(srv, "us-east-1", "test")
}

func regionClient(srv *servertest.Server, region, accessKey string) *apigatewayv2.Client {
	return apigatewayv2.NewFromConfig(servertest.AWSConfig(region, accessKey), func(o *apigatewayv2.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
}

func startServer(t *testing.T, opts ...servertest.Option) (*servertest.Server, *apigatewayv2.Client) {
	t.Helper()
	srv := servertest.Start(t, opts...)
	return srv, newClient(srv)
}

// need fails the test on a setup error.
func need(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// rawReply is a raw HTTP answer.
type rawReply struct {
	status int
	code   string
	body   map[string]any
	raw    []byte
}

// send sends a raw request, for what the SDK refuses to send and to see
// exactly which members are on the wire; the path is sent as written.
func send(t *testing.T, srv *servertest.Server, method, path, body string) rawReply {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.URL.RawPath = strings.SplitN(path, "?", 2)[0]
	// No keep-alive: an idle connection left open delays the server's
	// shutdown.
	req.Close = true
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/apigateway/aws4_request, "+
		"SignedHeaders=host, Signature=abc")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := rawReply{status: resp.StatusCode, code: resp.Header.Get("x-amzn-ErrorType"), raw: raw}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			t.Fatalf("%s %s: body is not JSON: %s", method, path, raw)
		}
	}
	return r
}

// wantReply checks a raw answer's status, error code and message.
func wantReply(t *testing.T, r rawReply, status int, code, msg string) {
	t.Helper()
	m, _ := r.body["message"].(string)
	if r.status != status || r.code != code || (msg != "" && m != msg) {
		t.Fatalf("want %d %s %q, got %d %s %s", status, code, msg, r.status, r.code, r.raw)
	}
}

// wantKeys fails unless body has exactly the members keys.
func wantKeys(t *testing.T, body map[string]any, keys ...string) {
	t.Helper()
	var got []string
	for k := range body {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Fatalf("members = %v, want %v (body %v)", got, keys, body)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
