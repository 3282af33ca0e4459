package apigatewayv2http_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// apisHTTP creates a plain HTTP API.
func apisHTTP(t *testing.T, c *apigatewayv2.Client, name string) string {
	t.Helper()
	out, err := c.CreateApi(context.Background(), &apigatewayv2.CreateApiInput{Name: aws.String(name), ProtocolType: types.ProtocolTypeHttp})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.ApiId)
}

func TestAPIsHTTPLifecycle(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	out, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{
		Name: aws.String("http-1"), ProtocolType: types.ProtocolTypeHttp, Tags: map[string]string{"team": "x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(out.ApiId)
	if len(id) != 10 || aws.ToString(out.ApiEndpoint) != "http://"+id+".execute-api.localhost.localstack.cloud:"+portOf(srv) ||
		aws.ToString(out.ApiKeySelectionExpression) != "$request.header.x-api-key" ||
		aws.ToString(out.RouteSelectionExpression) != "$request.method $request.path" ||
		out.DisableExecuteApiEndpoint == nil || *out.DisableExecuteApiEndpoint || out.IpAddressType != types.IpAddressTypeIpv4 ||
		out.CreatedDate == nil || time.Since(*out.CreatedDate) > time.Minute || out.Tags["team"] != "x" ||
		out.Description != nil || out.Version != nil || out.CorsConfiguration != nil || out.ApiGatewayManaged != nil {
		t.Fatalf("create: %+v", out)
	}

	raw := send(t, srv, "GET", "/v2/apis/"+id, "")
	if raw.status != 200 || raw.body["disableExecuteApiEndpoint"] != false || raw.body["protocolType"] != "HTTP" {
		t.Fatalf("get: %s", raw.raw)
	}
	created, _ := raw.body["createdDate"].(string)
	if _, err := time.Parse("2006-01-02T15:04:05Z", created); err != nil {
		t.Fatalf("createdDate %q is not ISO 8601 to the second", created)
	}

	upd, err := c.UpdateApi(ctx, &apigatewayv2.UpdateApiInput{ApiId: &id, Name: aws.String("renamed"),
		Description: aws.String("d"), Version: aws.String("v1"), DisableExecuteApiEndpoint: aws.Bool(true),
		IpAddressType: types.IpAddressTypeDualstack,
		CorsConfiguration: &types.Cors{AllowOrigins: []string{"https://a.example"}, AllowMethods: []string{"GET"},
			AllowCredentials: aws.Bool(true), MaxAge: aws.Int32(300)}})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(upd.Name) != "renamed" || aws.ToString(upd.Description) != "d" || aws.ToString(upd.Version) != "v1" ||
		!aws.ToBool(upd.DisableExecuteApiEndpoint) || upd.IpAddressType != types.IpAddressTypeDualstack ||
		upd.CorsConfiguration == nil || aws.ToInt32(upd.CorsConfiguration.MaxAge) != 300 || upd.Tags["team"] != "x" {
		t.Fatalf("update: %+v", upd)
	}
	got, err := c.GetApi(ctx, &apigatewayv2.GetApiInput{ApiId: &id})
	if err != nil || aws.ToString(got.Name) != "renamed" || got.CorsConfiguration == nil ||
		got.CorsConfiguration.AllowOrigins[0] != "https://a.example" {
		t.Fatalf("get after update: %v %+v", err, got)
	}
	// Clearing the version (Terraform sends "" after a reimport).
	if upd, err = c.UpdateApi(ctx, &apigatewayv2.UpdateApiInput{ApiId: &id, Version: aws.String("")}); err != nil || upd.Version != nil {
		t.Fatalf("clear version: %v %+v", err, upd)
	}

	if _, err := c.DeleteCorsConfiguration(ctx, &apigatewayv2.DeleteCorsConfigurationInput{ApiId: &id}); err != nil {
		t.Fatal(err)
	}
	if got, err = c.GetApi(ctx, &apigatewayv2.GetApiInput{ApiId: &id}); err != nil || got.CorsConfiguration != nil {
		t.Fatalf("cors not deleted: %v %+v", err, got)
	}
	wantReply(t, send(t, srv, "DELETE", "/v2/apis/"+id+"/cors", ""), 204, "", "")

	if _, err := c.DeleteApi(ctx, &apigatewayv2.DeleteApiInput{ApiId: &id}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetApi(ctx, &apigatewayv2.GetApiInput{ApiId: &id})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+testAccount+":"+id)
	_, err = c.DeleteApi(ctx, &apigatewayv2.DeleteApiInput{ApiId: &id})
	servertest.WantAPIError(t, err, "NotFoundException", "")
	r := send(t, srv, "DELETE", "/v2/apis/"+id+"/cors", "")
	wantReply(t, r, 404, "NotFoundException", "Invalid API identifier specified "+testAccount+":"+id)
	if r.body["resourceType"] != "Api" {
		t.Fatalf("resourceType: %s", r.raw)
	}
}

// portOf is the port the test server listens on.
func portOf(srv *servertest.Server) string {
	return srv.Addr[strings.LastIndexByte(srv.Addr, ':')+1:]
}

func TestAPIsWireShape(t *testing.T) {
	srv, _ := startServer(t)
	r := send(t, srv, "POST", "/v2/apis", `{"name":"w","protocolType":"HTTP"}`)
	wantReply(t, r, 201, "", "")
	// Members never set are absent; tags and the defaults are present.
	for _, m := range []string{"description", "version", "corsConfiguration", "apiGatewayManaged", "disableSchemaValidation", "warnings"} {
		if _, ok := r.body[m]; ok {
			t.Fatalf("%s present: %s", m, r.raw)
		}
	}
	for _, m := range []string{"apiEndpoint", "apiId", "apiKeySelectionExpression", "createdDate", "disableExecuteApiEndpoint",
		"ipAddressType", "name", "protocolType", "routeSelectionExpression", "tags"} {
		if _, ok := r.body[m]; !ok {
			t.Fatalf("%s absent: %s", m, r.raw)
		}
	}
	list := send(t, srv, "GET", "/v2/apis", "")
	items, _ := list.body["items"].([]any)
	if list.status != 200 || len(items) != 1 || items[0].(map[string]any)["tags"] == nil {
		t.Fatalf("list: %s", list.raw)
	}
	if _, ok := list.body["nextToken"]; ok {
		t.Fatalf("nextToken on the only page: %s", list.raw)
	}
}

func TestAPIsWebSocket(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	out, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("ws"), ProtocolType: types.ProtocolTypeWebsocket,
		RouteSelectionExpression: aws.String("$request.body.action"), DisableSchemaValidation: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(out.ApiId)
	if aws.ToString(out.ApiEndpoint) != "ws://"+id+".execute-api.localhost.localstack.cloud:"+portOf(srv) ||
		aws.ToString(out.RouteSelectionExpression) != "$request.body.action" ||
		aws.ToString(out.ApiKeySelectionExpression) != "$request.header.x-api-key" || !aws.ToBool(out.DisableSchemaValidation) {
		t.Fatalf("create: %+v", out)
	}
	// Terraform sends the HTTP default to WebSocket APIs too.
	tf, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("ws2"), ProtocolType: types.ProtocolTypeWebsocket,
		RouteSelectionExpression: aws.String("$request.method $request.path")})
	if err != nil || aws.ToString(tf.RouteSelectionExpression) != "$request.method $request.path" {
		t.Fatalf("terraform default: %v %+v", err, tf)
	}
	_, err = c.UpdateApi(ctx, &apigatewayv2.UpdateApiInput{ApiId: &id, CorsConfiguration: &types.Cors{AllowOrigins: []string{"*"}}})
	servertest.WantAPIError(t, err, "BadRequestException", "CORS configuration is supported only for HTTP APIs")
	upd, err := c.UpdateApi(ctx, &apigatewayv2.UpdateApiInput{ApiId: &id, RouteSelectionExpression: aws.String("$request.body.type"),
		ApiKeySelectionExpression: aws.String("$context.authorizer.usageIdentifierKey")})
	if err != nil || aws.ToString(upd.RouteSelectionExpression) != "$request.body.type" ||
		aws.ToString(upd.ApiKeySelectionExpression) != "$context.authorizer.usageIdentifierKey" {
		t.Fatalf("update: %v %+v", err, upd)
	}
}

