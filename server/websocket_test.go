package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/apigatewaymanagementapi"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	v2types "github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/fasthttp/websocket"

	"github.com/cloudemu/emulator/server/servertest"
)

// wsAPI is a WebSocket API built through the SDK, for the tests below.
type wsAPI struct {
	t   testing.TB
	srv *servertest.Server
	gc  *apigatewayv2.Client
	id  string
}

// newWSAPI creates a WebSocket API with the route selection expression.
func newWSAPI(t testing.TB, srv *servertest.Server, selection string) *wsAPI {
	t.Helper()
	cfg := servertest.AWSConfig("us-east-1", "test")
	gc := apigatewayv2.NewFromConfig(cfg, func(o *apigatewayv2.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	api, err := gc.CreateApi(context.Background(), &apigatewayv2.CreateApiInput{Name: aws.String("ws"),
		ProtocolType: v2types.ProtocolTypeWebsocket, RouteSelectionExpression: aws.String(selection)})
	if err != nil {
		t.Fatal(err)
	}
	return &wsAPI{t: t, srv: srv, gc: gc, id: aws.ToString(api.ApiId)}
}

// mock adds a route answered by a MOCK integration: its request template
// ($default) and, when response is not "", an integration response
// $default with that template and a route response $default.
func (a *wsAPI) mock(key, request, response string) {
	a.t.Helper()
	in := &apigatewayv2.CreateIntegrationInput{ApiId: &a.id, IntegrationType: v2types.IntegrationTypeMock,
		TemplateSelectionExpression: aws.String(`\$default`)}
	if request != "" {
		in.RequestTemplates = map[string]string{"$default": request}
	}
	a.route(key, in, response)
}

// route adds a route to the integration in; with response != "" the
// integration gets an integration response $default with that template
// and the route a route response $default.
func (a *wsAPI) route(key string, in *apigatewayv2.CreateIntegrationInput, response string) string {
	a.t.Helper()
	ctx := context.Background()
	integ, err := a.gc.CreateIntegration(ctx, in)
	if err != nil {
		a.t.Fatal(err)
	}
	if response != "" {
		if _, err := a.gc.CreateIntegrationResponse(ctx, &apigatewayv2.CreateIntegrationResponseInput{ApiId: &a.id,
			IntegrationId: integ.IntegrationId, IntegrationResponseKey: aws.String("$default"),
			TemplateSelectionExpression: aws.String(`\$default`),
			ResponseTemplates:           map[string]string{"$default": response}}); err != nil {
			a.t.Fatal(err)
		}
	}
	r, err := a.gc.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &a.id, RouteKey: aws.String(key),
		Target: aws.String("integrations/" + aws.ToString(integ.IntegrationId))})
	if err != nil {
		a.t.Fatal(err)
	}
	if response != "" || in.IntegrationType == v2types.IntegrationTypeAwsProxy {
		if _, err := a.gc.CreateRouteResponse(ctx, &apigatewayv2.CreateRouteResponseInput{ApiId: &a.id,
			RouteId: r.RouteId, RouteResponseKey: aws.String("$default")}); err != nil {
			a.t.Fatal(err)
		}
	}
	return aws.ToString(r.RouteId)
}

// deploy deploys the API to the stage.
func (a *wsAPI) deploy(stage string) {
	a.t.Helper()
	ctx := context.Background()
	if _, err := a.gc.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &a.id, StageName: &stage}); err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.gc.CreateDeployment(ctx, &apigatewayv2.CreateDeploymentInput{ApiId: &a.id, StageName: &stage}); err != nil {
		a.t.Fatal(err)
	}
}

// url is the stage's WebSocket address (path form).
func (a *wsAPI) url(stage string) string {
	return "ws://" + a.srv.Addr + "/_aws/execute-api/" + a.id + "/" + stage
}

