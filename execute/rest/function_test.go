package rest_test

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/execute/rest"
)

// echoEvent answers {"statusCode": 200, "body": <the event>}, as the
// recorded tests' lambda_aws_proxy.py does.
func echoEvent(_ context.Context, payload []byte) (rest.FunctionReply, error) {
	body, _ := json.Marshal(string(payload))
	return rest.FunctionReply{Payload: []byte(`{"statusCode": 200, "body": ` + string(body) + `}`)}, nil
}

// proxyMethod puts an AWS_PROXY method on path calling function fn.
func (f *fixture) proxyMethod(path, verb, fn string, edit func(*apigateway.PutIntegrationInput)) string {
	f.t.Helper()
	rid := f.resource(path)
	f.method(rid, verb, nil)
	in := &apigateway.PutIntegrationInput{Type: types.IntegrationTypeAwsProxy, IntegrationHttpMethod: aws.String("POST"),
		Uri: aws.String(lambdaURI(fn))}
	if edit != nil {
		edit(in)
	}
	f.integration(rid, verb, in)
	return rid
}

// event is the proxy event an echoing function received, read back from
// the answer.
func event(t *testing.T, a answer) map[string]any {
	t.Helper()
	if a.status != 200 {
		t.Fatalf("status %d %s", a.status, a.body)
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(a.body), &ev); err != nil {
		t.Fatalf("event %q: %v", a.body, err)
	}
	return ev
}

var (
	uuidRe        = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	requestTimeRe = regexp.MustCompile(`^\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000$`)
	traceRe       = regexp.MustCompile(`^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$`)
)

// normalise replaces what changes from call to call in an event with the
// placeholders the recordings use, after checking each value's form.
func normalise(t *testing.T, ev map[string]any) {
	t.Helper()
	check := func(ok bool, what string, v any) {
		t.Helper()
		if !ok {
			t.Errorf("%s: %v", what, v)
		}
	}
	rc := ev["requestContext"].(map[string]any)
	check(uuidRe.MatchString(rc["requestId"].(string)), "requestId", rc["requestId"])
	check(len(rc["extendedRequestId"].(string)) == 16, "extendedRequestId", rc["extendedRequestId"])
	check(requestTimeRe.MatchString(rc["requestTime"].(string)), "requestTime", rc["requestTime"])
	_, isNumber := rc["requestTimeEpoch"].(float64)
	check(isNumber, "requestTimeEpoch", rc["requestTimeEpoch"])
	rc["requestId"], rc["extendedRequestId"] = "<uuid>", "<extended-request-id>"
	rc["requestTime"], rc["requestTimeEpoch"] = "<request-time>", "<request-time-epoch>"
	rc["deploymentId"], rc["resourceId"], rc["apiId"] = "<deployment-id>", "<resource-id>", "<api-id>"
	rc["domainName"], rc["domainPrefix"] = "<host>", "<api-id>"
	id := rc["identity"].(map[string]any)
	check(id["sourceIp"] == "127.0.0.1", "sourceIp", id["sourceIp"])
	id["sourceIp"] = "<source-ip>"
	headers, _ := ev["headers"].(map[string]any)
	multi, _ := ev["multiValueHeaders"].(map[string]any)
	for name, placeholder := range map[string]string{"Host": "<host>", "X-Amzn-Trace-Id": "<trace-id>",
		"X-Forwarded-For": "<X-Forwarded-For>", "X-Forwarded-Port": "<X-Forwarded-Port>", "X-Forwarded-Proto": "<X-Forwarded-Proto>"} {
		if _, ok := headers[name]; !ok {
			continue
		}
		switch name {
		case "X-Amzn-Trace-Id":
			check(traceRe.MatchString(headers[name].(string)), name, headers[name])
		case "X-Forwarded-For":
			check(headers[name] == "127.0.0.1", name, headers[name])
		}
		headers[name] = placeholder
		multi[name] = []any{placeholder}
	}
}

