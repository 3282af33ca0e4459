package httpapi_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

// TestRoutePriority is the route priority of docs/apigatewayv2.md: an
// exact route, then path variables, then greedy ones (deepest first), the
// method before ANY, then $default.
func TestRoutePriority(t *testing.T) {
	f := newFixture(t)
	be := echoBackend(t)
	for _, key := range []string{"GET /pets/dog/1", "GET /pets/dog/{id}", "GET /pets/{proxy+}", "ANY /{proxy+}",
		"POST /pets/dog/{id}", "ANY /pets/dog/{id}", "$default", "GET /toys/{id}/parts", "GET /toys/car/{proxy+}"} {
		id := f.proxy(be.URL+"/"+strings.NewReplacer(" ", "_", "/", ".", "{", "", "}", "", "+", "", "$", "").Replace(key), nil)
		f.route(key, id, nil)
	}
	f.stage("$default", nil)
	for _, c := range []struct{ method, path, route string }{
		{"GET", "/pets/dog/1", "GET_.pets.dog.1"},
		{"GET", "/pets/dog/2", "GET_.pets.dog.id"},
		{"POST", "/pets/dog/2", "POST_.pets.dog.id"},
		{"PUT", "/pets/dog/2", "ANY_.pets.dog.id"},
		{"GET", "/pets/cat/1", "GET_.pets.proxy"},
		{"GET", "/pets", "ANY_.proxy"},
		{"DELETE", "/pets/cat", "ANY_.proxy"},
		{"GET", "/", "default"},
		// A full match through a variable beats a greedy route under a
		// literal segment.
		{"GET", "/toys/car/parts", "GET_.toys.id.parts"},
		{"GET", "/toys/car/wheel/1", "GET_.toys.car.proxy"},
	} {
		a := f.call(c.method, c.path, nil, "")
		if a.status != 200 || !strings.Contains(a.body, " /"+c.route) {
			t.Errorf("%s %s: got %d %q, want route %s", c.method, c.path, a.status, a.body, c.route)
		}
	}
}

// TestStages: $default is served at the root, a named stage under its
// prefix; no stage or no route is 404 Not Found.
func TestStages(t *testing.T) {
	f := newFixture(t)
	be := echoBackend(t)
	f.route("GET /items/{id}", f.proxy(be.URL+"/i/{id}", nil), nil)
	f.call("GET", "/items/1", nil, "").want(t, 404, `{"message":"Not Found"}`)
	f.stage("dev", nil)
	f.call("GET", "/dev/items/1", nil, "").want(t, 200, "GET /i/1  ")
	f.call("GET", "/items/1", nil, "").want(t, 404, `{"message":"Not Found"}`)
	f.stage("$default", nil)
	f.call("GET", "/items/7", nil, "").want(t, 200, "GET /i/7  ")
	f.call("GET", "/dev/items/2", nil, "").want(t, 200, "GET /i/2  ")
	a := f.call("GET", "/nothing", nil, "")
	a.want(t, 404, `{"message":"Not Found"}`)
	if id := a.header.Get("apigw-requestid"); len(id) != 16 || !strings.HasSuffix(id, "=") {
		t.Errorf("apigw-requestid %q", id)
	}
	// The path forms of the emulator.
	f.do("GET", f.srv.URL+"/_aws/execute-api/"+f.api+"/dev/items/3", "", nil, "").want(t, 200, "GET /i/3  ")
	f.do("GET", f.srv.URL+"/_aws/execute-api/"+f.api+"/items/4", "", nil, "").want(t, 200, "GET /i/4  ")
	f.do("GET", f.srv.URL+"/_cloud/execute-api/"+f.api+"/dev/items/5", "", nil, "").want(t, 200, "GET /i/5  ")

	// A stage without a deployment serves nothing.
	_, err := f.c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &f.api, StageName: aws.String("bare")})
	f.must(err)
	f.call("GET", "/bare/items/1", nil, "").want(t, 404, `{"message":"Not Found"}`) // the $default stage has no /bare route

	_, err = f.c.UpdateApi(ctx, &apigatewayv2.UpdateApiInput{ApiId: &f.api, DisableExecuteApiEndpoint: aws.Bool(true)})
	f.must(err)
	f.call("GET", "/items/7", nil, "").want(t, 403, `{"message":"Forbidden"}`)
}

