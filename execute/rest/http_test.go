package rest_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
)

// seen is what the loopback backend received.
type seen struct {
	Method, URI, Body string
	Header            http.Header
}

// backend is a loopback HTTP server that records requests and answers:
// /status/N with status N, /slow after a second, /bin with PNG bytes,
// anything else with an echo of the request as JSON.
type backend struct {
	*httptest.Server
	mu   sync.Mutex
	last seen
}

func newBackend(t *testing.T) *backend {
	b := &backend{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s := seen{Method: r.Method, URI: r.RequestURI, Body: string(body), Header: r.Header.Clone()}
		b.mu.Lock()
		b.last = s
		b.mu.Unlock()
		w.Header().Set("Server", "loopback")
		w.Header().Set("X-Backend", "yes")
		w.Header().Set("x-amzn-RequestId", "backend-id")
		switch {
		case strings.HasPrefix(r.URL.Path, "/status/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status/"))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(n)
			_, _ = io.WriteString(w, `{"status_code": `+strconv.Itoa(n)+`}`)
		case r.URL.Path == "/slow":
			select {
			case <-time.After(time.Second):
			case <-r.Context().Done():
			}
			_, _ = io.WriteString(w, "late")
		case r.URL.Path == "/bin":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write([]byte{0x89, 'P', 'N', 'G', 0xff, 0x00, 0xfe})
		default:
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(s)
		}
	}))
	t.Cleanup(b.Close)
	return b
}

func (b *backend) got() seen {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// TestHTTPIntegration: non-proxy HTTP sends only mapped headers plus its
// own, renders templates both ways, and maps the backend status through
// the integration responses (H-01, H-02, H-03, H-07).
func TestHTTPIntegration(t *testing.T) {
	be := newBackend(t)
	f := newFixture(t)
	rid := f.resource("/items/{id}")
	f.method(rid, "POST", func(in *apigateway.PutMethodInput) {
		in.RequestParameters = map[string]bool{"method.request.path.id": true, "method.request.header.X-In": false,
			"method.request.querystring.q": false}
	})
	f.integration(rid, "POST", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttp,
		IntegrationHttpMethod: aws.String("PUT"), Uri: aws.String(be.URL + "/echo/{id}"),
		RequestParameters: map[string]string{
			"integration.request.path.id":            "method.request.path.id",
			"integration.request.header.X-Mapped":    "method.request.header.X-In",
			"integration.request.header.X-Resource":  "context.resourceId",
			"integration.request.header.X-Static":    "'fixed'",
			"integration.request.querystring.filter": "method.request.querystring.q",
			"integration.request.header.Connection":  "'keep-alive'", // dropped without a word
		},
		RequestTemplates: map[string]string{"application/json": `{"name": $input.json('$.name'), "stage": "$context.stage"}`}})
	f.methodResponse(rid, "POST", "200", map[string]bool{"method.response.header.X-Out": false})
	f.integrationResponse(rid, "POST", "200", &apigateway.PutIntegrationResponseInput{
		ResponseParameters: map[string]string{
			"method.response.header.X-Out":    "integration.response.header.X-Backend",
			"method.response.header.Server":   "'mine'",
			"method.response.header.X-Static": "'s'",
		},
		ResponseTemplates: map[string]string{"application/json": `{"method": "$input.path('$.Method')", "uri": "$input.path('$.URI')", "body": $input.json('$.Body')}`}})
	// A status route: default 200 and 400 for 4xx (H-02).
	sid := f.resource("/status/{code}")
	f.method(sid, "GET", func(in *apigateway.PutMethodInput) {
		in.RequestParameters = map[string]bool{"method.request.path.code": true}
	})
	f.integration(sid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttp,
		IntegrationHttpMethod: aws.String("GET"), Uri: aws.String(be.URL + "/status/{code}"),
		RequestParameters: map[string]string{"integration.request.path.code": "method.request.path.code"}})
	f.methodResponse(sid, "GET", "200", nil)
	f.integrationResponse(sid, "GET", "200", nil)
	f.methodResponse(sid, "GET", "400", nil)
	f.integrationResponse(sid, "GET", "400", &apigateway.PutIntegrationResponseInput{SelectionPattern: aws.String(`4\d{2}`)})
	f.deploy("dev", nil)

	a := f.call("POST", "dev", "/items/42?q=red+shoes", map[string]string{"Content-Type": "application/json",
		"X-In": "hello", "User-Agent": "client/1.0", "Accept": "application/xml"}, `{"name": "widget"}`)
	if a.status != 200 {
		t.Fatalf("status %d %s", a.status, a.body)
	}
	got := be.got()
	if got.Method != "PUT" || got.URI != "/echo/42?filter=red+shoes" || got.Body != `{"name": "widget", "stage": "dev"}` {
		t.Errorf("backend saw %s %s %q", got.Method, got.URI, got.Body)
	}
	for k, want := range map[string]string{"X-Mapped": "hello", "X-Resource": rid, "X-Static": "fixed",
		"Accept": "application/json", "User-Agent": "AmazonAPIGateway_" + f.api, "X-Amzn-Apigateway-Api-Id": f.api,
		"Content-Type": "application/json", "X-In": "", "Connection": ""} {
		if v := got.Header.Get(k); v != want {
			t.Errorf("backend header %s = %q, want %q", k, v, want)
		}
	}
	if !strings.HasPrefix(got.Header.Get("X-Amzn-Trace-Id"), "Root=1-") {
		t.Errorf("trace header %q", got.Header.Get("X-Amzn-Trace-Id"))
	}
	want := `{"method": "PUT", "uri": "/echo/42?filter=red+shoes", "body": "{\"name\": \"widget\", \"stage\": \"dev\"}"}`
	if a.body != want {
		t.Errorf("body %s, want %s", a.body, want)
	}
	for k, want := range map[string]string{"X-Out": "yes", "x-amzn-Remapped-Server": "mine", "X-Static": "s",
		"Content-Type": "application/json", "X-Backend": "", "Server": ""} {
		if v := a.header.Get(k); v != want {
			t.Errorf("response header %s = %q, want %q (all %v)", k, v, want, a.header)
		}
	}
	if a.header.Get("X-Amzn-Trace-Id") == "" {
		t.Error("no trace header on an HTTP integration's answer")
	}

	f.call("GET", "dev", "/status/201", nil, "").want(t, 200, `{"status_code": 201}`)
	f.call("GET", "dev", "/status/404", nil, "").want(t, 400, `{"status_code": 404}`)
	f.call("GET", "dev", "/status/500", nil, "").want(t, 200, `{"status_code": 500}`)
}

