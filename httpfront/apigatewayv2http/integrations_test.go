package apigatewayv2http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// ---- helpers of the integrations group (integrations, integration
// responses, models) ----

// integrationsAPI creates an API of the protocol and returns its id.
func integrationsAPI(t *testing.T, c *apigatewayv2.Client, protocol types.ProtocolType) string {
	t.Helper()
	in := &apigatewayv2.CreateApiInput{Name: aws.String("integ"), ProtocolType: protocol}
	if protocol == types.ProtocolTypeWebsocket {
		in.RouteSelectionExpression = aws.String("$request.body.action")
	}
	out, err := c.CreateApi(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.ApiId)
}

const (
	integrationsLambda = "arn:aws:lambda:us-east-1:123456789012:function:my-function"
	integrationsURL    = "https://www.example.com"
)

// integrationsLambdaInput is a valid HTTP API Lambda proxy integration.
func integrationsLambdaInput(apiID string) *apigatewayv2.CreateIntegrationInput {
	return &apigatewayv2.CreateIntegrationInput{ApiId: &apiID, IntegrationType: types.IntegrationTypeAwsProxy,
		IntegrationUri: aws.String(integrationsLambda), PayloadFormatVersion: aws.String("2.0")}
}

var integrationsIDRe = regexp.MustCompile(`^[a-z0-9]{7}$`)

func TestIntegrationsCreateHTTP(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := integrationsAPI(t, c, types.ProtocolTypeHttp)
	link, err := c.CreateVpcLink(ctx, &apigatewayv2.CreateVpcLinkInput{Name: aws.String("l"), SubnetIds: []string{"subnet-1"}})
	if err != nil {
		t.Fatal(err)
	}
	listener := "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/app/my-alb/abc/def"
	cases := []struct {
		name string
		in   apigatewayv2.CreateIntegrationInput
		want map[string]any // wire members, exactly
	}{
		{"type=AWS_PROXY-defaults", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeAwsProxy,
			IntegrationUri: aws.String(integrationsLambda), PayloadFormatVersion: aws.String("2.0")},
			map[string]any{"connectionType": "INTERNET", "integrationMethod": "POST", "integrationType": "AWS_PROXY",
				"integrationUri": integrationsLambda, "payloadFormatVersion": "2.0", "timeoutInMillis": 30000.0}},
		{"type=HTTP_PROXY-defaults", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeHttpProxy,
			IntegrationUri: aws.String(integrationsURL), PayloadFormatVersion: aws.String("1.0")},
			map[string]any{"connectionType": "INTERNET", "integrationMethod": "ANY", "integrationType": "HTTP_PROXY",
				"integrationUri": integrationsURL, "payloadFormatVersion": "1.0", "timeoutInMillis": 30000.0}},
		{"type=CLOUD_PROXY-stored-as-sent", apigatewayv2.CreateIntegrationInput{IntegrationType: "CLOUD_PROXY",
			IntegrationUri: aws.String(integrationsLambda), PayloadFormatVersion: aws.String("1.0"), TimeoutInMillis: aws.Int32(50)},
			map[string]any{"connectionType": "INTERNET", "integrationMethod": "POST", "integrationType": "CLOUD_PROXY",
				"integrationUri": integrationsLambda, "payloadFormatVersion": "1.0", "timeoutInMillis": 50.0}},
		{"terraform-defaults-passthrough-not-echoed", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeHttpProxy,
			IntegrationUri: aws.String(integrationsURL), PayloadFormatVersion: aws.String("1.0"), IntegrationMethod: aws.String("GET"),
			ConnectionType: types.ConnectionTypeInternet, PassthroughBehavior: types.PassthroughBehaviorWhenNoMatch,
			Description: aws.String("d"), TimeoutInMillis: aws.Int32(30000)},
			map[string]any{"connectionType": "INTERNET", "integrationMethod": "GET", "integrationType": "HTTP_PROXY",
				"integrationUri": integrationsURL, "payloadFormatVersion": "1.0", "timeoutInMillis": 30000.0, "description": "d"}},
		{"private-integration", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeHttpProxy,
			IntegrationUri: aws.String(listener), PayloadFormatVersion: aws.String("1.0"), ConnectionType: types.ConnectionTypeVpcLink,
			ConnectionId: link.VpcLinkId, TlsConfig: &types.TlsConfigInput{ServerNameToVerify: aws.String("example.com")}},
			map[string]any{"connectionType": "VPC_LINK", "connectionId": aws.ToString(link.VpcLinkId), "integrationMethod": "ANY",
				"integrationType": "HTTP_PROXY", "integrationUri": listener, "payloadFormatVersion": "1.0", "timeoutInMillis": 30000.0,
				"tlsConfig": map[string]any{"serverNameToVerify": "example.com"}}},
		{"parameter-mapping", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeHttpProxy,
			IntegrationUri: aws.String(integrationsURL), PayloadFormatVersion: aws.String("1.0"),
			RequestParameters:  map[string]string{"append:header.X-API-KEY": "k", "overwrite:path": "/x", "remove:querystring.q": "''"},
			ResponseParameters: map[string]map[string]string{"200": {"remove:header.x-powered-by": "''"}, "404": {"overwrite:statuscode": "403"}}},
			map[string]any{"connectionType": "INTERNET", "integrationMethod": "ANY", "integrationType": "HTTP_PROXY",
				"integrationUri": integrationsURL, "payloadFormatVersion": "1.0", "timeoutInMillis": 30000.0,
				"requestParameters": map[string]any{"append:header.X-API-KEY": "k", "overwrite:path": "/x", "remove:querystring.q": "''"},
				"responseParameters": map[string]any{"200": map[string]any{"remove:header.x-powered-by": "''"},
					"404": map[string]any{"overwrite:statuscode": "403"}}}},
		{"aws-service-integration", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeAwsProxy,
			IntegrationSubtype: aws.String("SQS-SendMessage"), PayloadFormatVersion: aws.String("1.0"),
			CredentialsArn:    aws.String("arn:aws:iam::123456789012:role/apigateway-sqs"),
			RequestParameters: map[string]string{"QueueUrl": "$request.header.queueUrl", "MessageBody": "$request.body.message"}},
			map[string]any{"connectionType": "INTERNET", "integrationMethod": "POST", "integrationType": "AWS_PROXY",
				"integrationSubtype": "SQS-SendMessage", "payloadFormatVersion": "1.0", "timeoutInMillis": 30000.0,
				"credentialsArn":    "arn:aws:iam::123456789012:role/apigateway-sqs",
				"requestParameters": map[string]any{"QueueUrl": "$request.header.queueUrl", "MessageBody": "$request.body.message"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.ApiId = &apiID
			out, err := c.CreateIntegration(ctx, &in)
			if err != nil {
				t.Fatal(err)
			}
			id := aws.ToString(out.IntegrationId)
			if !integrationsIDRe.MatchString(id) {
				t.Fatalf("integrationId %q, want 7 lowercase alphanumerics", id)
			}
			r := send(t, srv, "GET", "/v2/apis/"+apiID+"/integrations/"+id, "")
			want := maps.Clone(tc.want)
			want["integrationId"] = id
			gotJSON, _ := json.Marshal(r.body)
			wantJSON, _ := json.Marshal(want)
			if r.status != 200 || string(gotJSON) != string(wantJSON) {
				t.Fatalf("GetIntegration = %d %s\nwant %s", r.status, gotJSON, wantJSON)
			}
		})
	}
}

