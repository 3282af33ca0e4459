package httpevent_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpevent"
)

// responseCase is a function's reply and what the client gets for it:
// status, headers and body, or the error (the client then gets 500).
type responseCase struct {
	name    string
	reply   execute.FunctionReply
	status  int
	headers execute.Headers
	body    string
	err     error
}

func runResponses(t *testing.T, version string, cases []responseCase) {
	t.Helper()
	for _, c := range cases {
		t.Run("case="+c.name, func(t *testing.T) {
			var resp execute.Response
			err := httpevent.ReadResponse(version, c.reply, &resp)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("error %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if resp.Status != c.status || string(resp.Body) != c.body || !reflect.DeepEqual(resp.Headers, c.headers) {
				t.Errorf("got %d %v %q\nwant %d %v %q", resp.Status, resp.Headers, resp.Body, c.status, c.headers, c.body)
			}
		})
	}
}

var (
	jsonType  = headers("Content-Type", "application/json")
	plainType = headers("Content-Type", "text/plain; charset=utf-8")
)

// TestReadResponseV2 pins how payload format 2.0 answers are read. The
// inferred cases are the docs' table (http-api-develop-integrations-lambda,
// "Lambda function response for format 2.0": "Hello from Lambda!" and
// { "message": "Hello from Lambda!" } become the body, status 200,
// application/json); the structured ones the docs' customised format,
// with Content-Type text/plain; charset=utf-8 when the function sets none
// (recorded on an HTTP API: aasisodiya.github.io/nodejs/nodejs-aws/nodejs-aws-apigw)
// and cookies as Set-Cookie ahead of the headers' (ministackorg/ministack,
// checked against AWS).
func TestReadResponseV2(t *testing.T) {
	runResponses(t, "2.0", []responseCase{
		{name: "docs-string", reply: reply(`"Hello from Lambda!"`), status: 200, headers: jsonType, body: "Hello from Lambda!"},
		{name: "docs-object", reply: reply(`{ "message": "Hello from Lambda!" }`), status: 200, headers: jsonType,
			body: `{ "message": "Hello from Lambda!" }`},
		{name: "string-escapes", reply: reply(` "a\"b\u00e9\ud83d\ude00\n" `), status: 200, headers: jsonType, body: "a\"bé😀\n"},
		{name: "number", reply: reply(`42`), status: 200, headers: jsonType, body: "42"},
		{name: "array", reply: reply("[1, {\"statusCode\": 201}]\n"), status: 200, headers: jsonType, body: `[1, {"statusCode": 201}]`},
		{name: "boolean", reply: reply(`true`), status: 200, headers: jsonType, body: "true"},
		{name: "null", reply: reply(`null`), status: 200, headers: jsonType, body: "null"},
		{name: "object-with-body-no-status", reply: reply(`{"body":"x","headers":{"a":"b"}}`), status: 200, headers: jsonType,
			body: `{"body":"x","headers":{"a":"b"}}`},
		{name: "structured", reply: reply(`{"statusCode":201,"headers":{"Content-Type":"text/html","X-A":"1"},"body":"<p>hi</p>"}`),
			status: 201, headers: headers("Content-Type", "text/html", "X-A", "1"), body: "<p>hi</p>"},
		{name: "default-type", reply: reply(`{"statusCode":200,"body":"\"Hello from Lambda!\""}`),
			status: 200, headers: plainType, body: `"Hello from Lambda!"`},
		{name: "type-any-case", reply: reply(`{"statusCode":200,"headers":{"content-type":"image/png"}}`),
			status: 200, headers: headers("content-type", "image/png"), body: ""},
		{name: "status-string", reply: reply(`{"statusCode":"404","body":"nope"}`), status: 404, headers: plainType, body: "nope"},
		{name: "status-fraction", reply: reply(`{"statusCode":302.0}`), status: 302, headers: plainType},
		{name: "no-body", reply: reply(`{"statusCode":204,"body":null}`), status: 204, headers: plainType},
		{name: "scalar-body", reply: reply(`{"statusCode":200,"body":12.5}`), status: 200, headers: plainType, body: "12.5"},
		{name: "header-scalars", reply: reply(`{"statusCode":200,"headers":{"x-n":1,"x-b":true,"x-null":null,"x-e":"\u00e9"}}`),
			status: 200, headers: headers("x-n", "1", "x-b", "true", "x-e", "é", "Content-Type", "text/plain; charset=utf-8")},
		{name: "cookies", reply: reply(`{"statusCode":200,"headers":{"Set-Cookie":"c=3"},"cookies":["a=1; Path=/","b=2"],"body":""}`),
			status: 200, headers: headers("Set-Cookie", "a=1; Path=/", "Set-Cookie", "b=2", "Set-Cookie", "c=3",
				"Content-Type", "text/plain; charset=utf-8")},
		{name: "cookies-null", reply: reply(`{"statusCode":200,"cookies":null}`), status: 200, headers: plainType},
		{name: "base64", reply: reply(`{"statusCode":200,"isBase64Encoded":true,"body":"AAEC/w==","headers":{"Content-Type":"application/octet-stream"}}`),
			status: 200, headers: headers("Content-Type", "application/octet-stream"), body: "\x00\x01\x02\xff"},
		{name: "base64-unpadded", reply: reply(`{"statusCode":200,"isBase64Encoded":true,"body":"aGk"}`), status: 200, headers: plainType, body: "hi"},
		{name: "base64-escaped", reply: reply(`{"statusCode":200,"isBase64Encoded":true,"body":"a\/8="}`), status: 200, headers: plainType, body: "k\xff"},
		{name: "base64-false", reply: reply(`{"statusCode":200,"isBase64Encoded":false,"body":"aGk="}`), status: 200, headers: plainType, body: "aGk="},
		{name: "base64-string-flag", reply: reply(`{"statusCode":200,"isBase64Encoded":"true","body":"aGk="}`), status: 200, headers: plainType, body: "hi"},
		{name: "ignores-other-members", reply: reply(`{"statusCode":200,"multiValueHeaders":{"Content-Type":["application/json"]},"extra":[1]}`),
			status: 200, headers: plainType},
		{name: "last-member-counts", reply: reply(`{"statusCode":500,"statusCode":200}`), status: 200, headers: plainType},

		{name: "function-error", reply: failed(`{"errorMessage":"boom","errorType":"Error"}`), err: httpevent.ErrFunction},
		{name: "function-error-shaped-like-answer", reply: failed(`{"statusCode":200}`), err: httpevent.ErrFunction},
		{name: "not-json", reply: reply(`Hello`), err: httpevent.ErrInvalidResponse},
		{name: "empty", reply: reply(``), err: httpevent.ErrInvalidResponse},
		{name: "trailing-garbage", reply: reply(`{"statusCode":200} x`), err: httpevent.ErrInvalidResponse},
		{name: "status-word", reply: reply(`{"statusCode":"ok"}`), err: httpevent.ErrInvalidResponse},
		{name: "status-null", reply: reply(`{"statusCode":null}`), err: httpevent.ErrInvalidResponse},
		{name: "status-out-of-range", reply: reply(`{"statusCode":600}`), err: httpevent.ErrInvalidResponse},
		{name: "headers-list", reply: reply(`{"statusCode":200,"headers":[["a","b"]]}`), err: httpevent.ErrInvalidResponse},
		{name: "header-object", reply: reply(`{"statusCode":200,"headers":{"a":{"b":1}}}`), err: httpevent.ErrInvalidResponse},
		{name: "header-list", reply: reply(`{"statusCode":200,"headers":{"a":["b"]}}`), err: httpevent.ErrInvalidResponse},
		{name: "body-object", reply: reply(`{"statusCode":200,"body":{"a":1}}`), err: httpevent.ErrInvalidResponse},
		{name: "cookies-string", reply: reply(`{"statusCode":200,"cookies":"a=1"}`), err: httpevent.ErrInvalidResponse},
		{name: "cookie-object", reply: reply(`{"statusCode":200,"cookies":[{"a":1}]}`), err: httpevent.ErrInvalidResponse},
		{name: "base64-flag-word", reply: reply(`{"statusCode":200,"isBase64Encoded":"yes"}`), err: httpevent.ErrInvalidResponse},
		{name: "base64-invalid", reply: reply(`{"statusCode":200,"isBase64Encoded":true,"body":"a*b="}`), err: httpevent.ErrInvalidResponse},
	})
}

