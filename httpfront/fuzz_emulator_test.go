package httpfront_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/server/servertest"
)

// fuzzHangBound is how long one fuzzed request may take before it counts
// as a hang: above the longest wait a request may legitimately ask for
// (an SQS long poll, 20 s; an HTTP API integration's timeout, 30 s).
const fuzzHangBound = 35 * time.Second

// FuzzEmulator sends arbitrary requests (method, path, header lines and
// body) to a whole emulator, every real handler included: the control
// planes, the data plane of a deployed REST API (MOCK and HTTP_PROXY
// methods, a usage plan and its key, a validator, templates) and of an HTTP
// API (HTTP_PROXY), SQS in JSON and query, SNS and SES v1 in query, SES v2,
// and OpenAPI imports (ImportRestApi, PutRestApi, ImportApi). Each request
// must be answered within fuzzHangBound, without a panic or an internal
// failure logged, and below 500 unless it asked for a 5xx: 501 for an
// operation the emulator does not serve, and on an execute-api address the
// gateway's own 5xx answers (an integration whose backend is down or failed,
// 502/504; a method with no integration, a function that does not exist,
// 500), which are AWS's answers to the configuration, not the emulator's
// failure. The emulator's failures are told by its log: a panic or an
// internal failure is logged at error level, and any error-level line
// fails the input.
func FuzzEmulator(f *testing.F) {
	fz := startFuzzEmulator(f)
	for _, s := range fuzzSeeds {
		f.Add(s.method, s.path, s.header, s.body)
	}
	f.Fuzz(func(t *testing.T, method, path, header, body string) {
		if len(path) == 0 || path[0] != '/' || len(path) > 4096 || len(header) > 8192 || len(body) > 1<<16 {
			return
		}
		path, header, body = fz.fill.Replace(path), fz.fill.Replace(header), fz.fill.Replace(body)
		if reachesOut(path, header, body) {
			return // all traffic stays on loopback
		}
		st, answer, ok := fz.send(method, path, header, body)
		if !ok {
			t.Fatalf("%s %s %q %q: no answer within %s", method, path, header, body, fuzzHangBound)
		}
		if msg := fz.errors.take(); msg != "" {
			t.Fatalf("%s %s %q %q: the emulator logged an error: %s (answer %d %s)", method, path, header, body, msg, st, answer)
		}
		if st >= 500 && st != 501 && !isExecute(path, header) {
			t.Fatalf("%s %s %q %q: %d %s", method, path, header, body, st, answer)
		}
	})
}

// executeTargets are the deployed stages FuzzEmulatorExecute sends to, as
// a path prefix and a header: the REST API's dev stage by each of its
// addresses (with the usage plan's key or not) and the HTTP API's $default
// stage.
var executeTargets = []struct{ prefix, header string }{
	{"/restapis/~API~/dev/_user_request_", ""},
	{"/_aws/execute-api/~API~/dev", "x-api-key: ~KEYVALUE~"},
	{"/dev", "Host: ~API~.execute-api.localhost"},
	{"/_aws/execute-api/~HTTPAPI~", ""},
	{"", "Host: ~HTTPAPI~.execute-api.localhost:4566"},
}

