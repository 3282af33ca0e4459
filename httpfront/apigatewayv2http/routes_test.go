package apigatewayv2http_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/cloudemu/emulator/server/servertest"
)

// routesQuick quick-creates an HTTP API and returns its id and the id of
// its managed integration (so routes have a target without another
// group's CreateIntegration).
func routesQuick(t *testing.T, c *apigatewayv2.Client) (apiID, integrationID string) {
	t.Helper()
	ctx := context.Background()
	out, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("routes"), ProtocolType: types.ProtocolTypeHttp,
		Target: aws.String("https://example.com")})
	if err != nil {
		t.Fatal(err)
	}
	routes, err := c.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: out.ApiId})
	if err != nil || len(routes.Items) != 1 {
		t.Fatalf("routes: %v %+v", err, routes)
	}
	return aws.ToString(out.ApiId), strings.TrimPrefix(aws.ToString(routes.Items[0].Target), "integrations/")
}

func routesWebSocket(t *testing.T, c *apigatewayv2.Client) string {
	t.Helper()
	out, err := c.CreateApi(context.Background(), &apigatewayv2.CreateApiInput{Name: aws.String("ws"),
		ProtocolType: types.ProtocolTypeWebsocket, RouteSelectionExpression: aws.String("$request.body.action")})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.ApiId)
}

func TestRoutesLifecycle(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	api, integ := routesQuick(t, c)
	out, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &api, RouteKey: aws.String("GET /items/{id}"),
		Target: aws.String("integrations/" + integ), OperationName: aws.String("GetItem")})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(out.RouteId)
	if len(id) != 7 || aws.ToString(out.RouteKey) != "GET /items/{id}" || out.AuthorizationType != types.AuthorizationTypeNone ||
		out.ApiKeyRequired == nil || *out.ApiKeyRequired || out.ApiGatewayManaged != nil || aws.ToString(out.OperationName) != "GetItem" {
		t.Fatalf("create: %+v", out)
	}
	raw := send(t, srv, "GET", "/v2/apis/"+api+"/routes/"+id, "")
	for _, m := range []string{"authorizerId", "authorizationScopes", "apiGatewayManaged", "requestParameters", "requestModels"} {
		if _, ok := raw.body[m]; ok {
			t.Fatalf("%s present: %s", m, raw.raw)
		}
	}
	if raw.body["apiKeyRequired"] != false || raw.body["authorizationType"] != "NONE" {
		t.Fatalf("defaults absent: %s", raw.raw)
	}

	upd, err := c.UpdateRoute(ctx, &apigatewayv2.UpdateRouteInput{ApiId: &api, RouteId: &id, RouteKey: aws.String("POST /items"),
		AuthorizationType: types.AuthorizationTypeAwsIam})
	if err != nil || aws.ToString(upd.RouteKey) != "POST /items" || upd.AuthorizationType != types.AuthorizationTypeAwsIam ||
		aws.ToString(upd.Target) != "integrations/"+integ || aws.ToString(upd.OperationName) != "GetItem" {
		t.Fatalf("update: %v %+v", err, upd)
	}
	// An empty target detaches the route from its integration.
	if upd, err = c.UpdateRoute(ctx, &apigatewayv2.UpdateRouteInput{ApiId: &api, RouteId: &id, Target: aws.String("")}); err != nil || upd.Target != nil {
		t.Fatalf("detach: %v %+v", err, upd)
	}

	// Pages of one, then the end.
	seen := map[string]bool{}
	var token *string
	for range 3 {
		page, err := c.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: &api, MaxResults: aws.String("1"), NextToken: token})
		if err != nil || len(page.Items) != 1 {
			t.Fatalf("page: %v %+v", err, page)
		}
		seen[aws.ToString(page.Items[0].RouteId)] = true
		if token = page.NextToken; token == nil {
			break
		}
	}
	if len(seen) != 2 || token != nil {
		t.Fatalf("pages saw %v, token %v", seen, token)
	}
	wantReply(t, send(t, srv, "GET", "/v2/apis/"+api+"/routes?maxResults=x", ""), 400, "BadRequestException", "")

	if _, err := c.DeleteRoute(ctx, &apigatewayv2.DeleteRouteInput{ApiId: &api, RouteId: &id}); err != nil {
		t.Fatal(err)
	}
	r := send(t, srv, "GET", "/v2/apis/"+api+"/routes/"+id, "")
	wantReply(t, r, 404, "NotFoundException", "Invalid Route identifier specified")
	if r.body["resourceType"] != "Route" {
		t.Fatalf("resourceType: %s", r.raw)
	}
	_, err = c.DeleteRoute(ctx, &apigatewayv2.DeleteRouteInput{ApiId: &api, RouteId: &id})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Route identifier specified")
	_, err = c.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: aws.String("nope")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+testAccount+":nope")
}