// recordedEvent is test_lambda_aws_proxy_integration's
// invocation-payload-with-params-encoding-multi (recorded R-04), as a
// REGIONAL API receives it: the EDGE recording's CloudFront headers (Via,
// X-Amz-Cf-Id, CloudFront-*) are not sent by a regional endpoint.
const recordedEvent = `{
  "body": "{\"message\": \"hello world\"}",
  "headers": {"Accept": "*/*", "Accept-Encoding": "gzip, deflate", "Authorization": "Bearer token123;API key456",
    "Content-Type": "application/json;charset=utf-8", "Host": "<host>", "User-Agent": "python-requests/testing",
    "X-Amzn-Trace-Id": "<trace-id>", "X-Forwarded-For": "<X-Forwarded-For>", "X-Forwarded-Port": "<X-Forwarded-Port>",
    "X-Forwarded-Proto": "<X-Forwarded-Proto>"},
  "httpMethod": "POST",
  "isBase64Encoded": false,
  "multiValueHeaders": {"Accept": ["*/*"], "Accept-Encoding": ["gzip, deflate"], "Authorization": ["Bearer token123;API key456"],
    "Content-Type": ["application/json;charset=utf-8"], "Host": ["<host>"], "User-Agent": ["python-requests/testing"],
    "X-Amzn-Trace-Id": ["<trace-id>"], "X-Forwarded-For": ["<X-Forwarded-For>"], "X-Forwarded-Port": ["<X-Forwarded-Port>"],
    "X-Forwarded-Proto": ["<X-Forwarded-Proto>"]},
  "multiValueQueryStringParameters": {"category": ["electronics", "books"], "price": ["10", "20", "30"]},
  "path": "/proxy-value",
  "pathParameters": {"proxy": "proxy-value"},
  "queryStringParameters": {"category": "books", "price": "30"},
  "requestContext": {
    "accountId": "000000000000",
    "apiId": "<api-id>",
    "deploymentId": "<deployment-id>",
    "domainName": "<host>",
    "domainPrefix": "<api-id>",
    "extendedRequestId": "<extended-request-id>",
    "httpMethod": "POST",
    "identity": {"accessKey": null, "accountId": null, "caller": null, "cognitoAuthenticationProvider": null,
      "cognitoAuthenticationType": null, "cognitoIdentityId": null, "cognitoIdentityPoolId": null, "principalOrgId": null,
      "sourceIp": "<source-ip>", "user": null, "userAgent": "python-requests/testing", "userArn": null},
    "path": "/stage/proxy-value",
    "protocol": "HTTP/1.1",
    "requestId": "<uuid>",
    "requestTime": "<request-time>",
    "requestTimeEpoch": "<request-time-epoch>",
    "resourceId": "<resource-id>",
    "resourcePath": "/{proxy+}",
    "stage": "stage"
  },
  "resource": "/{proxy+}",
  "stageVariables": null
}`