func TestAPIsCreateErrors(t *testing.T) {
	srv, _ := startServer(t)
	long := strings.Repeat("n", 129)
	for _, tc := range []struct {
		name, body, code, msg string
	}{
		{name: "name=missing", body: `{"protocolType":"HTTP"}`, code: "BadRequestException", msg: "Name is required"},
		{name: "name=empty", body: `{"name":"","protocolType":"HTTP"}`, code: "BadRequestException", msg: "Name is required"},
		{name: "name=long", body: `{"name":"` + long + `","protocolType":"HTTP"}`, code: "BadRequestException",
			msg: "Name must be between 1 and 128 characters long"},
		{name: "name=number", body: `{"name":5,"protocolType":"HTTP"}`, code: "SerializationException"},
		{name: "protocol=missing", body: `{"name":"a"}`, code: "BadRequestException", msg: "Protocol type is required"},
		{name: "protocol=REST", body: `{"name":"a","protocolType":"REST"}`, code: "BadRequestException",
			msg: "Invalid protocol specified. Must be one of [HTTP, WEBSOCKET]"},
		{name: "websocket,routeSelection=missing", body: `{"name":"a","protocolType":"WEBSOCKET"}`, code: "BadRequestException",
			msg: "RouteSelectionExpression is required for WEBSOCKET protocol"},
		{name: "http,routeSelection=other", body: `{"name":"a","protocolType":"HTTP","routeSelectionExpression":"$request.body.action"}`,
			code: "BadRequestException"},
		{name: "apiKeySelection=other", body: `{"name":"a","protocolType":"HTTP","apiKeySelectionExpression":"$request.header.key"}`,
			code: "BadRequestException"},
		{name: "ipAddressType=ipv6", body: `{"name":"a","protocolType":"HTTP","ipAddressType":"ipv6"}`, code: "BadRequestException"},
		{name: "description=long", body: `{"name":"a","protocolType":"HTTP","description":"` + strings.Repeat("d", 1025) + `"}`,
			code: "BadRequestException"},
		{name: "cors=credentials-with-star", body: `{"name":"a","protocolType":"HTTP","corsConfiguration":{"allowCredentials":true,"allowOrigins":["*"]}}`,
			code: "BadRequestException", msg: "allow-credentials is not supported if 'allow-origin' is *"},
		{name: "cors=maxAge", body: `{"name":"a","protocolType":"HTTP","corsConfiguration":{"maxAge":86401}}`, code: "BadRequestException"},
		{name: "cors=websocket", body: `{"name":"a","protocolType":"WEBSOCKET","routeSelectionExpression":"$request.body.a","corsConfiguration":{}}`,
			code: "BadRequestException"},
		{name: "quick=websocket", body: `{"name":"a","protocolType":"WEBSOCKET","routeSelectionExpression":"$request.body.a","target":"https://x.example"}`,
			code: "BadRequestException"},
		{name: "quick=routeKey-without-target", body: `{"name":"a","protocolType":"HTTP","routeKey":"GET /x"}`, code: "BadRequestException"},
		{name: "quick=bad-target", body: `{"name":"a","protocolType":"HTTP","target":"ftp://x.example"}`, code: "BadRequestException"},
		{name: "quick=bad-routeKey", body: `{"name":"a","protocolType":"HTTP","target":"https://x.example","routeKey":"GET /{a}.json"}`,
			code: "BadRequestException", msg: "One or more path parts appear to be invalid"},
		{name: "tags=aws-prefix", body: `{"name":"a","protocolType":"HTTP","tags":{"aws:x":"1"}}`, code: "BadRequestException"},
		{name: "body=array", body: `[]`, code: "BadRequestException"},
		{name: "body=malformed", body: `{"name":`, code: "BadRequestException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := send(t, srv, "POST", "/v2/apis", tc.body)
			wantReply(t, r, 400, tc.code, tc.msg)
		})
	}
	// Nothing was created by the refused requests.
	if r := send(t, srv, "GET", "/v2/apis", ""); len(r.body["items"].([]any)) != 0 {
		t.Fatalf("refused creates left APIs: %s", r.raw)
	}
}