// FuzzEmulatorExecute is FuzzEmulator aimed at the data plane: the
// request always goes to one of the deployed stages (executeTargets), and
// the fuzzer varies the method, the path below the stage, the query
// string, the header lines and the body. Same properties as FuzzEmulator.
func FuzzEmulatorExecute(f *testing.F) {
	fz := startFuzzEmulator(f)
	for _, s := range []struct {
		target                            uint8
		method, path, query, header, body string
	}{
		{0, "GET", "/a/b", "x=1&x=2", "", ""},
		{0, "POST", "/m", "", "Content-Type: application/json", `{"a": [1, {"b": null}], "c": "é"}`},
		{0, "PUT", "/%2e%2e//x", "", "Content-Type: application/json", `not json`},
		{1, "POST", "/keyed", "n=200", "Content-Type: application/json", `{"n": 200}`},
		{1, "POST", "/keyed", "", "Content-Type: text/plain", `x`},
		{1, "GET", "/http", "status=503", "Accept: application/xml", ``},
		{2, "POST", "/http/a%20b/c", "q=1&q=2&r", "Content-Type: text/plain\nX-Forwarded-For: 10.0.0.1\nCookie: a=b; c=d", `hello`},
		{2, "GET", "/down", "", "", ``},
		{0, "OPTIONS", "/", "", "Origin: http://127.0.0.1", ``},
		{3, "GET", "/anything/deeper", "a=1&b=%ZZ", "Origin: http://127.0.0.1\nAccept-Encoding: gzip", ``},
		{3, "OPTIONS", "/x", "", "Origin: http://127.0.0.1\nAccess-Control-Request-Method: GET\nAccess-Control-Request-Headers: x-a", ``},
		{4, "POST", "/x/y", "", "Content-Type: application/json\nContent-Encoding: gzip", "\x1f\x8b"},
		{4, "DELETE", "/", "status=500", "", ``},
	} {
		f.Add(s.target, s.method, s.path, s.query, s.header, s.body)
	}
	f.Fuzz(func(t *testing.T, target uint8, method, path, query, header, body string) {
		if len(path) > 2048 || len(query) > 2048 || len(header) > 8192 || len(body) > 1<<16 {
			return
		}
		to := executeTargets[int(target)%len(executeTargets)]
		uri := fz.fill.Replace(to.prefix) + "/" + strings.TrimPrefix(path, "/")
		if query != "" {
			uri += "?" + query
		}
		header = fz.fill.Replace(to.header) + "\n" + header
		body = fz.fill.Replace(body)
		if reachesOut(uri, header, body) {
			return
		}
		st, answer, ok := fz.send(method, uri, header, body)
		if !ok {
			t.Fatalf("%s %s %q %q: no answer within %s", method, uri, header, body, fuzzHangBound)
		}
		if msg := fz.errors.take(); msg != "" {
			t.Fatalf("%s %s %q %q: the emulator logged an error: %s (answer %d %s)", method, uri, header, body, msg, st, answer)
		}
	})
}

// fuzzSeed is one request of the seed corpus; ~NAME~ stands for an id of
// the set-up (fuzzEmulator.fill).
type fuzzSeed struct{ method, path, header, body string }

const (
	sigv4SES  = "Authorization: AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/ses/aws4_request, SignedHeaders=host, Signature=00"
	fuzzForm  = "Content-Type: application/x-www-form-urlencoded"
	sqsJSON   = "Content-Type: application/x-amz-json-1.0\nX-Amz-Target: AmazonSQS."
	swaggerIn = `{"swagger": "2.0", "info": {"title": "imported", "version": "1"}, "basePath": "/v1",
 "paths": {"/p/{x}": {"post": {"parameters": [{"name": "x", "in": "path", "required": true, "type": "string"},
  {"in": "body", "name": "b", "schema": {"$ref": "#/definitions/B"}}], "responses": {"201": {"description": "c"}},
  "x-amazon-apigateway-integration": {"type": "mock", "requestTemplates": {"application/json": "{\"statusCode\": 201}"},
   "responses": {"default": {"statusCode": "201"}}}}}},
 "definitions": {"B": {"type": "array", "items": {"type": "string"}}}}`
	openapiIn = "openapi: 3.0.1\ninfo: {title: imported, version: '2'}\npaths:\n  /a/{id}:\n    get:\n" +
		"      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n" +
		"      responses: {'200': {description: ok}}\n" +
		"      x-amazon-apigateway-integration: {type: http_proxy, httpMethod: GET, uri: 'http://127.0.0.1:1/{id}', " +
		"requestParameters: {integration.request.path.id: method.request.path.id}}\n"
	httpAPIIn = `{"openapi": "3.0.1", "info": {"title": "h", "version": "1"}, "paths": {"/items/{id}": {"get": {` +
		`"x-amazon-apigateway-integration": {"type": "http_proxy", "httpMethod": "GET", "uri": "http://127.0.0.1:1/x", "payloadFormatVersion": "1.0"}}}},` +
		`"x-amazon-apigateway-cors": {"allowOrigins": ["*"], "maxAge": 10}}`
)

