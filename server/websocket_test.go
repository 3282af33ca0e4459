package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	v2types "github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
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
