package httpapi_test

import (
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"

	"github.com/cloudemu/emulator/actors"
	apigwv2 "github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpapi"
	"github.com/cloudemu/emulator/httpfront"
	"github.com/cloudemu/emulator/httpfront/apigatewayv2http"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/server/servertest"
	"github.com/cloudemu/emulator/store"
)

// inspectFixture is an HTTP API on a front whose executor has insp and
// enforces throttling.
func inspectFixture(t *testing.T, insp *execute.Inspector) *fixture {
	t.Helper()
	log := servertest.Logger()
	cfg := config.Default()
	sys := actors.NewSystem(log, cfg.AskTimeout)
	svc := apigwv2.New(sys, store.NewMemory(), time.Now, log)
	if err := svc.RestoreDone(); err != nil {
		t.Fatal(err)
	}
	exec := httpapi.New(httpapi.Options{APIs: svc, Backend: httpfront.NewBackend(16), Log: log, Inspector: insp,
		EnforceThrottle: true})
	srv, err := httpfront.NewServer(log, httpfront.ServerOptions{DefaultRegion: cfg.DefaultRegion,
		MaxBodyBytes: cfg.MaxBodyBytes, Execute: exec,
		Handlers: map[awswire.Service]map[string]restjson.Handler{awswire.APIGatewayV2: apigatewayv2http.Handlers(svc)}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.FastHTTP().Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.FastHTTP().Shutdown()
		sys.Shutdown()
	})
	url := "http://" + ln.Addr().String()
	c := apigatewayv2.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *apigatewayv2.Options) {
		o.BaseEndpoint = aws.String(url)
	})
	f := &fixture{t: t, srv: &servertest.Server{URL: url, Addr: ln.Addr().String(), Config: cfg}, c: c,
		http: &http.Client{Timeout: 10 * time.Second}}
	api, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("http-api"), ProtocolType: types.ProtocolTypeHttp})
	f.must(err)
	f.api = *api.ApiId
	return f
}

func newest(t *testing.T, insp *execute.Inspector) *execute.Trace {
	t.Helper()
	ts := insp.List(execute.TraceFilter{Limit: 1})
	if len(ts) != 1 {
		t.Fatal("no trace")
	}
	return ts[0]
}

func names(tr *execute.Trace) []string {
	var out []string
	for _, s := range tr.Steps {
		out = append(out, s.Name+"="+s.Outcome)
	}
	return out
}

// TestInspect: an HTTP_PROXY request, a throttled one and one no route
// matches are traced.
func TestInspect(t *testing.T) {
	insp := execute.NewInspector(10)
	f := inspectFixture(t, insp)
	be := echoBackend(t)
	f.route("GET /items/{id}", f.proxy(be.URL+"/i/{id}", nil), nil)
	f.stage("$default", func(in *apigatewayv2.CreateStageInput) {
		in.RouteSettings = map[string]types.RouteSettings{"GET /items/{id}": {ThrottlingBurstLimit: aws.Int32(1), ThrottlingRateLimit: aws.Float64(0.001)}}
	})
	a := f.call("GET", "/items/7?x=1", nil, "")
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	tr := newest(t, insp)
	if tr.Kind != "HTTP" || tr.APIID != f.api || tr.APIName != "http-api" || tr.Stage != "$default" || tr.Route != "GET /items/{id}" ||
		tr.Status != 200 || tr.Decision != "admitted" || tr.Path != "/items/7" || tr.RawQuery != "x=1" || tr.Account == "" ||
		tr.IntegrationLatency <= 0 || tr.Latency < tr.IntegrationLatency {
		t.Errorf("trace %+v", tr)
	}
	if got := names(tr); !slices.Equal(got, []string{"route=matched", "throttle=admitted", "integration=200", "response=200"}) {
		t.Errorf("steps %v", got)
	}
	if s := tr.Steps[2]; !strings.Contains(s.Detail, be.URL+"/i/7") || s.Duration <= 0 {
		t.Errorf("integration step %+v", s)
	}
	if !slices.Contains(tr.ResponseHeaders, execute.NameValue{Name: "X-Backend", Value: "yes"}) {
		t.Errorf("headers %v", tr.ResponseHeaders)
	}

	if a := f.call("GET", "/items/7", nil, ""); a.status != 429 {
		t.Fatalf("throttled: %d", a.status)
	}
	tr = newest(t, insp)
	if got := names(tr); tr.Decision != "throttled" || tr.Status != 429 ||
		!slices.Equal(got, []string{"route=matched", "throttle=throttled", "response=429"}) {
		t.Errorf("throttled: %+v", tr)
	}

	f.call("GET", "/nothing", nil, "").want(t, 404, `{"message":"Not Found"}`)
	if tr = newest(t, insp); tr.Route != "" || tr.Steps[0].Outcome != "no match" || tr.Decision != "" {
		t.Errorf("no route: %+v", tr)
	}
	if insp.Len() != 3 {
		t.Errorf("%d traces", insp.Len())
	}
}
