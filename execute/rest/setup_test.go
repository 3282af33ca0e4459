package rest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/server/servertest"
)

// fixture is one REST API on a running emulator, built through the SDK as
// a user builds it, and called over real HTTP.
type fixture struct {
	t    testing.TB
	srv  *servertest.Server
	c    *apigateway.Client
	api  string
	root string
	http *http.Client
	// handler serves requests in process (benchmarks); nil: the
	// emulator's.
	handler fasthttp.RequestHandler
}

func newFixture(t testing.TB, opts ...servertest.Option) *fixture {
	t.Helper()
	return newFixtureOn(t, servertest.Start(t, opts...))
}

// newFixtureOn builds the API on a running server.
func newFixtureOn(t testing.TB, srv *servertest.Server) *fixture {
	t.Helper()
	c := apigateway.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *apigateway.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
	f := &fixture{t: t, srv: srv, c: c, http: &http.Client{Timeout: 10 * time.Second}}
	api, err := c.CreateRestApi(context.Background(), &apigateway.CreateRestApiInput{Name: aws.String("test-api")})
	if err != nil {
		t.Fatal(err)
	}
	f.api, f.root = *api.Id, *api.RootResourceId
	return f
}

var ctx = context.Background()

func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// resource creates the path under parent, one part at a time, and returns
// the last resource's id.
func (f *fixture) resource(path string) string {
	f.t.Helper()
	parent := f.root
	res, err := f.c.GetResources(ctx, &apigateway.GetResourcesInput{RestApiId: &f.api, Limit: aws.Int32(500)})
	f.must(err)
	byPath := map[string]string{}
	for _, r := range res.Items {
		byPath[*r.Path] = *r.Id
	}
	cur := ""
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		if part == "" {
			continue
		}
		cur += "/" + part
		if id, ok := byPath[cur]; ok {
			parent = id
			continue
		}
		r, err := f.c.CreateResource(ctx, &apigateway.CreateResourceInput{RestApiId: &f.api, ParentId: &parent, PathPart: aws.String(part)})
		f.must(err)
		parent = *r.Id
	}
	return parent
}

// method puts a method with authorization NONE (edit tweaks the input).
func (f *fixture) method(rid, verb string, edit func(*apigateway.PutMethodInput)) {
	f.t.Helper()
	in := &apigateway.PutMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: &verb, AuthorizationType: aws.String("NONE")}
	if edit != nil {
		edit(in)
	}
	_, err := f.c.PutMethod(ctx, in)
	f.must(err)
}

func (f *fixture) integration(rid, verb string, in *apigateway.PutIntegrationInput) {
	f.t.Helper()
	in.RestApiId, in.ResourceId, in.HttpMethod = &f.api, &rid, &verb
	_, err := f.c.PutIntegration(ctx, in)
	f.must(err)
}

func (f *fixture) integrationResponse(rid, verb, status string, in *apigateway.PutIntegrationResponseInput) {
	f.t.Helper()
	if in == nil {
		in = &apigateway.PutIntegrationResponseInput{}
	}
	in.RestApiId, in.ResourceId, in.HttpMethod, in.StatusCode = &f.api, &rid, &verb, &status
	_, err := f.c.PutIntegrationResponse(ctx, in)
	f.must(err)
}

func (f *fixture) methodResponse(rid, verb, status string, params map[string]bool) {
	f.t.Helper()
	_, err := f.c.PutMethodResponse(ctx, &apigateway.PutMethodResponseInput{RestApiId: &f.api, ResourceId: &rid,
		HttpMethod: &verb, StatusCode: &status, ResponseParameters: params})
	f.must(err)
}

// mock builds a MOCK method: request template {"statusCode": 200} and a
// default 200 response with respTemplate (none when "").
func (f *fixture) mock(path, verb, respTemplate string) string {
	f.t.Helper()
	rid := f.resource(path)
	f.method(rid, verb, nil)
	f.integration(rid, verb, &apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock,
		RequestTemplates: map[string]string{"application/json": `{"statusCode": 200}`}})
	f.methodResponse(rid, verb, "200", nil)
	in := &apigateway.PutIntegrationResponseInput{}
	if respTemplate != "" {
		in.ResponseTemplates = map[string]string{"application/json": respTemplate}
	}
	f.integrationResponse(rid, verb, "200", in)
	return rid
}

func (f *fixture) deploy(stage string, vars map[string]string) string {
	f.t.Helper()
	d, err := f.c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &f.api, StageName: &stage, Variables: vars})
	f.must(err)
	return *d.Id
}

// answer is what a call got back.
type answer struct {
	status int
	header http.Header
	body   string
}

// call sends a request in the documented path form.
func (f *fixture) call(method, stage, path string, header map[string]string, body string) answer {
	f.t.Helper()
	return f.do(method, f.srv.URL+"/restapis/"+f.api+"/"+stage+"/_user_request_"+path, "", header, body)
}

// callHost sends a request in the host form: {id}.execute-api.{domain}.
func (f *fixture) callHost(method, host, path string, header map[string]string, body string) answer {
	f.t.Helper()
	return f.do(method, f.srv.URL+path, host, header, body)
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
func (a answer) want(t *testing.T, status int, body string) {
	t.Helper()
	if a.status != status || a.body != body {
		t.Fatalf("got %d %q, want %d %q (headers %v)", a.status, a.body, status, body, a.header)
	}
}