// TestHTTPProxy: method, greedy path, query, headers and body pass
// through, the status too; headers API Gateway keeps are remapped (H-01,
// H-03, H-05, X-02, X-06).
func TestHTTPProxy(t *testing.T) {
	be := newBackend(t)
	f := newFixture(t)
	rid := f.resource("/api/{proxy+}")
	f.method(rid, "ANY", func(in *apigateway.PutMethodInput) {
		in.RequestParameters = map[string]bool{"method.request.path.proxy": true, "method.request.header.X-Extra": false}
	})
	f.integration(rid, "ANY", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy,
		IntegrationHttpMethod: aws.String("ANY"), Uri: aws.String("http://${stageVariables.host}/{proxy}?from=uri"),
		RequestParameters: map[string]string{
			"integration.request.path.proxy":        "method.request.path.proxy",
			"integration.request.header.X-Override": "'mapped'",
			"integration.request.querystring.extra": "method.request.header.X-Extra",
		}})
	host := strings.TrimPrefix(be.URL, "http://")
	f.deploy("dev", map[string]string{"host": host})
	f.deploy("nohost", nil)

	a := f.call("PATCH", "dev", "/api/a/b%20c//d?x=1&x=2", map[string]string{"X-Override": "client", "X-Extra": "e",
		"X-Keep": "kept", "Content-Type": "text/plain"}, "payload")
	if a.status != 200 {
		t.Fatalf("status %d %s", a.status, a.body)
	}
	got := be.got()
	if got.Method != "PATCH" || got.URI != "/a/b%20c//d?from=uri&extra=e&x=1&x=2" || got.Body != "payload" {
		t.Errorf("backend saw %s %s %q", got.Method, got.URI, got.Body)
	}
	for k, want := range map[string]string{"X-Override": "mapped", "X-Keep": "kept", "Content-Type": "text/plain",
		"X-Amzn-Apigateway-Api-Id": f.api} {
		if v := got.Header.Get(k); v != want {
			t.Errorf("backend header %s = %q, want %q", k, v, want)
		}
	}
	for k, want := range map[string]string{"X-Backend": "yes", "x-amzn-Remapped-Server": "loopback", "Server": "",
		"x-amzn-Remapped-x-amzn-RequestId": "backend-id", "X-Amzn-Trace-Id": ""} {
		if v := a.header.Get(k); v != want {
			t.Errorf("response header %s = %q, want %q (all %v)", k, v, want, a.header)
		}
	}
	if a.header.Get("x-amzn-Remapped-Content-Length") == "" || a.header.Get("x-amzn-Remapped-Date") == "" {
		t.Errorf("Content-Length and Date are not remapped: %v", a.header)
	}
	if rid := a.header.Get("x-amzn-RequestId"); len(rid) != 36 {
		t.Errorf("request id %q", rid)
	}
	// The status passes through (H-01).
	f.call("GET", "dev", "/api/status/418", nil, "").want(t, 418, `{"status_code": 418}`)
	// A stage without the variable leaves no host: 500 (H-06).
	a = f.call("GET", "nohost", "/api/x", nil, "")
	a.want(t, 500, `{"message": "Internal server error"}`)
	if a.header.Get("x-amzn-ErrorType") != "InternalServerErrorException" {
		t.Errorf("error type %v", a.header)
	}
}

