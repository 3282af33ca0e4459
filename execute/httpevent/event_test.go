package httpevent_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpevent"
)

// received is the arrival time the tests use: 10/Jul/2026:19:19:05.766 UTC.
var received = time.UnixMilli(1783711145766)

// baseRequest is a request to the $default stage and route with the
// fields every event carries set.
func baseRequest() *httpevent.Request {
	return &httpevent.Request{
		Version:    "2.0",
		RouteKey:   "$default",
		Method:     "GET",
		RawPath:    "/",
		Path:       "/",
		AccountID:  "123456789012",
		APIID:      "a1b2c3d4e5",
		Stage:      "$default",
		DomainName: "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
		RequestID:  "Kx1yPgXXoAMEV2Q=",
		SourceIP:   "203.0.113.7",
		Protocol:   "HTTP/1.1",
		Received:   received,
		Headers:    headers("Host", "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com", "User-Agent", "curl/8.7.1"),
	}
}

// TestAppendEventV2 builds the event of a request shaped like the one
// hotsock/voker captured live from an HTTP API (vokerhttp/testdata/
// apigwv2-request.json, README: "captured from CloudWatch on July 10,
// 2026"): repeated and encoded query parameters, a repeated header, two
// cookies in one Cookie header, a JSON body. What the capture shows and
// this test pins: header names lowercased and repeated values joined with
// ",", the Cookie header moved to "cookies", query names and values
// form-decoded ("+" a space, %2B a plus) and joined with ",",
// rawQueryString as sent, the JSON body as text, the gateway's
// x-amzn-trace-id and x-forwarded-* headers. The capture's typed logger
// also printed empty authentication/authorizer sections and null
// pathParameters/stageVariables, which AWS leaves out (aws-lambda-go
// events/testdata/apigw-v2-request-no-authorizer.json); the named stage's
// prefix in rawPath is docs/apigateway-execution.md §4.
func TestAppendEventV2(t *testing.T) {
	r := baseRequest()
	r.RouteKey = "POST /capture/{item}"
	r.Method = "POST"
	r.Stage = "dev"
	r.RawPath = "/dev/capture/space value"
	r.RawQuery = "repeat=one&repeat=two&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&literalPlus=a+b&encodedPlus=a%2Bb&empty="
	client := headers(
		"Accept", "*/*",
		"Content-Length", "39",
		"Content-Type", "application/json",
		"Host", "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
		"User-Agent", "curl/8.7.1",
		"X-Probe", "first",
		"Cookie", "session=abc123; theme=dark",
		"x-probe", "second",
	)
	r.Headers = httpevent.AddForwarded(nil, client, "203.0.113.7", "443", "https", "Root=1-6a5145a9-1bae89e2512ec92d5d9438a0")
	r.Body = []byte(`{"message":"hello","unicode":"lambda-λ"}`)
	r.PathParams = []httpevent.Param{{Name: "item", Value: "space value"}}
	r.StageVariables = []httpevent.Param{{Name: "color", Value: "blue"}, {Name: "size", Value: "10"}}

	got := httpevent.AppendEvent(nil, r)
	sameJSON(t, got, `{
		"version": "2.0",
		"routeKey": "POST /capture/{item}",
		"rawPath": "/dev/capture/space value",
		"rawQueryString": "repeat=one&repeat=two&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&literalPlus=a+b&encodedPlus=a%2Bb&empty=",
		"cookies": ["session=abc123", "theme=dark"],
		"headers": {
			"accept": "*/*",
			"content-length": "39",
			"content-type": "application/json",
			"host": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
			"user-agent": "curl/8.7.1",
			"x-probe": "first,second",
			"x-amzn-trace-id": "Root=1-6a5145a9-1bae89e2512ec92d5d9438a0",
			"x-forwarded-for": "203.0.113.7",
			"x-forwarded-port": "443",
			"x-forwarded-proto": "https"
		},
		"queryStringParameters": {
			"empty": "",
			"encodedPlus": "a+b",
			"literalPlus": "a b",
			"redirect": "https://example.com/a/b",
			"repeat": "one,two"
		},
		"requestContext": {
			"accountId": "123456789012",
			"apiId": "a1b2c3d4e5",
			"domainName": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
			"domainPrefix": "a1b2c3d4e5",
			"http": {
				"method": "POST",
				"path": "/dev/capture/space value",
				"protocol": "HTTP/1.1",
				"sourceIp": "203.0.113.7",
				"userAgent": "curl/8.7.1"
			},
			"requestId": "Kx1yPgXXoAMEV2Q=",
			"routeKey": "POST /capture/{item}",
			"stage": "dev",
			"time": "10/Jul/2026:19:19:05 +0000",
			"timeEpoch": 1783711145766
		},
		"body": "{\"message\":\"hello\",\"unicode\":\"lambda-λ\"}",
		"pathParameters": {"item": "space value"},
		"isBase64Encoded": false,
		"stageVariables": {"color": "blue", "size": "10"}
	}`)
	// The docs' 2.0 example's member order.
	want := []string{"version", "routeKey", "rawPath", "rawQueryString", "cookies", "headers",
		"queryStringParameters", "requestContext", "body", "pathParameters", "isBase64Encoded", "stageVariables"}
	if keys := topKeys(t, got); !reflect.DeepEqual(keys, want) {
		t.Errorf("member order %v, want %v", keys, want)
	}
}