// dial connects; it fails the test unless the upgrade succeeds.
func (a *wsAPI) dial(stage string, h http.Header) *websocket.Conn {
	a.t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial(a.url(stage), h)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		a.t.Fatalf("dial: %v (status %d)", err, status)
	}
	a.t.Cleanup(func() { _ = c.Close() })
	return c
}

// dialStatus connects and returns the refusal's status (101: upgraded).
func (a *wsAPI) dialStatus(stage string, h http.Header) int {
	a.t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial(a.url(stage), h)
	if err == nil {
		_ = c.Close()
		return 101
	}
	if resp == nil {
		a.t.Fatalf("dial: %v", err)
	}
	return resp.StatusCode
}

// roundTrip sends a text message and reads the next one.
func roundTrip(t testing.TB, c *websocket.Conn, msg string) string {
	t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	return next(t, c)
}

// next reads the next message, within 10 s.
func next(t testing.TB, c *websocket.Conn) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return string(b)
}

// errorFrame reads an error frame's message, checking its shape.
func errorFrame(t testing.TB, frame string) string {
	t.Helper()
	var f struct {
		Message, ConnectionID, RequestID string
	}
	if err := json.Unmarshal([]byte(frame), &f); err != nil || len(f.ConnectionID) != 16 || len(f.RequestID) != 16 {
		t.Fatalf("not an error frame: %s", frame)
	}
	if !strings.HasPrefix(frame, `{"message": "`) {
		t.Fatalf("error frame not as AWS writes it: %s", frame)
	}
	return f.Message
}

// TestWebSocketMockEcho: a MOCK route answers through its response
// template, which reads the request template's output as $input.
func TestWebSocketMockEcho(t *testing.T) {
	srv := servertest.Start(t)
	a := newWSAPI(t, srv, "$request.body.action")
	a.mock("echo", `{"statusCode": 200, "echo": $input.json('$.data')}`,
		`{"got": $input.json('$.echo'), "route": "$context.routeKey", "connectionId": "$context.connectionId"}`)
	a.deploy("dev")
	c := a.dial("dev", nil)
	got := roundTrip(t, c, `{"action":"echo","data":{"n":1}}`)
	var m map[string]any
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if jsonText(m["got"]) != `{"n":1}` || m["route"] != "echo" || len(m["connectionId"].(string)) != 16 {
		t.Fatalf("answer %s", got)
	}
}