var fuzzSeeds = []fuzzSeed{
	// API Gateway's control planes.
	{"POST", "/restapis", "", `{"name":"a","endpointConfiguration":{"types":["PRIVATE"]}}`},
	{"PATCH", "/restapis/~API~", "", `{"patchOperations":[{"op":"replace","path":"/name","value":"b"}]}`},
	{"POST", "/restapis/~API~/resources/~ROOT~", "", `{"pathPart":"{proxy+}"}`},
	{"PUT", "/restapis/~API~/resources/~ROOT~/methods/GET", "", `{"authorizationType":"CUSTOM","requestModels":{"application/json":"Empty"}}`},
	{"PUT", "/restapis/~API~/resources/~ROOT~/methods/GET/integration", "", `{"type":"HTTP","uri":"http://127.0.0.1:1","httpMethod":"GET","timeoutInMillis":10}`},
	{"PUT", "/restapis/~API~/resources/~ROOT~/methods/GET/responses/200", "", `{"responseModels":{"application/json":"Error"}}`},
	{"PATCH", "/restapis/~API~/stages/dev", "", `{"patchOperations":[{"op":"replace","path":"/*/*/throttling/rateLimit","value":"NaN"}]}`},
	{"POST", "/restapis/~API~/deployments", "", `{"stageName":"dev","variables":{"a":"b"}}`},
	{"POST", "/restapis/~API~/models", "", `{"name":"M","contentType":"application/json","schema":"{\"$ref\":\"#/x\"}"}`},
	{"GET", "/restapis/~API~/models/Empty/default_template", "", ``},
	{"PUT", "/restapis/~API~/gatewayresponses/DEFAULT_4XX", "", `{"statusCode":"499"}`},
	{"POST", "/apikeys", "", `{"name":"k","value":"` + strings.Repeat("v", 30) + `","enabled":true}`},
	{"POST", "/usageplans", "", `{"name":"p","quota":{"limit":5,"period":"WEEK","offset":6},"apiStages":[{"apiId":"~API~","stage":"dev"}]}`},
	{"GET", "/usageplans/~PLAN~/usage?startDate=2026-01-01&endDate=2026-12-31", "", ``},
	{"POST", "/usageplans/~PLAN~/keys", "", `{"keyId":"~KEY~","keyType":"API_KEY"}`},
	{"POST", "/domainnames", "", `{"domainName":"a.example.com","endpointConfiguration":{"types":["REGIONAL"]}}`},
	{"POST", "/domainnames/a.example.com/basepathmappings", "", `{"restApiId":"~API~","basePath":""}`},
	{"POST", "/vpclinks", "", `{"name":"l","targetArns":["arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/net/x/y"]}`},
	{"PUT", "/tags/arn%3Aaws%3Aapigateway%3Aus-east-1%3A%3A%2Frestapis%2F~API~", "", `{"tags":{"a":"b"}}`},
	{"DELETE", "/tags/arn%3Aaws%3Aapigateway%3Aus-east-1%3A%3A%2Frestapis%2F~API~?tagKeys=a,b", "", ``},
	{"POST", "/v2/apis", "", `{"name":"q","protocolType":"HTTP","target":"http://127.0.0.1:1/","corsConfiguration":{"allowOrigins":["*"]}}`},
	{"POST", "/v2/apis/~HTTPAPI~/routes", "", `{"routeKey":"GET /r/{id}","authorizationType":"NONE"}`},
	{"PATCH", "/v2/apis/~HTTPAPI~/stages/$default", "", `{"stageVariables":{"a":"b"},"defaultRouteSettings":{"throttlingRateLimit":1.5}}`},
	// Lambda's control plane and Invoke (no code is ever uploaded: see
	// reachesOut).
	{"POST", "/2015-03-31/functions", "", `{"FunctionName":"f","Runtime":"python3.12","Role":"arn:aws:iam::000000000000:role/r","Handler":"h.h","Code":{},"Timeout":3}`},
	{"POST", "/2015-03-31/functions/f/invocations", "X-Amz-Invocation-Type: Event\nX-Amz-Client-Context: e30=", `{"a":1}`},
	{"GET", "/2015-03-31/functions?MaxItems=1", "", ``},
	// Backup.
	{"PUT", "/backup/plans", "", `{"BackupPlan":{"BackupPlanName":"p","Rules":[{"RuleName":"r","TargetBackupVaultName":"vv"}]}}`},
	{"PUT", "/backup-vaults/v1", "", `{"BackupVaultTags":{"a":"b"}}`},
	// OpenAPI imports: ImportRestApi, PutRestApi, ImportApi, ReimportApi.
	{"POST", "/restapis?mode=import&basepath=prepend", "", swaggerIn},
	{"POST", "/restapis?mode=import&failonwarnings=true", "Content-Type: application/yaml", openapiIn},
	{"PUT", "/restapis/~API2~?mode=merge", "", swaggerIn},
	{"PUT", "/restapis/~API2~?mode=overwrite&basepath=split", "", openapiIn},
	{"GET", "/restapis/~API~/stages/dev/exports/oas30?extensions=integrations", "Accept: application/yaml", ``},
	{"PUT", "/v2/apis?basepath=prepend", "", `{"body":` + strconv.Quote(httpAPIIn) + `}`},
	{"PUT", "/v2/apis/~HTTPAPI2~", "", `{"body":` + strconv.Quote(httpAPIIn) + `}`},
	// The REST API's stage: a greedy MOCK method with a validator and
	// templates, HTTP_PROXY to a backend that answers and to one that is
	// down, and a method that needs an API key of the usage plan.
	{"GET", "/restapis/~API~/dev/_user_request_/a/b?x=1&x=2", "", ``},
	{"POST", "/restapis/~API~/dev/_user_request_/m", "Content-Type: application/json", `{"a": [1, {"b": null}], "c": "é"}`},
	{"PUT", "/_aws/execute-api/~API~/dev/%2e%2e//x", "Content-Type: application/json", `not json`},
	{"DELETE", "/_cloud/execute-api/~API~/nostage/x", "", ``},
	{"PATCH", "/restapis/~API~/dev/_user_request_", "", `[]`},
	{"OPTIONS", "/restapis/nothing/dev/_user_request_/", "", ``},
	{"POST", "/restapis/~API~/dev/_user_request_/http/a%20b?q=1&q=2", "Content-Type: text/plain\nX-Forwarded-For: 10.0.0.1\nCookie: a=b", `hello`},
	{"GET", "/restapis/~API~/dev/_user_request_/http", "Accept-Encoding: gzip\nHost: x", ``},
	{"GET", "/restapis/~API~/dev/_user_request_/down", "", ``},
	{"POST", "/restapis/~API~/dev/_user_request_/keyed?n=1", "x-api-key: ~KEYVALUE~\nContent-Type: application/json", `{"n": 1}`},
	{"POST", "/restapis/~API~/dev/_user_request_/keyed", "x-api-key: wrong", `{}`},
	{"GET", "/dev/http/x", "Host: ~API~.execute-api.localhost", ``},
	// The HTTP API's $default stage (HTTP_PROXY to the backend).
	{"GET", "/_aws/execute-api/~HTTPAPI~/anything?a=1", "Origin: http://127.0.0.1", ``},
	{"OPTIONS", "/_aws/execute-api/~HTTPAPI~/x", "Origin: http://127.0.0.1\nAccess-Control-Request-Method: GET", ``},
	{"POST", "/x/y", "Host: ~HTTPAPI~.execute-api.localhost:4566\nContent-Type: application/json", `{"a":1}`},
	// SQS, JSON 1.0 and query.
	{"POST", "/", sqsJSON + "SendMessage", `{"QueueUrl":"~QURL~","MessageBody":"hi","MessageAttributes":{"a":{"DataType":"String","StringValue":"b"}}}`},
	{"POST", "/", sqsJSON + "ReceiveMessage", `{"QueueUrl":"~QURL~","MaxNumberOfMessages":10,"WaitTimeSeconds":0,"AttributeNames":["All"]}`},
	{"POST", "/", sqsJSON + "SendMessageBatch", `{"QueueUrl":"~QURL~.fifo","Entries":[{"Id":"1","MessageBody":"x","MessageGroupId":"g","MessageDeduplicationId":"d"}]}`},
	{"POST", "/", sqsJSON + "SetQueueAttributes", `{"QueueUrl":"~QURL~","Attributes":{"RedrivePolicy":"{\"maxReceiveCount\":\"2\",\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:fuzz.fifo\"}"}}`},
	{"POST", "/", sqsJSON + "CreateQueue", `{"QueueName":"n","Attributes":{"VisibilityTimeout":"0"},"tags":{"a":"b"}}`},
	{"POST", "/000000000000/fuzz", fuzzForm, `Action=SendMessage&Version=2012-11-05&MessageBody=hi%21&MessageAttribute.1.Name=a&MessageAttribute.1.Value.DataType=String&MessageAttribute.1.Value.StringValue=b`},
	{"POST", "/", fuzzForm, `Action=ReceiveMessage&Version=2012-11-05&QueueUrl=~QURLQ~&MaxNumberOfMessages=5&AttributeName.1=All`},
	{"GET", "/?Action=GetQueueAttributes&Version=2012-11-05&QueueUrl=~QURLQ~&AttributeName.1=All", "", ``},
	{"POST", "/", fuzzForm, `Action=DeleteMessageBatch&Version=2012-11-05&QueueUrl=~QURLQ~&DeleteMessageBatchRequestEntry.1.Id=a&DeleteMessageBatchRequestEntry.1.ReceiptHandle=x`},
	// SNS, query.
	{"POST", "/", fuzzForm, `Action=Publish&Version=2010-03-31&TopicArn=~TOPIC~&Message=hello&MessageAttributes.entry.1.Name=a&MessageAttributes.entry.1.Value.DataType=String&MessageAttributes.entry.1.Value.StringValue=b`},
	{"POST", "/", fuzzForm, `Action=Subscribe&Version=2010-03-31&TopicArn=~TOPIC~&Protocol=sqs&Endpoint=arn%3Aaws%3Asqs%3Aus-east-1%3A000000000000%3Afuzz&Attributes.entry.1.key=FilterPolicy&Attributes.entry.1.value=%7B%22a%22%3A%5B%22b%22%5D%7D`},
	{"POST", "/", fuzzForm, `Action=PublishBatch&Version=2010-03-31&TopicArn=~TOPIC~&PublishBatchRequestEntries.member.1.Id=1&PublishBatchRequestEntries.member.1.Message=m`},
	{"POST", "/", fuzzForm, `Action=Subscribe&Version=2010-03-31&TopicArn=~TOPIC~&Protocol=email&Endpoint=a%40example.com`},
	{"POST", "/", fuzzForm, `Action=SetTopicAttributes&Version=2010-03-31&TopicArn=~TOPIC~&AttributeName=DeliveryPolicy&AttributeValue=%7B%7D`},
	// SES v1, query.
	{"POST", "/", fuzzForm, `Action=SendEmail&Version=2010-12-01&Source=a%40example.com&Destination.ToAddresses.member.1=b%40example.com&Message.Subject.Data=s&Message.Body.Text.Data=t`},
	{"POST", "/", fuzzForm, `Action=SendRawEmail&Version=2010-12-01&RawMessage.Data=RnJvbTogYUBleGFtcGxlLmNvbQ0KVG86IGJAZXhhbXBsZS5jb20NClN1YmplY3Q6IHMNCg0KaGk%3D`},
	{"POST", "/", fuzzForm, `Action=CreateTemplate&Version=2010-12-01&Template.TemplateName=t&Template.SubjectPart=%7B%7Bx%7D%7D&Template.TextPart=%7B%7B%23each+y%7D%7D%7B%7Bthis%7D%7D%7B%7B%2Feach%7D%7D`},
	{"POST", "/", fuzzForm, `Action=SendTemplatedEmail&Version=2010-12-01&Source=a%40example.com&Destination.ToAddresses.member.1=b%40example.com&Template=t&TemplateData=%7B%22x%22%3A1%7D`},
	// SES v2, REST JSON.
	{"POST", "/v2/email/outbound-emails", sigv4SES, `{"FromEmailAddress":"a@example.com","Destination":{"ToAddresses":["b@example.com"]},"Content":{"Simple":{"Subject":{"Data":"s"},"Body":{"Text":{"Data":"t"}}}}}`},
	{"POST", "/v2/email/identities", sigv4SES, `{"EmailIdentity":"example.org","Tags":[{"Key":"a","Value":"b"}]}`},
	{"GET", "/v2/email/identities?PageSize=1", sigv4SES, ``},
	{"POST", "/v2/email/outbound-emails", sigv4SES, `{"Content":{"Raw":{"Data":"RnJvbTogYUBleGFtcGxlLmNvbQ0KDQpoaQ=="}}}`},
	// Compressed, chunked or oddly framed bodies.
	{"POST", "/restapis", "Content-Encoding: gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"},
	{"POST", "/", "Content-Type: application/x-amz-json-1.0\nX-Amz-Target: AmazonSQS.ListQueues\nContent-Length: 99", `{}`},
}