// TestLambdaProxyEvent is the recorded R-04: the payload-1.0 event, field
// by field, and how paths, slashes and query strings reach it.
func TestLambdaProxyEvent(t *testing.T) {
	fns := newFakeFunctions()
	fns.set(lambdaARN("echo"), echoEvent)
	f := functionFixture(t, fns, nil)
	f.proxyMethod("/{proxy+}", "ANY", "echo", nil)
	f.proxyMethod("/hardcoded", "ANY", "echo", nil)
	f.deploy("stage", nil)
	host := f.api + ".execute-api.us-east-1.amazonaws.com"

	a := f.callHost("POST", host, "/stage/proxy-value?category=electronics&category=books&price=10&price=20&price=30",
		map[string]string{"Content-Type": "application/json;charset=utf-8", "aUThorization": "Bearer token123;API key456",
			"User-Agent": "python-requests/testing", "Accept": "*/*", "Accept-Encoding": "gzip, deflate", "Connection": "keep-alive"},
		`{"message": "hello world"}`)
	got := event(t, a)
	normalise(t, got)
	var want map[string]any
	if err := json.Unmarshal([]byte(recordedEvent), &want); err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if !reflect.DeepEqual(got[k], want[k]) {
			gj, _ := json.Marshal(got[k])
			wj, _ := json.Marshal(want[k])
			t.Errorf("%s:\n got %s\nwant %s", k, gj, wj)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected member %s", k)
		}
	}
	calls := fns.take()
	if len(calls) != 1 || calls[0].function != lambdaARN("echo") || calls[0].timeout != 29*time.Second ||
		calls[0].scope.Account != "000000000000" || calls[0].scope.Region != "us-east-1" {
		t.Errorf("calls %+v", calls)
	}

	// The other rows of R-04: what the path and the query string become.
	ua := map[string]string{"User-Agent": "python-requests/testing", "tEsT-HEADeR": "aValUE", "authorization": "random-value"}
	for _, c := range []struct {
		path                                        string
		resource, evPath, proxy, contextPath, query string
	}{
		{"/stage/proxy-value", "/{proxy+}", "/proxy-value", "proxy-value", "/stage/proxy-value", "null"},
		{"/stage/proxy-value/", "/{proxy+}", "/proxy-value/", "proxy-value", "/stage/proxy-value/", "null"},
		{"/stage/proxy-value//double-slash", "/{proxy+}", "/proxy-value//double-slash", "proxy-value//double-slash",
			"/stage/proxy-value//double-slash", "null"},
		{"//stage/proxy-value", "/{proxy+}", "/proxy-value", "proxy-value", "/stage/proxy-value", "null"},
		{"/stage//proxy-value", "/{proxy+}", "/proxy-value", "proxy-value", "/stage//proxy-value", "null"},
		{"/stage/proxy-value?urlparam=test", "/{proxy+}", "/proxy-value", "proxy-value", "/stage/proxy-value",
			`{"urlparam":"test"}|{"urlparam":["test"]}`},
		{"/stage/proxy-value/api/user/test%2Balias@gmail.com/plus/test+alias@gmail.com", "/{proxy+}",
			"/proxy-value/api/user/test%2Balias@gmail.com/plus/test+alias@gmail.com",
			"proxy-value/api/user/test%2Balias@gmail.com/plus/test+alias@gmail.com",
			"/stage/proxy-value/api/user/test%2Balias@gmail.com/plus/test+alias@gmail.com", "null"},
		{"/stage/proxy-value/api?dateTimeOffset=2023-06-12T18:05:10.123456+00:00&email=test%2Balias@gmail.com&plus=test+alias@gmail.com&url=https://www.google.com/&whitespace=foo%20bar&zhash=abort/",
			"/{proxy+}", "/proxy-value/api", "proxy-value/api", "/stage/proxy-value/api",
			`{"dateTimeOffset":"2023-06-12T18:05:10.123456 00:00","email":"test+alias@gmail.com","plus":"test alias@gmail.com","url":"https://www.google.com/","whitespace":"foo bar","zhash":"abort/"}` +
				`|{"dateTimeOffset":["2023-06-12T18:05:10.123456 00:00"],"email":["test+alias@gmail.com"],"plus":["test alias@gmail.com"],"url":["https://www.google.com/"],"whitespace":["foo bar"],"zhash":["abort/"]}`},
		{"/stage//hardcoded", "/hardcoded", "/hardcoded", "", "/stage//hardcoded", "null"},
	} {
		ev := event(t, f.callHost("GET", host, c.path, ua, ""))
		rc := ev["requestContext"].(map[string]any)
		params, _ := json.Marshal(ev["pathParameters"])
		wantParams := `{"proxy":"` + c.proxy + `"}`
		if c.proxy == "" {
			wantParams = "null"
		}
		q1, _ := json.Marshal(ev["queryStringParameters"])
		q2, _ := json.Marshal(ev["multiValueQueryStringParameters"])
		query := string(q1)
		if query != "null" {
			query += "|" + string(q2)
		} else if string(q2) != "null" {
			query += "|" + string(q2)
		}
		if ev["resource"] != c.resource || ev["path"] != c.evPath || string(params) != wantParams ||
			rc["path"] != c.contextPath || query != c.query || rc["resourcePath"] != c.resource || ev["body"] != nil {
			t.Errorf("%s: resource %v path %v params %s context path %v query %s body %v", c.path, ev["resource"], ev["path"],
				params, rc["path"], query, ev["body"])
		}
		h := ev["headers"].(map[string]any)
		if h["tEsT-HEADeR"] != "aValUE" || h["Authorization"] != "random-value" || h["authorization"] != nil ||
			h["User-Agent"] != "python-requests/testing" {
			t.Errorf("%s: headers %v", c.path, h)
		}
	}
}

