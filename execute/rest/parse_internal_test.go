package rest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/jsonread"
)

// TestParseProxyAnswer checks the proxy answer reader header by header:
// the merge of multiValueHeaders and headers (recorded L-04: both values,
// multi first, the multiValueHeaders spelling kept), scalars as text, and
// what is refused.
func TestParseProxyAnswer(t *testing.T) {
	hs := headerList
	for _, c := range []struct {
		payload string
		ok      bool
		status  int
		body    string
		base64  bool
		headers execute.Headers
	}{
		{`{"statusCode": 200}`, true, 200, "", false, nil},
		{`{}`, true, 200, "", false, nil},
		{`{"statusCode": 201.0}`, true, 201, "", false, nil},
		{`{"statusCode": "201"}`, true, 201, "", false, nil},
		{`{"statusCode": null, "body": null, "headers": null, "multiValueHeaders": null, "isBase64Encoded": null}`, true, 200, "", false, nil},
		{`{"statusCode": 200, "headers": {"test-header": "value", "header-bool": true, "n": 1, "gone": null}}`, true, 200, "", false,
			hs("test-header", "value", "header-bool", "true", "n", "1")},
		{`{"multiValueHeaders": {"tesT-Multi": ["value-multi"], "other": ["a", "b"]}, "headers": {"x": "1", "test-multi": "value-solo"}}`,
			true, 200, "", false, hs("tesT-Multi", "value-multi", "tesT-Multi", "value-solo", "other", "a", "other", "b", "x", "1")},
		{`{"body": "hi", "isBase64Encoded": "true"}`, true, 200, "hi", true, nil},
		{`{"body": 12}`, true, 200, "12", false, nil},
		{`{"statusCode": "test"}`, false, 0, "", false, nil},
		{`{"statusCode": 99}`, false, 0, "", false, nil},
		{`{"statusCode": true}`, false, 0, "", false, nil},
		{`{"StatusCode": 200}`, false, 0, "", false, nil},
		{`{"statusCode": 200, "wrongValue": "value"}`, false, 0, "", false, nil},
		{`{"headers": {"a": {"b": 1}}}`, false, 0, "", false, nil},
		{`{"headers": ["a"]}`, false, 0, "", false, nil},
		{`{"multiValueHeaders": {"a": "b"}}`, false, 0, "", false, nil},
		{`{"multiValueHeaders": {"a": [["b"]]}}`, false, 0, "", false, nil},
		{`{"body": {"a": 1}}`, false, 0, "", false, nil},
		{`{"isBase64Encoded": "yes"}`, false, 0, "", false, nil},
		{`"justAString"`, false, 0, "", false, nil},
		{`null`, false, 0, "", false, nil},
		{`{"statusCode": 200}{}`, false, 0, "", false, nil},
		{`{"statusCode": 200`, false, 0, "", false, nil},
		{``, false, 0, "", false, nil},
	} {
		a, h, ok := parseProxyAnswer([]byte(c.payload), nil, nil)
		if ok != c.ok {
			t.Errorf("%s: ok %v", c.payload, ok)
			continue
		}
		if !ok {
			continue
		}
		if a.status != c.status || string(a.body) != c.body || a.base64 != c.base64 || !reflect.DeepEqual(h, c.headers) {
			t.Errorf("%s: got %d %q %v %v", c.payload, a.status, a.body, a.base64, h)
		}
	}
}

func TestParseLambdaURI(t *testing.T) {
	for uri, want := range map[string]lambdaTarget{
		"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:f/invocations": {
			service: "lambda", region: "us-east-1", function: "arn:aws:lambda:us-east-1:123456789012:function:f"},
		"arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:f:live/invocations": {
			service: "lambda", region: "eu-west-1", function: "arn:aws:lambda:eu-west-1:123456789012:function:f:live"},
		"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:${stageVariables.fn}/invocations": {
			service: "lambda", region: "us-east-1", function: "arn:aws:lambda:us-east-1:123456789012:function:${stageVariables.fn}", vars: true},
		"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/f":            {service: "lambda", region: "us-east-1"},
		"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions//invocations": {service: "lambda", region: "us-east-1"},
		"arn:aws:apigateway:us-east-1:s3:path/bucket/key":                            {service: "s3", region: "us-east-1"},
		"https://example.com": {},
	} {
		if got := parseLambdaURI(uri); got != want {
			t.Errorf("%s: %+v, want %+v", uri, got, want)
		}
	}
}

