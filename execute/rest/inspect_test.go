package rest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/rest"
)

// inspectFixture is a fixture whose executor has the inspector insp (nil:
// none), the Function fns (nil: none), and enforces throttling when
// enforce is set. The front is built as startFront builds it.
func inspectFixture(t testing.TB, insp *execute.Inspector, fns rest.Function, enforce bool) *fixture {
	t.Helper()
	srv, h := startFrontWith(t, func(o *rest.Options) {
		o.Inspector, o.EnforceThrottle = insp, enforce
		if fns != nil {
			o.Functions = fns
		}
	})
	f := newFixtureOn(t, srv)
	f.handler = h
	return f
}

// only returns the one trace the inspector holds.
func only(t *testing.T, insp *execute.Inspector) *execute.Trace {
	t.Helper()
	ts := insp.List(execute.TraceFilter{})
	if len(ts) != 1 {
		t.Fatalf("%d traces, want 1", len(ts))
	}
	return ts[0]
}

// latest returns the newest trace, and empties the inspector.
func latest(t *testing.T, insp *execute.Inspector) *execute.Trace {
	t.Helper()
	ts := insp.List(execute.TraceFilter{Limit: 1})
	if len(ts) != 1 {
		t.Fatalf("no trace")
	}
	insp.Reset()
	return ts[0]
}

func stepNames(tr *execute.Trace) []string {
	var out []string
	for _, s := range tr.Steps {
		out = append(out, s.Name)
	}
	return out
}

func step(t *testing.T, tr *execute.Trace, name string) execute.TraceStep {
	t.Helper()
	for _, s := range tr.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no %q step in %+v", name, tr.Steps)
	return execute.TraceStep{}
}

// logLines are a log's messages without their dates.
func logLines(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if _, msg, ok := strings.Cut(l, " : "); ok {
			out = append(out, msg)
		}
	}
	return out
}

// TestInspectMock: a MOCK request is traced with its steps, its response
// and the execution log TestInvokeMethod writes for the same method.
func TestInspectMock(t *testing.T) {
	insp := execute.NewInspector(10)
	f := inspectFixture(t, insp, nil, false)
	rid := f.mock("/pets/{id}", "GET", `{"id": "$input.params('id')", "stage": "$context.stage"}`)
	f.deploy("dev", nil)
	a := f.call("GET", "dev", "/pets/42?q=1", nil, "")
	a.want(t, 200, `{"id": "42", "stage": "dev"}`)

	tr := only(t, insp)
	if tr.Kind != "REST" || tr.APIID != f.api || tr.APIName != "test-api" || tr.Account != "000000000000" ||
		tr.Region != "us-east-1" || tr.Stage != "dev" || tr.Method != "GET" || tr.Path != "/pets/42" ||
		tr.RawQuery != "q=1" || tr.Route != "/pets/{id}" || tr.Status != 200 || tr.Decision != execute.DecisionAdmitted ||
		tr.ErrorType != "" || tr.Latency <= 0 || tr.Received.IsZero() {
		t.Errorf("trace %+v", tr)
	}
	if tr.RequestID != a.header.Get("x-amzn-RequestId") {
		t.Errorf("request id %q, header %q", tr.RequestID, a.header.Get("x-amzn-RequestId"))
	}
	if got, ok := insp.Get(tr.RequestID); !ok || got != tr {
		t.Error("Get does not find the trace")
	}
	want := []string{"route", "throttle", "request template", "integration", "integration response", "response template", "response"}
	if got := stepNames(tr); !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	if s := step(t, tr, "route"); s.Outcome != "matched" || s.Detail != "GET /pets/{id}" {
		t.Errorf("route %+v", s)
	}
	if s := step(t, tr, "request template"); s.Outcome != "static" || s.Detail != `{"statusCode": 200}` {
		t.Errorf("request template %+v", s)
	}
	if s := step(t, tr, "integration"); s.Outcome != "200" || s.Detail != "MOCK" {
		t.Errorf("integration %+v", s)
	}
	if s := step(t, tr, "integration response"); s.Outcome != "selected" || !strings.Contains(s.Detail, "status 200") {
		t.Errorf("integration response %+v", s)
	}
	if s := step(t, tr, "response template"); s.Outcome != "rendered" || s.Detail != `{"id": "42", "stage": "dev"}` {
		t.Errorf("response template %+v", s)
	}
	if s := step(t, tr, "response"); s.Outcome != "200" {
		t.Errorf("response %+v", s)
	}
	if !slices.Contains(tr.ResponseHeaders, execute.NameValue{Name: "Content-Type", Value: "application/json"}) ||
		!slices.Contains(tr.ResponseHeaders, execute.NameValue{Name: "x-amzn-RequestId", Value: tr.RequestID}) {
		t.Errorf("headers %v", tr.ResponseHeaders)
	}

	// TestInvokeMethod is not traced, and its log is the served log's, but
	// for what the request carried.
	out, err := f.c.TestInvokeMethod(ctx, &apigateway.TestInvokeMethodInput{RestApiId: &f.api, ResourceId: &rid,
		HttpMethod: aws.String("GET"), PathWithQueryString: aws.String("/pets/42?q=1")})
	f.must(err)
	if insp.Len() != 1 {
		t.Errorf("TestInvokeMethod was traced: %d traces", insp.Len())
	}
	served := logLines(tr.Log)
	for _, l := range logLines(*out.Log) {
		if strings.HasPrefix(l, "Starting execution") || strings.HasPrefix(l, "Method request headers") ||
			strings.Contains(l, "test-invoke-stage") {
			continue
		}
		if !slices.Contains(served, l) {
			t.Errorf("served log lacks %q:\n%s", l, tr.Log)
		}
	}
	if !strings.HasPrefix(tr.Log, "Execution log for request "+tr.RequestID+"\n") ||
		served[len(served)-1] != "Method completed with status: 200" {
		t.Errorf("log:\n%s", tr.Log)
	}

	// No route: traced with no method, nothing decided.
	f.call("GET", "dev", "/cats", nil, "").want(t, 403, `{"message":"Missing Authentication Token"}`)
	tr = latest(t, insp)
	if tr.Route != "" || tr.Status != 403 || tr.Decision != "" || tr.ErrorType != "MissingAuthenticationTokenException" ||
		step(t, tr, "route").Outcome != "no match" {
		t.Errorf("no route: %+v", tr)
	}
	// An unknown API.
	f.do("GET", f.srv.URL+"/restapis/nope123/dev/_user_request_/pets", "", nil, "")
	tr = latest(t, insp)
	if tr.APIID != "nope123" || tr.Status != 404 || tr.ErrorType != "NotFoundException" || step(t, tr, "route").Outcome != "not deployed" {
		t.Errorf("unknown API: %+v", tr)
	}
}