// TestLambdaProxyEventDetails: what a method's configuration and the
// request add to the event: stage variables, a binary body in base64, a
// text body that is not UTF-8, hop-by-hop headers dropped, repeated
// headers, and AWS_PROXY ignoring requestParameters (recorded L-06).
func TestLambdaProxyEventDetails(t *testing.T) {
	fns := newFakeFunctions()
	fns.set(lambdaARN("echo"), echoEvent)
	f := functionFixture(t, fns, nil)
	_, err := f.c.UpdateRestApi(ctx, &apigateway.UpdateRestApiInput{RestApiId: &f.api, PatchOperations: []types.PatchOperation{
		{Op: types.OpAdd, Path: aws.String("/binaryMediaTypes/image~1png")}}})
	f.must(err)
	rid := f.resource("/{pathVariable}")
	f.method(rid, "POST", func(in *apigateway.PutMethodInput) {
		in.RequestParameters = map[string]bool{"method.request.header.headerVar": false, "method.request.path.pathVariable": true}
	})
	f.integration(rid, "POST", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeAwsProxy,
		IntegrationHttpMethod: aws.String("POST"), Uri: aws.String(lambdaURI("echo")),
		RequestParameters: map[string]string{"integration.request.header.headerVar": "'mapped-value'",
			"integration.request.querystring.testQs": "'foo'"}})
	f.deploy("test", map[string]string{"b": "2", "a": "1"})

	ev := event(t, f.call("POST", "test", "/foobar?testQueryString=foo", map[string]string{"headerVar": "request-value",
		"User-Agent": "test/integration", "Content-Type": "image/png", "Content-MD5": "x", "Expect": "", "X-Forwarded-For": "10.0.0.1"},
		"\x89PNG\x00\xff"))
	h := ev["headers"].(map[string]any)
	if ev["body"] != "iVBORwD/" || ev["isBase64Encoded"] != true || h["headerVar"] != "request-value" ||
		h["Content-MD5"] != nil || h["X-Forwarded-For"] != "10.0.0.1, 127.0.0.1" || ev["resource"] != "/{pathVariable}" ||
		ev["path"] != "/foobar" {
		t.Errorf("event %v", ev)
	}
	if q, _ := json.Marshal(ev["queryStringParameters"]); string(q) != `{"testQueryString":"foo"}` {
		t.Errorf("query %s", q)
	}
	if sv, _ := json.Marshal(ev["stageVariables"]); string(sv) != `{"a":"1","b":"2"}` {
		t.Errorf("stage variables %s", sv)
	}
	rc := ev["requestContext"].(map[string]any)
	if rc["stage"] != "test" || rc["path"] != "/test/foobar" || rc["identity"].(map[string]any)["userAgent"] != "test/integration" {
		t.Errorf("context %v", rc)
	}

	// Text that is not UTF-8 is read as text: each ill-formed sequence
	// becomes U+FFFD; repeated headers keep every value.
	a := f.do("POST", f.srv.URL+"/restapis/"+f.api+"/test/_user_request_/x", "", map[string]string{"Content-Type": "text/plain"}, "a\xffb")
	ev = event(t, a)
	if ev["body"] != "a\uFFFDb" || ev["isBase64Encoded"] != false {
		t.Errorf("text body %q %v", ev["body"], ev["isBase64Encoded"])
	}
}

