package server_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	agtypes "github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// proxyHandler answers with what API Gateway sent it, so the test reads
// the event back.
const proxyHandler = `import json

def handler(event, context):
    return {
        "statusCode": 201,
        "headers": {"x-fn": context.function_name},
        "body": json.dumps({"path": event["path"], "resource": event["resource"],
                            "method": event["httpMethod"], "query": event["queryStringParameters"],
                            "id": event["pathParameters"]["id"], "stage": event["requestContext"]["stage"]}),
    }
`

func zipOf(t *testing.T, name, src string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, src); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRESTLambdaProxy: a REST API's AWS_PROXY integration runs a Python
// function of the Lambda service, as a user wires it with the SDKs.
func TestRESTLambdaProxy(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		servertest.MissingTool(t, "python3")
	}
	srv := servertest.Start(t)
	ctx := context.Background()
	cfg := servertest.AWSConfig("us-east-1", "test")
	lc := lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	fn, err := lc.CreateFunction(ctx, &lambda.CreateFunctionInput{FunctionName: aws.String("echo"),
		Runtime: ltypes.RuntimePython312, Handler: aws.String("index.handler"), Role: aws.String("arn:aws:iam::000000000000:role/r"),
		Code: &ltypes.FunctionCode{ZipFile: zipOf(t, "index.py", proxyHandler)}})
	if err != nil {
		t.Fatal(err)
	}

	gc := apigateway.NewFromConfig(cfg, func(o *apigateway.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	api, err := gc.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String("fn-api")})
	if err != nil {
		t.Fatal(err)
	}
	items, err := gc.CreateResource(ctx, &apigateway.CreateResourceInput{RestApiId: api.Id, ParentId: api.RootResourceId, PathPart: aws.String("items")})
	if err != nil {
		t.Fatal(err)
	}
	item, err := gc.CreateResource(ctx, &apigateway.CreateResourceInput{RestApiId: api.Id, ParentId: items.Id, PathPart: aws.String("{id}")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gc.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: api.Id, ResourceId: item.Id, HttpMethod: aws.String("GET"),
		AuthorizationType: aws.String("NONE")}); err != nil {
		t.Fatal(err)
	}
	uri := "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/" + aws.ToString(fn.FunctionArn) + "/invocations"
	if _, err := gc.PutIntegration(ctx, &apigateway.PutIntegrationInput{RestApiId: api.Id, ResourceId: item.Id, HttpMethod: aws.String("GET"),
		Type: agtypes.IntegrationTypeAwsProxy, IntegrationHttpMethod: aws.String("POST"), Uri: aws.String(uri)}); err != nil {
		t.Fatal(err)
	}
	if _, err := gc.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: api.Id, StageName: aws.String("dev")}); err != nil {
		t.Fatal(err)
	}

	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Get(srv.URL + "/restapis/" + aws.ToString(api.Id) + "/dev/_user_request_/items/42?color=red")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 || resp.Header.Get("x-fn") != "echo" {
		t.Fatalf("status %d, x-fn %q: %s", resp.StatusCode, resp.Header.Get("x-fn"), body)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	want := map[string]any{"path": "/items/42", "resource": "/items/{id}", "method": "GET",
		"query": map[string]any{"color": "red"}, "id": "42", "stage": "dev"}
	for k, v := range want {
		if !strings.EqualFold(jsonText(v), jsonText(got[k])) {
			t.Errorf("event %s = %v, want %v", k, got[k], v)
		}
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
