package httpevent_test

import (
	"testing"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpevent"
)

// benchRequest is a typical Lambda-backed HTTP API request: a POST with a
// small JSON body, a browser's headers, two cookies and a query string.
func benchRequest(version string) *httpevent.Request {
	r := baseRequest()
	r.Version = version
	r.RouteKey = "POST /items/{id}"
	r.Method = "POST"
	r.Stage = "dev"
	r.RawPath, r.Path, r.Resource = "/dev/items/42", "/dev/items/42", "/items/{id}"
	r.RawQuery = "page=2&sort=name&filter=a+b&filter=c%20d"
	r.Headers = httpevent.AddForwarded(nil, headers(
		"Host", "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
		"User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
		"Accept", "application/json, text/plain, */*",
		"Accept-Encoding", "gzip, deflate, br",
		"Accept-Language", "en-US,en;q=0.9",
		"Content-Type", "application/json",
		"Content-Length", "58",
		"Authorization", "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl",
		"Cookie", "session=abc123; theme=dark",
		"Origin", "https://app.example.com",
	), "203.0.113.7", "443", "https", "Root=1-6a5145a9-1bae89e2512ec92d5d9438a0")
	r.Body = []byte(`{"name":"widget","quantity":3,"tags":["blue","large"]}`)
	r.PathParams = []httpevent.Param{{Name: "id", Value: "42"}}
	r.StageVariables = []httpevent.Param{{Name: "env", Value: "dev"}}
	return r
}

// BenchmarkAppendEvent builds a typical request's event into a reused
// buffer, as the executor does with a pooled one.
func BenchmarkAppendEvent(b *testing.B) {
	for _, version := range []string{"2.0", "1.0"} {
		b.Run("version="+version, func(b *testing.B) {
			r := benchRequest(version)
			buf := httpevent.AppendEvent(nil, r)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				buf = httpevent.AppendEvent(buf[:0], r)
			}
		})
	}
}

// BenchmarkAppendAuthorizerEvent builds a 2.0 authorizer event.
func BenchmarkAppendAuthorizerEvent(b *testing.B) {
	r := benchRequest("2.0")
	arn := httpevent.RouteARN("us-east-1", "123456789012", "a1b2c3d4e5", "dev", "POST", "/items/42")
	identity := []string{"Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl"}
	buf := httpevent.AppendAuthorizerEvent(nil, r, "2.0", arn, identity)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = httpevent.AppendAuthorizerEvent(buf[:0], r, "2.0", arn, identity)
	}
}

// BenchmarkReadResponse reads typical answers into a reused response.
func BenchmarkReadResponse(b *testing.B) {
	cases := []struct{ name, version, payload string }{
		{"structured", "2.0", `{"statusCode":200,"headers":{"Content-Type":"application/json","Cache-Control":"no-store"},` +
			`"cookies":["session=abc123; Path=/; HttpOnly"],"body":"{\"id\":42,\"name\":\"widget\",\"quantity\":3}","isBase64Encoded":false}`},
		{"inferred", "2.0", `{"id":42,"name":"widget","quantity":3,"tags":["blue","large"]}`},
		{"base64", "2.0", `{"statusCode":200,"headers":{"Content-Type":"image/png"},"isBase64Encoded":true,` +
			`"body":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}`},
		{"v1", "1.0", `{"statusCode":201,"headers":{"Content-Type":"application/json"},"multiValueHeaders":{"Set-Cookie":["a=1","b=2"]},` +
			`"body":"{\"id\":42}","isBase64Encoded":false}`},
	}
	for _, c := range cases {
		b.Run("answer="+c.name, func(b *testing.B) {
			reply := execute.FunctionReply{Payload: []byte(c.payload)}
			var resp execute.Response
			b.SetBytes(int64(len(c.payload)))
			b.ReportAllocs()
			for b.Loop() {
				resp.Reset()
				if err := httpevent.ReadResponse(c.version, reply, &resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAuthorize reads and decides a policy answer.
func BenchmarkAuthorize(b *testing.B) {
	reply := execute.FunctionReply{Payload: []byte(`{"principalId":"user-1","policyDocument":{"Version":"2012-10-17",` +
		`"Statement":[{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/*/*/*"}]},` +
		`"context":{"tenant":"t-1","role":"admin"}}`)}
	arn := httpevent.RouteARN("us-east-1", "123456789012", "a1b2c3d4e5", "dev", "POST", "/items/42")
	b.ReportAllocs()
	for b.Loop() {
		if _, o := httpevent.Authorize(reply, false, arn); o != httpevent.Allowed {
			b.Fatal(o)
		}
	}
}