// TestHTTPProxy: path variables and the greedy {proxy} fill the URI, the
// query string and headers go on, $default forwards the whole path, and
// the backend's answer comes back with apigw-requestid.
func TestHTTPProxy(t *testing.T) {
	f := newFixture(t)
	be := echoBackend(t)
	f.route("ANY /api/{proxy+}", f.proxy(be.URL+"/base/{proxy}", nil), nil)
	f.route("$default", f.proxy(be.URL+"/root", nil), nil)
	f.route("POST /things/{a}/{b}", f.proxy(be.URL+"/t/{b}/{a}?fixed=1", nil), nil)
	f.stage("$default", nil)

	a := f.call("GET", "/api/x/y?q=1&q=2", map[string]string{"X-Client": "c"}, "")
	if a.status != 200 || a.body != "GET /base/x/y?q=1&q=2  X-Client=c" {
		t.Errorf("greedy: %d %q", a.status, a.body)
	}
	if fw := a.header.Get("X-Seen-Forwarded"); !strings.Contains(fw, "for=127.0.0.1;host="+f.api+".execute-api.") {
		t.Errorf("Forwarded %q", fw)
	}
	if a.header.Get("X-Backend") != "yes" || len(a.header.Get("apigw-requestid")) != 16 {
		t.Errorf("headers %v", a.header)
	}
	a = f.call("POST", "/things/1/2?z=9", nil, "payload")
	if a.status != 200 || !strings.HasPrefix(a.body, "POST /t/2/1?fixed=1&z=9 payload") {
		t.Errorf("variables: %d %q", a.status, a.body)
	}
	a = f.call("DELETE", "/some/where/", nil, "")
	if a.status != 200 || !strings.HasPrefix(a.body, "DELETE /root/some/where/ ") {
		t.Errorf("$default: %d %q", a.status, a.body)
	}
	// The backend's status passes through, and its headers (a proxy
	// drops only hop-by-hop ones).
	if a := f.call("GET", "/api/s?status=418", nil, ""); a.status != 418 {
		t.Errorf("status %d", a.status)
	}
	if a := f.call("GET", "/api/s?status=401", nil, ""); a.status != 401 || a.header.Get("WWW-Authenticate") != `Basic realm="backend"` {
		t.Errorf("401: %d %v", a.status, a.header)
	}
	// A URI without a path gets "/" before the query.
	f.route("GET /bare", f.proxy(be.URL, nil), nil)
	if a := f.call("GET", "/bare?x=1", nil, ""); a.status != 200 || !strings.HasPrefix(a.body, "GET /?x=1 ") {
		t.Errorf("bare origin: %d %q", a.status, a.body)
	}
}