func TestAPIsUpdateErrors(t *testing.T) {
	srv, c := startServer(t)
	id := apisHTTP(t, c, "u")
	for _, tc := range []struct {
		name, body, status, code, msg string
	}{
		{name: "name=empty", body: `{"name":""}`, code: "BadRequestException"},
		{name: "routeSelection=other", body: `{"routeSelectionExpression":"$request.body.x"}`, code: "BadRequestException"},
		{name: "cors=credentials-with-star", body: `{"corsConfiguration":{"allowCredentials":true,"allowOrigins":["https://a","*"]}}`,
			code: "BadRequestException", msg: "allow-credentials is not supported if 'allow-origin' is *"},
		{name: "target=not-quick-created", body: `{"target":"https://x.example"}`, code: "BadRequestException"},
		{name: "disableExecuteApiEndpoint=string", body: `{"disableExecuteApiEndpoint":"yes"}`, code: "SerializationException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantReply(t, send(t, srv, "PATCH", "/v2/apis/"+id, tc.body), 400, tc.code, tc.msg)
		})
	}
	got, err := c.GetApi(context.Background(), &apigatewayv2.GetApiInput{ApiId: &id})
	if err != nil || aws.ToString(got.Name) != "u" || got.CorsConfiguration != nil {
		t.Fatalf("a refused update changed the API: %v %+v", err, got)
	}
	r := send(t, srv, "PATCH", "/v2/apis/nope", `{"name":"x"}`)
	wantReply(t, r, 404, "NotFoundException", "Invalid API identifier specified "+testAccount+":nope")
}

