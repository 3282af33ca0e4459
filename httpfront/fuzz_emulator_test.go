package httpfront_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/server/servertest"
)

// FuzzEmulator sends arbitrary requests to a whole emulator, every real
// handler included, and requires a shaped answer below 500: bad input is
// the client's error, never a crash of the server.
func FuzzEmulator(f *testing.F) {
	for _, s := range []struct{ method, path, body string }{
		{"POST", "/restapis", `{"name":"a","endpointConfiguration":{"types":["PRIVATE"]}}`},
		{"PATCH", "/restapis/API", `{"patchOperations":[{"op":"replace","path":"/name","value":"b"}]}`},
		{"POST", "/restapis/API/resources/ROOT", `{"pathPart":"{proxy+}"}`},
		{"PUT", "/restapis/API/resources/ROOT/methods/GET", `{"authorizationType":"CUSTOM","requestModels":{"application/json":"Empty"}}`},
		{"PUT", "/restapis/API/resources/ROOT/methods/GET/integration", `{"type":"HTTP","uri":"http://x","httpMethod":"GET","timeoutInMillis":10}`},
		{"PUT", "/restapis/API/resources/ROOT/methods/GET/responses/200", `{"responseModels":{"application/json":"Error"}}`},
		{"PATCH", "/restapis/API/stages/dev", `{"patchOperations":[{"op":"replace","path":"/*/*/throttling/rateLimit","value":"NaN"}]}`},
		{"POST", "/restapis/API/deployments", `{"stageName":"dev","variables":{"a":"b"}}`},
		{"POST", "/restapis/API/models", `{"name":"M","contentType":"application/json","schema":"{\"$ref\":\"#/x\"}"}`},
		{"GET", "/restapis/API/models/Empty/default_template", ``},
		{"PUT", "/restapis/API/gatewayresponses/DEFAULT_4XX", `{"statusCode":"499"}`},
		{"POST", "/apikeys", `{"name":"k","value":"` + strings.Repeat("v", 30) + `","enabled":true}`},
		{"POST", "/usageplans", `{"name":"p","quota":{"limit":5,"period":"WEEK","offset":6},"apiStages":[{"apiId":"API","stage":"dev"}]}`},
		{"GET", "/usageplans/PLAN/usage?startDate=2026-01-01&endDate=2026-12-31", ``},
		{"POST", "/domainnames", `{"domainName":"a.example.com","endpointConfiguration":{"types":["REGIONAL"]}}`},
		{"POST", "/domainnames/a.example.com/basepathmappings", `{"restApiId":"API","basePath":""}`},
		{"POST", "/vpclinks", `{"name":"l","targetArns":["arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/net/x/y"]}`},
		{"PUT", "/tags/arn%3Aaws%3Aapigateway%3Aus-east-1%3A%3A%2Frestapis%2FAPI", `{"tags":{"a":"b"}}`},
		{"DELETE", "/tags/arn%3Aaws%3Aapigateway%3Aus-east-1%3A%3A%2Frestapis%2FAPI?tagKeys=a,b", ``},
		{"PUT", "/backup/plans", `{"BackupPlan":{"BackupPlanName":"p","Rules":[{"RuleName":"r","TargetBackupVaultName":"vv"}]}}`},
		{"PUT", "/backup-vaults/v1", `{"BackupVaultTags":{"a":"b"}}`},
		// Requests to the deployed stage (see the set-up below).
		{"GET", "/restapis/API/dev/_user_request_/a/b?x=1&x=2", ``},
		{"POST", "/restapis/API/dev/_user_request_/m", `{"a": [1, {"b": null}], "c": "\u00e9"}`},
		{"PUT", "/_aws/execute-api/API/dev/%2e%2e//x", `not json`},
		{"DELETE", "/_cloud/execute-api/API/nostage/x", ``},
		{"PATCH", "/restapis/API/dev/_user_request_", `[]`},
		{"OPTIONS", "/restapis/nothing/dev/_user_request_/", ``},
	} {
		f.Add(s.method, s.path, s.body)
	}
	// A panic is answered 500 like a legitimate failure of a stage; the log
	// tells them apart.
	var panics panicLog
	srv := servertest.StartWithLog(f, slog.New(slog.NewTextHandler(&panics, &slog.HandlerOptions{Level: slog.LevelError})))
	h := srv.Emulator.Handler()
	send := func(method, path, body string) *fasthttp.RequestCtx {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(method)
		ctx.Request.SetRequestURI(path)
		ctx.Request.SetBodyString(body)
		h(&ctx)
		return &ctx
	}
	// Real ids for the seeds' placeholders.
	ctx := send("POST", "/restapis", `{"name":"fuzz"}`)
	var api struct{ ID, RootResourceID string }
	_ = json.Unmarshal(ctx.Response.Body(), &struct {
		ID   *string `json:"id"`
		Root *string `json:"rootResourceId"`
	}{&api.ID, &api.RootResourceID})
	ctx = send("POST", "/usageplans", `{"name":"fuzz"}`)
	var plan struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(ctx.Response.Body(), &plan)
	fill := strings.NewReplacer("API", api.ID, "ROOT", api.RootResourceID, "PLAN", plan.ID)
	// A stage whose greedy MOCK method validates the body against a model
	// and renders the request into both templates.
	created := func(method, path, body string) string {
		var r struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(send(method, fill.Replace(path), body).Response.Body(), &r)
		return r.ID
	}
	created("POST", "/restapis/API/models", `{"name":"Body","contentType":"application/json","schema":"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\"}}}"}`)
	validator := created("POST", "/restapis/API/requestvalidators", `{"name":"v","validateRequestBody":true,"validateRequestParameters":true}`)
	proxy := created("POST", "/restapis/API/resources/ROOT", `{"pathPart":"{proxy+}"}`)
	fill = strings.NewReplacer("API", api.ID, "ROOT", api.RootResourceID, "PLAN", plan.ID, "VALIDATOR", validator, "PROXY", proxy)
	for _, st := range []struct{ method, path, body string }{
		{"PUT", "/restapis/API/resources/PROXY/methods/ANY", `{"authorizationType":"NONE","requestValidatorId":"VALIDATOR","requestModels":{"application/json":"Body"},"requestParameters":{"method.request.path.proxy":true}}`},
		{"PUT", "/restapis/API/resources/PROXY/methods/ANY/integration", `{"type":"MOCK","requestTemplates":{"application/json":"#set($b = $input.json('$.a'))#set($context.responseOverride.header.x = $input.params('proxy')){\"statusCode\": 200}"}}`},
		{"PUT", "/restapis/API/resources/PROXY/methods/ANY/responses/200", `{}`},
		{"PUT", "/restapis/API/resources/PROXY/methods/ANY/integration/responses/200", `{"responseTemplates":{"application/json":"{\"p\": \"$util.escapeJavaScript($input.params('proxy'))\", \"path\": \"$context.path\", \"q\": \"$input.params().querystring\"}"}}`},
		{"POST", "/restapis/API/deployments", `{"stageName":"dev"}`},
	} {
		if ctx := send(st.method, fill.Replace(st.path), fill.Replace(st.body)); ctx.Response.StatusCode() >= 300 {
			f.Fatalf("set-up %s %s: %d %s", st.method, st.path, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}

	f.Fuzz(func(t *testing.T, method, path, body string) {
		if len(path) == 0 || path[0] != '/' || len(path) > 4096 || len(body) > 1<<16 {
			return
		}
		p := fill.Replace(path)
		ctx := send(method, p, body)
		st := ctx.Response.StatusCode()
		if panics.seen() {
			t.Fatalf("%s %s %q: panicked (%d %s)", method, path, body, st, ctx.Response.Body())
		}
		// A stage's own failures are 5xx by design; everything else is the
		// client's error.
		if st >= 500 && st != 501 && !isExecute(p) {
			t.Fatalf("%s %s %q: %d %s", method, path, body, st, ctx.Response.Body())
		}
	})
}

func isExecute(p string) bool {
	return strings.Contains(p, "/_user_request_") || strings.HasPrefix(p, "/_aws/execute-api/") ||
		strings.HasPrefix(p, "/_cloud/execute-api/")
}

// panicLog records whether the server logged a panic.
type panicLog struct{ n atomic.Int32 }

func (p *panicLog) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("panic")) {
		p.n.Add(1)
	}
	return len(b), nil
}

func (p *panicLog) seen() bool { return p.n.Load() > 0 }