func TestIntegrationsCreateErrors(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	httpAPI := integrationsAPI(t, c, types.ProtocolTypeHttp)
	wsAPI := integrationsAPI(t, c, types.ProtocolTypeWebsocket)
	const httpOnly = "Currently, an API with a protocol type of HTTP may only be associated with proxy integrations (AWS_PROXY, HTTP_PROXY)"
	lambda := func(f func(in *apigatewayv2.CreateIntegrationInput)) apigatewayv2.CreateIntegrationInput {
		in := *integrationsLambdaInput(httpAPI)
		f(&in)
		return in
	}
	proxy := func(f func(in *apigatewayv2.CreateIntegrationInput)) apigatewayv2.CreateIntegrationInput {
		in := apigatewayv2.CreateIntegrationInput{ApiId: &httpAPI, IntegrationType: types.IntegrationTypeHttpProxy,
			IntegrationUri: aws.String(integrationsURL), PayloadFormatVersion: aws.String("1.0")}
		f(&in)
		return in
	}
	ws := func(f func(in *apigatewayv2.CreateIntegrationInput)) apigatewayv2.CreateIntegrationInput {
		in := apigatewayv2.CreateIntegrationInput{ApiId: &wsAPI, IntegrationType: types.IntegrationTypeMock}
		f(&in)
		return in
	}
	cases := []struct {
		name string
		in   apigatewayv2.CreateIntegrationInput
		code string
		msg  string
	}{
		{"http-api-type=AWS", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationType = types.IntegrationTypeAws }),
			"BadRequestException", httpOnly},
		{"http-api-type=HTTP", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationType = types.IntegrationTypeHttp }),
			"BadRequestException", httpOnly},
		{"http-api-type=MOCK", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationType = types.IntegrationTypeMock }),
			"BadRequestException", httpOnly},
		{"type=unknown", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationType = "HTTPS_PROXY" }),
			"BadRequestException", "Invalid IntegrationType specified. Valid options are AWS,AWS_PROXY,HTTP,HTTP_PROXY,MOCK"},
		{"aws-proxy-method=GET", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationMethod = aws.String("GET") }),
			"BadRequestException", "HttpMethod must be POST for AWS_PROXY IntegrationType"},
		{"method=unknown", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationMethod = aws.String("FETCH") }),
			"BadRequestException", "Invalid HttpMethod specified. Valid options are GET,PUT,POST,DELETE,PATCH,OPTIONS,HEAD,ANY"},
		{"payload=missing", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.PayloadFormatVersion = nil }),
			"BadRequestException", "PayloadFormatVersion is a required parameter for integration"},
		{"payload=3.0", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.PayloadFormatVersion = aws.String("3.0") }),
			"BadRequestException", "Invalid PayloadFormatVersion specified. Valid options are 1.0,2.0"},
		{"payload=2.0-http-proxy", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.PayloadFormatVersion = aws.String("2.0") }),
			"BadRequestException", ""},
		{"payload=2.0-service-integration", lambda(func(in *apigatewayv2.CreateIntegrationInput) {
			in.IntegrationUri, in.IntegrationSubtype = nil, aws.String("EventBridge-PutEvents")
		}), "BadRequestException", ""},
		{"timeout=49", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.TimeoutInMillis = aws.Int32(49) }),
			"BadRequestException", "Timeout should be between 50 ms and 30000 ms"},
		{"timeout=30001", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.TimeoutInMillis = aws.Int32(30001) }),
			"BadRequestException", "Timeout should be between 50 ms and 30000 ms"},
		{"uri=missing", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationUri = nil }),
			"BadRequestException", "IntegrationUri is a required parameter for integration"},
		{"uri=not-an-arn", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationUri = aws.String(integrationsURL) }),
			"BadRequestException", "Invalid ARN specified in the request"},
		{"uri=not-a-url", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationUri = aws.String("ftp://x") }),
			"BadRequestException", "Invalid HTTP endpoint specified for URI"},
		{"connection=unknown", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.ConnectionType = "DIRECT" }),
			"BadRequestException", "Invalid ConnectionType specified. Valid options are INTERNET,VPC_LINK"},
		{"vpc-link-without-id", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.ConnectionType = types.ConnectionTypeVpcLink }),
			"BadRequestException", "Connection ID must be specified for the VPC_LINK connection type"},
		{"vpc-link-unknown", proxy(func(in *apigatewayv2.CreateIntegrationInput) {
			in.ConnectionType, in.ConnectionId = types.ConnectionTypeVpcLink, aws.String("nolink")
		}), "NotFoundException", "Invalid VpcLink identifier specified"},
		{"credentials=not-an-arn", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.CredentialsArn = aws.String("role") }),
			"BadRequestException", "Invalid ARN specified in the request"},
		{"passthrough=unknown", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.PassthroughBehavior = "ALWAYS" }),
			"BadRequestException", "Invalid PassthroughBehavior specified. Valid options are WHEN_NO_MATCH,WHEN_NO_TEMPLATES,NEVER"},
		{"request-parameter=bad-action", proxy(func(in *apigatewayv2.CreateIntegrationInput) {
			in.RequestParameters = map[string]string{"rename:header.x": "y"}
		}), "BadRequestException", "Invalid mapping expression specified: Validation Result: warnings : [], errors : [Invalid Request Actioned Parameter destination specified: rename:header.x]"},
		{"request-parameter=append-path", proxy(func(in *apigatewayv2.CreateIntegrationInput) {
			in.RequestParameters = map[string]string{"append:path": "y"}
		}), "BadRequestException", ""},
		{"response-parameter=bad-destination", proxy(func(in *apigatewayv2.CreateIntegrationInput) {
			in.ResponseParameters = map[string]map[string]string{"200": {"append:overwrite.static": "v"}}
		}), "BadRequestException", "Invalid mapping expression specified: Validation Result: warnings : [], errors : [Invalid Response Actioned Parameter destination specified: append:overwrite.static]"},
		{"response-parameter=bad-status", proxy(func(in *apigatewayv2.CreateIntegrationInput) {
			in.ResponseParameters = map[string]map[string]string{"600": {"overwrite:statuscode": "200"}}
		}), "BadRequestException", ""},
		{"subtype=unknown", lambda(func(in *apigatewayv2.CreateIntegrationInput) {
			in.IntegrationUri, in.IntegrationSubtype, in.PayloadFormatVersion = nil, aws.String("S3-PutObject"), aws.String("1.0")
		}), "BadRequestException", ""},
		{"subtype-on-http-proxy", proxy(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationSubtype = aws.String("SQS-SendMessage") }),
			"BadRequestException", ""},
		{"websocket-payload=2.0", ws(func(in *apigatewayv2.CreateIntegrationInput) { in.PayloadFormatVersion = aws.String("2.0") }),
			"BadRequestException", ""},
		{"websocket-timeout=29001", ws(func(in *apigatewayv2.CreateIntegrationInput) { in.TimeoutInMillis = aws.Int32(29001) }),
			"BadRequestException", "Timeout should be between 50 ms and 29000 ms"},
		{"websocket-request-parameter=http-syntax", ws(func(in *apigatewayv2.CreateIntegrationInput) {
			in.RequestParameters = map[string]string{"append:header.x": "'y'"}
		}), "BadRequestException", "Invalid mapping expression specified: Validation Result: warnings : [], errors : [Invalid mapping expression specified: append:header.x]"},
		{"websocket-response-parameters", ws(func(in *apigatewayv2.CreateIntegrationInput) {
			in.ResponseParameters = map[string]map[string]string{"200": {"overwrite:statuscode": "201"}}
		}), "BadRequestException", ""},
		{"websocket-subtype", ws(func(in *apigatewayv2.CreateIntegrationInput) {
			in.IntegrationType, in.IntegrationSubtype = types.IntegrationTypeAwsProxy, aws.String("SQS-SendMessage")
		}), "BadRequestException", ""},
		{"websocket-http-uri-missing", ws(func(in *apigatewayv2.CreateIntegrationInput) { in.IntegrationType = types.IntegrationTypeHttp }),
			"BadRequestException", "IntegrationUri is a required parameter for integration"},
		{"websocket-content-handling=unknown", ws(func(in *apigatewayv2.CreateIntegrationInput) { in.ContentHandlingStrategy = "CONVERT" }),
			"BadRequestException", "Invalid ContentHandlingStrategy specified. Valid options are CONVERT_TO_BINARY,CONVERT_TO_TEXT"},
		{"api=unknown", lambda(func(in *apigatewayv2.CreateIntegrationInput) { in.ApiId = aws.String("nope") }),
			"NotFoundException", "Invalid API identifier specified 000000000000:nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateIntegration(ctx, &tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	t.Run("nothing-was-created", func(t *testing.T) {
		for _, api := range []string{httpAPI, wsAPI} {
			out, err := c.GetIntegrations(ctx, &apigatewayv2.GetIntegrationsInput{ApiId: &api})
			if err != nil || len(out.Items) != 0 {
				t.Fatalf("GetIntegrations(%s) = %v, %d items", api, err, len(out.Items))
			}
		}
	})
	t.Run("raw-type=missing", func(t *testing.T) {
		r := send(t, srv, "POST", "/v2/apis/"+httpAPI+"/integrations", `{"integrationUri":"https://x.example"}`)
		if r.status != 400 || r.code != "BadRequestException" {
			t.Fatalf("got %d %s %s", r.status, r.code, r.raw)
		}
	})
	t.Run("raw-type-mismatch", func(t *testing.T) {
		r := send(t, srv, "POST", "/v2/apis/"+httpAPI+"/integrations", `{"integrationType":"HTTP_PROXY","timeoutInMillis":"soon"}`)
		if r.status != 400 {
			t.Fatalf("got %d %s %s", r.status, r.code, r.raw)
		}
	})
	t.Run("raw-not-json", func(t *testing.T) {
		r := send(t, srv, "POST", "/v2/apis/"+httpAPI+"/integrations", `{"integrationType":`)
		if r.status != 400 || r.code != "BadRequestException" {
			t.Fatalf("got %d %s %s", r.status, r.code, r.raw)
		}
	})
}