func TestAPIsList(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	want := map[string]bool{}
	for _, n := range []string{"a", "b", "c"} {
		want[apisHTTP(t, c, n)] = true
	}
	// GetApis does not paginate (docs/apigatewayv2.md), yet checks its paging members.
	out, err := c.GetApis(ctx, &apigatewayv2.GetApisInput{MaxResults: aws.String("1")})
	if err != nil || len(out.Items) != 3 || out.NextToken != nil {
		t.Fatalf("list: %v %+v", err, out)
	}
	for _, a := range out.Items {
		if !want[aws.ToString(a.ApiId)] || a.Tags == nil {
			t.Fatalf("item: %+v", a)
		}
	}
	for _, q := range []string{"maxResults=abc", "maxResults=0", "nextToken=garbage!"} {
		t.Run("query="+q, func(t *testing.T) {
			wantReply(t, send(t, srv, "GET", "/v2/apis?"+q, ""), 400, "BadRequestException", "")
		})
	}
	// Another account sees none of them.
	other := apigatewayv2.NewFromConfig(servertest.AWSConfig("us-east-1", "111111111111"), func(o *apigatewayv2.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
	if out, err := other.GetApis(ctx, &apigatewayv2.GetApisInput{}); err != nil || len(out.Items) != 0 {
		t.Fatalf("other account: %v %+v", err, out)
	}
}

func TestAPIsQuickCreate(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	out, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("quick"), ProtocolType: types.ProtocolTypeHttp,
		Target: aws.String("arn:aws:lambda:us-east-1:123456789012:function:fn")})
	if err != nil {
		t.Fatal(err)
	}
	id := out.ApiId
	if out.ApiGatewayManaged != nil {
		t.Fatalf("quick create marks the API managed: %+v", out)
	}
	routes, err := c.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: id})
	if err != nil || len(routes.Items) != 1 {
		t.Fatalf("routes: %v %+v", err, routes)
	}
	r := routes.Items[0]
	if aws.ToString(r.RouteKey) != "$default" || !aws.ToBool(r.ApiGatewayManaged) || r.AuthorizationType != types.AuthorizationTypeNone ||
		!strings.HasPrefix(aws.ToString(r.Target), "integrations/") {
		t.Fatalf("route: %+v", r)
	}
	integrationID := strings.TrimPrefix(aws.ToString(r.Target), "integrations/")
	integ, err := c.GetIntegration(ctx, &apigatewayv2.GetIntegrationInput{ApiId: id, IntegrationId: &integrationID})
	need(t, err)
	if integ.IntegrationType != types.IntegrationTypeAwsProxy || aws.ToString(integ.IntegrationMethod) != "POST" ||
		aws.ToString(integ.PayloadFormatVersion) != "2.0" || aws.ToInt32(integ.TimeoutInMillis) != 30000 ||
		!aws.ToBool(integ.ApiGatewayManaged) {
		t.Fatalf("integration: %+v", integ)
	}
	st, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: id, StageName: aws.String("$default")})
	need(t, err)
	if !aws.ToBool(st.AutoDeploy) || !aws.ToBool(st.ApiGatewayManaged) || st.DeploymentId == nil ||
		aws.ToString(st.LastDeploymentStatusMessage) != "Successfully deployed stage with deployment ID '"+aws.ToString(st.DeploymentId)+"'" {
		t.Fatalf("stage: %+v", st)
	}
}