// TestLambdaProxyResponse is the recorded L-04 and L-05: which answers a
// Lambda proxy integration accepts, and what the client gets.
func TestLambdaProxyResponse(t *testing.T) {
	fns := newFakeFunctions()
	f := functionFixture(t, fns, nil)
	_, err := f.c.UpdateRestApi(ctx, &apigateway.UpdateRestApiInput{RestApiId: &f.api, PatchOperations: []types.PatchOperation{
		{Op: types.OpAdd, Path: aws.String("/binaryMediaTypes/image~1png")}}})
	f.must(err)
	f.proxyMethod("/{proxy+}", "ANY", "answer", nil)
	f.deploy("test", nil)
	const internal = `{"message": "Internal server error"}`

	for _, c := range []struct {
		name    string
		fn      fakeFunction
		accept  string
		status  int
		body    string
		headers map[string][]string
	}{
		{"no-body", reply(`{"statusCode": 200}`), "", 200, "", map[string][]string{"Content-Type": {"application/json"}}},
		{"with-headers", reply(`{"statusCode": 200, "headers": {"test-header": "value", "header-bool": true}}`), "", 200, "",
			map[string][]string{"Test-Header": {"value"}, "Header-Bool": {"true"}, "Content-Type": {"application/json"}}},
		{"with-headers-null", reply(`{"statusCode": 200, "headers": null}`), "", 200, "", nil},
		{"wrong-format", reply(`{"statusCode": 200, "wrongValue": "value"}`), "", 502, internal, nil},
		{"function-error", raise("boom"), "", 502, internal, nil},
		{"b64-encoded-true", reply(`{"statusCode": 200, "body": "dGVzdC1kYXRh", "isBase64Encoded": true}`), "", 200, "dGVzdC1kYXRh", nil},
		{"b64-encoded-false", reply(`{"statusCode": 200, "body": "dGVzdC1kYXRh"}`), "", 200, "dGVzdC1kYXRh", nil},
		{"b64-binary-accept", reply(`{"statusCode": 200, "body": "dGVzdC1kYXRh", "isBase64Encoded": true}`), "image/png", 200, "test-data", nil},
		{"b64-not-base64", reply(`{"statusCode": 200, "body": "èé+à)(", "isBase64Encoded": true}`), "image/png", 500, internal, nil},
		{"multi-headers-valid", reply(`{"statusCode": 200, "multiValueHeaders": {"test-multi": ["value1", "value2"]}}`), "", 200, "",
			map[string][]string{"Test-Multi": {"value1", "value2"}}},
		{"multi-headers-overwrite", reply(`{"statusCode": 200, "multiValueHeaders": {"test-multi": ["value-multi"]}, "headers": {"test-multi": "value-solo"}}`),
			"", 200, "", map[string][]string{"Test-Multi": {"value-multi", "value-solo"}}},
		{"multi-headers-overwrite-casing", reply(`{"statusCode": 200, "multiValueHeaders": {"tesT-Multi": ["value-multi"]}, "headers": {"test-multi": "value-solo"}}`),
			"", 200, "", map[string][]string{"Test-Multi": {"value-multi", "value-solo"}}},
		{"multi-headers-invalid", reply(`{"statusCode": 200, "multiValueHeaders": {"test-multi-invalid": "value1"}}`), "", 502, internal, nil},
		{"invalid-status-code", reply(`{"statusCode": "test"}`), "", 502, internal, nil},
		{"status-code-str", reply(`{"statusCode": "201"}`), "", 201, "", nil},
		{"just-string", reply(`"justAString"`), "", 502, internal, nil},
		{"only-headers", reply(`{"headers": {"test-header": "value"}}`), "", 200, "", map[string][]string{"Test-Header": {"value"}}},
		{"empty-response", reply(`{}`), "", 200, "", nil},
		{"bad-json", reply(`{"statusCode": 200`), "", 502, internal, nil},
		{"body-object", reply(`{"statusCode": 200, "body": {"a": 1}}`), "", 502, internal, nil},
		{"content-type", reply(`{"statusCode": 404, "headers": {"Content-Type": "text/plain"}, "body": "nope"}`), "", 404, "nope",
			map[string][]string{"Content-Type": {"text/plain"}}},
		{"remapped", reply(`{"headers": {"Date": "yesterday", "x-amzn-RequestId": "abc"}}`), "", 200, "",
			map[string][]string{"X-Amzn-Remapped-Date": {"yesterday"}, "X-Amzn-Remapped-X-Amzn-Requestid": {"abc"}}},
	} {
		fns.set(lambdaARN("answer"), c.fn)
		hdr := map[string]string{"User-Agent": "python/test"}
		if c.accept != "" {
			hdr["Accept"] = c.accept
		}
		a := f.call("POST", "test", "/test", hdr, `{"a": 1}`)
		if a.status != c.status || a.body != c.body {
			t.Errorf("%s: got %d %q, want %d %q", c.name, a.status, a.body, c.status, c.body)
			continue
		}
		for k, v := range c.headers {
			if !reflect.DeepEqual(a.header[k], v) {
				t.Errorf("%s: header %s = %q, want %q", c.name, k, a.header[k], v)
			}
		}
		if a.header.Get("X-Amzn-Trace-Id") == "" || len(a.header.Get("x-amzn-RequestId")) != 36 {
			t.Errorf("%s: identity headers %v", c.name, a.header)
		}
		if c.status >= 500 && a.header.Get("x-amzn-ErrorType") != "InternalServerErrorException" {
			t.Errorf("%s: error type %v", c.name, a.header)
		}
	}
}

