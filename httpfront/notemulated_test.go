package httpfront_test

import (
	"bytes"
	"encoding/xml"
	"log/slog"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/server/servertest"
)

// xmlError is every member the XML error shapes carry, wherever they sit:
// S3's <Error>, the query protocol's <ErrorResponse><Error>, EC2's
// <Response><Errors><Error>.
type xmlError struct {
	XMLName   xml.Name
	Code      string `xml:"Code"`
	Message   string `xml:"Message"`
	RequestID string `xml:"RequestId"`
	Error     *struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
	Errors *struct {
		Error struct {
			Code    string `xml:"Code"`
			Message string `xml:"Message"`
		} `xml:"Error"`
	} `xml:"Errors"`
	EC2RequestID string `xml:"RequestID"`
}

// TestNotEmulated checks that a call to a service the emulator does not
// serve is answered 501 NotImplemented, naming the service, in the shape
// its protocol's clients parse.
func TestNotEmulated(t *testing.T) {
	srv := servertest.Start(t)
	const form = "application/x-www-form-urlencoded; charset=utf-8"
	for _, tc := range []struct {
		name, method, path, body string
		header                   []string
		// shape: json (with __type), rest-json, cbor, s3, query, ec2.
		shape, service, contentType string
	}{
		{name: "service=s3/list-buckets", method: "GET", path: "/", header: sign("s3", "us-east-1", "test"),
			shape: "s3", service: "s3", contentType: "application/xml"},
		{name: "service=s3/bucket-named-like-a-route", method: "GET", path: "/restapis?list-type=2",
			header: sign("s3", "eu-west-1", "test"), shape: "s3", service: "s3", contentType: "application/xml"},
		{name: "service=s3/put-object-on-a-route", method: "PUT", path: "/backup-vaults/key", body: "data",
			header: sign("s3", "eu-west-1", "test"), shape: "s3", service: "s3", contentType: "application/xml"},
		{name: "service=s3/presigned", method: "GET", path: "/bucket/key?X-Amz-Credential=test%2F20261125%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=0f",
			shape: "s3", service: "s3", contentType: "application/xml"},
		{name: "service=kms/json-1.1", method: "POST", path: "/", body: "{}",
			header: append(sign("kms", "us-east-1", "test"), "X-Amz-Target", "TrentService.ListKeys", "Content-Type", "application/x-amz-json-1.1"),
			shape:  "json", service: "kms", contentType: "application/x-amz-json-1.1"},
		{name: "service=dynamodb/json", method: "POST", path: "/", body: "{}",
			header: append(sign("dynamodb", "us-east-1", "test"), "X-Amz-Target", "DynamoDB_20120810.ListTables", "Content-Type", "application/x-amz-json-1.0"),
			shape:  "json", service: "dynamodb", contentType: "application/x-amz-json-1.0"},
		{name: "service=logs/json-1.1", method: "POST", path: "/", body: "{}",
			header: append(sign("logs", "us-east-1", "test"), "X-Amz-Target", "Logs_20140328.DescribeLogGroups", "Content-Type", "application/x-amz-json-1.1"),
			shape:  "json", service: "logs", contentType: "application/x-amz-json-1.1"},
		{name: "service=unsigned-target", method: "POST", path: "/", body: "{}",
			header: []string{"X-Amz-Target", "DynamoDB_20120810.ListTables", "Content-Type", "application/x-amz-json-1.0"},
			shape:  "json", service: "DynamoDB_20120810", contentType: "application/x-amz-json-1.0"},
		{name: "service=iam/query", method: "POST", path: "/", body: "Action=ListUsers&Version=2010-05-08",
			header: append(sign("iam", "us-east-1", "test"), "Content-Type", form), shape: "query", service: "iam", contentType: "text/xml"},
		{name: "service=sts/query", method: "POST", path: "/", body: "Action=GetCallerIdentity&Version=2011-06-15",
			header: append(sign("sts", "us-east-1", "test"), "Content-Type", form), shape: "query", service: "sts", contentType: "text/xml"},
		{name: "service=sts/query-get", method: "GET", path: "/?Action=GetCallerIdentity&Version=2011-06-15",
			header: sign("sts", "us-east-1", "test"), shape: "query", service: "sts", contentType: "text/xml"},
		{name: "service=ec2", method: "POST", path: "/", body: "Action=DescribeInstances&Version=2016-11-15",
			header: append(sign("ec2", "us-east-1", "test"), "Content-Type", form), shape: "ec2", service: "ec2", contentType: "text/xml;charset=UTF-8"},
		{name: "service=eks/rest-json", method: "GET", path: "/clusters",
			header: sign("eks", "us-east-1", "test"), shape: "rest-json", service: "eks", contentType: "application/json"},
		{name: "service=route53/rest-xml", method: "GET", path: "/2013-04-01/hostedzone",
			header: sign("route53", "us-east-1", "test"), shape: "query", service: "route53", contentType: "text/xml"},
		{name: "service=compute-optimizer/cbor", method: "POST", path: "/service/ComputeOptimizerService/operation/GetEnrollmentStatus",
			header: append(sign("compute-optimizer", "us-east-1", "test"), "Smithy-Protocol", "rpc-v2-cbor", "Content-Type", "application/cbor"),
			shape:  "cbor", service: "compute-optimizer", contentType: "application/cbor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, srv, tc.method, tc.path, tc.body, tc.header...)
			id := r.header.Get("x-amzn-RequestId")
			if r.status != 501 || r.header.Get("Content-Type") != tc.contentType {
				t.Fatalf("%d %q: %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			wantMsg := `The service "` + tc.service + `" is not emulated by this emulator; it serves backup, apigateway, lambda, `
			var code, msg string
			switch tc.shape {
			case "json", "rest-json":
				if r.header.Get("x-amzn-ErrorType") != "NotImplemented" {
					t.Fatalf("x-amzn-ErrorType %q", r.header.Get("x-amzn-ErrorType"))
				}
				code, _ = r.json["__type"].(string)
				msg, _ = r.json["message"].(string)
				if tc.shape == "rest-json" {
					code = r.header.Get("x-amzn-ErrorType")
				} else if r.header.Get("x-amzn-query-error") != "NotImplemented;Sender" {
					t.Fatalf("x-amzn-query-error %q", r.header.Get("x-amzn-query-error"))
				}
			case "cbor":
				if r.body[0] != 0xa2 || !bytes.Contains(r.body, []byte("NotImplemented")) ||
					r.header.Get("Smithy-Protocol") != "rpc-v2-cbor" {
					t.Fatalf("%x", r.body)
				}
				code = "NotImplemented"
				msg = string(r.body[bytes.Index(r.body, []byte("The service")):])
			default:
				var e xmlError
				if err := xml.Unmarshal(r.body, &e); err != nil {
					t.Fatalf("not XML: %v: %s", err, r.body)
				}
				switch tc.shape {
				case "s3":
					if e.XMLName.Local != "Error" || e.RequestID != id || r.header.Get("x-amz-request-id") != id {
						t.Fatalf("%s", r.body)
					}
					code, msg = e.Code, e.Message
				case "query":
					if e.XMLName.Local != "ErrorResponse" || e.Error == nil || e.Error.Type != "Sender" || e.RequestID != id {
						t.Fatalf("%s", r.body)
					}
					code, msg = e.Error.Code, e.Error.Message
				case "ec2":
					if e.XMLName.Local != "Response" || e.Errors == nil || e.EC2RequestID != id {
						t.Fatalf("%s", r.body)
					}
					code, msg = e.Errors.Error.Code, e.Errors.Error.Message
				}
			}
			if code != "NotImplemented" || !strings.HasPrefix(msg, wantMsg) || !strings.Contains(msg, " and execute-api") {
				t.Fatalf("code %q message %q, want NotImplemented %q...", code, msg, wantMsg)
			}
		})
	}
}

// TestNotEmulatedUnrecognised checks what keeps today's answers: requests
// that name no service, or name one the emulator serves, or name one in a
// form no signing name or target has.
func TestNotEmulatedUnrecognised(t *testing.T) {
	srv := servertest.Start(t)
	for _, tc := range []struct {
		name, method, path, body string
		header                   []string
		status                   int
		code, member             string
	}{
		{name: "unsigned", method: "GET", path: "/", status: 404, code: "UnknownOperationException", member: "message"},
		{name: "unsigned-query", method: "POST", path: "/", body: "Action=GetCallerIdentity&Version=2011-06-15",
			header: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 404, code: "UnknownOperationException", member: "message"},
		{name: "served=backup", method: "GET", path: "/backup-vaults/a/b/c/d", header: sign("backup", "us-east-1", "test"),
			status: 404, code: "UnknownOperationException", member: "Message"},
		{name: "served=apigateway", method: "GET", path: "/no/such/path", header: sign("apigateway", "us-east-1", "test"),
			status: 404, code: "UnknownOperationException", member: "message"},
		{name: "served=apigateway-with-target", method: "POST", path: "/", header: append(sign("apigateway", "us-east-1", "test"),
			"X-Amz-Target", "DynamoDB_20120810.ListTables"), status: 404, code: "UnknownOperationException", member: "message"},
		{name: "hostile=service", method: "GET", path: "/", header: sign("s3<script>", "us-east-1", "test"),
			status: 404, code: "UnknownOperationException", member: "message"},
		{name: "hostile=long-service", method: "GET", path: "/", header: sign(strings.Repeat("s", 65), "us-east-1", "test"),
			status: 404, code: "UnknownOperationException", member: "message"},
		{name: "hostile=target", method: "POST", path: "/", header: []string{"X-Amz-Target", `Evil"<x>.ListQueues`},
			status: 404, code: "UnknownOperationException", member: "message"},
		{name: "hostile=routed-path", method: "GET", path: "/restapis", header: sign("s3<x>", "us-east-1", "test"),
			status: 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, srv, tc.method, tc.path, tc.body, tc.header...)
			if tc.status == 200 {
				if r.status != 200 {
					t.Fatalf("%d %s", r.status, r.body)
				}
				return
			}
			wantError(t, r, tc.status, tc.code, tc.member)
		})
	}
	t.Run("hostile=operation", func(t *testing.T) {
		// An operation that has no operation's form is not repeated; the
		// service is still named.
		r := do(t, srv, "POST", "/", "{}", append(sign("kms", "us-east-1", "test"),
			"X-Amz-Target", "TrentService.List<Keys>", "Content-Type", "application/x-amz-json-1.1")...)
		if r.status != 501 || r.json["__type"] != "NotImplemented" || strings.Contains(string(r.body), "<") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
}

var quotes = strings.NewReplacer(`\"`, `"`, "&#34;", `"`)

// FuzzNotEmulated sends requests with arbitrary SigV4 scopes, targets and
// content types: the answer is shaped, never a 5xx other than 501, and a
// 501 names only a service in the form of a signing name or target.
func FuzzNotEmulated(f *testing.F) {
	for _, s := range []struct{ method, path, auth, target, contentType, body string }{
		{"GET", "/", "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0f", "", "", ""},
		{"GET", "/restapis", "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/s3/aws4_request", "", "", ""},
		{"POST", "/", "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/sqs/aws4_request", "AmazonSQS.ListQueues", "application/x-amz-json-1.0", "{}"},
		{"POST", "/", "", "DynamoDB_20120810.ListTables", "application/x-amz-json-1.0", "{}"},
		{"POST", "/", "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/sns/aws4_request", "", "application/x-www-form-urlencoded", "Action=ListTopics&Version=2010-03-31"},
		{"POST", "/", "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/ec2/aws4_request", "", "application/x-www-form-urlencoded", "Action=DescribeInstances"},
		{"POST", "/service/X/operation/Y", "AWS4-HMAC-SHA256 Credential=a/b/c/gamelift/aws4_request", "", "application/cbor", ""},
		{"GET", "/backup-vaults", "AWS4-HMAC-SHA256 Credential=a/b/c/backup/aws4_request", "", "", ""},
	} {
		f.Add(s.method, s.path, s.auth, s.target, s.contentType, s.body)
	}
	errs := &errorLog{}
	srv := servertest.StartWithLog(f, slog.New(errs))
	h := srv.Emulator.Handler()
	f.Fuzz(func(t *testing.T, method, path, auth, target, contentType, body string) {
		if len(path) == 0 || path[0] != '/' || len(path) > 4096 || len(body) > 1<<16 ||
			reachesOut(path, auth+"\n"+target+"\n"+contentType, body) {
			return
		}
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(method)
		ctx.Request.SetRequestURI(path)
		ctx.Request.Header.Set("Authorization", auth)
		ctx.Request.Header.Set("X-Amz-Target", target)
		ctx.Request.Header.Set("Smithy-Protocol", "rpc-v2-cbor")
		ctx.Request.Header.SetContentType(contentType)
		ctx.Request.SetBodyString(body)
		h(&ctx)
		st := ctx.Response.StatusCode()
		if msg := errs.take(); msg != "" {
			t.Fatalf("the emulator logged an error: %s (answer %d %s)", msg, st, ctx.Response.Body())
		}
		if st >= 500 && st != 501 && !isExecute(path, "") {
			t.Fatalf("%d %s", st, ctx.Response.Body())
		}
		if st == 501 {
			// The quotes around the name as JSON, XML and CBOR write them.
			b := quotes.Replace(string(ctx.Response.Body()))
			if _, rest, ok := strings.Cut(b, `The service "`); ok {
				name, _, _ := strings.Cut(rest, `" is not emulated`)
				for _, c := range []byte(name) {
					if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
						t.Fatalf("service name %q repeated: %s", name, b)
					}
				}
			}
		}
	})
}
