package httpevent_test

import (
	"errors"
	"testing"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpevent"
)

// routeArn is the route the authorizer tests decide, as the docs'
// example names one (http-api-lambda-authorizer).
const routeArn = "arn:aws:execute-api:us-east-1:123456789012:abcdef123/test/GET/request"

// policy is an IAM policy answer with the statements given.
func policy(statements string) execute.FunctionReply {
	return reply(`{"principalId":"abcdef","policyDocument":{"Version":"2012-10-17","Statement":` + statements +
		`},"context":{"exampleKey":"exampleValue"}}`)
}

// TestAuthorize pins how a Lambda authorizer's reply decides a request:
// the docs' simple and IAM policy answers (http-api-lambda-authorizer,
// "Lambda authorizer response format"), IAM's evaluation (a matching
// Deny wins, else a matching Allow admits, else 403), the failures (500
// for an invalid answer: "If ... your Lambda authorizer returns a
// response in an invalid format, clients receive a 500 Internal Server
// Error"; 401 for a function failing with "Unauthorized", as on REST APIs).
func TestAuthorize(t *testing.T) {
	cases := []struct {
		name   string
		reply  execute.FunctionReply
		simple bool
		want   httpevent.Outcome
	}{
		{"simple-true", reply(`{"isAuthorized":true,"context":{"stringKey":"value","numberKey":1}}`), true, httpevent.Allowed},
		{"simple-false", reply(`{"isAuthorized":false}`), true, httpevent.Forbidden},
		{"simple-string", reply(`{"isAuthorized":"false"}`), true, httpevent.Failed},
		{"simple-missing", reply(`{"context":{}}`), true, httpevent.Failed},
		{"simple-ignores-policy", reply(`{"isAuthorized":false,"principalId":"p","policyDocument":{"Statement":` +
			`{"Effect":"Allow","Action":"*","Resource":"*"}}}`), true, httpevent.Forbidden},
		{"simple-context-list", reply(`{"isAuthorized":true,"context":[1]}`), true, httpevent.Failed},

		{"allow", policy(`[{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"` + routeArn + `"}]`), false, httpevent.Allowed},
		{"allow-one-statement", policy(`{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"` + routeArn + `"}`), false, httpevent.Allowed},
		{"deny", policy(`[{"Action":"execute-api:Invoke","Effect":"Deny","Resource":"` + routeArn + `"}]`), false, httpevent.Forbidden},
		{"deny-wins", policy(`[{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"*"},` +
			`{"Action":"execute-api:Invoke","Effect":"Deny","Resource":"arn:aws:execute-api:*:*:abcdef123/*/GET/*"}]`), false, httpevent.Forbidden},
		{"deny-elsewhere", policy(`[{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"*"},` +
			`{"Action":"execute-api:Invoke","Effect":"Deny","Resource":"arn:aws:execute-api:*:*:abcdef123/*/POST/*"}]`), false, httpevent.Allowed},
		{"no-matching-allow", policy(`[{"Action":"execute-api:Invoke","Effect":"Allow","Resource":` +
			`"arn:aws:execute-api:us-east-1:123456789012:abcdef123/test/GET/other"}]`), false, httpevent.Forbidden},
		{"wildcard-stage-method-path", policy(`[{"Action":"execute-api:Invoke","Effect":"Allow",` +
			`"Resource":"arn:aws:execute-api:us-east-1:123456789012:abcdef123/*/*/*"}]`), false, httpevent.Allowed},
		{"wildcard-question-mark", policy(`[{"Action":"execute-api:Invoke","Effect":"Allow",` +
			`"Resource":"arn:aws:execute-api:us-east-1:123456789012:abcdef123/tes?/GET/request"}]`), false, httpevent.Allowed},
		{"wildcard-too-short", policy(`[{"Action":"execute-api:Invoke","Effect":"Allow",` +
			`"Resource":"arn:aws:execute-api:us-east-1:123456789012:abcdef123/test/GET/?"}]`), false, httpevent.Forbidden},
		{"resource-list", policy(`[{"Action":["execute-api:Invoke"],"Effect":"Allow","Resource":["arn:x","` + routeArn + `"]}]`), false, httpevent.Allowed},
		{"resource-case-sensitive", policy(`[{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"` +
			"arn:aws:execute-api:us-east-1:123456789012:abcdef123/test/get/request" + `"}]`), false, httpevent.Forbidden},
		{"action-case-insensitive", policy(`[{"Action":"Execute-API:invoke","Effect":"Allow","Resource":"*"}]`), false, httpevent.Allowed},
		{"action-wildcard", policy(`[{"Action":"execute-api:*","Effect":"Allow","Resource":"*"}]`), false, httpevent.Allowed},
		{"action-star", policy(`[{"Action":"*","Effect":"Allow","Resource":"*"}]`), false, httpevent.Allowed},
		{"action-other", policy(`[{"Action":"execute-api:ManageConnections","Effect":"Allow","Resource":"*"}]`), false, httpevent.Forbidden},
		{"no-statements", policy(`[]`), false, httpevent.Forbidden},
		{"numeric-principal", reply(`{"principalId":7,"policyDocument":{"Statement":[{"Action":"*","Effect":"Allow","Resource":"*"}]}}`),
			false, httpevent.Allowed},

		{"policy-when-simple-expected", policy(`[{"Action":"*","Effect":"Allow","Resource":"*"}]`), true, httpevent.Failed},
		{"simple-when-policy-expected", reply(`{"isAuthorized":true}`), false, httpevent.Failed},
		{"no-principal", reply(`{"policyDocument":{"Statement":[{"Action":"*","Effect":"Allow","Resource":"*"}]}}`), false, httpevent.Failed},
		{"null-principal", reply(`{"principalId":null,"policyDocument":{"Statement":[{"Action":"*","Effect":"Allow","Resource":"*"}]}}`),
			false, httpevent.Failed},
		{"no-statement", reply(`{"principalId":"p","policyDocument":{"Version":"2012-10-17"}}`), false, httpevent.Failed},
		{"effect-lowercase", policy(`[{"Action":"*","Effect":"allow","Resource":"*"}]`), false, httpevent.Failed},
		{"no-action", policy(`[{"Effect":"Allow","Resource":"*"}]`), false, httpevent.Failed},
		{"resource-number", policy(`[{"Action":"*","Effect":"Allow","Resource":[1]}]`), false, httpevent.Failed},
		{"statement-string", policy(`["Allow"]`), false, httpevent.Failed},
		{"context-string", reply(`{"principalId":"p","policyDocument":{"Statement":[]},"context":"x"}`), false, httpevent.Failed},
		{"not-json", reply(`Allow`), false, httpevent.Failed},
		{"not-object", reply(`true`), true, httpevent.Failed},

		{"function-unauthorized", failed(`{"errorMessage":"Unauthorized","errorType":"Error","stackTrace":[]}`), false, httpevent.Unauthorized},
		{"function-unauthorized-simple", failed(`{"errorMessage":"Unauthorized"}`), true, httpevent.Unauthorized},
		{"function-other-error", failed(`{"errorMessage":"Unauthorized: expired","errorType":"Error"}`), false, httpevent.Failed},
		{"function-error-not-json", failed(`Task timed out`), true, httpevent.Failed},
	}
	for _, c := range cases {
		t.Run("case="+c.name, func(t *testing.T) {
			a, got := httpevent.Authorize(c.reply, c.simple, routeArn)
			if got != c.want {
				t.Fatalf("outcome %d, want %d", got, c.want)
			}
			if (a == nil) != (got == httpevent.Failed || got == httpevent.Unauthorized) {
				t.Errorf("answer %v with outcome %d", a, got)
			}
		})
	}
}