// TestInspectThrottled: a request a usage plan throttles is traced with the
// decision, the key and the plan; so are the admitted one before it, one
// without a key and one over the quota.
func TestInspectThrottled(t *testing.T) {
	insp := execute.NewInspector(10)
	k := keyedOn(t, inspectFixture(t, insp, nil, true), &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 1, RateLimit: slow}}, "inspect-key-0123456789", "/pets")
	k.get("/pets").want(t, 200, `{}`)
	tr := latest(t, insp)
	if tr.Decision != "admitted" || tr.APIKeyID != k.key || tr.UsagePlanID != k.plan || step(t, tr, "api key").Outcome != "accepted" {
		t.Errorf("admitted: %+v", tr)
	}
	if strings.Contains(tr.Log, k.value) || !strings.Contains(tr.Log, "Usage Plan check succeeded for API Key ******************6789") {
		t.Errorf("log shows the key, or not the plan check:\n%s", tr.Log)
	}

	k.get("/pets").wantError(t, 429, tooMany, "TooManyRequestsException")
	tr = latest(t, insp)
	if tr.Status != 429 || tr.Decision != "throttled" || tr.APIKeyID != k.key || tr.UsagePlanID != k.plan ||
		tr.ErrorType != "TooManyRequestsException" {
		t.Errorf("throttled: %+v", tr)
	}
	if s := step(t, tr, "throttle"); s.Outcome != "throttled" || !strings.Contains(s.Detail, "client limit of usage plan "+k.plan) {
		t.Errorf("throttle step %+v", s)
	}
	if got := stepNames(tr); !slices.Equal(got, []string{"route", "api key", "throttle", "response"}) {
		t.Errorf("steps %v", got)
	}
	if s := step(t, tr, "response"); s.Detail != "gateway response THROTTLED: Too Many Requests" {
		t.Errorf("response step %+v", s)
	}

	k.call("GET", "dev", "/pets", nil, "").wantError(t, 403, `{"message":"Forbidden"}`, "ForbiddenException")
	tr = latest(t, insp)
	if tr.Decision != "missing key" || step(t, tr, "api key").Outcome != "missing" {
		t.Errorf("missing key: %+v", tr)
	}
	k.call("GET", "dev", "/pets", map[string]string{"x-api-key": "nope"}, "").want(t, 403, `{"message":"Forbidden"}`)
	if tr = latest(t, insp); tr.Decision != "forbidden" || step(t, tr, "api key").Outcome != "unknown" {
		t.Errorf("unknown key: %+v", tr)
	}

	q := keyedOn(t, inspectFixture(t, insp, nil, true), &apigateway.CreateUsagePlanInput{
		Quota: &types.QuotaSettings{Limit: 1, Period: types.QuotaPeriodTypeDay}}, "inspect-key-0123456789", "/pets")
	q.get("/pets").want(t, 200, `{}`)
	q.get("/pets").wantError(t, 429, limitExceeded, "LimitExceededException")
	if tr = latest(t, insp); tr.Decision != "quota exceeded" || tr.UsagePlanID != q.plan || step(t, tr, "throttle").Outcome != "quota exceeded" {
		t.Errorf("quota: %+v", tr)
	}
}