// TestWebSocketRouteSelection: the selection expression picks a route by
// exact key, composite expressions and nested paths work, anything else
// goes to $default, and without $default the client gets AWS's error
// frame.
func TestWebSocketRouteSelection(t *testing.T) {
	srv := servertest.Start(t)

	composite := newWSAPI(t, srv, "${request.body.service}/${request.body.action}")
	composite.mock("users/get", `{"statusCode": 200}`, `users-get`)
	composite.mock("$default", `{"statusCode": 200}`, `default`)
	composite.deploy("dev")

	nested := newWSAPI(t, srv, "$request.body.meta.kind")
	nested.mock("ping", `{"statusCode": 200}`, `pong`)
	nested.deploy("dev")

	c := composite.dial("dev", nil)
	n := nested.dial("dev", nil)
	for _, tc := range []struct {
		name string
		conn *websocket.Conn
		msg  string
		want string
	}{
		{"case=composite", c, `{"service":"users","action":"get"}`, "users-get"},
		{"case=composite-miss", c, `{"service":"users","action":"put"}`, "default"},
		{"case=missing-path", c, `{"action":"get"}`, "default"},
		{"case=not-json", c, `hello there`, "default"},
		{"case=nested", n, `{"meta":{"kind":"ping"}}`, "pong"},
		{"case=number-key", n, `{"meta":{"kind":7}}`, "forbidden"},
		{"case=no-default", n, `{"meta":{"kind":"other"}}`, "forbidden"},
		{"case=no-default-not-json", n, `{{{`, "forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := roundTrip(t, tc.conn, tc.msg)
			if tc.want == "forbidden" {
				if m := errorFrame(t, got); m != "Forbidden" {
					t.Fatalf("frame %s", got)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}

	t.Run("case=binary-frame", func(t *testing.T) {
		if err := c.WriteMessage(websocket.BinaryMessage, []byte{0, 1, 2}); err != nil {
			t.Fatal(err)
		}
		if got := next(t, c); got != "default" {
			t.Fatalf("got %q", got)
		}
	})
}

// TestWebSocketRouteResponse: a route without a route response sends
// nothing back; the next message's answer is the first frame the client
// reads.
func TestWebSocketRouteResponse(t *testing.T) {
	srv := servertest.Start(t)
	a := newWSAPI(t, srv, "$request.body.action")
	ctx := context.Background()
	integ, err := a.gc.CreateIntegration(ctx, &apigatewayv2.CreateIntegrationInput{ApiId: &a.id,
		IntegrationType: v2types.IntegrationTypeMock, RequestTemplates: map[string]string{"$default": `{"statusCode": 200}`}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.gc.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &a.id, RouteKey: aws.String("silent"),
		Target: aws.String("integrations/" + aws.ToString(integ.IntegrationId))}); err != nil {
		t.Fatal(err)
	}
	a.mock("loud", `{"statusCode": 200}`, `loud`)
	a.deploy("dev")
	c := a.dial("dev", nil)
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"action":"silent"}`)); err != nil {
		t.Fatal(err)
	}
	if got := roundTrip(t, c, `{"action":"loud"}`); got != "loud" {
		t.Fatalf("got %q", got)
	}
}

// TestWebSocketConnectRefused: a $connect MOCK answering 403 refuses the
// upgrade with 403; an unknown stage is 403; a stage without a
// deployment is 403 too.
func TestWebSocketConnectRefused(t *testing.T) {
	srv := servertest.Start(t)
	a := newWSAPI(t, srv, "$request.body.action")
	a.mock("$connect", `#if($input.params('token') == "ok"){"statusCode": 200}#else{"statusCode": 403}#end`, "")
	a.deploy("dev")
	if _, err := a.gc.CreateStage(context.Background(), &apigatewayv2.CreateStageInput{ApiId: &a.id,
		StageName: aws.String("empty")}); err != nil {
		t.Fatal(err)
	}
	if got := a.dialStatus("dev", nil); got != 403 {
		t.Fatalf("no token: status %d, want 403", got)
	}
	c, _, err := websocket.DefaultDialer.Dial(a.url("dev")+"?token=ok", nil)
	if err != nil {
		t.Fatalf("token ok: %v", err)
	}
	_ = c.Close()
	if got := a.dialStatus("nostage", nil); got != 403 {
		t.Fatalf("unknown stage: status %d, want 403", got)
	}
	if got := a.dialStatus("empty", nil); got != 403 {
		t.Fatalf("stage without deployment: status %d, want 403", got)
	}
}

// TestWebSocketNotUpgrade: a plain request to a WebSocket API is 426, a
// malformed upgrade (no Sec-WebSocket-Key) 400; neither runs $connect.
func TestWebSocketNotUpgrade(t *testing.T) {
	srv := servertest.Start(t)
	a := newWSAPI(t, srv, "$request.body.action")
	a.mock("$default", `{"statusCode": 200}`, "x")
	a.deploy("dev")
	resp, err := http.Get(srv.URL + "/_aws/execute-api/" + a.id + "/dev")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 426 {
		t.Fatalf("plain GET: %d, want 426", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/_aws/execute-api/"+a.id+"/dev", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("upgrade without key: %d, want 400", resp.StatusCode)
	}
}

// recorder is an HTTP backend that records what it receives.
type recorder struct {
	mu   sync.Mutex
	got  []string
	srv  *httptest.Server
	seen chan string
}

func newRecorder(t testing.TB, answer string) *recorder {
	r := &recorder{seen: make(chan string, 16)}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, req.URL.Path+" "+string(b))
		r.mu.Unlock()
		select {
		case r.seen <- req.URL.Path + " " + req.Header.Get("connectionId"):
		default:
		}
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) wait(t testing.TB) string {
	t.Helper()
	select {
	case s := <-r.seen:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("the backend was not called")
		return ""
	}
}

// TestWebSocketHTTPProxyAndDisconnect: an HTTP_PROXY route sends the
// message to the backend and its answer back; closing the socket runs
// $disconnect.
func TestWebSocketHTTPProxyAndDisconnect(t *testing.T) {
	srv := servertest.Start(t)
	be := newRecorder(t, `{"from":"backend"}`)
	a := newWSAPI(t, srv, "$request.body.action")
	a.route("$default", &apigatewayv2.CreateIntegrationInput{ApiId: &a.id, IntegrationType: v2types.IntegrationTypeHttpProxy,
		IntegrationMethod: aws.String("POST"), IntegrationUri: aws.String(be.srv.URL + "/message")}, "")
	r, err := a.gc.GetRoutes(context.Background(), &apigatewayv2.GetRoutesInput{ApiId: &a.id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.gc.CreateRouteResponse(context.Background(), &apigatewayv2.CreateRouteResponseInput{ApiId: &a.id,
		RouteId: r.Items[0].RouteId, RouteResponseKey: aws.String("$default")}); err != nil {
		t.Fatal(err)
	}
	a.route("$disconnect", &apigatewayv2.CreateIntegrationInput{ApiId: &a.id, IntegrationType: v2types.IntegrationTypeHttpProxy,
		IntegrationMethod: aws.String("POST"), IntegrationUri: aws.String(be.srv.URL + "/bye")}, "")
	a.deploy("dev")
	c := a.dial("dev", nil)
	if got := roundTrip(t, c, `{"action":"x"}`); got != `{"from":"backend"}` {
		t.Fatalf("got %s", got)
	}
	if got := be.wait(t); !strings.HasPrefix(got, "/message ") {
		t.Fatalf("backend saw %q", got)
	}
	_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, "done"), time.Now().Add(time.Second))
	if got := be.wait(t); !strings.HasPrefix(got, "/bye ") || len(got) != len("/bye ")+16 {
		t.Fatalf("$disconnect: backend saw %q", got)
	}
}

// managementClient is the SDK's @connections client for a stage, on the
// path form, or on the host form when host is set ({id}.execute-api...,
// dialled on the emulator's address).
func managementClient(a *wsAPI, stage string, hostForm bool) *apigatewaymanagementapi.Client {
	cfg := servertest.AWSConfig("us-east-1", "test")
	endpoint := a.srv.URL + "/_aws/execute-api/" + a.id + "/" + stage
	if hostForm {
		_, port, _ := net.SplitHostPort(a.srv.Addr)
		endpoint = "http://" + a.id + ".execute-api.localhost.localstack.cloud:" + port + "/" + stage
		addr := a.srv.Addr
		cfg.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			}
		})
	}
	return apigatewaymanagementapi.NewFromConfig(cfg, func(o *apigatewaymanagementapi.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	})
}