func TestRoutesCreateErrors(t *testing.T) {
	srv, c := startServer(t)
	api, integ := routesQuick(t, c)
	if _, err := c.CreateRoute(context.Background(), &apigatewayv2.CreateRouteInput{ApiId: &api,
		RouteKey: aws.String("GET /public/orgs/{orgId}/stages/{stageId}/questions")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		status     int
		code, msg  string
	}{
		{name: "routeKey=missing", body: `{}`, status: 400, code: "BadRequestException", msg: "Route key is required"},
		{name: "routeKey=empty", body: `{"routeKey":""}`, status: 400, code: "BadRequestException", msg: "Route key is required"},
		{name: "routeKey=no-method", body: `{"routeKey":"/items"}`, status: 400, code: "BadRequestException"},
		{name: "routeKey=lowercase", body: `{"routeKey":"get /items"}`, status: 400, code: "BadRequestException"},
		{name: "routeKey=mixed-part", body: `{"routeKey":"GET /events/{eventId}.json"}`, status: 400, code: "BadRequestException",
			msg: "One or more path parts appear to be invalid"},
		{name: "routeKey=greedy-not-last", body: `{"routeKey":"GET /{proxy+}/x"}`, status: 400, code: "BadRequestException",
			msg: "One or more path parts appear to be invalid"},
		{name: "routeKey=duplicate", body: `{"routeKey":"$default"}`, status: 409, code: "ConflictException",
			msg: "Route with key $default already exists for this API"},
		{name: "routeKey=conflicting-variable", body: `{"routeKey":"GET /public/orgs/{orgId}/stages/{stage_id}/questions"}`,
			status: 409, code: "ConflictException",
			msg: `The provided route key "GET /public/orgs/{orgId}/stages/{stage_id}/questions" has a conflicting variable on the same hierarchical level as "GET /public/orgs/{orgId}/stages/{stageId}/questions"`},
		{name: "target=format", body: `{"routeKey":"GET /a","target":"lambda/x"}`, status: 400, code: "BadRequestException"},
		{name: "target=missing-integration", body: `{"routeKey":"GET /a","target":"integrations/zzzzzzz"}`, status: 400, code: "BadRequestException"},
		{name: "authorizationType=CUSTOM,authorizer=none", body: `{"routeKey":"GET /a","authorizationType":"CUSTOM"}`, status: 400,
			code: "BadRequestException", msg: "Invalid authorizer ID specified. Setting the authorization type to CUSTOM or COGNITO_USER_POOLS requires a valid authorizer."},
		{name: "authorizationType=JWT,authorizer=missing", body: `{"routeKey":"GET /a","authorizationType":"JWT","authorizerId":"abc123"}`,
			status: 400, code: "BadRequestException", msg: "Invalid authorizer ID specified. Setting the authorization type to JWT requires a valid JWT authorizer."},
		{name: "authorizationType=bogus", body: `{"routeKey":"GET /a","authorizationType":"BASIC"}`, status: 400, code: "BadRequestException"},
		{name: "authorizationScopes=with-NONE", body: `{"routeKey":"GET /a","authorizationType":"NONE","authorizationScopes":["x"]}`,
			status: 400, code: "BadRequestException",
			msg: "Invalid Route authorization type specified. Authorization Scopes are only valid for COGNITO_USER_POOLS and JWT authorization types"},
		{name: "apiKeyRequired=true,http", body: `{"routeKey":"GET /a","apiKeyRequired":true}`, status: 400, code: "BadRequestException"},
		{name: "requestParameters=http", body: `{"routeKey":"GET /a","requestParameters":{"route.request.header.a":{"required":true}}}`,
			status: 400, code: "BadRequestException"},
		{name: "operationName=long", body: `{"routeKey":"GET /a","operationName":"` + strings.Repeat("o", 65) + `"}`, status: 400,
			code: "BadRequestException"},
		{name: "apiKeyRequired=string", body: `{"routeKey":"GET /a","apiKeyRequired":"no"}`, status: 400, code: "SerializationException"},
		{name: "routeKey=number", body: `{"routeKey":7}`, status: 400, code: "SerializationException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantReply(t, send(t, srv, "POST", "/v2/apis/"+api+"/routes", tc.body), tc.status, tc.code, tc.msg)
		})
	}
	// Terraform's create: apiKeyRequired false and NONE sent explicitly.
	r := send(t, srv, "POST", "/v2/apis/"+api+"/routes",
		`{"routeKey":"ANY /{proxy+}","apiKeyRequired":false,"authorizationType":"NONE","target":"integrations/`+integ+`"}`)
	wantReply(t, r, 201, "", "")
	wantReply(t, send(t, srv, "POST", "/v2/apis/nope/routes", `{"routeKey":"GET /a"}`), 404, "NotFoundException",
		"Invalid API identifier specified "+testAccount+":nope")
}

