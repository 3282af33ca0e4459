package apigatewayv2http_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/cloudemu/emulator/server/servertest"
)

// ---- helpers of the deployments group (deployments, stages, authorizers) ----

// deploymentsAPI creates an API of protocol with the given route keys and
// returns its id.
func deploymentsAPI(t *testing.T, c *apigatewayv2.Client, protocol types.ProtocolType, routeKeys ...string) string {
	t.Helper()
	ctx := context.Background()
	in := &apigatewayv2.CreateApiInput{Name: aws.String("deployments"), ProtocolType: protocol}
	if protocol == types.ProtocolTypeWebsocket {
		in.RouteSelectionExpression = aws.String("$request.body.action")
	}
	out, err := c.CreateApi(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range routeKeys {
		deploymentsRoute(t, c, *out.ApiId, k)
	}
	return *out.ApiId
}

func deploymentsRoute(t *testing.T, c *apigatewayv2.Client, apiID, key string) string {
	t.Helper()
	r, err := c.CreateRoute(context.Background(), &apigatewayv2.CreateRouteInput{ApiId: aws.String(apiID), RouteKey: aws.String(key)})
	if err != nil {
		t.Fatalf("CreateRoute %s: %v", key, err)
	}
	return *r.RouteId
}

var deploymentsISO = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

func TestDeploymentsLifecycle(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := deploymentsAPI(t, c, types.ProtocolTypeHttp, "GET /items")

	// The wire form of a manual deployment.
	r := send(t, srv, "POST", "/v2/apis/"+apiID+"/deployments", `{"description":"first"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("CreateDeployment = %d %s", r.status, r.raw)
	}
	wantKeys(t, r.body, "autoDeployed", "createdDate", "deploymentId", "deploymentStatus", "description")
	first, _ := r.body["deploymentId"].(string)
	if !regexp.MustCompile(`^[a-z0-9]{6}$`).MatchString(first) || r.body["autoDeployed"] != false ||
		r.body["deploymentStatus"] != "DEPLOYED" || r.body["description"] != "first" ||
		!deploymentsISO.MatchString(r.body["createdDate"].(string)) {
		t.Fatalf("CreateDeployment body = %s", r.raw)
	}
	// Without a description there is no description member.
	r = send(t, srv, "POST", "/v2/apis/"+apiID+"/deployments", ``)
	wantKeys(t, r.body, "autoDeployed", "createdDate", "deploymentId", "deploymentStatus")
	second := r.body["deploymentId"].(string)

	got, err := c.GetDeployment(ctx, &apigatewayv2.GetDeploymentInput{ApiId: &apiID, DeploymentId: &first})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(got.Description) != "first" || got.DeploymentStatus != types.DeploymentStatusDeployed || aws.ToBool(got.AutoDeployed) {
		t.Fatalf("GetDeployment = %+v", got)
	}
	up, err := c.UpdateDeployment(ctx, &apigatewayv2.UpdateDeploymentInput{ApiId: &apiID, DeploymentId: &first, Description: aws.String("renamed")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(up.Description) != "renamed" {
		t.Fatalf("UpdateDeployment = %+v", up)
	}

	// Listed in creation order, one page at a time.
	third, err := c.CreateDeployment(ctx, &apigatewayv2.CreateDeploymentInput{ApiId: &apiID})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var token *string
	for pages := 0; ; pages++ {
		out, err := c.GetDeployments(ctx, &apigatewayv2.GetDeploymentsInput{ApiId: &apiID, MaxResults: aws.String("2"), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range out.Items {
			ids = append(ids, *d.DeploymentId)
		}
		if token = out.NextToken; token == nil {
			if pages != 1 {
				t.Fatalf("pages = %d, want 2", pages+1)
			}
			break
		}
	}
	if want := []string{first, second, *third.DeploymentId}; !slices.Equal(ids, want) {
		t.Fatalf("GetDeployments = %v, want %v", ids, want)
	}

	r = send(t, srv, "DELETE", "/v2/apis/"+apiID+"/deployments/"+second, "")
	if r.status != http.StatusNoContent || len(r.raw) != 0 {
		t.Fatalf("DeleteDeployment = %d %s", r.status, r.raw)
	}
	_, err = c.GetDeployment(ctx, &apigatewayv2.GetDeploymentInput{ApiId: &apiID, DeploymentId: &second})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Deployment identifier specified")
	r = send(t, srv, "GET", "/v2/apis/"+apiID+"/deployments/"+second, "")
	if r.status != http.StatusNotFound || r.body["resourceType"] != "Deployment" {
		t.Fatalf("GetDeployment of a deleted one = %d %s", r.status, r.raw)
	}
}

func TestDeploymentsStageName(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	apiID := deploymentsAPI(t, c, types.ProtocolTypeHttp, "GET /items")
	if _, err := c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &apiID, StageName: aws.String("dev")}); err != nil {
		t.Fatal(err)
	}
	d, err := c.CreateDeployment(ctx, &apigatewayv2.CreateDeploymentInput{ApiId: &apiID, StageName: aws.String("dev")})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &apiID, StageName: aws.String("dev")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(st.DeploymentId) != *d.DeploymentId {
		t.Fatalf("stage deployment = %s, want %s", aws.ToString(st.DeploymentId), *d.DeploymentId)
	}
	// A stage that uses the deployment keeps it from being deleted.
	_, err = c.DeleteDeployment(ctx, &apigatewayv2.DeleteDeploymentInput{ApiId: &apiID, DeploymentId: d.DeploymentId})
	servertest.WantAPIError(t, err, "BadRequestException", "Active stages pointing to this deployment must be moved or deleted")
	if _, err := c.DeleteStage(ctx, &apigatewayv2.DeleteStageInput{ApiId: &apiID, StageName: aws.String("dev")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteDeployment(ctx, &apigatewayv2.DeleteDeploymentInput{ApiId: &apiID, DeploymentId: d.DeploymentId}); err != nil {
		t.Fatal(err)
	}
}

func TestDeploymentsErrors(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	httpAPI := deploymentsAPI(t, c, types.ProtocolTypeHttp)
	wsAPI := deploymentsAPI(t, c, types.ProtocolTypeWebsocket)
	routed := deploymentsAPI(t, c, types.ProtocolTypeHttp, "$default")
	for _, tc := range []struct {
		name      string
		in        apigatewayv2.CreateDeploymentInput
		code, msg string
	}{
		{"case=http-without-routes", apigatewayv2.CreateDeploymentInput{ApiId: &httpAPI}, "BadRequestException",
			"Unable to deploy API because no routes exist in this API"},
		{"case=websocket-without-routes", apigatewayv2.CreateDeploymentInput{ApiId: &wsAPI}, "BadRequestException",
			"At least one route is required before deploying the Api"},
		{"case=unknown-stage", apigatewayv2.CreateDeploymentInput{ApiId: &routed, StageName: aws.String("prod")}, "NotFoundException",
			"Invalid stage identifier specified"},
		{"case=unknown-api", apigatewayv2.CreateDeploymentInput{ApiId: aws.String("abcdefghij")}, "NotFoundException",
			"Invalid API identifier specified 000000000000:abcdefghij"},
		{"case=long-description", apigatewayv2.CreateDeploymentInput{ApiId: &routed, Description: aws.String(strings.Repeat("d", 1025))},
			"BadRequestException", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateDeployment(ctx, &tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"op=GetDeployments/maxResults=abc", "GET", "/v2/apis/" + routed + "/deployments?maxResults=abc", "", 400, "BadRequestException"},
		{"op=GetDeployments/nextToken=bogus", "GET", "/v2/apis/" + routed + "/deployments?nextToken=bogus", "", 400, "BadRequestException"},
		{"op=GetDeployments/api=unknown", "GET", "/v2/apis/abcdefghij/deployments", "", 404, "NotFoundException"},
		{"op=UpdateDeployment/unknown", "PATCH", "/v2/apis/" + routed + "/deployments/zzzzzz", `{"description":"x"}`, 404, "NotFoundException"},
		{"op=UpdateDeployment/description=number", "PATCH", "/v2/apis/" + routed + "/deployments/zzzzzz", `{"description":5}`, 400, "SerializationException"},
		{"op=CreateDeployment/body=array", "POST", "/v2/apis/" + routed + "/deployments", `[]`, 400, "BadRequestException"},
		{"op=DeleteDeployment/unknown", "DELETE", "/v2/apis/" + routed + "/deployments/zzzzzz", "", 404, "NotFoundException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := send(t, srv, tc.method, tc.path, tc.body)
			if r.status != tc.status || r.code != tc.code {
				t.Fatalf("%s %s = %d %s %s", tc.method, tc.path, r.status, r.code, r.raw)
			}
		})
	}
}