func TestAPIsPersistence(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	srv := servertest.Start(t, servertest.WithPersistence(dir))
	c := newClient(srv)
	out, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("kept"), ProtocolType: types.ProtocolTypeHttp,
		Target: aws.String("https://example.com"), Tags: map[string]string{"k": "v"},
		CorsConfiguration: &types.Cors{AllowOrigins: []string{"https://a.example"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := out.ApiId
	route, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: id, RouteKey: aws.String("GET /items/{id}")})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("ws"), ProtocolType: types.ProtocolTypeWebsocket,
		RouteSelectionExpression: aws.String("$request.body.action")})
	if err != nil {
		t.Fatal(err)
	}
	wsRoute, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: ws.ApiId, RouteKey: aws.String("$connect"),
		RequestParameters: map[string]types.ParameterConstraints{"route.request.header.Auth": {Required: aws.Bool(true)}}})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := c.CreateRouteResponse(ctx, &apigatewayv2.CreateRouteResponseInput{ApiId: ws.ApiId, RouteId: wsRoute.RouteId,
		RouteResponseKey: aws.String("$default")})
	if err != nil {
		t.Fatal(err)
	}
	shutdownCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Emulator.Shutdown(shutdownCtx); err != nil {
		t.Fatal(err)
	}

	c = newClient(servertest.Start(t, servertest.WithPersistence(dir)))
	got, err := c.GetApi(ctx, &apigatewayv2.GetApiInput{ApiId: id})
	if err != nil || aws.ToString(got.Name) != "kept" || got.Tags["k"] != "v" || got.CorsConfiguration == nil {
		t.Fatalf("api after restart: %v %+v", err, got)
	}
	routes, err := c.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: id})
	if err != nil || len(routes.Items) != 2 {
		t.Fatalf("routes after restart: %v %+v", err, routes)
	}
	r, err := c.GetRoute(ctx, &apigatewayv2.GetRouteInput{ApiId: id, RouteId: route.RouteId})
	if err != nil || aws.ToString(r.RouteKey) != "GET /items/{id}" {
		t.Fatalf("route after restart: %v %+v", err, r)
	}
	wr, err := c.GetRoute(ctx, &apigatewayv2.GetRouteInput{ApiId: ws.ApiId, RouteId: wsRoute.RouteId})
	if err != nil || !aws.ToBool(wr.RequestParameters["route.request.header.Auth"].Required) {
		t.Fatalf("websocket route after restart: %v %+v", err, wr)
	}
	if _, err := c.GetRouteResponse(ctx, &apigatewayv2.GetRouteResponseInput{ApiId: ws.ApiId, RouteId: wsRoute.RouteId,
		RouteResponseId: rr.RouteResponseId}); err != nil {
		t.Fatalf("route response after restart: %v", err)
	}
	// The API still takes changes after the restart.
	if _, err := c.DeleteRoute(ctx, &apigatewayv2.DeleteRouteInput{ApiId: id, RouteId: route.RouteId}); err != nil {
		t.Fatal(err)
	}
}
