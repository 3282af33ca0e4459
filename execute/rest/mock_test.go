package rest_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
)

func TestMockEveryURLForm(t *testing.T) {
	f := newFixture(t)
	f.mock("/pets", "GET", `{"pets": "all"}`)
	f.deploy("dev", nil)

	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{"pets": "all"}`)
	f.callHost("GET", f.api+".execute-api.localhost.localstack.cloud:4566", "/dev/pets", nil, "").want(t, 200, `{"pets": "all"}`)
	f.callHost("GET", f.api+".execute-api.us-east-1.amazonaws.com", "/dev/pets/", nil, "").want(t, 200, `{"pets": "all"}`)
	f.do("GET", f.srv.URL+"/_aws/execute-api/"+f.api+"/dev/pets", "", nil, "").want(t, 200, `{"pets": "all"}`)
	f.do("GET", f.srv.URL+"/_cloud/execute-api/"+f.api+"/dev/pets", "", nil, "").want(t, 200, `{"pets": "all"}`)

	a := f.call("GET", "dev", "/pets", nil, "")
	if a.header.Get("Content-Type") != "application/json" || len(a.header.Get("x-amzn-RequestId")) != 36 ||
		len(a.header.Get("x-amz-apigw-id")) != 16 || a.header.Get("X-Amzn-Trace-Id") != "" {
		t.Errorf("headers %v", a.header)
	}

	// Unknown stage: 403 Forbidden; unknown API: 404.
	a = f.call("GET", "prod", "/pets", nil, "")
	a.want(t, 403, `{"message":"Forbidden"}`)
	if a.header.Get("x-amzn-ErrorType") != "ForbiddenException" {
		t.Errorf("error type %q", a.header.Get("x-amzn-ErrorType"))
	}
	f.do("GET", f.srv.URL+"/restapis/nope123/dev/_user_request_/pets", "", nil, "").
		want(t, 404, `{"message": "The API id 'nope123' does not correspond to a deployed API Gateway API"}`)
	// No route, and a wrong method.
	f.call("GET", "dev", "/cats", nil, "").want(t, 403, `{"message":"Missing Authentication Token"}`)
	a = f.call("POST", "dev", "/pets", nil, "")
	a.want(t, 403, `{"message":"Missing Authentication Token"}`)
	if a.header.Get("x-amzn-ErrorType") != "MissingAuthenticationTokenException" {
		t.Errorf("error type %q", a.header.Get("x-amzn-ErrorType"))
	}
}

// TestMockTemplates covers the recorded MOCK cases M-02…M-06 and the
// passthrough behaviours.
func TestMockTemplates(t *testing.T) {
	f := newFixture(t)
	put := func(path, verb string, integ *apigateway.PutIntegrationInput, responses map[string]*apigateway.PutIntegrationResponseInput) {
		rid := f.resource(path)
		f.method(rid, verb, nil)
		integ.Type = types.IntegrationTypeMock
		f.integration(rid, verb, integ)
		for status, r := range responses {
			f.methodResponse(rid, verb, status, nil)
			f.integrationResponse(rid, verb, status, r)
		}
	}
	json := func(s string) map[string]string { return map[string]string{"application/json": s} }
	// M-03: unquoted key (CDK's CORS), pattern 2\d{2}, no response template.
	put("/lenient", "GET", &apigateway.PutIntegrationInput{RequestTemplates: json(`{statusCode: 200}`)},
		map[string]*apigateway.PutIntegrationResponseInput{"200": {SelectionPattern: aws.String(`2\d{2}`)}})
	// Status chosen by the request template, selected by pattern.
	put("/status/{code}", "GET", &apigateway.PutIntegrationInput{
		RequestTemplates: json(`{"statusCode": $input.params('code')}`)},
		map[string]*apigateway.PutIntegrationResponseInput{
			"200": {ResponseTemplates: json(`{"ok": true}`)},
			"404": {SelectionPattern: aws.String(`4\d{2}`), ResponseTemplates: json(`{"ok": false, "status": $context.responseOverride.status}`)},
			"500": {SelectionPattern: aws.String(`5.*`)},
		})
	// M-05: overrides from the request template survive to the response.
	put("/override", "GET", &apigateway.PutIntegrationInput{RequestTemplates: json("\n#set($context.responseOverride.status = 444)\n#set($context.responseOverride.header.foo = \"bar\")\n#set($context.responseOverride.custom = \"passed\")\n{\n  \"statusCode\": 200\n}")},
		map[string]*apigateway.PutIntegrationResponseInput{"200": {SelectionPattern: aws.String(`2\d{2}`),
			ResponseTemplates: json(`{"status": "$context.responseOverride.status", "foo": "$context.responseOverride.header.foo", "custom": "$context.responseOverride.custom"}`)}})
	// M-06: map assignment forms.
	put("/assign", "GET", &apigateway.PutIntegrationInput{RequestTemplates: json("#set($k = \"foo\")\n#set($context.requestOverride.querystring[$k] = \"bar\")\n$context.requestOverride.querystring.put(\"putfoo\", \"putBar\")\n#set($context[\"requestOverride\"].querystring[\"nestedfoo\"] = \"nestedFoo\")\n{\"statusCode\": 200}")},
		map[string]*apigateway.PutIntegrationResponseInput{"200": {ResponseTemplates: json(`{"value": "$context.requestOverride.querystring["foo"]", "value2": "$context.requestOverride.querystring["putfoo"]", "value3": "$context.requestOverride.querystring["nestedfoo"]"}`)}})
	// Passthrough behaviours against a template for application/json only.
	for _, pt := range []string{"WHEN_NO_MATCH", "WHEN_NO_TEMPLATES", "NEVER"} {
		put("/pt/"+pt, "POST", &apigateway.PutIntegrationInput{PassthroughBehavior: aws.String(pt), RequestTemplates: json(`{"statusCode": 200}`)},
			map[string]*apigateway.PutIntegrationResponseInput{"200": {ResponseTemplates: json(`{"body": "$util.escapeJavaScript($input.body)"}`)}})
	}
	// A template that fails at render, and a MOCK whose template has no status.
	put("/broken", "GET", &apigateway.PutIntegrationInput{RequestTemplates: json(`{"statusCode": 200}`)},
		map[string]*apigateway.PutIntegrationResponseInput{"200": {ResponseTemplates: json(`$input.json(null)`)}})
	put("/nostatus", "GET", &apigateway.PutIntegrationInput{RequestTemplates: json(`{"hello": 1}`)},
		map[string]*apigateway.PutIntegrationResponseInput{"200": {}})
	// No integration response matches and none is the default.
	put("/unmapped", "GET", &apigateway.PutIntegrationInput{RequestTemplates: json(`{"statusCode": 201}`)},
		map[string]*apigateway.PutIntegrationResponseInput{"200": {SelectionPattern: aws.String(`200`)}})
	f.deploy("dev", nil)

	f.call("GET", "dev", "/lenient", nil, "").want(t, 200, ``)
	f.call("GET", "dev", "/status/200", nil, "").want(t, 200, `{"ok": true}`)
	f.call("GET", "dev", "/status/404", nil, "").want(t, 404, `{"ok": false, "status": }`)
	f.call("GET", "dev", "/status/503", nil, "").want(t, 500, ``)
	a := f.call("GET", "dev", "/override", nil, "")
	a.want(t, 444, `{"status": "444", "foo": "bar", "custom": "passed"}`)
	if a.header.Get("foo") != "bar" {
		t.Errorf("override header: %v", a.header)
	}
	f.call("GET", "dev", "/assign", nil, "").want(t, 200, `{"value": "bar", "value2": "putBar", "value3": "nestedFoo"}`)

	xml := map[string]string{"Content-Type": "application/xml"}
	f.call("POST", "dev", "/pt/WHEN_NO_MATCH", xml, `<a/>`).want(t, 200, `{"body": "{}"}`) // the response template reads the (empty) endpoint body
	f.call("POST", "dev", "/pt/WHEN_NO_TEMPLATES", xml, `<a/>`).want(t, 415, `{"message": "Unsupported Media Type"}`)
	f.call("POST", "dev", "/pt/NEVER", xml, `<a/>`).want(t, 415, `{"message": "Unsupported Media Type"}`)
	f.call("POST", "dev", "/pt/NEVER", nil, `{"a": 1}`).want(t, 200, `{"body": "{}"}`)

	a = f.call("GET", "dev", "/broken", nil, "")
	a.want(t, 500, `{"message": "Internal server error"}`)
	if a.header.Get("x-amzn-ErrorType") != "InternalServerErrorException" {
		t.Errorf("error type %v", a.header)
	}
	f.call("GET", "dev", "/nostatus", nil, "").want(t, 500, `{"message": "Internal server error"}`)
	f.call("GET", "dev", "/unmapped", nil, "").want(t, 500, `{"message": "Internal server error"}`)
}
