package rest

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
)

// TestInvokeInput is TestInvokeMethod's request body.
type TestInvokeInput struct {
	PathWithQueryString *string             `json:"pathWithQueryString"`
	Body                string              `json:"body"`
	Headers             map[string]string   `json:"headers"`
	MultiValueHeaders   map[string][]string `json:"multiValueHeaders"`
	StageVariables      map[string]string   `json:"stageVariables"`
	ClientCertificateID string              `json:"clientCertificateId"`
}

// TestInvokeOutput is TestInvokeMethod's answer.
type TestInvokeOutput struct {
	Status            int                 `json:"status"`
	Body              string              `json:"body"`
	Headers           map[string]string   `json:"headers"`
	MultiValueHeaders map[string][]string `json:"multiValueHeaders"`
	Log               string              `json:"log"`
	Latency           int64               `json:"latency"`
}

// testStage is the stage name a test invocation runs in.
const testStage = "test-invoke-stage"

// TestInvoke runs a method of an API's live (undeployed) configuration as
// TestInvokeMethod does (docs/testinvoke-log.md): no routing, no
// authorizer, no API key; the validators, the integration and the
// responses run for real, and the execution log is returned.
func (e *Executor) TestInvoke(sc awswire.Scope, apiID, resourceID, httpMethod string, in TestInvokeInput) (*TestInvokeOutput, error) {
	api, ok := e.apis.API(sc, apiID)
	if !ok {
		return nil, awswire.New(awswire.APIGateway, awswire.CodeNotFound, "Invalid Resource identifier specified")
	}
	res, ok := api.Resources.Get(resourceID)
	if !ok {
		return nil, awswire.New(awswire.APIGateway, awswire.CodeNotFound, "Invalid Resource identifier specified")
	}
	verb := httpMethod
	if _, ok := res.Methods[verb]; !ok {
		if _, ok := res.Methods["ANY"]; !ok {
			return nil, awswire.New(awswire.APIGateway, awswire.CodeNotFound, "Invalid Method identifier specified")
		}
		verb = "ANY"
	}
	dep := liveOf(api)
	m := dep.methods[methodKey{resourceID, verb}]

	received := e.now()
	var idBuf [36]byte
	req := &execute.Request{APIID: apiID, Stage: testStage, Method: httpMethod, Body: []byte(in.Body),
		Host: apiID + ".execute-api." + sc.Region + ".amazonaws.com", SourceIP: "test-invoke-source-ip",
		Protocol: "HTTP/1.1", RequestID: string(e.ids.Append(idBuf[:0])), Received: received}
	for _, k := range slices.Sorted(maps.Keys(in.Headers)) {
		req.Headers = append(req.Headers, execute.Header{Name: k, Value: in.Headers[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(in.MultiValueHeaders)) {
		for _, v := range in.MultiValueHeaders[k] {
			req.Headers = append(req.Headers, execute.Header{Name: k, Value: v})
		}
	}
	match := Match{ResourceID: resourceID, ResourcePath: res.Path, Method: verb}
	logPath := res.Path
	if in.PathWithQueryString != nil {
		path, query, _ := strings.Cut(*in.PathWithQueryString, "?")
		req.Path, req.RawQuery, logPath = path, query, path
		// Only the path matters here; ANY matches the seven methods only,
		// so the route is matched under one of them.
		if mm, ok := CompileRoutes([]RouteSpec{{Path: res.Path, ResourceID: resourceID, Methods: []string{"ANY"}}}).
			Match("GET", path); ok {
			match.Params = mm.Params
		}
	} else {
		req.Path = res.Path
		for _, seg := range splitPath(res.Path) {
			if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
				name := strings.TrimSuffix(seg[1:len(seg)-1], "+")
				match.Params = append(match.Params, Param{name, seg})
			}
		}
	}
	if logPath == "" {
		logPath = "/"
	}

	resp := &execute.Response{}
	inv := e.acquire(req, resp)
	defer inv.release()
	inv.api, inv.scope, inv.dep, inv.match, inv.m = api, sc, dep, match, m
	inv.vars = in.StageVariables
	inv.log = &testLog{}
	inv.log.start(received, req.RequestID)
	inv.trace("HTTP Method: " + httpMethod + ", Resource Path: " + logPath)
	inv.trace("Method request path: " + javaParams(match.Params))
	inv.trace("Method request query string: " + javaQuery(inv.queryParams()))
	inv.trace("Method request headers: " + javaHeaders(req.Headers))
	inv.trace("Method request body before transformations: " + in.Body)
	inv.run()
	inv.trace("Method completed with status: " + strconv.Itoa(resp.Status))

	out := &TestInvokeOutput{Status: resp.Status, Body: string(resp.Body), Headers: map[string]string{},
		MultiValueHeaders: map[string][]string{}, Log: inv.log.b.String(),
		Latency: e.now().Sub(received).Milliseconds()}
	for _, h := range resp.Headers {
		if inv.err != nil && !strings.EqualFold(h.Name, "x-amzn-ErrorType") {
			continue
		}
		if strings.EqualFold(h.Name, "x-amzn-RequestId") || strings.EqualFold(h.Name, "x-amz-apigw-id") {
			continue
		}
		out.Headers[h.Name] = h.Value
		out.MultiValueHeaders[h.Name] = append(out.MultiValueHeaders[h.Name], h.Value)
	}
	return out, nil
}

// liveOf compiles an API's live configuration once per published state.
func liveOf(api *apigateway.RestAPI) *compiled {
	if api.Memo == nil {
		return compile(&api.Config)
	}
	return api.Memo.Exec.Get(func() any { return compile(&api.Config) }).(*compiled)
}

// testLog is TestInvokeMethod's execution log: a first line, then one
// "<Java date> : <message>" line per step.
type testLog struct {
	b   strings.Builder
	now time.Time
	// max bounds the log in bytes (a traced served request's; 0: no
	// bound); cut: a line was cut or dropped.
	max int
	cut bool
}

// javaDate is java.util.Date's toString in UTC.
const javaDate = "Mon Jan 02 15:04:05 MST 2006"

func (l *testLog) start(now time.Time, requestID string) {
	l.now = now.UTC()
	l.b.WriteString("Execution log for request " + requestID + "\n")
	l.add("Starting execution for request: " + requestID)
}

func (l *testLog) add(msg string) {
	if l.max > 0 {
		// Stop writing at the bound, rather than build a large log to cut.
		room := l.max - len(execute.Truncated) - l.b.Len() - len(javaDate) - 4
		if room <= 0 {
			l.cut = true
			return
		}
		if len(msg) > room {
			msg, l.cut = execute.TruncateText(msg, room), true
		}
	}
	l.b.WriteString(l.now.Format(javaDate))
	l.b.WriteString(" : ")
	l.b.WriteString(msg)
	l.b.WriteByte('\n')
}

// text is the log, marked when the bound cut it.
func (l *testLog) text() string {
	if l.cut {
		l.b.WriteString(execute.Truncated)
	}
	return l.b.String()
}

// trace adds a line to the execution log: TestInvokeMethod's, or a traced
// served request's; other requests keep no log.
func (inv *invocation) trace(msg string) {
	if inv.log != nil {
		inv.log.add(msg)
	}
}

// maxLogMap bounds a map printed in the log, as AWS cuts long ones.
const maxLogMap = 1024

// javaHeaders prints headers as a Java map ({k=v, k2=v2}), Authorization
// values masked but for their last six characters.
func javaHeaders(h execute.Headers) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range h {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name)
		b.WriteByte('=')
		v := f.Value
		if strings.EqualFold(f.Name, "Authorization") && len(v) > 6 {
			v = strings.Repeat("*", len(v)-6) + v[len(v)-6:]
		}
		b.WriteString(v)
		if b.Len() > maxLogMap {
			return b.String()[:maxLogMap] + " [TRUNCATED]"
		}
	}
	b.WriteByte('}')
	return b.String()
}