func TestParseAuthorizerOutput(t *testing.T) {
	const arn = "arn:aws:execute-api:us-east-1:1:a/dev/GET/x"
	for _, c := range []struct {
		payload string
		ok      bool
		decide  *gatewayError
	}{
		{`{"principalId": "u", "policyDocument": {"Statement": {"Effect": "Allow", "Action": "execute-api:Invoke", "Resource": "*"}}}`, true, nil},
		{`{"principalId": 7, "policyDocument": {"Statement": [{"Effect": "Allow", "Action": ["s3:GetObject", "execute-api:*"], "Resource": ["arn:other", "` + arn + `"]}]}}`, true, nil},
		{`{"principalId": "u", "policyDocument": {"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}, {"Effect": "Deny", "Action": "execute-api:invoke", "Resource": "arn:*/dev/*"}]}}`, true, errExplicitDeny},
		{`{"principalId": "u", "policyDocument": {"Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}}`, true, errImplicitDeny},
		{`{"principalId": "u", "policyDocument": {"Statement": []}}`, true, errImplicitDeny},
		{`{"principalId": "u", "policyDocument": {"Statement": [{"Effect": "allow", "Action": "*", "Resource": "*"}]}}`, false, nil},
		{`{"principalId": "u", "policyDocument": {"Statement": [{"Effect": "Allow", "Resource": "*"}]}}`, false, nil},
		{`{"principalId": "u", "policyDocument": {"Statement": [{"Effect": "Allow", "Action": [1], "Resource": "*"}]}}`, false, nil},
		{`{"principalId": "u", "policyDocument": {"Version": "2012-10-17"}}`, false, nil},
		{`{"principalId": "u"}`, false, nil},
		{`{"policyDocument": {"Statement": []}}`, false, nil},
		{`{"principalId": null, "policyDocument": {"Statement": []}}`, false, nil},
		{`{"principalId": "u", "policyDocument": {"Statement": []}, "context": {"a": [1]}}`, false, nil},
		{`{"principalId": "u", "policyDocument": {"Statement": []}, "context": "x"}`, false, nil},
		{`{"principalId": "u", "policyDocument": "x"}`, false, nil},
	} {
		r, ok := parseAuthorizerOutput([]byte(c.payload))
		if ok != c.ok {
			t.Errorf("%s: ok %v", c.payload, ok)
			continue
		}
		if ok {
			if got := r.decide(arn); got != c.decide {
				t.Errorf("%s: decide %v", c.payload, got)
			}
		}
	}
	r, _ := parseAuthorizerOutput([]byte(`{"principalId": "u", "policyDocument": {"Statement": []}, "usageIdentifierKey": "k",
		"context": {"s": "v", "n": 1.50, "b": false, "z": null, "s": "w"}, "extra": 1}`))
	if r.usageKey != "k" || !reflect.DeepEqual(r.context, headerList("s", "w", "n", "1.50", "b", "false")) ||
		r.policy != `{"Statement":[]}` {
		t.Errorf("answer %+v", r)
	}
}

func TestEventPath(t *testing.T) {
	for in, want := range map[string]string{"": "/", "/": "/", "/a": "/a", "//a": "/a", "///a/": "/a/", "/a//b": "/a//b"} {
		if got := eventPath(in); got != want {
			t.Errorf("%q: %q", in, got)
		}
	}
}

// headerList is the headers name, value, name, value...
func headerList(kv ...string) execute.Headers {
	var h execute.Headers
	for i := 0; i+1 < len(kv); i += 2 {
		h = append(h, execute.Header{Name: kv[i], Value: kv[i+1]})
	}
	return h
}

// FuzzJSONReader checks the in-place JSON reader against encoding/json:
// it accepts exactly the well-formed objects, and reads their members as
// encoding/json does.
func FuzzJSONReader(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : [1, -2.5e+3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"] } `,
		`{"a": {"b": {"c": []}}}`, `{"a": 01}`, `{"a": 1.}`, `{"a": .5}`, `{"a": -}`, `{"a": "\x"}`, `{"a": "\u12"}`,
		"{\"a\": \"\x01\"}", `{"a" 1}`, `{"a": 1,}`, `{,}`, `[1]`, `{"a": [1,]}`, `{"a": tru}`, `{"a": 1} x`, `{"a": 1}{}`,
		`{"a": "é"}`, "{\"\x86\": \"\"}", `{"a": 1e5, "a": 2}`, `{"\u0041": 1}`,
		`{"a": "\ud83d\ude00 \ud83d \ude00 \ud83d\u0041 \u00e9\t"}`, `"x"`, ``, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want map[string]json.RawMessage
		// encoding/json reads null into a map as no map at all; it is no
		// object.
		wantOK := json.Valid(b) && json.Unmarshal(b, &want) == nil && want != nil
		got := map[string]string{}
		values := map[string]string{}
		ok := jsonread.EachMember(b, func(k, v []byte) bool {
			got[string(k)] = string(v)
			if jsonread.KindOf(v) == jsonread.String {
				values[string(k)], _, _ = jsonread.ScalarText(v)
			}
			return true
		})
		if ok != wantOK {
			t.Fatalf("%q: ok %v, encoding/json %v", b, ok, wantOK)
		}
		if !ok {
			return
		}
		for k, v := range want {
			if string(bytes.TrimSpace(v)) != got[k] {
				t.Fatalf("%q: member %q = %q, encoding/json %q", b, k, got[k], v)
			}
			var s string
			if json.Unmarshal(v, &s) == nil && s != values[k] {
				t.Fatalf("%q: member %q reads %q, encoding/json %q", b, k, values[k], s)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, encoding/json %d", b, len(got), len(want))
		}
	})
}