func TestIntegrationsWebSocket(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := integrationsAPI(t, c, types.ProtocolTypeWebsocket)
	cases := []struct {
		name string
		in   apigatewayv2.CreateIntegrationInput
		want map[string]any
	}{
		// A: the create-integration example of the AWS CLI.
		{"type=MOCK", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeMock,
			RequestTemplates: map[string]string{"application/json": `{"statusCode":200}`}, TemplateSelectionExpression: aws.String(`\$default`)},
			map[string]any{"connectionType": "INTERNET", "integrationResponseSelectionExpression": "${integration.response.statuscode}",
				"integrationType": "MOCK", "passthroughBehavior": "WHEN_NO_MATCH", "payloadFormatVersion": "1.0",
				"requestTemplates":            map[string]any{"application/json": `{"statusCode":200}`},
				"templateSelectionExpression": `\$default`, "timeoutInMillis": 29000.0}},
		{"type=AWS_PROXY", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeAwsProxy,
			IntegrationUri:          aws.String("arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/" + integrationsLambda + "/invocations"),
			ContentHandlingStrategy: types.ContentHandlingStrategyConvertToText, TimeoutInMillis: aws.Int32(10000)},
			map[string]any{"connectionType": "INTERNET", "contentHandlingStrategy": "CONVERT_TO_TEXT", "integrationMethod": "POST",
				"integrationType": "AWS_PROXY", "passthroughBehavior": "WHEN_NO_MATCH", "payloadFormatVersion": "1.0",
				"integrationUri":  "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/" + integrationsLambda + "/invocations",
				"timeoutInMillis": 10000.0}},
		{"type=HTTP", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeHttp,
			IntegrationUri: aws.String(integrationsURL), IntegrationMethod: aws.String("GET"), PassthroughBehavior: types.PassthroughBehaviorNever,
			RequestParameters: map[string]string{"integration.request.header.ConnectionId": "context.connectionId"}},
			map[string]any{"connectionType": "INTERNET", "integrationMethod": "GET", "integrationType": "HTTP",
				"integrationUri": integrationsURL, "passthroughBehavior": "NEVER", "payloadFormatVersion": "1.0",
				"requestParameters": map[string]any{"integration.request.header.ConnectionId": "context.connectionId"},
				"timeoutInMillis":   29000.0}},
		{"type=AWS", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeAws,
			IntegrationUri: aws.String("arn:aws:apigateway:us-east-1:sqs:path/123456789012/queue"),
			CredentialsArn: aws.String("arn:aws:iam::123456789012:role/r")},
			map[string]any{"connectionType": "INTERNET", "credentialsArn": "arn:aws:iam::123456789012:role/r", "integrationMethod": "POST",
				"integrationType": "AWS", "integrationUri": "arn:aws:apigateway:us-east-1:sqs:path/123456789012/queue",
				"passthroughBehavior": "WHEN_NO_MATCH", "payloadFormatVersion": "1.0", "timeoutInMillis": 29000.0}},
		{"private-v1-link", apigatewayv2.CreateIntegrationInput{IntegrationType: types.IntegrationTypeHttpProxy,
			IntegrationUri: aws.String("http://nlb.example.com"), IntegrationMethod: aws.String("ANY"),
			ConnectionType: types.ConnectionTypeVpcLink, ConnectionId: aws.String("v1link")},
			map[string]any{"connectionId": "v1link", "connectionType": "VPC_LINK", "integrationMethod": "ANY",
				"integrationType": "HTTP_PROXY", "integrationUri": "http://nlb.example.com",
				"passthroughBehavior": "WHEN_NO_MATCH", "payloadFormatVersion": "1.0", "timeoutInMillis": 29000.0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.ApiId = &apiID
			out, err := c.CreateIntegration(ctx, &in)
			if err != nil {
				t.Fatal(err)
			}
			r := send(t, srv, "GET", "/v2/apis/"+apiID+"/integrations/"+aws.ToString(out.IntegrationId), "")
			want := maps.Clone(tc.want)
			want["integrationId"] = aws.ToString(out.IntegrationId)
			gotJSON, _ := json.Marshal(r.body)
			wantJSON, _ := json.Marshal(want)
			if string(gotJSON) != string(wantJSON) {
				t.Fatalf("GetIntegration = %s\nwant %s", gotJSON, wantJSON)
			}
		})
	}
}

