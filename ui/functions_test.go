package ui_test

import (
	"archive/zip"
	"bytes"
	"context"
	"os/exec"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	v2types "github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/cloudemu/emulator/server/servertest"
)

const handler = `
def handler(event, context):
    print("handling <" + event["who"] + ">")
    if event["who"] == "nobody":
        raise ValueError("no one")
    return {"hello": event["who"]}
`

// TestFunctionsPage: a function's runtime, its warm instance and its
// invocations with their logs, failures included.
func TestFunctionsPage(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		servertest.MissingTool(t, "python3")
	}
	srv := servertest.Start(t)
	ctx := context.Background()
	lc := lambda.NewFromConfig(servertest.AWSConfig(region, "test"), func(o *lambda.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	f, _ := zw.Create("index.py")
	_, _ = f.Write([]byte(handler))
	_ = zw.Close()
	if _, err := lc.CreateFunction(ctx, &lambda.CreateFunctionInput{FunctionName: aws.String("greeter"),
		Runtime: ltypes.RuntimePython312, Handler: aws.String("index.handler"), Role: aws.String("arn:aws:iam::000000000000:role/r"),
		Code: &ltypes.FunctionCode{ZipFile: zb.Bytes()}}); err != nil {
		t.Fatal(err)
	}
	wantPage(t, srv.URL, "/_emulator/ui/functions", 200, "greeter", "python3.12", "index.handler", "Not invoked")
	for _, who := range []string{"world", "nobody"} {
		if _, err := lc.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("greeter"), Payload: []byte(`{"who":"` + who + `"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	wantPage(t, srv.URL, "/_emulator/ui/functions", 200, "1 idle, 0 busy", "success", "ValueError",
		"handling &lt;world&gt;", "handling &lt;nobody&gt;", "REPORT RequestId")
}

// TestHostilePaths: labels that are not what they should be get a 404
// page that shows them as text.
func TestHostilePaths(t *testing.T) {
	srv := servertest.Start(t)
	for _, p := range []string{
		"/_emulator/ui/apis/%3Cscript%3E/x/%3Cb%3E",
		"/_emulator/ui/apis/000000000000/us-east-1/..%2F..%2Fetc",
		"/_emulator/ui/queues/000000000000/us-east-1/%3Cimg%20src%3Dx%3E",
		"/_emulator/ui/requests/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
		"/_emulator/ui/inbox/%22%3E%3Cscript%3E",
		"/_emulator/ui/inbox/%22%3E%3Cscript%3E/html",
	} {
		body := wantPage(t, srv.URL, p, 404)
		if bytes.Contains([]byte(body), []byte("<script>")) || bytes.Contains([]byte(body), []byte("<img src")) {
			t.Errorf("GET %s: the label is in the page unescaped", p)
		}
	}
	if code, _, _ := get(t, srv.URL, "/_emulator/ui/traffic?window=-5"); code != 200 {
		t.Errorf("a negative window: %d", code)
	}
	if code, _, _ := get(t, srv.URL, "/_emulator/ui/requests?status=%3Cx%3E&api=%3Cb%3E"); code != 200 {
		t.Errorf("odd filters: %d", code)
	}
}

// TestHTTPAPIPage: an HTTP API's routes with their integrations, and its
// $default stage's URLs at the root.
func TestHTTPAPIPage(t *testing.T) {
	srv := servertest.Start(t)
	ctx := context.Background()
	c := apigatewayv2.NewFromConfig(servertest.AWSConfig(region, "test"), func(o *apigatewayv2.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	api, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("orders <v2>"), ProtocolType: v2types.ProtocolTypeHttp,
		Target: aws.String("http://127.0.0.1:9/backend")})
	if err != nil {
		t.Fatal(err)
	}
	body := wantPage(t, srv.URL, "/_emulator/ui/apis/"+account+"/"+region+"/"+*api.ApiId, 200,
		"orders &lt;v2&gt;", "$default", "HTTP_PROXY", "http://127.0.0.1:9/backend", "/_aws/execute-api/"+*api.ApiId+`"`,
		"https://"+*api.ApiId+".execute-api.us-east-1.amazonaws.com")
	if bytes.Contains([]byte(body), []byte("_user_request_")) {
		t.Errorf("an HTTP API shows a REST path form")
	}
}