// TestParameterMapping: requestParameters change headers, query strings
// and the path; responseParameters by status change headers and the
// status.
func TestParameterMapping(t *testing.T) {
	f := newFixture(t)
	be := echoBackend(t)
	id := f.proxy(be.URL+"/orig", func(in *apigatewayv2.CreateIntegrationInput) {
		in.RequestParameters = map[string]string{
			"append:header.X-Mapped":      "from-${request.header.x-client}-${stageVariables.v}",
			"remove:header.X-Client":      "''",
			"overwrite:querystring.q":     "$request.path.id",
			"append:querystring.ctx":      "$context.routeKey",
			"remove:querystring.drop":     "''",
			"overwrite:path":              "/new/$request.path.id",
			"overwrite:header.X-Constant": "constant",
		}
		in.ResponseParameters = map[string]map[string]string{
			"200": {"overwrite:statuscode": "202", "append:header.X-From-Backend": "$response.header.X-Backend",
				"remove:header.X-Backend": "''"},
		}
	})
	f.route("GET /m/{id}", id, nil)
	f.stage("$default", func(in *apigatewayv2.CreateStageInput) { in.StageVariables = map[string]string{"v": "sv"} })
	a := f.call("GET", "/m/42?q=old&drop=1&keep=k&c=1;2&d&e=%20x", map[string]string{"X-Client": "c"}, "")
	if a.status != 202 {
		t.Fatalf("status %d %q", a.status, a.body)
	}
	// Parameters no mapping names reach the backend as the client sent them.
	for _, want := range []string{"GET /new/42?keep=k&c=1;2&d&e=%20x&", "ctx=GET+%2Fm%2F%7Bid%7D", "q=42", "X-Mapped=from-c-sv"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("body %q lacks %q", a.body, want)
		}
	}
	if strings.Contains(a.body, "drop=") || strings.Contains(a.body, "X-Client") {
		t.Errorf("removed parameters reached the backend: %q", a.body)
	}
	if a.header.Get("X-From-Backend") != "yes" || a.header.Get("X-Backend") != "" {
		t.Errorf("response mapping: %v", a.header)
	}
}

// TestBackendFailures: a backend that does not answer in time is 503
// Service Unavailable; one that cannot be reached, 500.
func TestBackendFailures(t *testing.T) {
	f := newFixture(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer slow.Close()
	f.route("GET /slow", f.proxy(slow.URL, func(in *apigatewayv2.CreateIntegrationInput) { in.TimeoutInMillis = aws.Int32(200) }), nil)
	f.route("GET /down", f.proxy("http://127.0.0.1:1/", nil), nil)
	f.route("GET /none", "", nil)
	f.stage("$default", nil)
	begin := time.Now()
	f.call("GET", "/slow", nil, "").want(t, 503, `{"message":"Service Unavailable"}`)
	if took := time.Since(begin); took > 1500*time.Millisecond {
		t.Errorf("the timeout took %v", took)
	}
	f.call("GET", "/down", nil, "").want(t, 500, `{"message":"Internal Server Error"}`)
	f.call("GET", "/none", nil, "").want(t, 500, `{"message":"Internal Server Error"}`)
}

// TestCORS: the gateway answers preflights itself (204) and puts its CORS
// headers on answers to allowed origins, dropping the backend's.
func TestCORS(t *testing.T) {
	f := newFixture(t)
	be := echoBackend(t)
	_, err := f.c.UpdateApi(ctx, &apigatewayv2.UpdateApiInput{ApiId: &f.api, CorsConfiguration: &types.Cors{
		AllowOrigins: []string{"https://app.example", "https://*.trusted.example"}, AllowMethods: []string{"GET", "POST"},
		AllowHeaders: []string{"content-type", "x-custom"}, ExposeHeaders: []string{"x-backend"}, MaxAge: aws.Int32(300),
		AllowCredentials: aws.Bool(true)}})
	f.must(err)
	f.route("GET /data", f.proxy(be.URL, nil), nil)
	f.stage("$default", nil)

	pre := f.call("OPTIONS", "/data", map[string]string{"Origin": "https://app.example",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}, "")
	pre.want(t, 204, "")
	for k, v := range map[string]string{"Access-Control-Allow-Origin": "https://app.example",
		"Access-Control-Allow-Methods": "GET,POST", "Access-Control-Allow-Headers": "content-type,x-custom",
		"Access-Control-Max-Age": "300", "Access-Control-Allow-Credentials": "true"} {
		if got := pre.header.Get(k); got != v {
			t.Errorf("preflight %s = %q, want %q", k, got, v)
		}
	}
	// A preflight from an origin not allowed: 204 without CORS headers.
	pre = f.call("OPTIONS", "/anything", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}, "")
	if pre.status != 204 || pre.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("refused preflight: %d %v", pre.status, pre.header)
	}
	a := f.call("GET", "/data", map[string]string{"Origin": "https://a.trusted.example"}, "")
	if a.status != 200 || a.header.Get("Access-Control-Allow-Origin") != "https://a.trusted.example" ||
		a.header.Get("Access-Control-Expose-Headers") != "x-backend" {
		t.Errorf("actual request: %d %v", a.status, a.header)
	}
	// No Origin: the backend's CORS headers are dropped all the same.
	a = f.call("GET", "/data", nil, "")
	if a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("backend CORS header kept: %v", a.header)
	}
}