func javaParams(ps []Param) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name + "=" + p.Value)
	}
	b.WriteByte('}')
	return b.String()
}

func javaQuery(q []execute.QueryParam) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range q {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name + "=" + p.Last())
	}
	b.WriteByte('}')
	return b.String()
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// traceResponse logs the method response TestInvokeMethod shows: the body
// and the headers, without the identity headers.
func (inv *invocation) traceResponse() {
	if inv.log == nil {
		return
	}
	inv.trace("Method response body after transformations: " + string(inv.resp.Body))
	var h execute.Headers
	for _, f := range inv.resp.Headers {
		if !strings.EqualFold(f.Name, "x-amzn-RequestId") && !strings.EqualFold(f.Name, "x-amz-apigw-id") {
			h = append(h, f)
		}
	}
	inv.trace("Method response headers: " + javaHeaders(h))
}

// TestInvokeAuthorizerInput is TestInvokeAuthorizer's request body. The
// body and additionalContext are accepted and not used: a Lambda
// authorizer's events carry neither.
type TestInvokeAuthorizerInput struct {
	Headers             map[string]string   `json:"headers"`
	MultiValueHeaders   map[string][]string `json:"multiValueHeaders"`
	PathWithQueryString *string             `json:"pathWithQueryString"`
	Body                string              `json:"body"`
	StageVariables      map[string]string   `json:"stageVariables"`
	AdditionalContext   map[string]string   `json:"additionalContext"`
}