// TestLambdaIntegrationFailures: a non-POST integration method (recorded
// G-01), a function that does not exist, a Lambda URI that names none, an
// integration timeout (504), stage variables and qualifiers in the URI,
// the CLOUD names, and AWS integrations of other services.
func TestLambdaIntegrationFailures(t *testing.T) {
	fns := newFakeFunctions()
	f := functionFixture(t, fns, nil)
	f.proxyMethod("/get-method", "GET", "echo", func(in *apigateway.PutIntegrationInput) { in.IntegrationHttpMethod = aws.String("GET") })
	f.proxyMethod("/missing", "GET", "nope", nil)
	f.proxyMethod("/bad-uri", "GET", "echo", func(in *apigateway.PutIntegrationInput) {
		in.Uri = aws.String("arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/" + lambdaARN("echo"))
	})
	f.proxyMethod("/slow", "GET", "slow", func(in *apigateway.PutIntegrationInput) { in.TimeoutInMillis = aws.Int32(50) })
	f.proxyMethod("/staged", "GET", "${stageVariables.fn}", nil)
	f.proxyMethod("/alias", "GET", "echo:live", nil)
	f.proxyMethod("/cloud", "GET", "echo", func(in *apigateway.PutIntegrationInput) { in.Type = "CLOUD_PROXY" })
	sid := f.resource("/s3")
	f.method(sid, "GET", nil)
	f.integration(sid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeAws, IntegrationHttpMethod: aws.String("GET"),
		Uri: aws.String("arn:aws:apigateway:us-east-1:s3:path/bucket/key")})
	f.deploy("dev", map[string]string{"fn": "echo"})
	fns.set(lambdaARN("echo"), echoEvent)
	fns.set(lambdaARN("echo:live"), echoEvent)
	fns.set(lambdaARN("slow"), func(ctx context.Context, _ []byte) (rest.FunctionReply, error) {
		<-ctx.Done()
		return rest.FunctionReply{}, ctx.Err()
	})
	const internal = `{"message": "Internal server error"}`

	a := f.call("GET", "dev", "/get-method", nil, "")
	a.want(t, 500, internal)
	if a.header.Get("x-amzn-ErrorType") != "InternalServerErrorException" || a.header.Get("X-Amzn-Trace-Id") == "" {
		t.Errorf("headers %v", a.header)
	}
	if calls := fns.take(); len(calls) != 0 {
		t.Errorf("a GET integration called the function: %v", calls)
	}
	f.call("GET", "dev", "/missing", nil, "").want(t, 500, internal)
	f.call("GET", "dev", "/bad-uri", nil, "").want(t, 500, internal)
	fns.take()
	start := time.Now()
	a = f.call("GET", "dev", "/slow", nil, "")
	a.want(t, 504, `{"message": "Endpoint request timed out"}`)
	if a.header.Get("x-amzn-ErrorType") != "InternalServerErrorException" || time.Since(start) > 5*time.Second {
		t.Errorf("timeout: %v after %v", a.header, time.Since(start))
	}
	if calls := fns.take(); len(calls) != 1 || calls[0].timeout != 50*time.Millisecond {
		t.Errorf("calls %v", calls)
	}
	for _, path := range []string{"/staged", "/alias", "/cloud"} {
		ev := event(t, f.call("GET", "dev", path, nil, ""))
		if ev["resource"] != path {
			t.Errorf("%s: event %v", path, ev)
		}
	}
	if calls := fns.take(); len(calls) != 3 || calls[0].function != lambdaARN("echo") || calls[1].function != lambdaARN("echo:live") {
		t.Errorf("calls %v", calls)
	}
	f.call("GET", "dev", "/s3", nil, "").want(t, 500, `{"message": "Integration type AWS is not emulated yet for s3"}`)
}