func TestIntegrationsUpdate(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	apiID := integrationsAPI(t, c, types.ProtocolTypeHttp)
	wsAPI := integrationsAPI(t, c, types.ProtocolTypeWebsocket)
	newProxy := func(t *testing.T) string {
		t.Helper()
		out, err := c.CreateIntegration(ctx, &apigatewayv2.CreateIntegrationInput{ApiId: &apiID,
			IntegrationType: types.IntegrationTypeHttpProxy, IntegrationUri: aws.String(integrationsURL),
			PayloadFormatVersion: aws.String("1.0"), Description: aws.String("first"),
			RequestParameters:  map[string]string{"append:header.a": "1", "append:header.b": "2"},
			ResponseParameters: map[string]map[string]string{"200": {"overwrite:header.x": "1"}, "500": {"overwrite:statuscode": "502"}},
			TlsConfig:          &types.TlsConfigInput{ServerNameToVerify: aws.String("example.com")}})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(out.IntegrationId)
	}
	update := func(id string, f func(in *apigatewayv2.UpdateIntegrationInput)) (*apigatewayv2.UpdateIntegrationOutput, error) {
		in := &apigatewayv2.UpdateIntegrationInput{ApiId: &apiID, IntegrationId: &id}
		f(in)
		return c.UpdateIntegration(ctx, in)
	}

	t.Run("patch=uri-and-description", func(t *testing.T) {
		id := newProxy(t)
		out, err := update(id, func(in *apigatewayv2.UpdateIntegrationInput) {
			in.IntegrationUri, in.Description = aws.String("https://other.example.com/x"), aws.String("")
		})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(out.IntegrationUri) != "https://other.example.com/x" || out.Description != nil ||
			aws.ToString(out.IntegrationMethod) != "ANY" || aws.ToString(out.PayloadFormatVersion) != "1.0" {
			t.Fatalf("update = %+v", out)
		}
		got, err := c.GetIntegration(ctx, &apigatewayv2.GetIntegrationInput{ApiId: &apiID, IntegrationId: &id})
		if err != nil || aws.ToString(got.IntegrationUri) != "https://other.example.com/x" || len(got.RequestParameters) != 2 {
			t.Fatalf("get after update = %v %+v", err, got)
		}
	})
	t.Run("patch=type-to-lambda", func(t *testing.T) {
		id := newProxy(t)
		out, err := update(id, func(in *apigatewayv2.UpdateIntegrationInput) {
			in.IntegrationType, in.IntegrationUri = "CLOUD_PROXY", aws.String(integrationsLambda)
			in.PayloadFormatVersion = aws.String("2.0")
		})
		if err != nil {
			t.Fatal(err)
		}
		// The method follows the type when it is not sent: POST for Lambda.
		if out.IntegrationType != "CLOUD_PROXY" || aws.ToString(out.IntegrationMethod) != "POST" ||
			aws.ToString(out.PayloadFormatVersion) != "2.0" {
			t.Fatalf("update = %+v", out)
		}
	})
	t.Run("patch=parameters-terraform-style", func(t *testing.T) {
		id := newProxy(t)
		out, err := update(id, func(in *apigatewayv2.UpdateIntegrationInput) {
			in.IntegrationType = types.IntegrationTypeHttpProxy
			in.RequestParameters = map[string]string{"append:header.a": "", "append:header.b": "2", "overwrite:header.c": "3"}
			in.ResponseParameters = map[string]map[string]string{"200": {}, "500": {"overwrite:statuscode": "503"}}
			in.TlsConfig = &types.TlsConfigInput{}
		})
		if err != nil {
			t.Fatal(err)
		}
		wantReq := map[string]string{"append:header.b": "2", "overwrite:header.c": "3"}
		wantResp := map[string]map[string]string{"500": {"overwrite:statuscode": "503"}}
		gotJSON, _ := json.Marshal([]any{out.RequestParameters, out.ResponseParameters})
		wantJSON, _ := json.Marshal([]any{wantReq, wantResp})
		if string(gotJSON) != string(wantJSON) || out.TlsConfig != nil {
			t.Fatalf("update = %s tls %+v, want %s", gotJSON, out.TlsConfig, wantJSON)
		}
	})
	t.Run("patch=timeout", func(t *testing.T) {
		id := newProxy(t)
		out, err := update(id, func(in *apigatewayv2.UpdateIntegrationInput) { in.TimeoutInMillis = aws.Int32(1234) })
		if err != nil || aws.ToInt32(out.TimeoutInMillis) != 1234 {
			t.Fatalf("update = %v %+v", err, out)
		}
	})
	errCases := []struct {
		name string
		f    func(in *apigatewayv2.UpdateIntegrationInput)
		code string
		msg  string
	}{
		{"result-payload=2.0-on-http-proxy", func(in *apigatewayv2.UpdateIntegrationInput) { in.PayloadFormatVersion = aws.String("2.0") },
			"BadRequestException", ""},
		{"type=MOCK", func(in *apigatewayv2.UpdateIntegrationInput) { in.IntegrationType = types.IntegrationTypeMock },
			"BadRequestException", "Currently, an API with a protocol type of HTTP may only be associated with proxy integrations (AWS_PROXY, HTTP_PROXY)"},
		{"uri=bad", func(in *apigatewayv2.UpdateIntegrationInput) { in.IntegrationUri = aws.String("nope") },
			"BadRequestException", "Invalid HTTP endpoint specified for URI"},
		{"timeout=0", func(in *apigatewayv2.UpdateIntegrationInput) { in.TimeoutInMillis = aws.Int32(0) },
			"BadRequestException", "Timeout should be between 50 ms and 30000 ms"},
		{"type-to-lambda-with-uri-url", func(in *apigatewayv2.UpdateIntegrationInput) { in.IntegrationType = types.IntegrationTypeAwsProxy },
			"BadRequestException", "Invalid ARN specified in the request"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			id := newProxy(t)
			_, err := update(id, tc.f)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
			got, err := c.GetIntegration(ctx, &apigatewayv2.GetIntegrationInput{ApiId: &apiID, IntegrationId: &id})
			if err != nil || aws.ToString(got.Description) != "first" || got.IntegrationType != types.IntegrationTypeHttpProxy ||
				aws.ToString(got.PayloadFormatVersion) != "1.0" {
				t.Fatalf("a refused update changed the integration: %v %+v", err, got)
			}
		})
	}
	t.Run("integration=unknown", func(t *testing.T) {
		_, err := update("nope123", func(*apigatewayv2.UpdateIntegrationInput) {})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Integration identifier specified")
	})
	t.Run("websocket-templates-replaced", func(t *testing.T) {
		out, err := c.CreateIntegration(ctx, &apigatewayv2.CreateIntegrationInput{ApiId: &wsAPI, IntegrationType: types.IntegrationTypeMock,
			RequestTemplates: map[string]string{"a": "1", "b": "2"}})
		if err != nil {
			t.Fatal(err)
		}
		up, err := c.UpdateIntegration(ctx, &apigatewayv2.UpdateIntegrationInput{ApiId: &wsAPI, IntegrationId: out.IntegrationId,
			RequestTemplates: map[string]string{"c": "3"}, PayloadFormatVersion: aws.String("1.0")})
		if err != nil || !maps.Equal(up.RequestTemplates, map[string]string{"c": "3"}) {
			t.Fatalf("update = %v %+v", err, up)
		}
		_, err = c.UpdateIntegration(ctx, &apigatewayv2.UpdateIntegrationInput{ApiId: &wsAPI, IntegrationId: out.IntegrationId,
			PayloadFormatVersion: aws.String("2.0")})
		servertest.WantAPIError(t, err, "BadRequestException", "")
	})
}