// TestReadResponseV1 pins payload format 1.0 as HTTP APIs read it: REST's
// members and header merge (docs/apigateway-execution.md §4 "Response
// parsing"), statusCode required (repost knowledge-center
// api-gateway-status-codes-http-api: with 1.0 "API Gateway doesn't make
// assumptions of the response and returns a 500 error"), base64 bodies
// decoded.
func TestReadResponseV1(t *testing.T) {
	runResponses(t, "1.0", []responseCase{
		{name: "plain", reply: reply(`{"statusCode":200,"body":"hi"}`), status: 200, headers: jsonType, body: "hi"},
		{name: "merge", reply: reply(`{"statusCode":201,"headers":{"test-multi":"value-solo","X-Other":true},` +
			`"multiValueHeaders":{"tesT-Multi":["value-multi"],"x-list":["a",1,null]}}`),
			status: 201, headers: headers("tesT-Multi", "value-multi", "tesT-Multi", "value-solo", "x-list", "a", "x-list", "1",
				"X-Other", "true", "Content-Type", "application/json")},
		{name: "type-given", reply: reply(`{"statusCode":200,"multiValueHeaders":{"content-type":["text/csv"]},"body":"a,b"}`),
			status: 200, headers: headers("content-type", "text/csv"), body: "a,b"},
		{name: "base64-decoded", reply: reply(`{"statusCode":200,"isBase64Encoded":true,"body":"aGk="}`), status: 200, headers: jsonType, body: "hi"},
		{name: "nulls", reply: reply(`{"statusCode":"200","headers":null,"multiValueHeaders":{"a":null},"body":null,"isBase64Encoded":null}`),
			status: 200, headers: jsonType},

		{name: "function-error", reply: failed(`{"errorMessage":"boom"}`), err: httpevent.ErrFunction},
		{name: "no-status", reply: reply(`{"body":"hi"}`), err: httpevent.ErrInvalidResponse},
		{name: "bare-string", reply: reply(`"Hello from Lambda!"`), err: httpevent.ErrInvalidResponse},
		{name: "other-member", reply: reply(`{"statusCode":200,"cookies":["a=1"]}`), err: httpevent.ErrInvalidResponse},
		{name: "multi-not-list", reply: reply(`{"statusCode":200,"multiValueHeaders":{"a":"b"}}`), err: httpevent.ErrInvalidResponse},
		{name: "multi-value-object", reply: reply(`{"statusCode":200,"multiValueHeaders":{"a":[{}]}}`), err: httpevent.ErrInvalidResponse},
		{name: "header-object", reply: reply(`{"statusCode":200,"headers":{"a":{}}}`), err: httpevent.ErrInvalidResponse},
		{name: "body-list", reply: reply(`{"statusCode":200,"body":[]}`), err: httpevent.ErrInvalidResponse},
	})
}

