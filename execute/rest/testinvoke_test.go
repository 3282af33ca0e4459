package rest_test

import (
	"bytes"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// TestTestInvokeMethod is the recorded T-01/T-02: the live configuration
// runs without a deployment; status, body, headers and the execution log in
// AWS's format; the 404s for an unknown method or resource.
func TestTestInvokeMethod(t *testing.T) {
	f := newFixture(t)
	pets := f.mock("/pets", "GET", `{"pets": "all the pets"}`)
	pet := f.resource("/pets/{petId}")
	f.method(pet, "GET", func(in *apigateway.PutMethodInput) {
		in.RequestParameters = map[string]bool{"method.request.path.petId": true}
	})
	f.integration(pet, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock,
		RequestTemplates: map[string]string{"application/json": `{"statusCode": 200}`}})
	f.methodResponse(pet, "GET", "200", nil)
	f.integrationResponse(pet, "GET", "200", &apigateway.PutIntegrationResponseInput{
		ResponseTemplates: map[string]string{"application/json": `{"petId": "$input.params('petId')"}`}})
	root := f.resource("/")
	f.method(root, "ANY", nil)
	f.integration(root, "ANY", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy,
		IntegrationHttpMethod: aws.String("GET"), Uri: aws.String("https://${stageVariables.testHost}")})

	out, err := f.c.TestInvokeMethod(ctx, &apigateway.TestInvokeMethodInput{RestApiId: &f.api, ResourceId: &pets,
		HttpMethod: aws.String("GET"), Body: aws.String("")})
	f.must(err)
	if out.Status != 200 || *out.Body != `{"pets": "all the pets"}` || out.Headers["Content-Type"] != "application/json" ||
		len(out.Headers) != 1 || len(out.MultiValueHeaders["Content-Type"]) != 1 {
		t.Errorf("answer %d %q %v %v", out.Status, *out.Body, out.Headers, out.MultiValueHeaders)
	}
	date := regexp.MustCompile(`^[A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d UTC \d{4} : `)
	lines := strings.Split(*out.Log, "\n")
	want := []string{
		"Execution log for request ",
		"Starting execution for request: ",
		"HTTP Method: GET, Resource Path: /pets",
		"Method request path: {}",
		"Method request query string: {}",
		"Method request headers: {}",
		"Method request body before transformations: ",
		`Method response body after transformations: {"pets": "all the pets"}`,
		"Method response headers: {Content-Type=application/json}",
		"Successfully completed execution",
		"Method completed with status: 200",
		"",
	}
	if len(lines) != len(want) {
		t.Fatalf("log has %d lines, want %d:\n%s", len(lines), len(want), *out.Log)
	}
	for i, w := range want {
		l := lines[i]
		if i > 0 && i < len(want)-1 {
			if !date.MatchString(l) {
				t.Errorf("line %d has no date: %q", i, l)
			}
			l = date.ReplaceAllString(l, "")
		}
		if !strings.HasPrefix(l, w) || (i > 1 && l != w) {
			t.Errorf("line %d = %q, want %q", i, l, w)
		}
	}

	out, err = f.c.TestInvokeMethod(ctx, &apigateway.TestInvokeMethodInput{RestApiId: &f.api, ResourceId: &pet,
		HttpMethod: aws.String("GET"), PathWithQueryString: aws.String("/pets/123?foo=bar")})
	f.must(err)
	if *out.Body != `{"petId": "123"}` || !strings.Contains(*out.Log, "Method request path: {petId=123}\n") ||
		!strings.Contains(*out.Log, "Method request query string: {foo=bar}\n") ||
		!strings.Contains(*out.Log, "HTTP Method: GET, Resource Path: /pets/123\n") {
		t.Errorf("body %q log\n%s", *out.Body, *out.Log)
	}
	out, err = f.c.TestInvokeMethod(ctx, &apigateway.TestInvokeMethodInput{RestApiId: &f.api, ResourceId: &pet, HttpMethod: aws.String("GET")})
	f.must(err)
	if *out.Body != `{"petId": "{petId}"}` {
		t.Errorf("without a path: %q", *out.Body)
	}
	// T-02: an endpoint with an empty stage variable.
	out, err = f.c.TestInvokeMethod(ctx, &apigateway.TestInvokeMethodInput{RestApiId: &f.api, ResourceId: &root, HttpMethod: aws.String("GET")})
	f.must(err)
	if out.Status != 500 || *out.Body != `{"message": "Internal server error"}` ||
		out.Headers["x-amzn-ErrorType"] != "InternalServerErrorException" || len(out.Headers) != 1 ||
		!strings.Contains(*out.Log, "Execution failed due to configuration error: Invalid endpoint address\n") ||
		!strings.HasSuffix(*out.Log, "Method completed with status: 500\n") {
		t.Errorf("answer %d %q %v\n%s", out.Status, *out.Body, out.Headers, *out.Log)
	}

	// A greedy resource served by ANY: the request's verb picks the path
	// parameters.
	greedy := f.mock("/any/{proxy+}", "ANY", `{"proxy": "$input.params('proxy')", "verb": "$context.httpMethod"}`)
	for _, verb := range []string{"POST", "ANY"} {
		out, err = f.c.TestInvokeMethod(ctx, &apigateway.TestInvokeMethodInput{RestApiId: &f.api, ResourceId: &greedy,
			HttpMethod: aws.String(verb), PathWithQueryString: aws.String("/any/items/t?x=1")})
		f.must(err)
		if want := `{"proxy": "items/t", "verb": "` + verb + `"}`; *out.Body != want ||
			!strings.Contains(*out.Log, "Method request path: {proxy=items/t}\n") {
			t.Errorf("%s on ANY: body %q, want %q\n%s", verb, *out.Body, want, *out.Log)
		}
	}

	_, err = f.c.TestInvokeMethod(ctx, &apigateway.TestInvokeMethodInput{RestApiId: &f.api, ResourceId: &pet, HttpMethod: aws.String("HEAD")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Method identifier specified")
	_, err = f.c.TestInvokeMethod(ctx, &apigateway.TestInvokeMethodInput{RestApiId: &f.api, ResourceId: aws.String("invalid_res"), HttpMethod: aws.String("POST")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Resource identifier specified")
}

// syncBuffer is a log sink tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAccessLog: a stage's access-log format is rendered per request at
// info level; at debug level one line per execution names the route.
func TestAccessLog(t *testing.T) {
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := servertest.StartWithLog(t, log)
	f := newFixtureOn(t, srv)
	f.mock("/pets", "GET", `{}`)
	f.deploy("dev", nil)
	_, err := f.c.UpdateStage(ctx, &apigateway.UpdateStageInput{RestApiId: &f.api, StageName: aws.String("dev"),
		PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/accessLogSettings/destinationArn"), Value: aws.String("arn:aws:logs:us-east-1:000000000000:log-group:access")},
			{Op: types.OpReplace, Path: aws.String("/accessLogSettings/format"), Value: aws.String(`$context.requestId "$context.httpMethod $context.resourcePath $context.protocol" $context.status $context.responseLength $context.identity.apiKey`)},
		}})
	f.must(err)
	a := f.call("GET", "dev", "/pets", nil, "")
	want := a.header.Get("x-amzn-RequestId") + ` "GET /pets HTTP/1.1" 200 2 -`
	if !strings.Contains(buf.String(), "msg="+strconv.Quote(want)) {
		t.Errorf("no access line %q in\n%s", want, buf.String())
	}
	if !strings.Contains(buf.String(), `msg=executed`) || !strings.Contains(buf.String(), `route="GET /pets"`) ||
		!strings.Contains(buf.String(), "integration=MOCK") {
		t.Errorf("no debug line in\n%s", buf.String())
	}
}
