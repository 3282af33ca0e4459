package rest_test

import (
	"testing"
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