func TestIntegrationsDelete(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	apiID := integrationsAPI(t, c, types.ProtocolTypeHttp)
	it, err := c.CreateIntegration(ctx, integrationsLambdaInput(apiID))
	if err != nil {
		t.Fatal(err)
	}
	var routeIDs []string
	for _, key := range []string{"GET /a", "GET /b"} {
		r, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &apiID, RouteKey: aws.String(key),
			Target: aws.String("integrations/" + aws.ToString(it.IntegrationId))})
		if err != nil {
			t.Fatal(err)
		}
		routeIDs = append(routeIDs, aws.ToString(r.RouteId))
	}
	slices.Sort(routeIDs)
	t.Run("referenced-by-routes", func(t *testing.T) {
		_, err := c.DeleteIntegration(ctx, &apigatewayv2.DeleteIntegrationInput{ApiId: &apiID, IntegrationId: it.IntegrationId})
		servertest.WantAPIError(t, err, "ConflictException",
			"Cannot delete Integration because it is referenced by the following Routes with Ids: ["+strings.Join(routeIDs, ", ")+"]")
	})
	t.Run("deleted-once-unreferenced", func(t *testing.T) {
		for _, id := range routeIDs {
			if _, err := c.DeleteRoute(ctx, &apigatewayv2.DeleteRouteInput{ApiId: &apiID, RouteId: &id}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.DeleteIntegration(ctx, &apigatewayv2.DeleteIntegrationInput{ApiId: &apiID, IntegrationId: it.IntegrationId}); err != nil {
			t.Fatal(err)
		}
		_, err := c.GetIntegration(ctx, &apigatewayv2.GetIntegrationInput{ApiId: &apiID, IntegrationId: it.IntegrationId})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Integration identifier specified")
		_, err = c.DeleteIntegration(ctx, &apigatewayv2.DeleteIntegrationInput{ApiId: &apiID, IntegrationId: it.IntegrationId})
		servertest.WantAPIError(t, err, "NotFoundException", "")
	})
	t.Run("api=unknown", func(t *testing.T) {
		_, err := c.DeleteIntegration(ctx, &apigatewayv2.DeleteIntegrationInput{ApiId: aws.String("nope"), IntegrationId: aws.String("x")})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified 000000000000:nope")
	})
	t.Run("managed-by-quick-create", func(t *testing.T) {
		api, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("quick"), ProtocolType: types.ProtocolTypeHttp,
			Target: aws.String(integrationsLambda)})
		if err != nil {
			t.Fatal(err)
		}
		list, err := c.GetIntegrations(ctx, &apigatewayv2.GetIntegrationsInput{ApiId: api.ApiId})
		if err != nil || len(list.Items) != 1 || !aws.ToBool(list.Items[0].ApiGatewayManaged) {
			t.Fatalf("quick create integrations = %v %+v", err, list)
		}
		managed := list.Items[0].IntegrationId
		routes, err := c.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: api.ApiId})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range routes.Items {
			if _, err := c.DeleteRoute(ctx, &apigatewayv2.DeleteRouteInput{ApiId: api.ApiId, RouteId: r.RouteId}); err != nil {
				t.Fatal(err)
			}
		}
		// A managed integration can be updated, not deleted (A).
		if _, err := c.UpdateIntegration(ctx, &apigatewayv2.UpdateIntegrationInput{ApiId: api.ApiId, IntegrationId: managed,
			TimeoutInMillis: aws.Int32(1000)}); err != nil {
			t.Fatal(err)
		}
		_, err = c.DeleteIntegration(ctx, &apigatewayv2.DeleteIntegrationInput{ApiId: api.ApiId, IntegrationId: managed})
		servertest.WantAPIError(t, err, "BadRequestException", "")
	})
}