// fuzzEmulator is the emulator the fuzz target drives, with its set-up.
type fuzzEmulator struct {
	h      fasthttp.RequestHandler
	fill   *strings.Replacer
	errors *errorLog
}

// startFuzzEmulator starts an emulator and builds the resources the seeds
// name: a REST API deployed to dev, a usage plan with a key, an HTTP API,
// two queues, a topic and SES identities.
func startFuzzEmulator(f *testing.F) *fuzzEmulator {
	f.Helper()
	fz := &fuzzEmulator{errors: &errorLog{}}
	srv := servertest.StartWithLog(f, slog.New(fz.errors))
	fz.h = srv.Emulator.Handler()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Backend", "yes")
		if s, err := strconv.Atoi(r.URL.Query().Get("status")); err == nil && s >= 200 && s <= 599 {
			w.WriteHeader(s)
		}
		_, _ = io.Copy(w, io.LimitReader(r.Body, 1<<16))
	}))
	f.Cleanup(backend.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	down := ln.Addr().String() // nothing listens there once closed
	_ = ln.Close()

	ids := map[string]string{"~BACKEND~": backend.URL, "~DOWN~": "http://" + down}
	fill := func() *strings.Replacer {
		var pairs []string
		for k, v := range ids {
			pairs = append(pairs, k, v)
		}
		return strings.NewReplacer(pairs...)
	}
	// do runs one set-up request and returns a member of its JSON answer.
	do := func(method, path, header, body, member string) string {
		r := fill()
		st, answer, ok := fz.send(method, r.Replace(path), r.Replace(header), r.Replace(body))
		if !ok || st >= 300 {
			f.Fatalf("set-up %s %s: %d %s", method, path, st, answer)
		}
		if member == "" {
			return ""
		}
		var m map[string]any
		if err := json.Unmarshal(answer, &m); err != nil {
			f.Fatalf("set-up %s %s: %v %s", method, path, err, answer)
		}
		return fmt.Sprint(m[member])
	}
	xmlMember := func(method, path, header, body, member string) string {
		r := fill()
		st, answer, _ := fz.send(method, r.Replace(path), r.Replace(header), r.Replace(body))
		_, v, ok := strings.Cut(string(answer), "<"+member+">")
		v, _, ok2 := strings.Cut(v, "</"+member+">")
		if st != 200 || !ok || !ok2 {
			f.Fatalf("set-up %s: %d %s", body, st, answer)
		}
		return v
	}

	ids["~API~"] = do("POST", "/restapis", "", `{"name":"fuzz"}`, "id")
	ids["~ROOT~"] = do("GET", "/restapis/~API~", "", "", "rootResourceId")
	do("POST", "/restapis/~API~/models", "", `{"name":"Body","contentType":"application/json","schema":"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\"}}}"}`, "")
	ids["~VALIDATOR~"] = do("POST", "/restapis/~API~/requestvalidators", "", `{"name":"v","validateRequestBody":true,"validateRequestParameters":true}`, "id")
	ids["~PROXY~"] = do("POST", "/restapis/~API~/resources/~ROOT~", "", `{"pathPart":"{proxy+}"}`, "id")
	ids["~HTTP~"] = do("POST", "/restapis/~API~/resources/~ROOT~", "", `{"pathPart":"http"}`, "id")
	ids["~HTTPP~"] = do("POST", "/restapis/~API~/resources/~HTTP~", "", `{"pathPart":"{p+}"}`, "id")
	ids["~DOWNR~"] = do("POST", "/restapis/~API~/resources/~ROOT~", "", `{"pathPart":"down"}`, "id")
	ids["~KEYED~"] = do("POST", "/restapis/~API~/resources/~ROOT~", "", `{"pathPart":"keyed"}`, "id")
	for _, st := range []fuzzSeed{
		{"PUT", "/restapis/~API~/resources/~PROXY~/methods/ANY", "", `{"authorizationType":"NONE","requestValidatorId":"~VALIDATOR~","requestModels":{"application/json":"Body"},"requestParameters":{"method.request.path.proxy":true}}`},
		{"PUT", "/restapis/~API~/resources/~PROXY~/methods/ANY/integration", "", `{"type":"MOCK","requestTemplates":{"application/json":"#set($b = $input.json('$.a'))#set($context.responseOverride.header.x = $input.params('proxy')){\"statusCode\": 200}"}}`},
		{"PUT", "/restapis/~API~/resources/~PROXY~/methods/ANY/responses/200", "", `{}`},
		{"PUT", "/restapis/~API~/resources/~PROXY~/methods/ANY/integration/responses/200", "", `{"responseTemplates":{"application/json":"{\"p\": \"$util.escapeJavaScript($input.params('proxy'))\", \"path\": \"$context.path\", \"q\": \"$input.params().querystring\", \"b\": $input.json('$')}"}}`},
		{"PUT", "/restapis/~API~/resources/~HTTP~/methods/ANY", "", `{"authorizationType":"NONE"}`},
		{"PUT", "/restapis/~API~/resources/~HTTP~/methods/ANY/integration", "", `{"type":"HTTP_PROXY","httpMethod":"ANY","uri":"~BACKEND~/echo","timeoutInMillis":5000}`},
		{"PUT", "/restapis/~API~/resources/~HTTPP~/methods/ANY", "", `{"authorizationType":"NONE","requestParameters":{"method.request.path.p":true}}`},
		{"PUT", "/restapis/~API~/resources/~HTTPP~/methods/ANY/integration", "", `{"type":"HTTP_PROXY","httpMethod":"ANY","uri":"~BACKEND~/{p}","requestParameters":{"integration.request.path.p":"method.request.path.p","integration.request.header.x-stage":"stageVariables.a"}}`},
		{"PUT", "/restapis/~API~/resources/~DOWNR~/methods/GET", "", `{"authorizationType":"NONE"}`},
		{"PUT", "/restapis/~API~/resources/~DOWNR~/methods/GET/integration", "", `{"type":"HTTP","httpMethod":"GET","uri":"~DOWN~/x","timeoutInMillis":1000}`},
		{"PUT", "/restapis/~API~/resources/~DOWNR~/methods/GET/responses/200", "", `{}`},
		{"PUT", "/restapis/~API~/resources/~DOWNR~/methods/GET/integration/responses/200", "", `{"selectionPattern":""}`},
		{"PUT", "/restapis/~API~/resources/~KEYED~/methods/POST", "", `{"authorizationType":"NONE","apiKeyRequired":true,"requestParameters":{"method.request.querystring.n":false}}`},
		{"PUT", "/restapis/~API~/resources/~KEYED~/methods/POST/integration", "", `{"type":"MOCK","passthroughBehavior":"NEVER","requestTemplates":{"application/json":"{\"statusCode\": $input.params('n')}"}}`},
		{"PUT", "/restapis/~API~/resources/~KEYED~/methods/POST/responses/200", "", `{"responseParameters":{"method.response.header.x-n":false}}`},
		{"PUT", "/restapis/~API~/resources/~KEYED~/methods/POST/integration/responses/200", "", `{"responseParameters":{"method.response.header.x-n":"integration.response.body.n"},"responseTemplates":{"application/json":"$input.body"}}`},
		{"PUT", "/restapis/~API~/gatewayresponses/DEFAULT_4XX", "", `{"responseTemplates":{"application/json":"{\"m\": $context.error.messageString, \"t\": \"$context.error.responseType\"}"}}`},
		{"POST", "/restapis/~API~/deployments", "", `{"stageName":"dev","variables":{"a":"b"}}`},
	} {
		do(st.method, st.path, st.header, st.body, "")
	}
	ids["~KEYVALUE~"] = strings.Repeat("k", 30)
	ids["~KEY~"] = do("POST", "/apikeys", "", `{"name":"fuzz","value":"~KEYVALUE~","enabled":true}`, "id")
	ids["~PLAN~"] = do("POST", "/usageplans", "", `{"name":"fuzz","throttle":{"rateLimit":1000,"burstLimit":2000},"apiStages":[{"apiId":"~API~","stage":"dev"}]}`, "id")
	do("POST", "/usageplans/~PLAN~/keys", "", `{"keyId":"~KEY~","keyType":"API_KEY"}`, "")

	ids["~HTTPAPI~"] = do("POST", "/v2/apis", "", `{"name":"fuzz","protocolType":"HTTP","target":"~BACKEND~/h","corsConfiguration":{"allowOrigins":["http://127.0.0.1"],"allowMethods":["GET"]}}`, "apiId")

	// The queue's URL on loopback: SQS reads only its path.
	qurl := do("POST", "/", sqsJSON+"CreateQueue", `{"QueueName":"fuzz"}`, "QueueUrl")
	if i := strings.Index(qurl, "://"); i >= 0 {
		qurl = qurl[i+3:]
		qurl = "http://127.0.0.1:4566" + qurl[strings.IndexByte(qurl, '/'):]
	}
	ids["~QURL~"] = qurl
	// Targets of PutRestApi and ReimportApi, which replace what an API holds.
	ids["~API2~"] = do("POST", "/restapis", "", `{"name":"fuzz2"}`, "id")
	ids["~HTTPAPI2~"] = do("POST", "/v2/apis", "", `{"name":"fuzz2","protocolType":"HTTP"}`, "apiId")
	ids["~QURLQ~"] = url.QueryEscape(ids["~QURL~"])
	do("POST", "/", sqsJSON+"CreateQueue", `{"QueueName":"fuzz.fifo","Attributes":{"FifoQueue":"true","ContentBasedDeduplication":"true"}}`, "")
	topic := xmlMember("POST", "/", fuzzForm, "Action=CreateTopic&Version=2010-03-31&Name=fuzz", "TopicArn")
	ids["~TOPIC~"] = url.QueryEscape(topic)
	xmlMember("POST", "/", fuzzForm, "Action=VerifyEmailIdentity&Version=2010-12-01&EmailAddress=a%40example.com", "RequestId")
	do("POST", "/v2/email/identities", sigv4SES, `{"EmailIdentity":"example.com"}`, "")
	fz.fill = fill()
	if msg := fz.errors.take(); msg != "" {
		f.Fatalf("set-up: the emulator logged an error: %s", msg)
	}
	return fz
}