// TestAppendEventV2Empty pins what AWS leaves out of a bodyless request
// without query, cookies, path parameters or stage variables (recorded:
// aws-lambda-go events/testdata/apigw-v2-request-no-authorizer.json, a GET
// of "/" on the $default stage): no cookies, queryStringParameters,
// pathParameters, stageVariables, body or requestContext.authorizer;
// rawQueryString "", isBase64Encoded false.
func TestAppendEventV2Empty(t *testing.T) {
	got := httpevent.AppendEvent(nil, baseRequest())
	sameJSON(t, got, `{
		"version": "2.0",
		"routeKey": "$default",
		"rawPath": "/",
		"rawQueryString": "",
		"headers": {"host": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com", "user-agent": "curl/8.7.1"},
		"requestContext": {
			"accountId": "123456789012",
			"apiId": "a1b2c3d4e5",
			"domainName": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
			"domainPrefix": "a1b2c3d4e5",
			"http": {"method": "GET", "path": "/", "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7", "userAgent": "curl/8.7.1"},
			"requestId": "Kx1yPgXXoAMEV2Q=",
			"routeKey": "$default",
			"stage": "$default",
			"time": "10/Jul/2026:19:19:05 +0000",
			"timeEpoch": 1783711145766
		},
		"isBase64Encoded": false
	}`)
}