// TestWebSocketConnections: @connections through the SDK on both address
// forms: POST sends a frame, GET describes the connection, DELETE closes
// it; then every call is GoneException. A payload over 128 KB is
// PayloadTooLargeException.
func TestWebSocketConnections(t *testing.T) {
	srv := servertest.Start(t)
	a := newWSAPI(t, srv, "$request.body.action")
	a.mock("whoami", `{"statusCode": 200}`, `$context.connectionId`)
	a.deploy("dev")
	ctx := context.Background()
	for _, hostForm := range []bool{false, true} {
		t.Run(fmt.Sprintf("hostForm=%v", hostForm), func(t *testing.T) {
			c := a.dial("dev", http.Header{"User-Agent": {"ws-test/1"}})
			id := roundTrip(t, c, `{"action":"whoami"}`)
			mc := managementClient(a, "dev", hostForm)
			if _, err := mc.PostToConnection(ctx, &apigatewaymanagementapi.PostToConnectionInput{ConnectionId: &id,
				Data: []byte("hello from the backend")}); err != nil {
				t.Fatal(err)
			}
			if got := next(t, c); got != "hello from the backend" {
				t.Fatalf("got %q", got)
			}
			info, err := mc.GetConnection(ctx, &apigatewaymanagementapi.GetConnectionInput{ConnectionId: &id})
			if err != nil {
				t.Fatal(err)
			}
			if info.Identity == nil || aws.ToString(info.Identity.SourceIp) != "127.0.0.1" ||
				aws.ToString(info.Identity.UserAgent) != "ws-test/1" || info.ConnectedAt == nil ||
				info.LastActiveAt == nil || info.LastActiveAt.Before(*info.ConnectedAt) {
				t.Fatalf("GetConnection: %+v %+v", info, info.Identity)
			}
			_, err = mc.PostToConnection(ctx, &apigatewaymanagementapi.PostToConnectionInput{ConnectionId: &id,
				Data: make([]byte, 128<<10+1)})
			servertest.WantAPIError(t, err, "PayloadTooLargeException", "")
			if _, err := mc.DeleteConnection(ctx, &apigatewaymanagementapi.DeleteConnectionInput{ConnectionId: &id}); err != nil {
				t.Fatal(err)
			}
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, _, err = c.ReadMessage()
			if !websocket.IsCloseError(err, 1000) {
				t.Fatalf("after DeleteConnection: %v", err)
			}
			// The end is reported once the close handshake is over.
			deadline := time.Now().Add(10 * time.Second)
			for {
				_, err = mc.GetConnection(ctx, &apigatewaymanagementapi.GetConnectionInput{ConnectionId: &id})
				if err != nil || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			servertest.WantAPIError(t, err, "GoneException", "")
			_, err = mc.PostToConnection(ctx, &apigatewaymanagementapi.PostToConnectionInput{ConnectionId: &id, Data: []byte("x")})
			servertest.WantAPIError(t, err, "GoneException", "")
			_, err = mc.DeleteConnection(ctx, &apigatewaymanagementapi.DeleteConnectionInput{ConnectionId: aws.String("L0SM9cOFvHcCIhw=")})
			servertest.WantAPIError(t, err, "GoneException", "")
		})
	}
}

// wsHandler answers each WebSocket event with what it read of it.
const wsHandler = `import json

def handler(event, context):
    rc = event["requestContext"]
    if rc["eventType"] == "CONNECT" and (event.get("queryStringParameters") or {}).get("refuse"):
        return {"statusCode": 401}
    return {"statusCode": 200, "body": json.dumps({
        "routeKey": rc["routeKey"], "eventType": rc["eventType"], "body": event.get("body"),
        "connectionId": rc["connectionId"], "messageId": rc.get("messageId"), "stage": rc["stage"],
        "apiId": rc["apiId"], "user": (rc.get("authorizer") or {}).get("user"),
        "sourceIp": rc["identity"]["sourceIp"], "base64": event["isBase64Encoded"]})}
`

// wsAuthorizer allows the token "allow", denies "deny", and answers
// "Unauthorized" to anything else.
const wsAuthorizer = `def handler(event, context):
    token = event["headers"].get("Auth") or event["headers"].get("auth")
    if token not in ("allow", "deny"):
        raise Exception("Unauthorized")
    effect = "Allow" if token == "allow" else "Deny"
    return {"principalId": "me", "context": {"user": "u1"},
            "policyDocument": {"Version": "2012-10-17", "Statement": [
                {"Action": "execute-api:Invoke", "Effect": effect, "Resource": event["methodArn"]}]}}
`

// TestWebSocketLambda: $connect with a Lambda REQUEST authorizer (allow,
// deny 403, unauthorized 401, missing identity 401) and AWS_PROXY
// integrations running Python functions, whose event carries the route,
// the connection and the authorizer's context.
func TestWebSocketLambda(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		servertest.MissingTool(t, "python3")
	}
	srv := servertest.Start(t)
	ctx := context.Background()
	cfg := servertest.AWSConfig("us-east-1", "test")
	lc := lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	uri := func(name, src string) string {
		fn, err := lc.CreateFunction(ctx, &lambda.CreateFunctionInput{FunctionName: aws.String(name),
			Runtime: ltypes.RuntimePython312, Handler: aws.String("index.handler"), Role: aws.String("arn:aws:iam::000000000000:role/r"),
			Code: &ltypes.FunctionCode{ZipFile: zipOf(t, "index.py", src)}})
		if err != nil {
			t.Fatal(err)
		}
		return "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/" + aws.ToString(fn.FunctionArn) + "/invocations"
	}
	handler, auth := uri("ws-handler", wsHandler), uri("ws-auth", wsAuthorizer)

	a := newWSAPI(t, srv, "$request.body.action")
	az, err := a.gc.CreateAuthorizer(ctx, &apigatewayv2.CreateAuthorizerInput{ApiId: &a.id, Name: aws.String("auth"),
		AuthorizerType: v2types.AuthorizerTypeRequest, AuthorizerUri: aws.String(auth),
		IdentitySource: []string{"route.request.header.Auth"}})
	if err != nil {
		t.Fatal(err)
	}
	proxy := func() *apigatewayv2.CreateIntegrationInput {
		return &apigatewayv2.CreateIntegrationInput{ApiId: &a.id, IntegrationType: v2types.IntegrationTypeAwsProxy,
			IntegrationUri: aws.String(handler)}
	}
	connect := a.route("$connect", proxy(), "")
	if _, err := a.gc.UpdateRoute(ctx, &apigatewayv2.UpdateRouteInput{ApiId: &a.id, RouteId: &connect,
		AuthorizationType: v2types.AuthorizationTypeCustom, AuthorizerId: az.AuthorizerId}); err != nil {
		t.Fatal(err)
	}
	a.route("$default", proxy(), "")
	a.deploy("dev")

	for _, tc := range []struct {
		name  string
		token string
		query string
		want  int
	}{
		{"auth=deny", "deny", "", 403},
		{"auth=unauthorized", "nope", "", 401},
		{"auth=missing", "", "", 401},
		{"auth=allow,connect=401", "allow", "?refuse=1", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.token != "" {
				h.Set("Auth", tc.token)
			}
			c, resp, err := websocket.DefaultDialer.Dial(a.url("dev")+tc.query, h)
			if err == nil {
				_ = c.Close()
				t.Fatal("upgraded")
			}
			if resp == nil || resp.StatusCode != tc.want {
				t.Fatalf("%v %v, want %d", err, resp, tc.want)
			}
		})
	}

	c := a.dial("dev", http.Header{"Auth": {"allow"}})
	got := roundTrip(t, c, `{"action":"hello","n":1}`)
	var ev map[string]any
	if err := json.Unmarshal([]byte(got), &ev); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	want := map[string]any{"routeKey": "$default", "eventType": "MESSAGE", "body": `{"action":"hello","n":1}`,
		"stage": "dev", "apiId": a.id, "user": "u1", "sourceIp": "127.0.0.1", "base64": false}
	for k, v := range want {
		if jsonText(ev[k]) != jsonText(v) {
			t.Errorf("event %s = %v, want %v", k, ev[k], v)
		}
	}
	if id, _ := ev["messageId"].(string); len(id) != 16 {
		t.Errorf("messageId %v", ev["messageId"])
	}
	if err := c.WriteMessage(websocket.BinaryMessage, []byte{0xff, 0}); err != nil {
		t.Fatal(err)
	}
	if got := next(t, c); !strings.Contains(got, `"base64": true`) || !strings.Contains(got, `"body": "/wA="`) {
		t.Fatalf("binary message: %s", got)
	}
}

