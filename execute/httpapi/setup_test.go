package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"

	"github.com/cloudemu/emulator/server/servertest"
)

var ctx = context.Background()

// fixture is one HTTP API on a running emulator, built through the SDK as
// a user builds it, and called over real HTTP.
type fixture struct {
	t    testing.TB
	srv  *servertest.Server
	c    *apigatewayv2.Client
	api  string
	http *http.Client
}

func newFixture(t testing.TB, opts ...servertest.Option) *fixture {
	t.Helper()
	srv := servertest.Start(t, opts...)
	c := apigatewayv2.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *apigatewayv2.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
	f := &fixture{t: t, srv: srv, c: c, http: &http.Client{Timeout: 10 * time.Second}}
	api, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("http-api"), ProtocolType: types.ProtocolTypeHttp})
	f.must(err)
	f.api = *api.ApiId
	return f
}

func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// proxy makes an HTTP_PROXY integration to uri and returns its id.
func (f *fixture) proxy(uri string, edit func(*apigatewayv2.CreateIntegrationInput)) string {
	f.t.Helper()
	in := &apigatewayv2.CreateIntegrationInput{ApiId: &f.api, IntegrationType: types.IntegrationTypeHttpProxy,
		IntegrationMethod: aws.String("ANY"), IntegrationUri: &uri, PayloadFormatVersion: aws.String("1.0")}
	if edit != nil {
		edit(in)
	}
	out, err := f.c.CreateIntegration(ctx, in)
	f.must(err)
	return *out.IntegrationId
}

// route makes a route to an integration (no target when "").
func (f *fixture) route(key, integration string, edit func(*apigatewayv2.CreateRouteInput)) string {
	f.t.Helper()
	in := &apigatewayv2.CreateRouteInput{ApiId: &f.api, RouteKey: &key}
	if integration != "" {
		in.Target = aws.String("integrations/" + integration)
	}
	if edit != nil {
		edit(in)
	}
	out, err := f.c.CreateRoute(ctx, in)
	f.must(err)
	return *out.RouteId
}

// stage makes an auto-deployed stage.
func (f *fixture) stage(name string, edit func(*apigatewayv2.CreateStageInput)) {
	f.t.Helper()
	in := &apigatewayv2.CreateStageInput{ApiId: &f.api, StageName: &name, AutoDeploy: aws.Bool(true)}
	if edit != nil {
		edit(in)
	}
	_, err := f.c.CreateStage(ctx, in)
	f.must(err)
}

// answer is what a call got back.
type answer struct {
	status int
	header http.Header
	body   string
}

// call sends a request in the host form, {id}.execute-api.localhost.
func (f *fixture) call(method, path string, header map[string]string, body string) answer {
	f.t.Helper()
	return f.do(method, f.srv.URL+path, f.api+".execute-api.localhost.localstack.cloud", header, body)
}

func (f *fixture) do(method, url, host string, header map[string]string, body string) answer {
	f.t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	f.must(err)
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header[k] = []string{v}
	}
	resp, err := f.http.Do(req)
	f.must(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	f.must(err)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// want fails unless the answer has status and body.
func (a answer) want(t testing.TB, status int, body string) {
	t.Helper()
	if a.status != status || a.body != body {
		t.Fatalf("got %d %q, want %d %q (headers %v)", a.status, a.body, status, body, a.header)
	}
}

// echoBackend answers each request with its method, path, query and
// selected headers, so a test reads back what the gateway sent.
func echoBackend(t testing.TB) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Backend", "yes")
		w.Header().Set("X-Seen-Forwarded", r.Header.Get("Forwarded"))
		w.Header().Set("Access-Control-Allow-Origin", "https://backend.example")
		w.Header().Set("Content-Type", "text/plain")
		switch r.URL.Query().Get("status") {
		case "418":
			w.WriteHeader(418)
		case "401":
			w.Header().Set("WWW-Authenticate", `Basic realm="backend"`)
			w.WriteHeader(401)
		}
		body, _ := io.ReadAll(r.Body)
		var extra []string
		for _, h := range []string{"X-Mapped", "X-Client"} {
			if v := r.Header.Get(h); v != "" {
				extra = append(extra, h+"="+v)
			}
		}
		_, _ = io.WriteString(w, r.Method+" "+r.URL.RequestURI()+" "+string(body)+" "+strings.Join(extra, ";"))
	}))
	t.Cleanup(s.Close)
	return s
}