func TestRoutesUpdateErrors(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	api, _ := routesQuick(t, c)
	routes, err := c.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: &api})
	if err != nil {
		t.Fatal(err)
	}
	managed := aws.ToString(routes.Items[0].RouteId)
	other, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &api, RouteKey: aws.String("GET /a/{id}")})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(other.RouteId)
	for _, tc := range []struct {
		name, route, body string
		status            int
		code, msg         string
	}{
		{name: "routeKey=taken", route: id, body: `{"routeKey":"$default"}`, status: 409, code: "ConflictException",
			msg: "Route with key $default already exists for this API"},
		{name: "routeKey=empty", route: id, body: `{"routeKey":""}`, status: 400, code: "BadRequestException", msg: "Route key is required"},
		{name: "routeKey=managed", route: managed, body: `{"routeKey":"GET /x"}`, status: 400, code: "BadRequestException"},
		{name: "authorizerId=without-type", route: id, body: `{"authorizerId":"abc123"}`, status: 400, code: "BadRequestException",
			msg: "Unable to update route. Authorizer type is invalid or null."},
		{name: "authorizationType=JWT,authorizer=none", route: id, body: `{"authorizationType":"JWT"}`, status: 400,
			code: "BadRequestException", msg: "Invalid authorizer ID specified. Setting the authorization type to JWT requires a valid JWT authorizer."},
		{name: "target=missing", route: id, body: `{"target":"integrations/nothere"}`, status: 400, code: "BadRequestException"},
		{name: "route=unknown", route: "zzzzzzz", body: `{"routeKey":"GET /b"}`, status: 404, code: "NotFoundException",
			msg: "Invalid Route identifier specified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantReply(t, send(t, srv, "PATCH", "/v2/apis/"+api+"/routes/"+tc.route, tc.body), tc.status, tc.code, tc.msg)
		})
	}
	got, err := c.GetRoute(ctx, &apigatewayv2.GetRouteInput{ApiId: &api, RouteId: &id})
	if err != nil || aws.ToString(got.RouteKey) != "GET /a/{id}" || got.AuthorizationType != types.AuthorizationTypeNone {
		t.Fatalf("a refused update changed the route: %v %+v", err, got)
	}
	// Its own key again is no conflict.
	if _, err := c.UpdateRoute(ctx, &apigatewayv2.UpdateRouteInput{ApiId: &api, RouteId: &id, RouteKey: aws.String("GET /a/{id}")}); err != nil {
		t.Fatal(err)
	}
	// The quick-create route's key changes through UpdateApi.
	if _, err := c.UpdateApi(ctx, &apigatewayv2.UpdateApiInput{ApiId: &api, RouteKey: aws.String("ANY /{proxy+}")}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetRoute(ctx, &apigatewayv2.GetRouteInput{ApiId: &api, RouteId: &managed}); err != nil ||
		aws.ToString(got.RouteKey) != "ANY /{proxy+}" {
		t.Fatalf("managed route: %v %+v", err, got)
	}
}