// TestWebSocketLimits: a frame over 32 KB, or a message over 128 KB,
// closes the connection with 1009; a 100 KB message in 16 KB frames
// passes. Garbage after the handshake closes that connection only.
func TestWebSocketLimits(t *testing.T) {
	srv := servertest.Start(t)
	a := newWSAPI(t, srv, "$request.body.action")
	a.mock("$default", `{"statusCode": 200}`, `ok`)
	a.deploy("dev")
	dial := func(frame int) *websocket.Conn {
		d := websocket.Dialer{WriteBufferSize: frame}
		c, _, err := d.Dial(a.url("dev"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	tooBig := func(t *testing.T, c *websocket.Conn, n int) {
		_ = c.WriteMessage(websocket.TextMessage, []byte(strings.Repeat("a", n)))
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _, err := c.ReadMessage()
		if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
			t.Fatalf("want close 1009, got %v", err)
		}
	}
	t.Run("frame=33KB", func(t *testing.T) { tooBig(t, dial(64<<10), 33<<10) })
	t.Run("message=129KB", func(t *testing.T) { tooBig(t, dial(16<<10), 129<<10) })
	t.Run("message=100KB,frames=16KB", func(t *testing.T) {
		if got := roundTrip(t, dial(16<<10), strings.Repeat("a", 100<<10)); got != "ok" {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		nc, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		fmt.Fprintf(nc, "GET /_aws/execute-api/%s/dev HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
			"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", a.id)
		buf := make([]byte, 4096)
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := nc.Read(buf)
		if err != nil || !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 101") {
			t.Fatalf("handshake: %v %q", err, buf[:n])
		}
		// Reserved bits, an unknown opcode, an unmasked frame.
		_, _ = nc.Write([]byte{0xff, 0x7f, 0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6, 7, 8})
		for err == nil {
			_, err = nc.Read(buf)
		}
		if got := roundTrip(t, a.dial("dev", nil), `{}`); got != "ok" {
			t.Fatalf("after garbage: %q", got)
		}
	})
}

// TestWebSocketNoLeak: connections leave no goroutine behind once closed.
func TestWebSocketNoLeak(t *testing.T) {
	srv := servertest.Start(t)
	a := newWSAPI(t, srv, "$request.body.action")
	a.mock("$default", `{"statusCode": 200}`, `ok`)
	a.deploy("dev")
	// Warm the clients and pools up first.
	c := a.dial("dev", nil)
	roundTrip(t, c, `{}`)
	_ = c.Close()
	settle := func(max int) int {
		n := runtime.NumGoroutine()
		for deadline := time.Now().Add(10 * time.Second); n > max && time.Now().Before(deadline); n = runtime.NumGoroutine() {
			time.Sleep(20 * time.Millisecond)
		}
		return n
	}
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	conns := make([]*websocket.Conn, 50)
	for i := range conns {
		conns[i] = a.dial("dev", nil)
		roundTrip(t, conns[i], `{}`)
	}
	if n := runtime.NumGoroutine(); n < before+50 {
		t.Logf("goroutines with 50 open: %d (before %d)", n, before)
	}
	for _, c := range conns {
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, ""), time.Now().Add(time.Second))
		_ = c.Close()
	}
	if after := settle(before + 2); after > before+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after closing\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// TestWebSocketClosedOnReset: POST /_emulator/reset closes every open
// connection with 1001, as the state it belonged to is gone.
func TestWebSocketClosedOnReset(t *testing.T) {
	srv := servertest.Start(t)
	a := newWSAPI(t, srv, "$request.body.action")
	a.mock("echo", `{"statusCode": 200}`, `{}`)
	a.deploy("dev")
	c := a.dial("dev", nil)
	resp, err := http.Post(srv.URL+"/_emulator/reset", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err = c.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 1001 {
		t.Fatalf("after reset: %v, want a 1001 close", err)
	}
}
