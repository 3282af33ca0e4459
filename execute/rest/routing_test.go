package rest_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
)

// TestRoutingPrecedence is docs/apigateway-execution.md §1 and the recorded R-01…R-04:
// literal over {param} over greedy, explicit method over ANY, fallback to a
// greedy resource higher up, HEAD not served by GET, trailing and doubled
// slashes, raw path parameters.
func TestRoutingPrecedence(t *testing.T) {
	f := newFixture(t)
	echo := func(name string) string {
		return `{"route": "` + name + `", "path": "$input.params().path", "resourcePath": "$context.resourcePath", "ctxPath": "$context.path"}`
	}
	f.mock("/test", "POST", `{"route": "POST /test"}`)
	f.mock("/test/any", "ANY", `{"route": "ANY /test/any"}`)
	f.mock("/{proxy+}", "OPTIONS", echo("OPTIONS /{proxy+}"))
	f.mock("/{proxy+}", "GET", echo("GET /{proxy+}"))
	f.mock("/part1", "GET", `{"route": "part1"}`)
	f.mock("/part1/hardcoded-value", "GET", `{"route": "hardcoded"}`)
	f.mock("/items/{id}", "GET", echo("GET /items/{id}"))
	f.mock("/items/{id}", "ANY", echo("ANY /items/{id}"))
	f.mock("/items/special", "GET", `{"route": "special"}`)
	f.mock("/", "GET", `{"route": "root"}`)
	f.deploy("dev", nil)

	cases := []struct {
		method, path string
		status       int
		body         string
	}{
		{"POST", "/test", 200, `{"route": "POST /test"}`},
		// the literal /test has no OPTIONS: the root greedy serves it.
		{"OPTIONS", "/test", 200, `{"route": "OPTIONS /{proxy+}", "path": "{proxy=test}", "resourcePath": "/{proxy+}", "ctxPath": "/dev/test"}`},
		{"OPTIONS", "/test/any", 200, `{"route": "ANY /test/any"}`},
		{"GET", "/test/any", 200, `{"route": "ANY /test/any"}`},
		//
		{"GET", "/part1", 200, `{"route": "part1"}`},
		{"GET", "/part1/hardcoded-value", 200, `{"route": "hardcoded"}`},
		{"GET", "/part1/random-value", 200, `{"route": "GET /{proxy+}", "path": "{proxy=part1/random-value}", "resourcePath": "/{proxy+}", "ctxPath": "/dev/part1/random-value"}`},
		// Literal over {param}; explicit method over ANY.
		{"GET", "/items/special", 200, `{"route": "special"}`},
		{"GET", "/items/42", 200, `{"route": "GET /items/{id}", "path": "{id=42}", "resourcePath": "/items/{id}", "ctxPath": "/dev/items/42"}`},
		{"DELETE", "/items/42", 200, `{"route": "ANY /items/{id}", "path": "{id=42}", "resourcePath": "/items/{id}", "ctxPath": "/dev/items/42"}`},
		// Path parameters are not decoded; a trailing slash matches.
		{"GET", "/items/a%2Bb@x.com/", 200, `{"route": "GET /items/{id}", "path": "{id=a%2Bb@x.com}", "resourcePath": "/items/{id}", "ctxPath": "/dev/items/a%2Bb@x.com/"}`},
		// A greedy parameter keeps interior double slashes.
		{"GET", "/a//b", 200, `{"route": "GET /{proxy+}", "path": "{proxy=a//b}", "resourcePath": "/{proxy+}", "ctxPath": "/dev/a//b"}`},
		{"GET", "", 200, `{"route": "root"}`},
		{"GET", "/", 200, `{"route": "root"}`},
		// HEAD is not GET; no method, no route.
		{"HEAD", "/part1", 403, ``},
		{"PUT", "/part1", 403, `{"message":"Missing Authentication Token"}`},
		{"POST", "/", 403, `{"message":"Missing Authentication Token"}`},
	}
	for _, c := range cases {
		a := f.call(c.method, "dev", c.path, nil, "")
		if a.status != c.status || a.body != c.body {
			t.Errorf("%s %s: got %d %s, want %d %s", c.method, c.path, a.status, a.body, c.status, c.body)
		}
	}
	// Slashes before the stage do not count.
	f.callHost("GET", f.api+".execute-api.localhost.localstack.cloud", "//dev/part1", nil, "").want(t, 200, `{"route": "part1"}`)
}

// TestQueryStrings: form-decoded, last value for the single-value view.
func TestQueryStrings(t *testing.T) {
	f := newFixture(t)
	f.mock("/q", "GET", `{"a": "$input.params('a')", "b": "$input.params().querystring.b", "plus": "$input.params('plus')"}`)
	f.deploy("dev", nil)
	f.call("GET", "dev", "/q?a=1&a=2&b=x%2By&plus=c+d", nil, "").
		want(t, 200, `{"a": "2", "b": "x+y", "plus": "c d"}`)
}

// TestDisabledEndpoint: disableExecuteApiEndpoint refuses the default
// endpoint with 403.
func TestDisabledEndpoint(t *testing.T) {
	f := newFixture(t)
	f.mock("/pets", "GET", `{}`)
	f.deploy("dev", nil)
	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{}`)
	_, err := f.c.UpdateRestApi(ctx, &apigateway.UpdateRestApiInput{RestApiId: &f.api, PatchOperations: []types.PatchOperation{
		{Op: types.OpReplace, Path: aws.String("/disableExecuteApiEndpoint"), Value: aws.String("true")}}})
	f.must(err)
	f.call("GET", "dev", "/pets", nil, "").want(t, 403, `{"message":"Forbidden"}`)
}

// TestRedeploy: a stage runs its frozen deployment until it moves.
func TestRedeploy(t *testing.T) {
	f := newFixture(t)
	rid := f.mock("/pets", "GET", `{"v": 1}`)
	f.deploy("dev", nil)
	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{"v": 1}`)
	f.integrationResponse(rid, "GET", "200", &apigateway.PutIntegrationResponseInput{
		ResponseTemplates: map[string]string{"application/json": `{"v": 2}`}})
	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{"v": 1}`)
	f.deploy("dev", nil)
	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{"v": 2}`)
	// Deleting the stage ends it.
	_, err := f.c.DeleteStage(ctx, &apigateway.DeleteStageInput{RestApiId: &f.api, StageName: aws.String("dev")})
	f.must(err)
	f.call("GET", "dev", "/pets", nil, "").want(t, 403, `{"message":"Forbidden"}`)
}