// TestHTTPFailures: a backend too slow answers 504 after timeoutInMillis;
// one that refuses connections is an INTEGRATION_FAILURE; mapping a
// restricted header is a 500 before any call.
func TestHTTPFailures(t *testing.T) {
	be := newBackend(t)
	f := newFixture(t)
	slow := f.resource("/slow")
	f.method(slow, "GET", nil)
	f.integration(slow, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy,
		IntegrationHttpMethod: aws.String("GET"), Uri: aws.String(be.URL + "/slow"), TimeoutInMillis: aws.Int32(100)})
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	f.must(err)
	closed := ln.Addr().String()
	ln.Close()
	refused := f.resource("/refused")
	f.method(refused, "GET", nil)
	f.integration(refused, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy,
		IntegrationHttpMethod: aws.String("GET"), Uri: aws.String("http://" + closed + "/")})
	restricted := f.resource("/restricted")
	f.method(restricted, "GET", nil)
	f.integration(restricted, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttp,
		IntegrationHttpMethod: aws.String("GET"), Uri: aws.String(be.URL + "/"),
		RequestParameters: map[string]string{"integration.request.header.Content-Length": "'0'"}})
	f.methodResponse(restricted, "GET", "200", nil)
	f.integrationResponse(restricted, "GET", "200", nil)
	f.deploy("dev", nil)

	start := time.Now()
	a := f.call("GET", "dev", "/slow", nil, "")
	a.want(t, 504, `{"message": "Endpoint request timed out"}`)
	if took := time.Since(start); took > 900*time.Millisecond {
		t.Errorf("the timeout took %v", took)
	}
	if a.header.Get("x-amzn-ErrorType") != "InternalServerErrorException" || a.header.Get("X-Amzn-Trace-Id") == "" {
		t.Errorf("headers %v", a.header)
	}
	f.call("GET", "dev", "/refused", nil, "").want(t, 504, `{"message": "Network error communicating with endpoint"}`)
	a = f.call("GET", "dev", "/restricted", nil, "")
	a.want(t, 500, `{"message": "Internal server error"}`)
	if len(a.body) != 36 || a.header.Get("X-Amzn-Trace-Id") != "" {
		t.Errorf("restricted: %d bytes, headers %v", len(a.body), a.header)
	}
}

// TestBinary: binaryMediaTypes and contentHandling on an HTTP integration
// (B-05…B-07, the HTTP case of the payload-encoding tables).
func TestBinary(t *testing.T) {
	be := newBackend(t)
	f := newFixture(t)
	_, err := f.c.UpdateRestApi(ctx, &apigateway.UpdateRestApiInput{RestApiId: &f.api, PatchOperations: []types.PatchOperation{
		{Op: types.OpAdd, Path: aws.String("/binaryMediaTypes/image~1png")}}})
	f.must(err)
	for _, h := range []string{"", "CONVERT_TO_TEXT"} {
		rid := f.resource("/bin" + strings.ToLower(strings.ReplaceAll(h, "_", "")))
		f.method(rid, "GET", nil)
		f.integration(rid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttp,
			IntegrationHttpMethod: aws.String("GET"), Uri: aws.String(be.URL + "/bin")})
		f.methodResponse(rid, "GET", "200", nil)
		in := &apigateway.PutIntegrationResponseInput{}
		if h != "" {
			in.ContentHandling = types.ContentHandlingStrategy(h)
		}
		f.integrationResponse(rid, "GET", "200", in)
	}
	f.deploy("dev", nil)
	png := string([]byte{0x89, 'P', 'N', 'G', 0xff, 0x00, 0xfe})
	f.call("GET", "dev", "/bin", map[string]string{"Accept": "image/png"}, "").want(t, 200, png)
	f.call("GET", "dev", "/bin", map[string]string{"Accept": "application/json"}, "").want(t, 200, "iVBORw\xff\x00\xfe"[:0]+"iVBOR/8A/g==")
	f.call("GET", "dev", "/binconverttotext", map[string]string{"Accept": "image/png"}, "").want(t, 200, "iVBOR/8A/g==")
}