// TestThrottle: a route's throttling (routeSettings, else
// defaultRouteSettings) answers 429 Too Many Requests when enforced.
func TestThrottle(t *testing.T) {
	f := newFixture(t, servertest.WithConfig(func(c *config.Config) { c.EnforceGatewayThrottle = true }))
	be := echoBackend(t)
	f.route("GET /limited", f.proxy(be.URL, nil), nil)
	f.route("GET /free", f.proxy(be.URL, nil), nil)
	f.stage("$default", func(in *apigatewayv2.CreateStageInput) {
		in.DefaultRouteSettings = &types.RouteSettings{ThrottlingBurstLimit: aws.Int32(1000), ThrottlingRateLimit: aws.Float64(1000)}
		in.RouteSettings = map[string]types.RouteSettings{"GET /limited": {ThrottlingBurstLimit: aws.Int32(2), ThrottlingRateLimit: aws.Float64(0.001)}}
	})
	codes := map[int]int{}
	for i := 0; i < 5; i++ {
		codes[f.call("GET", "/limited", nil, "").status]++
	}
	if codes[200] != 2 || codes[429] != 3 {
		t.Errorf("limited route: %v", codes)
	}
	f.call("GET", "/limited", nil, "").want(t, 429, `{"message":"Too Many Requests"}`)
	if a := f.call("GET", "/free", nil, ""); a.status != 200 {
		t.Errorf("free route: %d", a.status)
	}
}

// TestHostileInput: odd paths and headers get the gateway's answers, never
// a 500 or a dropped connection.
func TestHostileInput(t *testing.T) {
	f := newFixture(t)
	be := echoBackend(t)
	f.route("GET /items/{id}", f.proxy(be.URL+"/i/{id}", nil), nil)
	f.route("ANY /files/{proxy+}", f.proxy(be.URL+"/f/{proxy}", nil), nil)
	f.stage("$default", nil)
	for _, c := range []struct {
		path   string
		status int
	}{
		{"//items//1", 404},
		{"/items/%zz", 400}, // the front refuses a malformed escape
		{"/items/", 404},
		{"/files/a/../../etc/passwd", 200},
		{"/" + strings.Repeat("x/", 3000), 404},
		{"/files/" + strings.Repeat("y/", 3000), 200},
	} {
		if status, body := f.raw("GET", c.path); status != c.status {
			t.Errorf("GET %.60s: %d %q, want %d", c.path, status, body, c.status)
		}
	}
	big := strings.Repeat("v", 4<<10)
	if a := f.call("GET", "/items/1", map[string]string{"X-Big": big, "Cookie": big}, ""); a.status != 200 {
		t.Errorf("big headers: %d %q", a.status, a.body)
	}
	// Past the front's header buffer: a 400 from the front, not a 5xx.
	huge := strings.Repeat("v", 64<<10)
	if a := f.call("GET", "/items/1", map[string]string{"X-Huge": huge}, ""); a.status != 400 {
		t.Errorf("huge header: %d %q", a.status, a.body)
	}
}

// raw sends a request line as written (Go's client refuses some paths)
// and returns the status and body.
func (f *fixture) raw(method, path string) (int, string) {
	f.t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(f.srv.URL, "http://"))
	f.must(err)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = io.WriteString(c, method+" "+path+" HTTP/1.1\r\nHost: "+f.api+".execute-api.localhost.localstack.cloud\r\nConnection: close\r\n\r\n")
	f.must(err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	f.must(err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