// TestAuthorizerAnswer pins what an answer carries: the principal, and
// the context compacted with its values as the function wrote them (the
// docs' examples pass strings, numbers, booleans, lists and maps), and
// that a cached policy answer decides each route again.
func TestAuthorizerAnswer(t *testing.T) {
	a, err := httpevent.ReadAuthorizerAnswer(reply(`{"principalId":"abcdef","policyDocument":{"Statement":[
		{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"arn:aws:execute-api:us-east-1:123456789012:abcdef123/test/GET/request"}]},
		"context":{ "stringKey": "value", "numberKey": 1, "booleanKey": true, "arrayKey": ["value1", "value2"],
		"mapKey": {"value1": "value2"} }}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if a.PrincipalID != "abcdef" {
		t.Errorf("principal %q", a.PrincipalID)
	}
	const ctx = `{"stringKey":"value","numberKey":1,"booleanKey":true,"arrayKey":["value1","value2"],"mapKey":{"value1":"value2"}}`
	if string(a.Context) != ctx {
		t.Errorf("context %s", a.Context)
	}
	if got := a.Decide(routeArn); got != httpevent.Allowed {
		t.Errorf("route %d", got)
	}
	if got := a.Decide("arn:aws:execute-api:us-east-1:123456789012:abcdef123/test/POST/request"); got != httpevent.Forbidden {
		t.Errorf("other route %d", got)
	}

	for name, want := range map[string]string{"stringKey": "value", "numberKey": "1", "booleanKey": "true",
		"arrayKey": `["value1","value2"]`, "mapKey": `{"value1":"value2"}`} {
		if got, ok := a.ContextValue(name); !ok || got != want {
			t.Errorf("context %s: %q %v, want %q", name, got, ok, want)
		}
	}
	if _, ok := a.ContextValue("missing"); ok {
		t.Error("context missing: found")
	}

	none, err := httpevent.ReadAuthorizerAnswer(reply(`{"isAuthorized":true,"context":null}`), true)
	if err != nil || none.Context != nil || none.PrincipalID != "" {
		t.Errorf("no context: %+v %v", none, err)
	}
}

// TestReadAuthorizerAnswerErrors pins which error each failure is.
func TestReadAuthorizerAnswerErrors(t *testing.T) {
	cases := []struct {
		name  string
		reply execute.FunctionReply
		want  error
	}{
		{"unauthorized", failed(`{"errorMessage":"Unauthorized"}`), httpevent.ErrUnauthorized},
		{"function", failed(`{"errorMessage":"boom"}`), httpevent.ErrFunction},
		{"invalid", reply(`{}`), httpevent.ErrInvalidResponse},
	}
	for _, c := range cases {
		t.Run("error="+c.name, func(t *testing.T) {
			_, err := httpevent.ReadAuthorizerAnswer(c.reply, true)
			if !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
}

// TestOutcome pins the answers the client gets: 403 {"message":"Forbidden"}
// for a denial, 401 {"message":"Unauthorized"}, 500 {"message":"Internal
// Server Error"} (docs: http-api-lambda-authorizer, troubleshooting).
func TestOutcome(t *testing.T) {
	cases := []struct {
		o      httpevent.Outcome
		status int
		body   string
	}{
		{httpevent.Allowed, 200, ""},
		{httpevent.Forbidden, 403, `{"message":"Forbidden"}`},
		{httpevent.Unauthorized, 401, `{"message":"Unauthorized"}`},
		{httpevent.Failed, 500, `{"message":"Internal Server Error"}`},
	}
	for _, c := range cases {
		if c.o.Status() != c.status || c.o.Body() != c.body {
			t.Errorf("outcome %d: %d %s, want %d %s", c.o, c.o.Status(), c.o.Body(), c.status, c.body)
		}
	}
	if httpevent.OutcomeOf(httpevent.ErrUnauthorized) != httpevent.Unauthorized ||
		httpevent.OutcomeOf(httpevent.ErrInvalidResponse) != httpevent.Failed {
		t.Error("OutcomeOf")
	}
}

// TestRouteARN pins the ARN an authorizer gets and its policies name
// (docs: http-api-lambda-authorizer, ".../abcdef123/test/GET/request").
func TestRouteARN(t *testing.T) {
	cases := []struct{ stage, method, path, want string }{
		{"test", "GET", "/request", routeArn},
		{"$default", "POST", "/items/7", "arn:aws:execute-api:us-east-1:123456789012:abcdef123/$default/POST/items/7"},
		{"$default", "GET", "/", "arn:aws:execute-api:us-east-1:123456789012:abcdef123/$default/GET/"},
		{"dev", "GET", "", "arn:aws:execute-api:us-east-1:123456789012:abcdef123/dev/GET/"},
	}
	for _, c := range cases {
		if got := httpevent.RouteARN("us-east-1", "123456789012", "abcdef123", c.stage, c.method, c.path); got != c.want {
			t.Errorf("%s %s %s: %s, want %s", c.stage, c.method, c.path, got, c.want)
		}
	}
}