func TestRoutesAuthorizers(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	api, _ := routesQuick(t, c)
	jwt, err := c.CreateAuthorizer(ctx, &apigatewayv2.CreateAuthorizerInput{ApiId: &api, Name: aws.String("jwt"),
		AuthorizerType: types.AuthorizerTypeJwt, IdentitySource: []string{"$request.header.Authorization"},
		JwtConfiguration: &types.JWTConfiguration{Issuer: aws.String("https://issuer.example"), Audience: []string{"aud"}}})
	need(t, err)
	r, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &api, RouteKey: aws.String("GET /secure"),
		AuthorizationType: types.AuthorizationTypeJwt, AuthorizerId: jwt.AuthorizerId, AuthorizationScopes: []string{"read"}})
	if err != nil || aws.ToString(r.AuthorizerId) != aws.ToString(jwt.AuthorizerId) || len(r.AuthorizationScopes) != 1 {
		t.Fatalf("jwt route: %v %+v", err, r)
	}
	up, err := c.UpdateRoute(ctx, &apigatewayv2.UpdateRouteInput{ApiId: &api, RouteId: r.RouteId, AuthorizationType: types.AuthorizationTypeNone})
	if err != nil || up.AuthorizerId != nil || up.AuthorizationScopes != nil || up.AuthorizationType != types.AuthorizationTypeNone {
		t.Fatalf("detach: %v %+v", err, up)
	}
}

func TestRoutesWebSocket(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	api := routesWebSocket(t, c)
	connect, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &api, RouteKey: aws.String("$connect"),
		ApiKeyRequired: aws.Bool(true), RouteResponseSelectionExpression: aws.String("$default"),
		RequestParameters: map[string]types.ParameterConstraints{
			"route.request.header.Auth":      {Required: aws.Bool(true)},
			"route.request.querystring.mode": {Required: aws.Bool(false)},
		}})
	if err != nil || !aws.ToBool(connect.ApiKeyRequired) || len(connect.RequestParameters) != 2 ||
		aws.ToString(connect.RouteResponseSelectionExpression) != "$default" {
		t.Fatalf("$connect: %v %+v", err, connect)
	}
	for _, key := range []string{"$disconnect", "$default", "sendMessage"} {
		if _, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &api, RouteKey: &key}); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
	}
	_, err = c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &api, RouteKey: aws.String("sendMessage")})
	servertest.WantAPIError(t, err, "ConflictException", "Route with key sendMessage already exists for this API")
	r := send(t, srv, "POST", "/v2/apis/"+api+"/routes", `{"routeKey":"x","authorizationType":"JWT"}`)
	wantReply(t, r, 400, "BadRequestException", "")

	// UpdateRoute adds parameters; DeleteRouteRequestParameter removes one.
	up, err := c.UpdateRoute(ctx, &apigatewayv2.UpdateRouteInput{ApiId: &api, RouteId: connect.RouteId,
		RequestParameters: map[string]types.ParameterConstraints{"route.request.header.Extra": {Required: aws.Bool(false)}}})
	if err != nil || len(up.RequestParameters) != 3 {
		t.Fatalf("add parameter: %v %+v", err, up)
	}
	if _, err := c.DeleteRouteRequestParameter(ctx, &apigatewayv2.DeleteRouteRequestParameterInput{ApiId: &api,
		RouteId: connect.RouteId, RequestParameterKey: aws.String("route.request.header.Auth")}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetRoute(ctx, &apigatewayv2.GetRouteInput{ApiId: &api, RouteId: connect.RouteId})
	if _, still := got.RequestParameters["route.request.header.Auth"]; err != nil || still || len(got.RequestParameters) != 2 {
		t.Fatalf("after delete: %v %+v", err, got)
	}
	_, err = c.DeleteRouteRequestParameter(ctx, &apigatewayv2.DeleteRouteRequestParameterInput{ApiId: &api,
		RouteId: connect.RouteId, RequestParameterKey: aws.String("route.request.header.Auth")})
	servertest.WantAPIError(t, err, "NotFoundException", "")
}

