package httpevent_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cloudemu/emulator/execute/httpevent"
)

// authorizerRequest is a request shaped like the docs' authorizer examples
// (http-api-lambda-authorizer, "Payload format version"): a POST of
// /my/path on the test stage with a repeated query parameter, two
// cookies, path parameters and stage variables.
func authorizerRequest() *httpevent.Request {
	r := baseRequest()
	r.Method = "POST"
	r.Stage = "test"
	r.RawPath, r.Path = "/test/my/path", "/test/my/path"
	r.RouteKey = "POST /my/{parameter1}"
	r.Resource = "/my/{parameter1}"
	r.RawQuery = "parameter1=value1&parameter1=value2&parameter2=value"
	r.Headers = headers("Header1", "value1", "Header2", "value2", "Cookie", "cookie1; cookie2", "User-Agent", "agent",
		"Authorization", "user1")
	r.Body = []byte("never sent to an authorizer")
	r.PathParams = []httpevent.Param{{Name: "parameter1", Value: "path"}}
	r.StageVariables = []httpevent.Param{{Name: "stageVariable1", Value: "value1"}, {Name: "stageVariable2", Value: "value2"}}
	r.JWT = &httpevent.JWT{} // an authorizer event never carries an authorizer section
	return r
}

const authorizerArn = "arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/test/POST/my/path"

// TestAppendAuthorizerEventV2 pins the 2.0 authorizer event: the docs'
// members and order (version, type, routeArn, identitySource as a list,
// then the 2.0 event's request members, requestContext, pathParameters,
// stageVariables), no body, no isBase64Encoded, no authorizer section.
func TestAppendAuthorizerEventV2(t *testing.T) {
	got := httpevent.AppendAuthorizerEvent(nil, authorizerRequest(), "2.0", authorizerArn, []string{"user1", "123"})
	sameJSON(t, got, `{
		"version": "2.0",
		"type": "REQUEST",
		"routeArn": "`+authorizerArn+`",
		"identitySource": ["user1", "123"],
		"routeKey": "POST /my/{parameter1}",
		"rawPath": "/test/my/path",
		"rawQueryString": "parameter1=value1&parameter1=value2&parameter2=value",
		"cookies": ["cookie1", "cookie2"],
		"headers": {"header1": "value1", "header2": "value2", "user-agent": "agent", "authorization": "user1"},
		"queryStringParameters": {"parameter1": "value1,value2", "parameter2": "value"},
		"requestContext": {
			"accountId": "123456789012",
			"apiId": "a1b2c3d4e5",
			"domainName": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
			"domainPrefix": "a1b2c3d4e5",
			"http": {"method": "POST", "path": "/test/my/path", "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7", "userAgent": "agent"},
			"requestId": "Kx1yPgXXoAMEV2Q=",
			"routeKey": "POST /my/{parameter1}",
			"stage": "test",
			"time": "10/Jul/2026:19:19:05 +0000",
			"timeEpoch": 1783711145766
		},
		"pathParameters": {"parameter1": "path"},
		"stageVariables": {"stageVariable1": "value1", "stageVariable2": "value2"}
	}`)
	want := []string{"version", "type", "routeArn", "identitySource", "routeKey", "rawPath", "rawQueryString", "cookies",
		"headers", "queryStringParameters", "requestContext", "pathParameters", "stageVariables"}
	if keys := topKeys(t, got); !reflect.DeepEqual(keys, want) {
		t.Errorf("member order %v, want %v", keys, want)
	}

	// Without identity sources, parameters or stage variables.
	r := baseRequest()
	ev := decode(t, httpevent.AppendAuthorizerEvent(nil, r, "2.0", authorizerArn, nil))
	_, pp := ev["pathParameters"]
	_, sv := ev["stageVariables"]
	if ids, ok := ev["identitySource"].([]any); !ok || len(ids) != 0 || pp || sv {
		t.Errorf("empty event %v", ev)
	}
}

// TestAppendAuthorizerEventV1 pins the 1.0 authorizer event: version,
// type, methodArn, identitySource and authorizationToken (the values
// joined with ","), then the 1.0 event's members without body and
// isBase64Encoded, requestContext last and without authorizer, empty
// pathParameters as {} (the docs' 1.0 example).
func TestAppendAuthorizerEventV1(t *testing.T) {
	r := authorizerRequest()
	got := httpevent.AppendAuthorizerEvent(nil, r, "1.0", authorizerArn, []string{"user1", "123"})
	want := []string{"version", "type", "methodArn", "identitySource", "authorizationToken", "resource", "path",
		"httpMethod", "headers", "multiValueHeaders", "queryStringParameters", "multiValueQueryStringParameters",
		"pathParameters", "stageVariables", "requestContext"}
	if keys := topKeys(t, got); !reflect.DeepEqual(keys, want) {
		t.Errorf("member order %v, want %v", keys, want)
	}
	ev := decode(t, got)
	head := map[string]any{"version": ev["version"], "type": ev["type"], "methodArn": ev["methodArn"],
		"identitySource": ev["identitySource"], "authorizationToken": ev["authorizationToken"], "resource": ev["resource"],
		"path": ev["path"], "httpMethod": ev["httpMethod"], "headers": ev["headers"],
		"queryStringParameters": ev["queryStringParameters"], "pathParameters": ev["pathParameters"]}
	wantHead := map[string]any{"version": "1.0", "type": "REQUEST", "methodArn": authorizerArn,
		"identitySource": "user1,123", "authorizationToken": "user1,123", "resource": "/my/{parameter1}",
		"path": "/test/my/path", "httpMethod": "POST",
		"headers": map[string]any{"header1": "value1", "header2": "value2", "cookie": "cookie1; cookie2",
			"user-agent": "agent", "authorization": "user1"},
		"queryStringParameters": map[string]any{"parameter1": "value1", "parameter2": "value"},
		"pathParameters":        map[string]any{"parameter1": "path"}}
	if !reflect.DeepEqual(head, wantHead) {
		t.Errorf("got %v\nwant %v", head, wantHead)
	}
	rc := ev["requestContext"].(map[string]any)
	if _, ok := rc["authorizer"]; ok || rc["resourceId"] != "POST /my/{parameter1}" || rc["stage"] != "test" {
		t.Errorf("requestContext %v", rc)
	}

	r.PathParams = nil
	ev = decode(t, httpevent.AppendAuthorizerEvent(nil, r, "1.0", authorizerArn, nil))
	if pp, ok := ev["pathParameters"].(map[string]any); !ok || len(pp) != 0 || ev["identitySource"] != "" {
		t.Errorf("pathParameters %v, identitySource %v", ev["pathParameters"], ev["identitySource"])
	}
}

// FuzzAppendAuthorizerEvent checks that every authorizer event is valid
// JSON whatever the request and identity hold.
func FuzzAppendAuthorizerEvent(f *testing.F) {
	f.Add("X-\"Odd\"", "v\x00\u2028", "%22=%5C&&=", "1.0")
	f.Add("Cookie", "a=1; b", "p=a+b", "2.0")
	f.Fuzz(func(t *testing.T, name, value, query, version string) {
		r := authorizerRequest()
		r.RawQuery = query
		r.Headers = append(r.Headers, headers(name, value)...)
		if out := httpevent.AppendAuthorizerEvent(nil, r, version, value, []string{value, name}); !json.Valid(out) {
			t.Fatalf("invalid event %s", out)
		}
	})
}