// TestInvokeAuthorizerOutput is TestInvokeAuthorizer's answer.
type TestInvokeAuthorizerOutput struct {
	// ClientStatus is what the client would have got from the authorizer:
	// 200 when it answered a policy (whatever the policy says: no method
	// is called), 401, or 500.
	ClientStatus  int                 `json:"clientStatus"`
	Log           string              `json:"log"`
	Latency       int64               `json:"latency"`
	PrincipalID   string              `json:"principalId,omitempty"`
	Policy        string              `json:"policy,omitempty"`
	Authorization map[string][]string `json:"authorization,omitempty"`
	Claims        map[string]string   `json:"claims,omitempty"`
}

// testAuthorizerStage is the stage a test authorizer invocation's method
// ARN names.
const testAuthorizerStage = "ESTestInvoke-stage"

// TestInvokeAuthorizer runs an authorizer of an API's live configuration
// as TestInvokeAuthorizer does: a GET of pathWithQueryString (or /) with
// the given headers and stage variables goes to the Lambda authorizer,
// uncached; the answer is the principal, the policy, the context (as
// authorization) and the execution log. Cognito authorizers, and Lambda
// ones while no Function is plugged in, answer clientStatus 500.
func (e *Executor) TestInvokeAuthorizer(sc awswire.Scope, apiID, authorizerID string, in TestInvokeAuthorizerInput) (*TestInvokeAuthorizerOutput, error) {
	api, ok := e.apis.API(sc, apiID)
	if !ok {
		return nil, apigateway.AuthorizerNotFound()
	}
	dep := liveOf(api)
	a := dep.authorizers[authorizerID]
	if a == nil {
		return nil, apigateway.AuthorizerNotFound()
	}
	received := e.now()
	var idBuf [36]byte
	req := &execute.Request{APIID: api.API.ID, Stage: testAuthorizerStage, Method: "GET", Path: "/",
		Body: []byte(in.Body), Host: api.API.ID + ".execute-api." + sc.Region + ".amazonaws.com",
		SourceIP: "test-invoke-source-ip", Protocol: "HTTP/1.1", RequestID: string(e.ids.Append(idBuf[:0])),
		Received: received}
	if in.PathWithQueryString != nil {
		path, query, _ := strings.Cut(*in.PathWithQueryString, "?")
		if path != "" {
			req.Path = path
		}
		req.RawQuery = query
	}
	for _, k := range slices.Sorted(maps.Keys(in.Headers)) {
		req.Headers = append(req.Headers, execute.Header{Name: k, Value: in.Headers[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(in.MultiValueHeaders)) {
		for _, v := range in.MultiValueHeaders[k] {
			req.Headers = append(req.Headers, execute.Header{Name: k, Value: v})
		}
	}
	resp := &execute.Response{}
	inv := e.acquire(req, resp)
	defer inv.release()
	inv.api, inv.scope, inv.dep = api, sc, dep
	inv.vars = in.StageVariables
	inv.log = &testLog{}
	inv.log.start(received, req.RequestID)
	out := &TestInvokeAuthorizerOutput{ClientStatus: 200}
	if e.functions == nil || (a.kind != "TOKEN" && a.kind != "REQUEST") {
		inv.trace(errAuthorizer.log)
		out.ClientStatus = 500
	} else if res, ge := inv.authorizerResult(e.functions, a, inv.methodArn(), false); ge != nil {
		out.ClientStatus = builtinStatus(ge.responseType)
	} else {
		out.PrincipalID, out.Policy = res.principalID, res.policy
		if len(res.context) > 0 {
			out.Authorization = make(map[string][]string, len(res.context))
			for _, c := range res.context {
				out.Authorization[c.Name] = []string{c.Value}
			}
		}
		inv.trace("Successfully completed authorizer execution")
	}
	out.Log = inv.log.b.String()
	out.Latency = e.now().Sub(received).Milliseconds()
	return out, nil
}