// TestLambdaSelectionPatterns is the recorded L-01: a non-proxy Lambda
// integration selects its integration response by the function error's
// errorMessage ("" on success), full-match; the unmatched error body is
// the error payload.
func TestLambdaSelectionPatterns(t *testing.T) {
	fns := newFakeFunctions()
	fns.set(lambdaARN("select"), func(_ context.Context, payload []byte) (rest.FunctionReply, error) {
		var in struct{ StatusCode string }
		if err := json.Unmarshal(payload, &in); err != nil {
			return rest.FunctionReply{}, err
		}
		switch in.StatusCode {
		case "200":
			return rest.FunctionReply{Payload: []byte(`"Pass"`)}, nil
		case "400":
			return raise("Error: Raising four hundred from within the Lambda function")(nil, nil)
		case "500":
			return raise("Error: Raising five hundred from within the Lambda function")(nil, nil)
		}
		return raise("unknown")(nil, nil)
	})
	f := functionFixture(t, fns, nil)
	rid := f.resource("/{statusCode}")
	f.method(rid, "GET", func(in *apigateway.PutMethodInput) {
		in.RequestParameters = map[string]bool{"method.request.path.statusCode": true}
	})
	f.integration(rid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeAws, IntegrationHttpMethod: aws.String("POST"),
		Uri:              aws.String(lambdaURI("select")),
		RequestTemplates: map[string]string{"application/json": `{"statusCode": "$input.params('statusCode')"}`}})
	for status, pattern := range map[string]string{"200": "", "405": ".*four hundred.*", "502": ".+", "504": "200"} {
		f.methodResponse(rid, "GET", status, nil)
		f.integrationResponse(rid, "GET", status, &apigateway.PutIntegrationResponseInput{SelectionPattern: aws.String(pattern)})
	}
	f.deploy("dev", nil)

	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/200", 200, `"Pass"`},
		{"/400", 405, "Error: Raising four hundred from within the Lambda function"},
		{"/500", 502, "Error: Raising five hundred from within the Lambda function"},
		{"/999", 502, "unknown"},
	} {
		a := f.call("GET", "dev", c.path, nil, "")
		if a.status != c.status || !strings.Contains(a.body, c.body) || a.header.Get("Content-Type") != "application/json" ||
			a.header.Get("X-Amzn-Trace-Id") == "" {
			t.Errorf("%s: got %d %s %v, want %d %s", c.path, a.status, a.body, a.header, c.status, c.body)
		}
		if c.status != 200 {
			var e map[string]any
			if err := json.Unmarshal([]byte(a.body), &e); err != nil || e["errorType"] != "Exception" {
				t.Errorf("%s: the error payload is not the body: %s", c.path, a.body)
			}
		}
	}
	calls := fns.take()
	if len(calls) != 4 || calls[1].payload != `{"statusCode": "400"}` {
		t.Errorf("calls %v", calls)
	}
}

