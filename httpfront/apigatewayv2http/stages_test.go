package apigatewayv2http_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"

	"github.com/cloudemu/emulator/server/servertest"
)

func TestStagesWireShape(t *testing.T) {
	srv, c := startServer(t)
	httpAPI := deploymentsAPI(t, c, types.ProtocolTypeHttp)
	wsAPI := deploymentsAPI(t, c, types.ProtocolTypeWebsocket)

	// A plain HTTP stage, as AWS's create-stage example shows it: maps as
	// {}, autoDeploy and deploymentId absent.
	r := send(t, srv, "POST", "/v2/apis/"+httpAPI+"/stages", `{"stageName":"dev"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("CreateStage = %d %s", r.status, r.raw)
	}
	wantKeys(t, r.body, "createdDate", "defaultRouteSettings", "lastUpdatedDate", "routeSettings",
		"stageName", "stageVariables", "tags")
	if string(mustJSON(t, r.body["defaultRouteSettings"])) != `{"detailedMetricsEnabled":false}` ||
		string(mustJSON(t, r.body["routeSettings"])) != `{}` || string(mustJSON(t, r.body["stageVariables"])) != `{}` ||
		string(mustJSON(t, r.body["tags"])) != `{}` || !deploymentsISO.MatchString(r.body["createdDate"].(string)) {
		t.Fatalf("CreateStage body = %s", r.raw)
	}
	r = send(t, srv, "GET", "/v2/apis/"+httpAPI+"/stages/dev", "")
	wantKeys(t, r.body, "createdDate", "defaultRouteSettings", "lastUpdatedDate", "routeSettings",
		"stageName", "stageVariables", "tags")

	// WebSocket stages carry execution-logging defaults.
	r = send(t, srv, "POST", "/v2/apis/"+wsAPI+"/stages", `{"stageName":"production"}`)
	if got := string(mustJSON(t, r.body["defaultRouteSettings"])); got != `{"dataTraceEnabled":false,"detailedMetricsEnabled":false,"loggingLevel":"OFF"}` {
		t.Fatalf("WebSocket defaultRouteSettings = %s", got)
	}

	// An auto-deploying stage shows autoDeploy (and no deployment while
	// there is nothing to deploy).
	r = send(t, srv, "POST", "/v2/apis/"+httpAPI+"/stages", `{"stageName":"$default","autoDeploy":true}`)
	if r.status != http.StatusCreated || r.body["autoDeploy"] != true || r.body["deploymentId"] != nil {
		t.Fatalf("CreateStage $default = %d %s", r.status, r.raw)
	}

	r = send(t, srv, "GET", "/v2/apis/"+httpAPI+"/stages", "")
	items, _ := r.body["items"].([]any)
	if r.status != http.StatusOK || len(items) != 2 || items[0].(map[string]any)["stageName"] != "$default" ||
		items[1].(map[string]any)["stageName"] != "dev" {
		t.Fatalf("GetStages = %d %s", r.status, r.raw)
	}
}

func TestStagesCreateErrors(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := deploymentsAPI(t, c, types.ProtocolTypeHttp, "GET /items")
	wsAPI := deploymentsAPI(t, c, types.ProtocolTypeWebsocket, "$connect")
	if _, err := c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("dev")}); err != nil {
		t.Fatal(err)
	}
	off := "OFF"
	for _, tc := range []struct {
		name      string
		in        apigatewayv2.CreateStageInput
		code, msg string
	}{
		{"case=duplicate", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("dev")},
			"ConflictException", "Stage already exists"},
		{"case=bad-name", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("my stage")},
			"BadRequestException", ""},
		{"case=dollar-name", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("$prod")},
			"BadRequestException", ""},
		{"case=unknown-deployment", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"), DeploymentId: aws.String("abc123")},
			"NotFoundException", "Invalid Deployment identifier specified"},
		{"case=unknown-route-key", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"),
			RouteSettings: map[string]types.RouteSettings{"GET /watchlist": {DetailedMetricsEnabled: aws.Bool(true)}}},
			"NotFoundException", "Unable to find Route by key GET /watchlist within the provided RouteSettings"},
		{"case=http-logging-level", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"),
			DefaultRouteSettings: &types.RouteSettings{LoggingLevel: types.LoggingLevel(off)}},
			"BadRequestException", "Execution logs are not supported on protocolType HTTP"},
		{"case=http-data-trace", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"),
			RouteSettings: map[string]types.RouteSettings{"GET /items": {DataTraceEnabled: aws.Bool(false)}}},
			"BadRequestException", "Execution logs are not supported on protocolType HTTP"},
		{"case=websocket-bad-logging-level", apigatewayv2.CreateStageInput{ApiId: &wsAPI, StageName: aws.String("qa"),
			DefaultRouteSettings: &types.RouteSettings{LoggingLevel: "LOUD"}}, "BadRequestException", ""},
		{"case=negative-burst", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"),
			DefaultRouteSettings: &types.RouteSettings{ThrottlingBurstLimit: aws.Int32(-1)}}, "BadRequestException", ""},
		{"case=bad-variable-name", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"),
			StageVariables: map[string]string{"a-b": "v"}}, "BadRequestException", ""},
		{"case=bad-variable-value", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"),
			StageVariables: map[string]string{"ab": "v<"}}, "BadRequestException", ""},
		{"case=log-format-without-request-id", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"),
			AccessLogSettings: &types.AccessLogSettings{DestinationArn: aws.String("arn:aws:logs:us-east-1:000000000000:log-group:g"),
				Format: aws.String("$context.status")}}, "BadRequestException", ""},
		{"case=log-destination-not-arn", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"),
			AccessLogSettings: &types.AccessLogSettings{DestinationArn: aws.String("my-group"),
				Format: aws.String("$context.requestId")}}, "BadRequestException", ""},
		{"case=reserved-tag", apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("qa"),
			Tags: map[string]string{"aws:x": "y"}}, "BadRequestException", ""},
		{"case=unknown-api", apigatewayv2.CreateStageInput{ApiId: aws.String("abcdefghij"), StageName: aws.String("qa")},
			"NotFoundException", "Invalid API identifier specified 000000000000:abcdefghij"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateStage(ctx, &tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	// The SDK insists on stageName; AWS's front end does too.
	r := send(t, srv, "POST", "/v2/apis/"+apiID+"/stages", `{"description":"x"}`)
	if r.status != http.StatusBadRequest || r.code != "BadRequestException" {
		t.Fatalf("CreateStage without stageName = %d %s", r.status, r.raw)
	}
	// None of the refusals left a stage behind.
	out, err := c.GetStages(ctx, &apigatewayv2.GetStagesInput{ApiId: &apiID})
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("GetStages = %v, %v", out, err)
	}
}

func TestStagesUpdate(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := deploymentsAPI(t, c, types.ProtocolTypeHttp, "GET /items", "POST /items")
	dep, err := c.CreateDeployment(ctx, &apigatewayv2.CreateDeploymentInput{ApiId: &apiID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("dev"),
		Description:    aws.String("first"),
		StageVariables: map[string]string{"a": "1", "b": "2"},
		RouteSettings:  map[string]types.RouteSettings{"GET /items": {ThrottlingBurstLimit: aws.Int32(10)}},
		AccessLogSettings: &types.AccessLogSettings{DestinationArn: aws.String("arn:aws:logs:us-east-1:000000000000:log-group:access:*"),
			Format: aws.String(`{"requestId":"$context.requestId"}`)},
		Tags: map[string]string{"team": "a"},
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("dev")})
	if err != nil {
		t.Fatal(err)
	}
	// The log group's ":*" is dropped, as AWS stores it.
	if got := aws.ToString(st.AccessLogSettings.DestinationArn); got != "arn:aws:logs:us-east-1:000000000000:log-group:access" {
		t.Fatalf("destinationArn = %s", got)
	}
	if st.Tags["team"] != "a" {
		t.Fatalf("tags = %v", st.Tags)
	}

	up, err := c.UpdateStage(ctx, &apigatewayv2.UpdateStageInput{ApiId: &apiID, StageName: aws.String("dev"),
		Description:    aws.String("second"),
		DeploymentId:   dep.DeploymentId,
		StageVariables: map[string]string{"a": "", "c": "3"},
		RouteSettings:  map[string]types.RouteSettings{"POST /items": {ThrottlingRateLimit: aws.Float64(2.5)}},
		DefaultRouteSettings: &types.RouteSettings{DetailedMetricsEnabled: aws.Bool(true), ThrottlingBurstLimit: aws.Int32(100),
			ThrottlingRateLimit: aws.Float64(50)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(up.Description) != "second" || aws.ToString(up.DeploymentId) != *dep.DeploymentId {
		t.Fatalf("UpdateStage = %+v", up)
	}
	if len(up.StageVariables) != 2 || up.StageVariables["b"] != "2" || up.StageVariables["c"] != "3" {
		t.Fatalf("stageVariables = %v, want b and c", up.StageVariables)
	}
	if len(up.RouteSettings) != 2 || aws.ToInt32(up.RouteSettings["GET /items"].ThrottlingBurstLimit) != 10 ||
		aws.ToFloat64(up.RouteSettings["POST /items"].ThrottlingRateLimit) != 2.5 {
		t.Fatalf("routeSettings = %+v", up.RouteSettings)
	}
	if drs := up.DefaultRouteSettings; !aws.ToBool(drs.DetailedMetricsEnabled) || aws.ToInt32(drs.ThrottlingBurstLimit) != 100 ||
		aws.ToFloat64(drs.ThrottlingRateLimit) != 50 {
		t.Fatalf("defaultRouteSettings = %+v", drs)
	}
	if up.Tags["team"] != "a" {
		t.Fatalf("UpdateStage lost tags: %v", up.Tags)
	}

	// Route settings go one route key at a time.
	r := send(t, srv, "DELETE", "/v2/apis/"+apiID+"/stages/dev/routesettings/"+url.PathEscape("GET /items"), "")
	if r.status != http.StatusNoContent {
		t.Fatalf("DeleteRouteSettings = %d %s", r.status, r.raw)
	}
	if _, err := c.DeleteRouteSettings(ctx, &apigatewayv2.DeleteRouteSettingsInput{ApiId: &apiID, StageName: aws.String("dev"),
		RouteKey: aws.String("POST /items")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteRouteSettings(ctx, &apigatewayv2.DeleteRouteSettingsInput{ApiId: &apiID, StageName: aws.String("dev"),
		RouteKey: aws.String("POST /items")})
	servertest.WantAPIError(t, err, "NotFoundException", "")

	// Access logging off.
	if _, err := c.DeleteAccessLogSettings(ctx, &apigatewayv2.DeleteAccessLogSettingsInput{ApiId: &apiID, StageName: aws.String("dev")}); err != nil {
		t.Fatal(err)
	}
	r = send(t, srv, "GET", "/v2/apis/"+apiID+"/stages/dev", "")
	if _, ok := r.body["accessLogSettings"]; ok || string(mustJSON(t, r.body["routeSettings"])) != `{}` {
		t.Fatalf("stage after the deletes = %s", r.raw)
	}

	// Terraform turns access logging off by sending {}.
	if _, err := c.UpdateStage(ctx, &apigatewayv2.UpdateStageInput{ApiId: &apiID, StageName: aws.String("dev"),
		AccessLogSettings: &types.AccessLogSettings{DestinationArn: aws.String("arn:aws:logs:us-east-1:000000000000:log-group:g"),
			Format: aws.String("$context.requestId")}}); err != nil {
		t.Fatal(err)
	}
	r = send(t, srv, "PATCH", "/v2/apis/"+apiID+"/stages/dev", `{"accessLogSettings":{}}`)
	if _, ok := r.body["accessLogSettings"]; r.status != http.StatusOK || ok {
		t.Fatalf("UpdateStage accessLogSettings {} = %d %s", r.status, r.raw)
	}

	for _, tc := range []struct {
		name      string
		in        apigatewayv2.UpdateStageInput
		code, msg string
	}{
		{"case=unknown-stage", apigatewayv2.UpdateStageInput{ApiId: &apiID, StageName: aws.String("nope")},
			"NotFoundException", "Invalid stage identifier specified"},
		{"case=unknown-deployment", apigatewayv2.UpdateStageInput{ApiId: &apiID, StageName: aws.String("dev"), DeploymentId: aws.String("zzzzzz")},
			"NotFoundException", "Invalid Deployment identifier specified"},
		{"case=unknown-route-key", apigatewayv2.UpdateStageInput{ApiId: &apiID, StageName: aws.String("dev"),
			RouteSettings: map[string]types.RouteSettings{"GET /nope": {}}},
			"NotFoundException", "Unable to find Route by key GET /nope within the provided RouteSettings"},
		{"case=http-logging", apigatewayv2.UpdateStageInput{ApiId: &apiID, StageName: aws.String("dev"),
			DefaultRouteSettings: &types.RouteSettings{DataTraceEnabled: aws.Bool(true)}},
			"BadRequestException", "Execution logs are not supported on protocolType HTTP"},
		{"case=deployment-with-auto-deploy", apigatewayv2.UpdateStageInput{ApiId: &apiID, StageName: aws.String("dev"),
			AutoDeploy: aws.Bool(true), DeploymentId: dep.DeploymentId}, "BadRequestException", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.UpdateStage(ctx, &tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
}

// TestStagesAutoDeploy follows an auto-deploying stage through route
// changes made with the SDK.
func TestStagesAutoDeploy(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	apiID := deploymentsAPI(t, c, types.ProtocolTypeHttp, "GET /a")
	created, err := c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("live"), AutoDeploy: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	first := aws.ToString(created.DeploymentId)
	if first == "" || !aws.ToBool(created.AutoDeploy) ||
		aws.ToString(created.LastDeploymentStatusMessage) != "Successfully deployed stage with deployment ID '"+first+"'" {
		t.Fatalf("CreateStage autoDeploy = %+v", created)
	}
	d, err := c.GetDeployment(ctx, &apigatewayv2.GetDeploymentInput{ApiId: &apiID, DeploymentId: &first})
	if err != nil {
		t.Fatal(err)
	}
	if !aws.ToBool(d.AutoDeployed) || aws.ToString(d.Description) != "Automatic deployment triggered by changes to the Api configuration" {
		t.Fatalf("auto deployment = %+v", d)
	}

	// A new route redeploys the stage.
	routeID := deploymentsRoute(t, c, apiID, "GET /b")
	st, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("live")})
	if err != nil {
		t.Fatal(err)
	}
	second := aws.ToString(st.DeploymentId)
	if second == first || aws.ToString(st.LastDeploymentStatusMessage) != "Successfully deployed stage with deployment ID '"+second+"'" {
		t.Fatalf("stage after CreateRoute = %+v (first deployment %s)", st, first)
	}
	// So does a change to a route.
	if _, err := c.UpdateRoute(ctx, &apigatewayv2.UpdateRouteInput{ApiId: &apiID, RouteId: &routeID, RouteKey: aws.String("GET /c")}); err != nil {
		t.Fatal(err)
	}
	st, err = c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("live")})
	if err != nil {
		t.Fatal(err)
	}
	if third := aws.ToString(st.DeploymentId); third == second || third == first {
		t.Fatalf("stage after UpdateRoute still on %s", third)
	}
	deps, err := c.GetDeployments(ctx, &apigatewayv2.GetDeploymentsInput{ApiId: &apiID})
	if err != nil {
		t.Fatal(err)
	}
	if len(deps.Items) != 3 {
		t.Fatalf("deployments = %d, want 3", len(deps.Items))
	}

	// Switching autoDeploy on deploys at once.
	if _, err := c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("manual")}); err != nil {
		t.Fatal(err)
	}
	on, err := c.UpdateStage(ctx, &apigatewayv2.UpdateStageInput{ApiId: &apiID, StageName: aws.String("manual"), AutoDeploy: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(on.DeploymentId) == "" || !aws.ToBool(on.AutoDeploy) {
		t.Fatalf("UpdateStage autoDeploy=true = %+v", on)
	}
}

func TestStagesDeleteAndCache(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := deploymentsAPI(t, c, types.ProtocolTypeHttp, "GET /a")
	for _, name := range []string{"dev", "prod"} {
		if _, err := c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
	}
	// An API mapping to the stage goes with it.
	dn, err := c.CreateDomainName(ctx, &apigatewayv2.CreateDomainNameInput{DomainName: aws.String("api.example.com"),
		DomainNameConfigurations: []types.DomainNameConfiguration{{CertificateArn: aws.String("arn:aws:acm:us-east-1:000000000000:certificate/abc"),
			EndpointType: types.EndpointTypeRegional}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateApiMapping(ctx, &apigatewayv2.CreateApiMappingInput{DomainName: dn.DomainName, ApiId: &apiID,
		Stage: aws.String("dev"), ApiMappingKey: aws.String("v1")}); err != nil {
		t.Fatal(err)
	}

	r := send(t, srv, "DELETE", "/v2/apis/"+apiID+"/stages/prod/cache/authorizers", "")
	if r.status != http.StatusNoContent {
		t.Fatalf("ResetAuthorizersCache = %d %s", r.status, r.raw)
	}
	_, err = c.ResetAuthorizersCache(ctx, &apigatewayv2.ResetAuthorizersCacheInput{ApiId: &apiID, StageName: aws.String("qa")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid stage identifier specified")
	_, err = c.ResetAuthorizersCache(ctx, &apigatewayv2.ResetAuthorizersCacheInput{ApiId: aws.String("abcdefghij"), StageName: aws.String("dev")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified 000000000000:abcdefghij")

	r = send(t, srv, "DELETE", "/v2/apis/"+apiID+"/stages/dev", "")
	if r.status != http.StatusNoContent || len(r.raw) != 0 {
		t.Fatalf("DeleteStage = %d %s", r.status, r.raw)
	}
	_, err = c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("dev")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid stage identifier specified")
	_, err = c.DeleteStage(ctx, &apigatewayv2.DeleteStageInput{ApiId: &apiID, StageName: aws.String("dev")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid stage identifier specified")
	mappings, err := c.GetApiMappings(ctx, &apigatewayv2.GetApiMappingsInput{DomainName: dn.DomainName})
	if err != nil {
		t.Fatal(err)
	}
	if len(mappings.Items) != 0 {
		t.Fatalf("API mappings after DeleteStage = %+v", mappings.Items)
	}
	// The stage that is left still answers.
	if _, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("prod")}); err != nil {
		t.Fatal(err)
	}
}

// TestStagesPersisted restarts the emulator on the same data directory and
// finds the stages, deployments and authorizers as they were.
func TestStagesPersisted(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	srv := servertest.Start(t, servertest.WithPersistence(dir))
	c := newClient(srv)
	apiID := deploymentsAPI(t, c, types.ProtocolTypeHttp, "GET /a")
	dep, err := c.CreateDeployment(ctx, &apigatewayv2.CreateDeploymentInput{ApiId: &apiID, Description: aws.String("kept")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("dev"),
		DeploymentId: dep.DeploymentId, StageVariables: map[string]string{"v": "1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("live"), AutoDeploy: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	auth, err := c.CreateAuthorizer(ctx, &apigatewayv2.CreateAuthorizerInput{ApiId: &apiID, Name: aws.String("jwt"),
		AuthorizerType: types.AuthorizerTypeJwt, IdentitySource: []string{"$request.header.Authorization"},
		JwtConfiguration: &types.JWTConfiguration{Issuer: aws.String("https://issuer.example.com"), Audience: []string{"a"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteRouteSettings(ctx, &apigatewayv2.DeleteRouteSettingsInput{ApiId: &apiID, StageName: aws.String("dev"),
		RouteKey: aws.String("GET /a")}); err == nil {
		t.Fatal("DeleteRouteSettings of a key without settings succeeded")
	}
	live, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("live")})
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Emulator.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}

	srv = servertest.Start(t, servertest.WithPersistence(dir))
	c = newClient(srv)
	st, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("dev")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(st.DeploymentId) != *dep.DeploymentId || st.StageVariables["v"] != "1" {
		t.Fatalf("restored stage = %+v", st)
	}
	d, err := c.GetDeployment(ctx, &apigatewayv2.GetDeploymentInput{ApiId: &apiID, DeploymentId: dep.DeploymentId})
	if err != nil || aws.ToString(d.Description) != "kept" {
		t.Fatalf("restored deployment = %+v, %v", d, err)
	}
	a, err := c.GetAuthorizer(ctx, &apigatewayv2.GetAuthorizerInput{ApiId: &apiID, AuthorizerId: auth.AuthorizerId})
	if err != nil || aws.ToString(a.JwtConfiguration.Issuer) != "https://issuer.example.com" {
		t.Fatalf("restored authorizer = %+v, %v", a, err)
	}
	// The auto-deploying stage still follows changes after the restart.
	deploymentsRoute(t, c, apiID, "GET /b")
	after, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("live")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(after.DeploymentId) == aws.ToString(live.DeploymentId) {
		t.Fatalf("restored auto stage did not redeploy: %s", aws.ToString(after.DeploymentId))
	}
	deps, err := c.GetDeployments(ctx, &apigatewayv2.GetDeploymentsInput{ApiId: &apiID})
	if err != nil {
		t.Fatal(err)
	}
	// Creation order survives the restart: the manual one, the auto ones
	// of the stage's creation and of the authorizer's, the new auto one.
	if len(deps.Items) != 4 || *deps.Items[0].DeploymentId != *dep.DeploymentId ||
		*deps.Items[2].DeploymentId != aws.ToString(live.DeploymentId) ||
		*deps.Items[3].DeploymentId != aws.ToString(after.DeploymentId) {
		t.Fatalf("restored deployments = %+v", deps.Items)
	}
}