// TestInspectThrottleNotEnforced: a refusal that is only counted is traced
// as such, and the request admitted.
func TestInspectThrottleNotEnforced(t *testing.T) {
	insp := execute.NewInspector(10)
	k := keyedOn(t, inspectFixture(t, insp, nil, false), &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 1, RateLimit: slow}}, "inspect-key-0123456789", "/pets")
	k.get("/pets").want(t, 200, `{}`)
	k.get("/pets").want(t, 200, `{}`)
	tr := latest(t, insp)
	if tr.Decision != "admitted" || tr.Status != 200 || step(t, tr, "throttle").Outcome != "throttled (not enforced)" {
		t.Errorf("trace %+v", tr)
	}
}

// TestInspectAuthorizer: a denied, an unauthorized, an allowed and a cached
// answer of a TOKEN authorizer.
func TestInspectAuthorizer(t *testing.T) {
	insp := execute.NewInspector(10)
	fns := newFakeFunctions()
	fns.set(lambdaARN("auth"), tokenAuthorizer)
	f := inspectFixture(t, insp, fns, false)
	id := f.authorizer(&apigateway.CreateAuthorizerInput{Type: types.AuthorizerTypeToken,
		IdentitySource: aws.String("method.request.header.Authorization"), AuthorizerUri: aws.String(lambdaURI("auth")),
		AuthorizerResultTtlInSeconds: aws.Int32(300)})
	f.guarded("/pets/{id}", id)
	f.deploy("dev", nil)

	a := f.call("GET", "dev", "/pets/1", map[string]string{"Authorization": "deny"}, "")
	if a.status != 403 {
		t.Fatalf("deny: %d %s", a.status, a.body)
	}
	tr := latest(t, insp)
	s := step(t, tr, "authorizer")
	if tr.Decision != "forbidden" || tr.ErrorType != "AccessDeniedException" || s.Outcome != "denied" ||
		!strings.Contains(s.Detail, "principal user-2") || !strings.Contains(s.Detail, "explicit deny") {
		t.Errorf("deny: %+v %+v", tr, s)
	}
	if !strings.Contains(tr.Log, "Starting authorizer: "+id) {
		t.Errorf("log:\n%s", tr.Log)
	}
	if got := stepNames(tr); !slices.Equal(got, []string{"route", "authorizer", "response"}) {
		t.Errorf("steps %v", got)
	}

	a = f.call("GET", "dev", "/pets/1", map[string]string{"Authorization": "unauthorized"}, "")
	if a.status != 401 {
		t.Fatalf("unauthorized: %d %s", a.status, a.body)
	}
	if tr = latest(t, insp); tr.Decision != "unauthorized" || step(t, tr, "authorizer").Outcome != "unauthorized" {
		t.Errorf("unauthorized: %+v", tr)
	}

	f.call("GET", "dev", "/pets/1", map[string]string{"Authorization": "allow"}, "")
	tr = latest(t, insp)
	if s := step(t, tr, "authorizer"); s.Outcome != "allowed" || strings.Contains(s.Detail, "cache") || tr.Decision != "admitted" {
		t.Errorf("allow: %+v %+v", tr, s)
	}
	f.call("GET", "dev", "/pets/1", map[string]string{"Authorization": "allow"}, "")
	if s := step(t, latest(t, insp), "authorizer"); s.Outcome != "allowed" || !strings.Contains(s.Detail, "from the cache") {
		t.Errorf("cached: %+v", s)
	}
}

// TestInspectValidator: a request a validator refuses.
func TestInspectValidator(t *testing.T) {
	insp := execute.NewInspector(10)
	f := inspectFixture(t, insp, nil, false)
	v, err := f.c.CreateRequestValidator(ctx, &apigateway.CreateRequestValidatorInput{RestApiId: &f.api, Name: aws.String("params"),
		ValidateRequestParameters: true})
	f.must(err)
	rid := f.mock("/search", "GET", `{"ok": true}`)
	_, err = f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("GET"),
		PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/requestValidatorId"), Value: v.Id},
			{Op: types.OpAdd, Path: aws.String("/requestParameters/method.request.querystring.q"), Value: aws.String("true")},
		}})
	f.must(err)
	f.deploy("dev", nil)
	f.call("GET", "dev", "/search", nil, "").want(t, 400, `{"message": "Missing required request parameters: [q]"}`)
	tr := latest(t, insp)
	if s := step(t, tr, "validator"); tr.Status != 400 || tr.ErrorType != "BadRequestException" || s.Outcome != "missing parameters" || s.Detail != "q" {
		t.Errorf("trace %+v", tr)
	}
	f.call("GET", "dev", "/search?q=x", nil, "").want(t, 200, `{"ok": true}`)
	if s := step(t, latest(t, insp), "validator"); s.Outcome != "passed" {
		t.Errorf("validator %+v", s)
	}
}

