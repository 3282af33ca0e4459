package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	agtypes "github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// pidHandler writes its process id where the event says, then sleeps: the
// test kills it mid-invocation.
const pidHandler = `
import json, os, time
def handler(event, context):
    pidfile = event.get("pidfile")
    if not pidfile and isinstance(event.get("body"), str):
        pidfile = json.loads(event["body"]).get("pidfile")
    if pidfile:
        with open(pidfile + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(pidfile + ".tmp", pidfile)
        time.sleep(20)
    return {"statusCode": 200, "body": "alive"}
`

// killWhenStarted waits for the function to write its pid, then kills it
// with SIGKILL, as the kernel's OOM killer would.
func killWhenStarted(t *testing.T, pidfile string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(pidfile)
		if err == nil {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Errorf("pidfile %q", b)
				return
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Errorf("kill %d: %v", pid, err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Error("the function did not start")
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFunctionKilledMidInvocation: a function process killed during an
// invocation ends it at once as Lambda does, with an Unhandled
// Runtime.ExitError (Invoke's 200) and a 502 through an API's Lambda
// proxy integration; the next invocation gets a fresh instance.
func TestFunctionKilledMidInvocation(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		servertest.MissingTool(t, "python3")
	}
	srv := servertest.Start(t)
	ctx := context.Background()
	cfg := servertest.AWSConfig("us-east-1", "test")
	lc := lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	fn, err := lc.CreateFunction(ctx, &lambda.CreateFunctionInput{FunctionName: aws.String("victim"),
		Runtime: ltypes.RuntimePython312, Handler: aws.String("index.handler"), Role: aws.String("arn:aws:iam::000000000000:role/r"),
		Timeout: aws.Int32(30), Code: &ltypes.FunctionCode{ZipFile: zipOf(t, "index.py", pidHandler)}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	// Lambda's Invoke.
	pidfile := filepath.Join(dir, "invoke.pid")
	go killWhenStarted(t, pidfile)
	start := time.Now()
	out, err := lc.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("victim"),
		Payload: []byte(`{"pidfile": "` + pidfile + `"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Payload, &m); err != nil {
		t.Fatalf("%v: %s", err, out.Payload)
	}
	if aws.ToString(out.FunctionError) != "Unhandled" || m["errorType"] != "Runtime.ExitError" ||
		!strings.Contains(m["errorMessage"].(string), "Runtime exited with error: signal: killed") {
		t.Fatalf("killed: %v %s", aws.ToString(out.FunctionError), out.Payload)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the invocation ended %v after it started (the function sleeps 20 s)", took)
	}
	out, err = lc.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("victim"), Payload: []byte(`{}`)})
	if err != nil || out.FunctionError != nil || !strings.Contains(string(out.Payload), "alive") {
		t.Fatalf("after the kill: %v %v %s", err, out.FunctionError, out.Payload)
	}

	// A REST API's Lambda proxy integration.
	gc := apigateway.NewFromConfig(cfg, func(o *apigateway.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	api, err := gc.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String("victim-api")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gc.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: api.Id, ResourceId: api.RootResourceId,
		HttpMethod: aws.String("POST"), AuthorizationType: aws.String("NONE")}); err != nil {
		t.Fatal(err)
	}
	uri := "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/" + aws.ToString(fn.FunctionArn) + "/invocations"
	if _, err := gc.PutIntegration(ctx, &apigateway.PutIntegrationInput{RestApiId: api.Id, ResourceId: api.RootResourceId,
		HttpMethod: aws.String("POST"), Type: agtypes.IntegrationTypeAwsProxy, IntegrationHttpMethod: aws.String("POST"),
		Uri: aws.String(uri)}); err != nil {
		t.Fatal(err)
	}
	if _, err := gc.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: api.Id, StageName: aws.String("dev")}); err != nil {
		t.Fatal(err)
	}
	pidfile = filepath.Join(dir, "proxy.pid")
	go killWhenStarted(t, pidfile)
	hc := &http.Client{Timeout: 40 * time.Second}
	post := func(body string) (int, string) {
		t.Helper()
		resp, err := hc.Post(srv.URL+"/restapis/"+aws.ToString(api.Id)+"/dev/_user_request_/", "application/json",
			strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	start = time.Now()
	if status, body := post(`{"pidfile": "` + pidfile + `"}`); status != 502 || body != `{"message": "Internal server error"}` {
		t.Fatalf("killed behind a proxy: %d %s", status, body)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the request ended %v after it started", took)
	}
	if status, body := post(`{}`); status != 200 || body != "alive" {
		t.Fatalf("after the kill behind a proxy: %d %s", status, body)
	}
}