// TestReadResponseAppends checks that the response is appended to what
// resp holds (a pooled response keeps its room) and that many headers,
// more than the stack scratch holds, are all kept.
func TestReadResponseAppends(t *testing.T) {
	resp := execute.Response{Body: make([]byte, 0, 64), Headers: make(execute.Headers, 0, 4)}
	resp.Body = append(resp.Body, "x"...)
	if err := httpevent.ReadResponse("2.0", reply(`"y"`), &resp); err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "xy" {
		t.Errorf("body %q", resp.Body)
	}
	payload := []byte(`{"statusCode":200,"headers":{`)
	want := execute.Headers{}
	for i := range 40 {
		if i > 0 {
			payload = append(payload, ',')
		}
		name := "x-header-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		value := "a value long enough to outgrow the scratch buffer " + name
		payload = append(payload, `"`+name+`":"`+value+`"`...)
		want = append(want, execute.Header{Name: name, Value: value})
	}
	payload = append(payload, "}}"...)
	want = append(want, plainType...)
	var big execute.Response
	if err := httpevent.ReadResponse("2.0", execute.FunctionReply{Payload: payload}, &big); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(big.Headers, want) {
		t.Errorf("headers %v", big.Headers)
	}
}

// FuzzReadResponse checks that no answer panics the reader and that what
// it accepts has a status.
func FuzzReadResponse(f *testing.F) {
	f.Add(`{"statusCode":200,"headers":{"a":1},"cookies":["c"],"body":"aGk=","isBase64Encoded":true}`, "2.0")
	f.Add(`{"statusCode":"201","multiValueHeaders":{"a":["b"]},"headers":{"A":"c"}}`, "1.0")
	f.Add(`"\ud800\u00e9"`, "2.0")
	f.Add(` null`, "2.0")
	f.Fuzz(func(t *testing.T, payload, version string) {
		var resp execute.Response
		err := httpevent.ReadResponse(version, execute.FunctionReply{Payload: []byte(payload)}, &resp)
		if err == nil && (resp.Status < 100 || resp.Status > 599) {
			t.Fatalf("status %d for %s", resp.Status, payload)
		}
		// A JSON string answer to 2.0 is its text, as encoding/json reads it.
		var s string
		if version != "1.0" && strings.HasPrefix(strings.TrimLeft(payload, " \t\r\n"), `"`) &&
			json.Unmarshal([]byte(payload), &s) == nil && (err != nil || string(resp.Body) != s) {
			t.Fatalf("body %q (%v), want %q", resp.Body, err, s)
		}
	})
}