// TestInspectNil: without an inspector requests are served as before.
func TestInspectNil(t *testing.T) {
	f := inspectFixture(t, nil, nil, false)
	f.mock("/pets", "GET", `{"ok": true}`)
	f.deploy("dev", nil)
	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{"ok": true}`)
}

// TestInspectRing: the ring keeps the newest traces only.
func TestInspectRing(t *testing.T) {
	insp := execute.NewInspector(3)
	f := inspectFixture(t, insp, nil, false)
	f.mock("/{proxy+}", "ANY", `{}`)
	f.deploy("dev", nil)
	for _, p := range []string{"/a", "/b", "/c", "/d", "/e"} {
		f.call("GET", "dev", p, nil, "").want(t, 200, `{}`)
	}
	var paths []string
	for _, tr := range insp.List(execute.TraceFilter{}) {
		paths = append(paths, tr.Path)
	}
	if !slices.Equal(paths, []string{"/e", "/d", "/c"}) || insp.Len() != 3 || insp.Seq() != 5 {
		t.Fatalf("paths %v, len %d, seq %d", paths, insp.Len(), insp.Seq())
	}
}

// TestInspectVerbatim: a hostile API name and path are kept as they are
// (escaping them is the reader's job); a large body cannot make a trace
// large.
func TestInspectVerbatim(t *testing.T) {
	insp := execute.NewInspector(3)
	f := inspectFixture(t, insp, nil, false)
	name := `<script>alert("x")</script>&amp;'`
	_, err := f.c.UpdateRestApi(ctx, &apigateway.UpdateRestApiInput{RestApiId: &f.api, PatchOperations: []types.PatchOperation{
		{Op: types.OpReplace, Path: aws.String("/name"), Value: aws.String(name)}}})
	f.must(err)
	f.mock("/{proxy+}", "ANY", `{}`)
	f.deploy("dev", nil)
	path := `/<img src=x onerror=alert(1)>"'&`
	if status := rawStatus(t, f.srv.Addr, "GET /restapis/"+f.api+"/dev/_user_request_"+strings.ReplaceAll(path, " ", "%20")+
		" HTTP/1.1\r\nHost: x\r\n\r\n"); status != 200 {
		t.Fatalf("status %d", status)
	}
	tr := latest(t, insp)
	if tr.APIName != name || tr.Path != strings.ReplaceAll(path, " ", "%20") {
		t.Errorf("name %q, path %q", tr.APIName, tr.Path)
	}

	f.call("POST", "dev", "/big", nil, strings.Repeat("x", 200<<10)).want(t, 200, `{}`)
	tr = latest(t, insp)
	if len(tr.Log) > execute.MaxTraceLog || !strings.HasSuffix(tr.Log, execute.Truncated) || tr.Size() > 40<<10 {
		t.Errorf("log of %d bytes, trace of %d", len(tr.Log), tr.Size())
	}
	t.Logf("a MOCK request's trace: %d bytes (a 200 KiB body: %d)", only0(t, f, insp), tr.Size())
}

// only0 is the size of a small MOCK request's trace.
func only0(t *testing.T, f *fixture, insp *execute.Inspector) int {
	f.call("GET", "dev", "/pets/42", nil, "").want(t, 200, `{}`)
	return latest(t, insp).Size()
}

// BenchmarkExecuteMockInspector is BenchmarkExecuteMock on a front whose
// executor has no inspector, and one whose sampling is taken: what an
// untraced request costs.
func BenchmarkExecuteMockInspector(b *testing.B) {
	for _, c := range []struct {
		name string
		insp *execute.Inspector
	}{{"nil", nil}, {"exhausted", execute.NewInspector(100)}} {
		b.Run(c.name, func(b *testing.B) {
			f := inspectFixture(b, c.insp, nil, false)
			f.mock("/pets/{id}", "GET", `{"id": "$input.params('id')", "stage": "$context.stage"}`)
			f.deploy("dev", nil)
			// The front stamps every request of the benchmark with the
			// same time: past the first 100, none is traced.
			benchExecute(b, f, "GET", "/restapis/"+f.api+"/dev/_user_request_/pets/42", 200)
		})
	}
}