// TestLambdaIntegration: a non-proxy Lambda integration passes the body
// through (an empty one as {}), a response template reads the result and
// may choose the status by it (M-11), the default response takes an
// unmatched function error, and TestInvokeMethod logs the call as AWS does
// (T-03).
func TestLambdaIntegration(t *testing.T) {
	fns := newFakeFunctions()
	fns.set(lambdaARN("echo"), func(_ context.Context, payload []byte) (rest.FunctionReply, error) {
		return rest.FunctionReply{Payload: payload}, nil
	})
	fns.set(lambdaARN("fail"), raise("it broke"))
	f := functionFixture(t, fns, nil)
	rid := f.resource("/echo")
	f.method(rid, "POST", nil)
	f.integration(rid, "POST", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeAws, IntegrationHttpMethod: aws.String("POST"),
		Uri: aws.String(lambdaURI("echo"))})
	f.methodResponse(rid, "POST", "200", nil)
	f.integrationResponse(rid, "POST", "200", nil)
	tid := f.resource("/template")
	f.method(tid, "POST", nil)
	f.integration(tid, "POST", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeAws, IntegrationHttpMethod: aws.String("POST"),
		Uri: aws.String(lambdaURI("echo"))})
	f.methodResponse(tid, "POST", "200", nil)
	f.methodResponse(tid, "POST", "400", nil)
	f.integrationResponse(tid, "POST", "200", &apigateway.PutIntegrationResponseInput{SelectionPattern: aws.String(""),
		ResponseTemplates: map[string]string{"application/json": "#set($root = $input.path('$'))\n" +
			"#if($root.toString().contains(\"customerror\"))\n#set($context.responseOverride.status = 400)\n#else\n" +
			"#set($context.responseOverride.status = 202)\n#end\n{\"body\": \"$root.body\", \"status\": \"$context.responseOverride.status\"}"}})
	fid := f.resource("/fail")
	f.method(fid, "GET", nil)
	f.integration(fid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeAws, IntegrationHttpMethod: aws.String("POST"),
		Uri: aws.String(lambdaURI("fail"))})
	f.methodResponse(fid, "GET", "200", nil)
	f.integrationResponse(fid, "GET", "200", nil)
	f.deploy("dev", nil)

	f.call("POST", "dev", "/echo", nil, `{"message": "hello world"}`).want(t, 200, `{"message": "hello world"}`)
	f.call("POST", "dev", "/echo", nil, "").want(t, 200, `{}`)
	f.call("POST", "dev", "/template", nil, `{"body": "noerror"}`).want(t, 202, `{"body": "noerror", "status": "202"}`)
	f.call("POST", "dev", "/template", nil, `{"body": "customerror"}`).want(t, 400, `{"body": "customerror", "status": "400"}`)
	a := f.call("GET", "dev", "/fail", nil, "")
	if a.status != 200 || !strings.Contains(a.body, `"errorMessage": "it broke"`) {
		t.Errorf("unmatched error: %d %s", a.status, a.body)
	}

	out, err := f.c.TestInvokeMethod(ctx, &apigateway.TestInvokeMethodInput{RestApiId: &f.api, ResourceId: &rid,
		HttpMethod: aws.String("POST"), Body: aws.String(`{"test": "val123"}`)})
	f.must(err)
	if out.Status != 200 || *out.Body != `{"test": "val123"}` || out.Headers["Content-Type"] != "application/json" ||
		out.Headers["X-Amzn-Trace-Id"] == "" {
		t.Errorf("test invoke %d %s %v", out.Status, *out.Body, out.Headers)
	}
	for _, line := range []string{
		"Endpoint request URI: https://lambda.us-east-1.amazonaws.com/2015-03-31/functions/" + lambdaARN("echo") + "/invocations",
		"Endpoint request body after transformations: {\"test\": \"val123\"}",
		"Sending request to https://lambda.us-east-1.amazonaws.com/2015-03-31/functions/" + lambdaARN("echo") + "/invocations",
		"Received response. Status: 200, Integration latency: ",
		"Endpoint response body before transformations: {\"test\": \"val123\"}",
		"Successfully completed execution",
	} {
		if !strings.Contains(*out.Log, " : "+line) {
			t.Errorf("log lacks %q:\n%s", line, *out.Log)
		}
	}
}