// TestAppendEventV2Body pins which bodies an HTTP API base64-encodes:
// every Content-Type but text/*, application/json, application/xml and
// application/javascript, and none (checked against AWS in
// ministackorg/ministack#766; recorded application/octet-stream →
// base64, floci-io/floci#2172).
func TestAppendEventV2Body(t *testing.T) {
	cases := []struct {
		contentType string // "" sends none
		base64      bool
	}{
		{"application/json", false},
		{"application/json; charset=utf-8", false},
		{"Application/JSON", false},
		{"text/plain", false},
		{"text/html; charset=ISO-8859-1", false},
		{"text/csv", false},
		{"application/xml", false},
		{"application/javascript", false},
		{"", true},
		{"application/octet-stream", true},
		{"application/x-www-form-urlencoded", true},
		{"application/vnd.api+json", true},
		{"image/png", true},
		{"multipart/form-data; boundary=x", true},
		{"text", true},
	}
	body := []byte("hello world")
	for _, c := range cases {
		t.Run("type="+c.contentType, func(t *testing.T) {
			r := baseRequest()
			r.Method = "POST"
			if c.contentType != "" {
				r.Headers = append(r.Headers, headers("Content-Type", c.contentType)...)
			}
			r.Body = body
			ev := decode(t, httpevent.AppendEvent(nil, r))
			want := map[string]any{"body": "hello world", "isBase64Encoded": false}
			if c.base64 {
				want = map[string]any{"body": "aGVsbG8gd29ybGQ=", "isBase64Encoded": true}
			}
			got := map[string]any{"body": ev["body"], "isBase64Encoded": ev["isBase64Encoded"]}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
	t.Run("text=invalid-utf8", func(t *testing.T) {
		r := baseRequest()
		r.Headers = append(r.Headers, headers("Content-Type", "text/plain")...)
		r.Body = []byte("a\xffb\"c\n")
		ev := decode(t, httpevent.AppendEvent(nil, r))
		if ev["body"] != "a\uFFFDb\"c\n" {
			t.Errorf("body %q", ev["body"])
		}
	})
}

// TestAppendEventV2Query pins the decoding and joining of
// queryStringParameters on odd query strings.
func TestAppendEventV2Query(t *testing.T) {
	cases := []struct {
		name, raw string
		want      map[string]any // nil: no queryStringParameters
	}{
		{"none", "", nil},
		{"empty-pairs", "&&", nil},
		{"flag", "flag", map[string]any{"flag": ""}},
		{"skips-empty-pairs", "&a=1&&b=2&", map[string]any{"a": "1", "b": "2"}},
		{"joins-in-order", "b=2&a=1&b=3&b=", map[string]any{"b": "2,3,", "a": "1"}},
		{"decoded-names-join", "a%20b=1&a+b=2", map[string]any{"a b": "1,2"}},
		{"equals-in-value", "q=a=b", map[string]any{"q": "a=b"}},
		{"malformed-escape-kept", "q=%zz&r=%4", map[string]any{"q": "%zz", "r": "%4"}},
		{"escapes-quotes", "q=%22%5C%0A", map[string]any{"q": "\"\\\n"}},
		{"utf8", "q=%CE%BB", map[string]any{"q": "λ"}},
		{"invalid-utf8", "q=%FF", map[string]any{"q": "\uFFFD"}},
		{"case-sensitive-names", "A=1&a=2", map[string]any{"A": "1", "a": "2"}},
	}
	for _, c := range cases {
		t.Run("query="+c.name, func(t *testing.T) {
			r := baseRequest()
			r.RawQuery = c.raw
			ev := decode(t, httpevent.AppendEvent(nil, r))
			if ev["rawQueryString"] != c.raw {
				t.Errorf("rawQueryString %q", ev["rawQueryString"])
			}
			got, present := ev["queryStringParameters"]
			switch {
			case c.want == nil && present:
				t.Errorf("queryStringParameters %v, want none", got)
			case c.want != nil && !reflect.DeepEqual(got, c.want):
				t.Errorf("queryStringParameters %v, want %v", got, c.want)
			}
		})
	}
}

// TestAppendEventV2Cookies pins cookies: every Cookie header's, split on
// ";" and trimmed, none of them left in headers.
func TestAppendEventV2Cookies(t *testing.T) {
	r := baseRequest()
	r.Headers = headers("cookie", "a=1;b=2", "Host", "h", "COOKIE", " c=3 ;  ; d=4;")
	raw := httpevent.AppendEvent(nil, r)
	ev := decode(t, raw)
	if want := []any{"a=1", "b=2", "c=3", "d=4"}; !reflect.DeepEqual(ev["cookies"], want) {
		t.Errorf("cookies %v, want %v", ev["cookies"], want)
	}
	if want := map[string]any{"host": "h"}; !reflect.DeepEqual(ev["headers"], want) {
		t.Errorf("headers %v, want %v", ev["headers"], want)
	}
}

// TestAppendEventV2Authorizer pins requestContext.authorizer (docs:
// http-api-develop-integrations-lambda, 2.0 example; recorded shapes in
// aws-lambda-go events/testdata/apigw-v2-request-jwt-authorizer.json and
// apigw-v2-request-lambda-authorizer.json).
func TestAppendEventV2Authorizer(t *testing.T) {
	answer := func(t *testing.T, payload string) *httpevent.AuthorizerAnswer {
		t.Helper()
		a, err := httpevent.ReadAuthorizerAnswer(reply(payload), true)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	cases := []struct {
		name string
		set  func(t *testing.T, r *httpevent.Request)
		want string
	}{
		{"none", func(*testing.T, *httpevent.Request) {}, ``},
		{"jwt", func(_ *testing.T, r *httpevent.Request) {
			r.JWT = &httpevent.JWT{Claims: []httpevent.Param{{Name: "claim1", Value: "value1"}, {Name: "claim2", Value: "value2"}},
				Scopes: []string{"scope1", "scope2"}}
		}, `{"jwt":{"claims":{"claim1":"value1","claim2":"value2"},"scopes":["scope1","scope2"]}}`},
		{"jwt-no-scopes", func(_ *testing.T, r *httpevent.Request) {
			r.JWT = &httpevent.JWT{Claims: []httpevent.Param{{Name: "sub", Value: "u"}}}
		}, `{"jwt":{"claims":{"sub":"u"},"scopes":null}}`},
		{"lambda", func(t *testing.T, r *httpevent.Request) {
			r.Lambda = answer(t, `{"isAuthorized":true,"context":{"key": "value", "n": 1, "list": ["a"], "map": {"b": true}}}`)
		}, `{"lambda":{"key":"value","n":1,"list":["a"],"map":{"b":true}}}`},
		{"lambda-no-context", func(t *testing.T, r *httpevent.Request) {
			r.Lambda = answer(t, `{"isAuthorized":true}`)
		}, `{"lambda":{}}`},
		{"lambda-context-by-hand", func(_ *testing.T, r *httpevent.Request) {
			r.Lambda = &httpevent.AuthorizerAnswer{Context: []byte(`{"a":`)}
		}, `{"lambda":{}}`},
	}
	for _, c := range cases {
		t.Run("authorizer="+c.name, func(t *testing.T) {
			r := baseRequest()
			c.set(t, r)
			raw := httpevent.AppendEvent(nil, r)
			rc := decode(t, member(t, raw, "requestContext"))
			got, present := rc["authorizer"]
			if c.want == "" {
				if present {
					t.Errorf("authorizer %v, want none", got)
				}
				return
			}
			sameJSON(t, member(t, raw, "requestContext", "authorizer"), c.want)
			keys := topKeys(t, member(t, raw, "requestContext"))
			if keys[2] != "authorizer" {
				t.Errorf("requestContext order %v: authorizer follows apiId", keys)
			}
		})
	}
}

// TestAppendEventV1 builds an HTTP API's 1.0 event (docs:
// http-api-develop-integrations-lambda, "1.0"): REST's members plus
// version, requestContext.authorizer {"claims":null,"scopes":null} with
// no authorizer, resourceId null on $default, null for what is empty,
// header names lowercased, headers with each name's last value and
// queryStringParameters with its first (both as the docs' example has
// them).
func TestAppendEventV1(t *testing.T) {
	r := baseRequest()
	r.Version = "1.0"
	r.Method = "POST"
	r.RawPath, r.Path = "/my/path", "/my/path"
	r.RawQuery = "parameter1=value1&parameter1=value2&parameter2=value"
	r.Headers = headers("Header1", "value1", "Header2", "value1", "header2", "value2", "User-Agent", "user-agent",
		"Content-Type", "text/plain")
	r.Body = []byte("Hello from Lambda!")
	got := httpevent.AppendEvent(nil, r)
	sameJSON(t, got, `{
		"version": "1.0",
		"resource": "/my/path",
		"path": "/my/path",
		"httpMethod": "POST",
		"headers": {"header1": "value1", "header2": "value2", "user-agent": "user-agent", "content-type": "text/plain"},
		"multiValueHeaders": {"header1": ["value1"], "header2": ["value1", "value2"], "user-agent": ["user-agent"],
			"content-type": ["text/plain"]},
		"queryStringParameters": {"parameter1": "value1", "parameter2": "value"},
		"multiValueQueryStringParameters": {"parameter1": ["value1", "value2"], "parameter2": ["value"]},
		"requestContext": {
			"accountId": "123456789012",
			"apiId": "a1b2c3d4e5",
			"authorizer": {"claims": null, "scopes": null},
			"domainName": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
			"domainPrefix": "a1b2c3d4e5",
			"extendedRequestId": "Kx1yPgXXoAMEV2Q=",
			"httpMethod": "POST",
			"identity": {
				"accessKey": null, "accountId": null, "caller": null, "cognitoAuthenticationProvider": null,
				"cognitoAuthenticationType": null, "cognitoIdentityId": null, "cognitoIdentityPoolId": null,
				"principalOrgId": null, "sourceIp": "203.0.113.7", "user": null, "userAgent": "user-agent", "userArn": null
			},
			"path": "/my/path",
			"protocol": "HTTP/1.1",
			"requestId": "Kx1yPgXXoAMEV2Q=",
			"requestTime": "10/Jul/2026:19:19:05 +0000",
			"requestTimeEpoch": 1783711145766,
			"resourceId": null,
			"resourcePath": "/my/path",
			"stage": "$default"
		},
		"pathParameters": null,
		"stageVariables": null,
		"body": "Hello from Lambda!",
		"isBase64Encoded": false
	}`)
	want := []string{"version", "resource", "path", "httpMethod", "headers", "multiValueHeaders",
		"queryStringParameters", "multiValueQueryStringParameters", "requestContext", "pathParameters",
		"stageVariables", "body", "isBase64Encoded"}
	if keys := topKeys(t, got); !reflect.DeepEqual(keys, want) {
		t.Errorf("member order %v, want %v", keys, want)
	}
}

// TestAppendEventV1Route pins a named route's 1.0 event: resource and
// resourcePath the route's path, resourceId the route key, the
// parameters, stage variables and extendedRequestId as given, nulls for
// what is empty.
func TestAppendEventV1Route(t *testing.T) {
	r := baseRequest()
	r.Version = "1.0"
	r.RouteKey = "GET /items/{id}"
	r.Stage = "dev"
	r.RawPath, r.Path = "/dev/items/7", "/dev/items/7"
	r.Resource = "/items/{id}"
	r.ExtendedRequestID = "ext-id"
	r.Headers = nil
	r.PathParams = []httpevent.Param{{Name: "id", Value: "7"}}
	r.StageVariables = []httpevent.Param{{Name: "v", Value: "1"}}
	ev := decode(t, httpevent.AppendEvent(nil, r))
	rc := ev["requestContext"].(map[string]any)
	got := map[string]any{
		"resource": ev["resource"], "path": ev["path"], "headers": ev["headers"],
		"multiValueHeaders": ev["multiValueHeaders"], "queryStringParameters": ev["queryStringParameters"],
		"pathParameters": ev["pathParameters"], "stageVariables": ev["stageVariables"], "body": ev["body"],
		"resourceId": rc["resourceId"], "resourcePath": rc["resourcePath"], "stage": rc["stage"],
		"extendedRequestId": rc["extendedRequestId"], "path/context": rc["path"], "userAgent": rc["identity"].(map[string]any)["userAgent"],
	}
	want := map[string]any{
		"resource": "/items/{id}", "path": "/dev/items/7", "headers": nil, "multiValueHeaders": nil,
		"queryStringParameters": nil, "pathParameters": map[string]any{"id": "7"},
		"stageVariables": map[string]any{"v": "1"}, "body": nil, "resourceId": "GET /items/{id}",
		"resourcePath": "/items/{id}", "stage": "dev", "extendedRequestId": "ext-id", "path/context": "/dev/items/7",
		"userAgent": "",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// TestAppendEventV1Authorizer pins 1.0's requestContext.authorizer: a
// JWT's claims and scopes unnested (awsdocs/amazon-api-gateway-developer-guide#113),
// a Lambda authorizer's principal, latency and context flat, as REST's.
func TestAppendEventV1Authorizer(t *testing.T) {
	r := baseRequest()
	r.Version = "1.0"
	r.JWT = &httpevent.JWT{Claims: []httpevent.Param{{Name: "sub", Value: "u"}}, Scopes: []string{"read"}}
	sameJSON(t, member(t, httpevent.AppendEvent(nil, r), "requestContext", "authorizer"),
		`{"claims":{"sub":"u"},"scopes":["read"]}`)

	r.JWT = nil
	a, err := httpevent.ReadAuthorizerAnswer(reply(`{"principalId":"user-1","policyDocument":{"Statement":`+
		`{"Effect":"Allow","Action":"execute-api:Invoke","Resource":"*"}},"context":{"k":"v","n":2,"principalId":"x"}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	r.Lambda = a
	r.AuthorizerLatency = 42_000_000 // 42ms
	sameJSON(t, member(t, httpevent.AppendEvent(nil, r), "requestContext", "authorizer"),
		`{"principalId":"user-1","integrationLatency":42,"k":"v","n":2}`)
}

// TestAddForwarded pins the headers the gateway adds: the client's
// x-forwarded-for kept ahead of the source address, the client's trace,
// port and proto replaced.
func TestAddForwarded(t *testing.T) {
	in := headers("Host", "h", "X-Forwarded-For", "198.51.100.1", "X-Amzn-Trace-Id", "Root=client",
		"x-forwarded-proto", "http", "X-Forwarded-Port", "80")
	got := httpevent.AddForwarded(nil, in, "203.0.113.7", "443", "https", "Root=gw")
	want := headers("Host", "h", "x-amzn-trace-id", "Root=gw", "x-forwarded-for", "198.51.100.1, 203.0.113.7",
		"x-forwarded-port", "443", "x-forwarded-proto", "https")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if got := httpevent.AddForwarded(nil, headers("Host", "h"), "", "", "", ""); !reflect.DeepEqual(got, headers("Host", "h")) {
		t.Errorf("nothing to add: got %v", got)
	}
}

// TestAppendEventAppends checks that events are appended to dst and that
// Reset empties a pooled request.
func TestAppendEventAppends(t *testing.T) {
	dst := []byte("prefix:")
	out := httpevent.AppendEvent(dst, baseRequest())
	if !strings.HasPrefix(string(out), "prefix:{") || !json.Valid(out[len("prefix:"):]) {
		t.Errorf("got %s", out)
	}
	r := baseRequest()
	r.PathParams = []httpevent.Param{{Name: "a", Value: "b"}}
	r.Reset()
	if r.Method != "" || len(r.PathParams) != 0 || cap(r.PathParams) == 0 || len(r.Headers) != 0 {
		t.Errorf("Reset left %+v", r)
	}
}

// FuzzAppendEvent checks that every event is valid JSON whatever the
// request holds.
func FuzzAppendEvent(f *testing.F) {
	f.Add("Cookie", "a=1; b", "repeat=one&repeat=two&p=a+b&q=%2B&r=%zz", []byte("body\xff"), "text/plain", "1.0")
	f.Add("X-\"Odd\"", "v\x00\u2028", "%22=%5C&&=", []byte{0, 1, 2}, "", "2.0")
	f.Fuzz(func(t *testing.T, name, value, query string, body []byte, contentType, version string) {
		r := baseRequest()
		r.Version = version
		r.RawQuery = query
		r.Headers = append(r.Headers, headers(name, value, "Content-Type", contentType)...)
		r.Body = body
		r.PathParams = []httpevent.Param{{Name: name, Value: value}}
		out := httpevent.AppendEvent(nil, r)
		if !json.Valid(out) {
			t.Fatalf("invalid event %s", out)
		}
		// The query views hold what execute.ParseQuery reads.
		joined, first, all := map[string]any{}, map[string]any{}, map[string][]string{}
		for _, p := range execute.ParseQuery(query) {
			joined[p.Name] = strings.Join(p.Values, ",")
			first[p.Name] = p.Values[0]
			all[p.Name] = p.Values
		}
		ev := decode(t, out)
		want := map[string]any{"queryStringParameters": joined}
		got := map[string]any{"queryStringParameters": ev["queryStringParameters"]}
		if version == "1.0" {
			want = map[string]any{"queryStringParameters": first, "multiValueQueryStringParameters": all}
			got["multiValueQueryStringParameters"] = ev["multiValueQueryStringParameters"]
		}
		if len(joined) == 0 {
			want = map[string]any{"queryStringParameters": nil}
			if version == "1.0" {
				want["multiValueQueryStringParameters"] = nil
			}
		}
		wj, _ := json.Marshal(want)
		if !reflect.DeepEqual(got, decode(t, wj)) {
			t.Fatalf("query %q: got %v, want %s", query, got, wj)
		}
	})
}

// TestAppendEventLongLists checks that long header lists and query
// strings (linked through a map rather than pairwise) group names as
// short ones do.
func TestAppendEventLongLists(t *testing.T) {
	var query []string
	wantQuery := map[string]any{}
	wantMulti := map[string]any{}
	var h []string
	wantHeaders := map[string]any{}
	for i := range 50 {
		name := fmt.Sprintf("p%d", i%20)
		value := fmt.Sprintf("v%d", i)
		enc := name
		if i%20 == 3 {
			enc = "p%33" // decodes to p3
		}
		query = append(query, enc+"="+value)
		if prev, ok := wantQuery[name]; ok {
			wantQuery[name] = prev.(string) + "," + value
			wantMulti[name] = append(wantMulti[name].([]any), value)
		} else {
			wantQuery[name] = value
			wantMulti[name] = []any{value}
		}
		hname := fmt.Sprintf("X-H%d", i%25)
		if i%2 == 1 {
			hname = strings.ToLower(hname)
		}
		h = append(h, hname, value)
		if prev, ok := wantHeaders[strings.ToLower(hname)]; ok {
			wantHeaders[strings.ToLower(hname)] = prev.(string) + "," + value
		} else {
			wantHeaders[strings.ToLower(hname)] = value
		}
	}
	r := baseRequest()
	r.Headers = headers(h...)
	r.RawQuery = strings.Join(query, "&")
	ev := decode(t, httpevent.AppendEvent(nil, r))
	if !reflect.DeepEqual(ev["queryStringParameters"], wantQuery) {
		t.Errorf("queryStringParameters %v\nwant %v", ev["queryStringParameters"], wantQuery)
	}
	if !reflect.DeepEqual(ev["headers"], wantHeaders) {
		t.Errorf("headers %v\nwant %v", ev["headers"], wantHeaders)
	}
	r.Version = "1.0"
	ev = decode(t, httpevent.AppendEvent(nil, r))
	if !reflect.DeepEqual(ev["multiValueQueryStringParameters"], wantMulti) {
		t.Errorf("multiValueQueryStringParameters %v\nwant %v", ev["multiValueQueryStringParameters"], wantMulti)
	}
	if got := ev["headers"].(map[string]any)["x-h0"]; got != "v25" {
		t.Errorf("1.0 headers x-h0 %v, want the last value v25", got)
	}
	if got := ev["queryStringParameters"].(map[string]any)["p3"]; got != "v3" {
		t.Errorf("1.0 query p3 %v, want the first value v3", got)
	}
}

// TestAppendEventHeaderFolding checks that header names group as
// strings.EqualFold compares them, non-ASCII folding included.
func TestAppendEventHeaderFolding(t *testing.T) {
	r := baseRequest()
	r.Headers = headers("X-K", "1", "x-\u212a", "2", "X-Ab", "3", "x-a", "4", "x-aB", "5")
	ev := decode(t, httpevent.AppendEvent(nil, r))
	want := map[string]any{"x-k": "1,2", "x-ab": "3,5", "x-a": "4"}
	if !reflect.DeepEqual(ev["headers"], want) {
		t.Errorf("headers %v, want %v", ev["headers"], want)
	}
}