// send serves one request in process; ok is false when no answer came
// within fuzzHangBound. Header lines are "Name: value".
func (fz *fuzzEmulator) send(method, path, header, body string) (status int, answer []byte, ok bool) {
	ctx := &fasthttp.RequestCtx{}
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(path)
	for _, line := range strings.Split(header, "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok {
			ctx.Request.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		}
	}
	ctx.Request.SetBodyString(body)
	done := make(chan struct{})
	go func() {
		defer close(done)
		fz.h(ctx)
	}()
	t := time.NewTimer(fuzzHangBound)
	defer t.Stop()
	select {
	case <-done:
		return ctx.Response.StatusCode(), ctx.Response.Body(), true
	case <-t.C:
		return 0, nil, false
	}
}

// isExecute reports whether a request goes to an execute-api address,
// where 5xx are the gateway's answers to an API's configuration.
func isExecute(path, header string) bool {
	return strings.Contains(path, "/_user_request_") || strings.HasPrefix(path, "/_aws/execute-api/") ||
		strings.HasPrefix(path, "/_cloud/execute-api/") || strings.Contains(strings.ToLower(header), ".execute-api.")
}

// reachesOut reports whether a request might make the emulator connect
// anywhere but loopback: an integration, an SNS endpoint or an OIDC issuer
// naming another host. Every URL must name 127.0.0.1, in every decoding a
// handler may apply (forms, percent-encoding); escapes that could spell
// one in disguise (JSON's \u and \/, YAML's \x) and function code (which
// could do anything) are skipped whole.
func reachesOut(path, header, body string) bool {
	text := strings.ToLower(path + "\n" + header + "\n" + body)
	if strings.Contains(text, "zipfile") {
		return true
	}
	for range 3 {
		if unsafeEscape(text) || !loopbackURLs(text) {
			return true
		}
		next, err := url.QueryUnescape(text)
		if err != nil {
			// Not a form: what a handler would read is the text itself,
			// or its path unescaping.
			if next, err = url.PathUnescape(text); err != nil {
				return strings.Contains(text, "%")
			}
		}
		if next == text {
			return false
		}
		text = next
	}
	return true
}