func TestRoutesResponses(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	api := routesWebSocket(t, c)
	route, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &api, RouteKey: aws.String("$default")})
	if err != nil {
		t.Fatal(err)
	}
	rid := route.RouteId
	out, err := c.CreateRouteResponse(ctx, &apigatewayv2.CreateRouteResponseInput{ApiId: &api, RouteId: rid,
		RouteResponseKey: aws.String("$default"), ModelSelectionExpression: aws.String("$request.body.type"),
		ResponseParameters: map[string]types.ParameterConstraints{"route.response.header.x": {Required: aws.Bool(true)}}})
	if err != nil || aws.ToString(out.RouteResponseKey) != "$default" || aws.ToString(out.RouteResponseId) == "" ||
		aws.ToString(out.ModelSelectionExpression) != "$request.body.type" || len(out.ResponseParameters) != 1 {
		t.Fatalf("create: %v %+v", err, out)
	}
	id := out.RouteResponseId
	_, err = c.CreateRouteResponse(ctx, &apigatewayv2.CreateRouteResponseInput{ApiId: &api, RouteId: rid, RouteResponseKey: aws.String("$default")})
	servertest.WantAPIError(t, err, "ConflictException", "")
	_, err = c.CreateRouteResponse(ctx, &apigatewayv2.CreateRouteResponseInput{ApiId: &api, RouteId: rid, RouteResponseKey: aws.String("other"),
		ResponseModels: map[string]string{"$default": "NoSuchModel"}})
	servertest.WantAPIError(t, err, "BadRequestException", "")
	wantReply(t, send(t, srv, "POST", "/v2/apis/"+api+"/routes/"+aws.ToString(rid)+"/routeresponses", `{}`), 400,
		"BadRequestException", "Route response key is required")

	upd, err := c.UpdateRouteResponse(ctx, &apigatewayv2.UpdateRouteResponseInput{ApiId: &api, RouteId: rid, RouteResponseId: id,
		ModelSelectionExpression: aws.String("")})
	if err != nil || upd.ModelSelectionExpression != nil || aws.ToString(upd.RouteResponseKey) != "$default" || len(upd.ResponseParameters) != 1 {
		t.Fatalf("update: %v %+v", err, upd)
	}
	list, err := c.GetRouteResponses(ctx, &apigatewayv2.GetRouteResponsesInput{ApiId: &api, RouteId: rid})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v %+v", err, list)
	}
	r := send(t, srv, "GET", "/v2/apis/"+api+"/routes/"+aws.ToString(rid)+"/routeresponses/nope", "")
	wantReply(t, r, 404, "NotFoundException", "Invalid RouteResponse identifier specified")
	if r.body["resourceType"] != "RouteResponse" {
		t.Fatalf("resourceType: %s", r.raw)
	}
	r = send(t, srv, "GET", "/v2/apis/"+api+"/routes/nope/routeresponses", "")
	wantReply(t, r, 404, "NotFoundException", "Invalid Route identifier specified")

	// Deleting the route deletes its responses.
	if _, err := c.DeleteRoute(ctx, &apigatewayv2.DeleteRouteInput{ApiId: &api, RouteId: rid}); err != nil {
		t.Fatal(err)
	}
	route, err = c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &api, RouteKey: aws.String("$default")})
	if err != nil {
		t.Fatal(err)
	}
	if list, err := c.GetRouteResponses(ctx, &apigatewayv2.GetRouteResponsesInput{ApiId: &api, RouteId: route.RouteId}); err != nil || len(list.Items) != 0 {
		t.Fatalf("responses of the new route: %v %+v", err, list)
	}
	rr, err := c.CreateRouteResponse(ctx, &apigatewayv2.CreateRouteResponseInput{ApiId: &api, RouteId: route.RouteId, RouteResponseKey: aws.String("$default")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteRouteResponse(ctx, &apigatewayv2.DeleteRouteResponseInput{ApiId: &api, RouteId: route.RouteId,
		RouteResponseId: rr.RouteResponseId}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetRouteResponse(ctx, &apigatewayv2.GetRouteResponseInput{ApiId: &api, RouteId: route.RouteId, RouteResponseId: rr.RouteResponseId})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid RouteResponse identifier specified")

	// HTTP APIs have no route responses.
	httpAPI, _ := routesQuick(t, c)
	routes, err := c.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: &httpAPI})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateRouteResponse(ctx, &apigatewayv2.CreateRouteResponseInput{ApiId: &httpAPI, RouteId: routes.Items[0].RouteId,
		RouteResponseKey: aws.String("$default")})
	servertest.WantAPIError(t, err, "BadRequestException", "Route responses are supported only for WebSocket APIs")
}