func TestIntegrationsList(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := integrationsAPI(t, c, types.ProtocolTypeHttp)
	var ids []string
	for range 5 {
		out, err := c.CreateIntegration(ctx, integrationsLambdaInput(apiID))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, aws.ToString(out.IntegrationId))
	}
	for _, max := range []string{"1", "2", "5", "6"} {
		t.Run("maxResults="+max, func(t *testing.T) {
			var got []string
			var token *string
			pages := 0
			for {
				out, err := c.GetIntegrations(ctx, &apigatewayv2.GetIntegrationsInput{ApiId: &apiID, MaxResults: aws.String(max), NextToken: token})
				if err != nil {
					t.Fatal(err)
				}
				pages++
				for _, it := range out.Items {
					got = append(got, aws.ToString(it.IntegrationId))
				}
				if out.NextToken == nil {
					break
				}
				token = out.NextToken
			}
			if !slices.Equal(got, ids) {
				t.Fatalf("listed %v, want creation order %v", got, ids)
			}
			if max == "2" && pages != 3 {
				t.Fatalf("%d pages, want 3", pages)
			}
		})
	}
	t.Run("wire-items-without-seq", func(t *testing.T) {
		r := send(t, srv, "GET", "/v2/apis/"+apiID+"/integrations?maxResults=1", "")
		if r.status != 200 || strings.Contains(string(r.raw), "seq") || r.body["nextToken"] == nil {
			t.Fatalf("got %d %s", r.status, r.raw)
		}
	})
	for _, q := range []string{"maxResults=0", "maxResults=x", "maxResults=501", "nextToken=garbage"} {
		t.Run("bad="+q, func(t *testing.T) {
			r := send(t, srv, "GET", "/v2/apis/"+apiID+"/integrations?"+q, "")
			if r.status != 400 || r.code != "BadRequestException" {
				t.Fatalf("got %d %s %s", r.status, r.code, r.raw)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		other := integrationsAPI(t, c, types.ProtocolTypeHttp)
		r := send(t, srv, "GET", "/v2/apis/"+other+"/integrations", "")
		if r.status != 200 || string(r.raw) != `{"items":[]}` {
			t.Fatalf("got %d %s", r.status, r.raw)
		}
	})
	t.Run("api=unknown", func(t *testing.T) {
		_, err := c.GetIntegrations(ctx, &apigatewayv2.GetIntegrationsInput{ApiId: aws.String("nope")})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified 000000000000:nope")
	})
}

// TestIntegrationsAutoDeploy checks that an integration change redeploys a
// stage with autoDeploy (the Tx does it as the mutation commits).
func TestIntegrationsAutoDeploy(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	apiID := integrationsAPI(t, c, types.ProtocolTypeHttp)
	it, err := c.CreateIntegration(ctx, integrationsLambdaInput(apiID))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &apiID, RouteKey: aws.String("$default"),
		Target: aws.String("integrations/" + aws.ToString(it.IntegrationId))}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("$default"),
		AutoDeploy: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	deployments := func() int {
		t.Helper()
		out, err := c.GetDeployments(ctx, &apigatewayv2.GetDeploymentsInput{ApiId: &apiID})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Items)
	}
	before := deployments()
	if _, err := c.UpdateIntegration(ctx, &apigatewayv2.UpdateIntegrationInput{ApiId: &apiID, IntegrationId: it.IntegrationId,
		TimeoutInMillis: aws.Int32(5000)}); err != nil {
		t.Fatal(err)
	}
	if after := deployments(); after != before+1 {
		t.Fatalf("deployments %d -> %d, want one more", before, after)
	}
	st, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("$default")})
	if err != nil || st.DeploymentId == nil {
		t.Fatalf("stage = %v %+v", err, st)
	}
	// A refused change deploys nothing.
	_, err = c.UpdateIntegration(ctx, &apigatewayv2.UpdateIntegrationInput{ApiId: &apiID, IntegrationId: it.IntegrationId,
		TimeoutInMillis: aws.Int32(1)})
	servertest.WantAPIError(t, err, "BadRequestException", "")
	if after := deployments(); after != before+1 {
		t.Fatalf("a refused update deployed: %d deployments", after)
	}
}