// unsafeEscape reports a backslash escape other than \" \\ \n \r \t.
func unsafeEscape(s string) bool {
	for i := strings.IndexByte(s, '\\'); i >= 0; i = strings.IndexByte(s, '\\') {
		if i+1 >= len(s) {
			return false
		}
		switch s[i+1] {
		case '"', '\\', 'n', 'r', 't':
			s = s[i+2:]
		default:
			return true
		}
	}
	return false
}

// loopbackURLs reports whether every "://" in s is followed by 127.0.0.1,
// with a port or not, and then the end of the authority.
func loopbackURLs(s string) bool {
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return true
		}
		s = s[i+3:]
		end := strings.IndexAny(s, "/?#\"' \n\r\t,;}]")
		authority := s
		if end >= 0 {
			authority = s[:end]
		}
		host, port, found := strings.Cut(authority, ":")
		if host != "127.0.0.1" {
			return false
		}
		if found {
			if _, err := strconv.ParseUint(port, 10, 16); err != nil {
				return false
			}
		}
	}
}

// errorLog is a slog handler that keeps the first error-level record: the
// emulator logs a panic or an internal failure at error level, and nothing
// a client sends is such.
type errorLog struct {
	mu    sync.Mutex
	first string
}

func (l *errorLog) Enabled(_ context.Context, lvl slog.Level) bool { return lvl >= slog.LevelError }

func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "stack" {
			fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		} else {
			fmt.Fprintf(&b, "\n%v", a.Value)
		}
		return true
	})
	l.mu.Lock()
	if l.first == "" {
		l.first = b.String()
	}
	l.mu.Unlock()
	return nil
}

func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *errorLog) WithGroup(string) slog.Handler      { return l }

// take returns and forgets the first error recorded.
func (l *errorLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.first
	l.first = ""
	return s
}