// TestRoutesHostileInput sends odd but well-formed bodies to every
// operation of this file's group: each must answer, and never 5xx.
func TestRoutesHostileInput(t *testing.T) {
	srv, c := startServer(t)
	api, _ := routesQuick(t, c)
	ws := routesWebSocket(t, c)
	wr := send(t, srv, "POST", "/v2/apis/"+ws+"/routes", `{"routeKey":"$connect"}`)
	route, _ := wr.body["routeId"].(string)
	bodies := []string{`{}`, `null`, `{"routeKey":null,"target":null,"authorizationType":null}`,
		`{"requestParameters":{"a":null},"requestModels":{"a":null},"responseModels":{"":""}}`,
		`{"corsConfiguration":null,"tags":null,"name":null}`, `{"corsConfiguration":{"allowOrigins":null,"maxAge":-1}}`,
		`{"routeKey":"GET /` + strings.Repeat("{a}/", 300) + `x"}`, `{"routeKey":"\u0000 /\u2028"}`,
		`{"target":"integrations/"}`, `{"target":"arn:aws:lambda"}`, `{"authorizationScopes":[null,""]}`,
		`{"routeResponseKey":"$default","responseParameters":{"x":{"required":null}}}`, `{"maxAge":1e99}`}
	paths := []struct{ method, path string }{
		{"POST", "/v2/apis"}, {"PATCH", "/v2/apis/" + api}, {"POST", "/v2/apis/" + api + "/routes"},
		{"POST", "/v2/apis/" + ws + "/routes"}, {"PATCH", "/v2/apis/" + ws + "/routes/" + route},
		{"POST", "/v2/apis/" + ws + "/routes/" + route + "/routeresponses"},
		{"DELETE", "/v2/apis/" + ws + "/routes/" + route + "/requestparameters/%2F%2E%2E"},
		{"GET", "/v2/apis/" + ws + "/routes/" + route + "/routeresponses?maxResults=99999999999999999999"},
	}
	for _, p := range paths {
		for i, b := range bodies {
			if r := send(t, srv, p.method, p.path, b); r.status >= 500 || r.status == 0 {
				t.Fatalf("%s %s body %d: %d %s", p.method, p.path, i, r.status, r.raw)
			}
		}
	}
}
