package httpfront_test

import (
	"encoding/json"
	"strings"
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
	} {
		f.Add(s.method, s.path, s.body)
	}
	srv := servertest.Start(f)
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

	f.Fuzz(func(t *testing.T, method, path, body string) {
		if len(path) == 0 || path[0] != '/' || len(path) > 4096 || len(body) > 1<<16 {
			return
		}
		ctx := send(method, fill.Replace(path), body)
		if st := ctx.Response.StatusCode(); st >= 500 && st != 501 {
			t.Fatalf("%s %s %q: %d %s", method, path, body, st, ctx.Response.Body())
		}
	})
}