func TestIntegrationsPersist(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var httpAPI, wsAPI string
	var ids []string
	var respID, modelID string
	{
		srv, c := startServer(t, servertest.WithPersistence(dir))
		httpAPI = integrationsAPI(t, c, types.ProtocolTypeHttp)
		wsAPI = integrationsAPI(t, c, types.ProtocolTypeWebsocket)
		for i := range 3 {
			in := integrationsLambdaInput(httpAPI)
			in.Description = aws.String(fmt.Sprint(i))
			out, err := c.CreateIntegration(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, aws.ToString(out.IntegrationId))
		}
		if _, err := c.UpdateIntegration(ctx, &apigatewayv2.UpdateIntegrationInput{ApiId: &httpAPI, IntegrationId: &ids[1],
			Description: aws.String("changed")}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteIntegration(ctx, &apigatewayv2.DeleteIntegrationInput{ApiId: &httpAPI, IntegrationId: &ids[2]}); err != nil {
			t.Fatal(err)
		}
		ids = ids[:2]
		mock, err := c.CreateIntegration(ctx, &apigatewayv2.CreateIntegrationInput{ApiId: &wsAPI, IntegrationType: types.IntegrationTypeMock})
		if err != nil {
			t.Fatal(err)
		}
		ir, err := c.CreateIntegrationResponse(ctx, &apigatewayv2.CreateIntegrationResponseInput{ApiId: &wsAPI,
			IntegrationId: mock.IntegrationId, IntegrationResponseKey: aws.String("$default")})
		if err != nil {
			t.Fatal(err)
		}
		respID = aws.ToString(mock.IntegrationId) + "/" + aws.ToString(ir.IntegrationResponseId)
		m, err := c.CreateModel(ctx, &apigatewayv2.CreateModelInput{ApiId: &wsAPI, Name: aws.String("Kept"),
			Schema: aws.String(`{"type":"object"}`)})
		if err != nil {
			t.Fatal(err)
		}
		modelID = aws.ToString(m.ModelId)
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := srv.Emulator.Shutdown(sctx); err != nil {
			t.Fatal(err)
		}
	}
	_, c := startServer(t, servertest.WithPersistence(dir))
	list, err := c.GetIntegrations(ctx, &apigatewayv2.GetIntegrationsInput{ApiId: &httpAPI})
	if err != nil || len(list.Items) != 2 {
		t.Fatalf("integrations after restart: %v %+v", err, list)
	}
	for i, it := range list.Items {
		if aws.ToString(it.IntegrationId) != ids[i] {
			t.Fatalf("order after restart: item %d is %s, want %s", i, aws.ToString(it.IntegrationId), ids[i])
		}
	}
	if aws.ToString(list.Items[1].Description) != "changed" {
		t.Fatalf("update lost: %+v", list.Items[1])
	}
	parts := strings.Split(respID, "/")
	if _, err := c.GetIntegrationResponse(ctx, &apigatewayv2.GetIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &parts[0],
		IntegrationResponseId: &parts[1]}); err != nil {
		t.Fatalf("integration response after restart: %v", err)
	}
	m, err := c.GetModel(ctx, &apigatewayv2.GetModelInput{ApiId: &wsAPI, ModelId: &modelID})
	if err != nil || aws.ToString(m.Name) != "Kept" {
		t.Fatalf("model after restart: %v %+v", err, m)
	}
	// New ids keep coming after the restored ones.
	out, err := c.CreateIntegration(ctx, integrationsLambdaInput(httpAPI))
	if err != nil {
		t.Fatal(err)
	}
	list, err = c.GetIntegrations(ctx, &apigatewayv2.GetIntegrationsInput{ApiId: &httpAPI})
	if err != nil || len(list.Items) != 3 || aws.ToString(list.Items[2].IntegrationId) != aws.ToString(out.IntegrationId) {
		t.Fatalf("new integration after restart not last: %v %+v", err, list)
	}
}
