package apigatewayhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// depReply is a raw answer: status, error type and JSON members.
type depReply struct {
	status  int
	errType string
	body    map[string]any
}

// depRaw sends a request the SDK would refuse or reshape, and decodes the
// JSON answer into generic members, to check which ones are present.
func depRaw(t *testing.T, srv *servertest.Server, method, path, body string) depReply {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/apigateway/aws4_request, "+
		"SignedHeaders=host;x-amz-date, Signature=abc")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := depReply{status: resp.StatusCode, errType: resp.Header.Get("x-amzn-ErrorType")}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &r.body); err != nil {
			t.Fatalf("%s %s: body is not JSON: %s", method, path, b)
		}
	}
	return r
}

// depKeys returns the sorted member names of a JSON object.
func depKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func depWantKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := depKeys(m); !slices.Equal(got, want) {
		t.Fatalf("%s: members %v, want %v (%v)", what, got, want, m)
	}
}

// depAPI creates an API whose root has GET with a MOCK integration, so
// that it can be deployed; it returns the API and root resource ids.
func depAPI(t *testing.T, c *apigateway.Client) (string, string) {
	t.Helper()
	ctx := context.Background()
	api, err := c.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String("deployments")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: api.Id, ResourceId: api.RootResourceId,
		HttpMethod: aws.String("GET"), AuthorizationType: aws.String("NONE")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutIntegration(ctx, &apigateway.PutIntegrationInput{RestApiId: api.Id, ResourceId: api.RootResourceId,
		HttpMethod: aws.String("GET"), Type: types.IntegrationTypeMock}); err != nil {
		t.Fatal(err)
	}
	return aws.ToString(api.Id), aws.ToString(api.RootResourceId)
}

var depIDRe = regexp.MustCompile(`^[a-z0-9]{6}$`)

func TestDeploymentLifecycle(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	apiID, rootID := depAPI(t, c)

	d, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(d.Id)
	if !depIDRe.MatchString(id) || d.CreatedDate == nil || time.Since(*d.CreatedDate) > time.Minute || d.Description != nil {
		t.Fatalf("create: %+v", d)
	}
	// The reply is exactly {createdDate, id}; no apiSummary unless asked.
	r := depRaw(t, srv, "GET", "/restapis/"+apiID+"/deployments/"+id, "")
	depWantKeys(t, "get", r.body, "createdDate", "id")

	// A deployment keeps the configuration it froze: changing the method
	// afterwards shows in a new deployment only.
	if _, err := c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &apiID, ResourceId: &rootID,
		HttpMethod: aws.String("GET"), PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/apiKeyRequired"), Value: aws.String("true")}}}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetDeployment(ctx, &apigateway.GetDeploymentInput{RestApiId: &apiID, DeploymentId: &id,
		Embed: []string{"apisummary"}})
	if err != nil {
		t.Fatal(err)
	}
	if m := got.ApiSummary["/"]["GET"]; m.ApiKeyRequired || aws.ToString(m.AuthorizationType) != "NONE" {
		t.Fatalf("apiSummary of the first deployment: %+v", got.ApiSummary)
	}
	d2, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID,
		Description: aws.String("second")})
	if err != nil {
		t.Fatal(err)
	}
	got, err = c.GetDeployment(ctx, &apigateway.GetDeploymentInput{RestApiId: &apiID, DeploymentId: d2.Id,
		Embed: []string{"apisummary"}})
	if err != nil || !got.ApiSummary["/"]["GET"].ApiKeyRequired || aws.ToString(got.Description) != "second" {
		t.Fatalf("second deployment: %v %+v", err, got)
	}
	// AWS documents embed as a comma-separated list too.
	r = depRaw(t, srv, "GET", "/restapis/"+apiID+"/deployments/"+id+"?embed=foo,apisummary", "")
	depWantKeys(t, "embedded", r.body, "apiSummary", "createdDate", "id")

	upd, err := c.UpdateDeployment(ctx, &apigateway.UpdateDeploymentInput{RestApiId: &apiID, DeploymentId: &id,
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/description"), Value: aws.String("first")}}})
	if err != nil || aws.ToString(upd.Description) != "first" || aws.ToString(upd.Id) != id {
		t.Fatalf("update: %v %+v", err, upd)
	}
	list, err := c.GetDeployments(ctx, &apigateway.GetDeploymentsInput{RestApiId: &apiID})
	if err != nil || len(list.Items) != 2 || aws.ToString(list.Items[0].Id) != id || list.Position != nil {
		t.Fatalf("list: %v %+v", err, list)
	}

	if _, err := c.DeleteDeployment(ctx, &apigateway.DeleteDeploymentInput{RestApiId: &apiID, DeploymentId: &id}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetDeployment(ctx, &apigateway.GetDeploymentInput{RestApiId: &apiID, DeploymentId: &id})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Deployment identifier specified")
	_, err = c.DeleteDeployment(ctx, &apigateway.DeleteDeploymentInput{RestApiId: &apiID, DeploymentId: &id})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Deployment identifier specified")
}

func TestDeploymentWithStage(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	apiID, _ := depAPI(t, c)

	d1, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID, StageName: aws.String("s1"),
		StageDescription: aws.String("first stage"), Variables: map[string]string{"v": "1"},
		CacheClusterEnabled: aws.Bool(true), TracingEnabled: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	sg, err := c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: &apiID, StageName: aws.String("s1")})
	if err != nil || aws.ToString(sg.DeploymentId) != aws.ToString(d1.Id) || aws.ToString(sg.Description) != "first stage" ||
		sg.Variables["v"] != "1" || !sg.CacheClusterEnabled || sg.CacheClusterSize != types.CacheClusterSizeSize0Point5Gb ||
		!sg.TracingEnabled {
		t.Fatalf("stage created by the deployment: %v %+v", err, sg)
	}
	// Deleting a deployment a stage points at is refused.
	_, err = c.DeleteDeployment(ctx, &apigateway.DeleteDeploymentInput{RestApiId: &apiID, DeploymentId: d1.Id})
	servertest.WantAPIError(t, err, "BadRequestException", "Active stages pointing to this deployment must be moved or deleted")

	// A second deployment with the stage name re-points the stage.
	d2, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID, StageName: aws.String("s1")})
	if err != nil {
		t.Fatal(err)
	}
	sg, err = c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: &apiID, StageName: aws.String("s1")})
	if err != nil || aws.ToString(sg.DeploymentId) != aws.ToString(d2.Id) || aws.ToString(sg.Description) != "first stage" ||
		sg.Variables["v"] != "1" {
		t.Fatalf("stage after redeploying: %v %+v", err, sg)
	}
	if _, err := c.DeleteDeployment(ctx, &apigateway.DeleteDeploymentInput{RestApiId: &apiID, DeploymentId: d1.Id}); err != nil {
		t.Fatalf("deployment no longer used: %v", err)
	}
	_, err = c.DeleteDeployment(ctx, &apigateway.DeleteDeploymentInput{RestApiId: &apiID, DeploymentId: d2.Id})
	servertest.WantAPIError(t, err, "BadRequestException", "Active stages pointing to this deployment must be moved or deleted")

	// A canary deployment leaves the stage on its deployment, and its
	// deployment cannot be deleted either.
	d3, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID, StageName: aws.String("s1"),
		CanarySettings: &types.DeploymentCanarySettings{PercentTraffic: 50,
			StageVariableOverrides: map[string]string{"v": "canary"}}})
	if err != nil {
		t.Fatal(err)
	}
	sg, err = c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: &apiID, StageName: aws.String("s1")})
	if err != nil || aws.ToString(sg.DeploymentId) != aws.ToString(d2.Id) || sg.CanarySettings == nil ||
		aws.ToString(sg.CanarySettings.DeploymentId) != aws.ToString(d3.Id) || sg.CanarySettings.PercentTraffic != 50 ||
		sg.CanarySettings.StageVariableOverrides["v"] != "canary" || sg.CanarySettings.UseStageCache {
		t.Fatalf("stage after a canary deployment: %v %+v", err, sg)
	}
	_, err = c.DeleteDeployment(ctx, &apigateway.DeleteDeploymentInput{RestApiId: &apiID, DeploymentId: d3.Id})
	servertest.WantAPIError(t, err, "BadRequestException", "Active stages pointing to this deployment must be moved or deleted")

	// Deleting the stage frees both.
	if _, err := c.DeleteStage(ctx, &apigateway.DeleteStageInput{RestApiId: &apiID, StageName: aws.String("s1")}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []*string{d2.Id, d3.Id} {
		if _, err := c.DeleteDeployment(ctx, &apigateway.DeleteDeploymentInput{RestApiId: &apiID, DeploymentId: id}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDeploymentRefusals(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	apiID, _ := depAPI(t, c)
	bare, err := c.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String("bare")})
	if err != nil {
		t.Fatal(err)
	}
	canary := &types.DeploymentCanarySettings{PercentTraffic: 50, StageVariableOverrides: map[string]string{"testVar": "canary"}}
	for _, tc := range []struct {
		name string
		in   apigateway.CreateDeploymentInput
		code string
		msg  string
	}{
		{"case=canary-without-stage", apigateway.CreateDeploymentInput{RestApiId: &apiID, CanarySettings: canary},
			"BadRequestException", "Invalid deployment content specified.Non null and non empty stageName must be provided for canary deployment. Provided value is null"},
		{"case=canary-empty-stage", apigateway.CreateDeploymentInput{RestApiId: &apiID, StageName: aws.String(""), CanarySettings: canary},
			"BadRequestException", "Invalid deployment content specified.Non null and non empty stageName must be provided for canary deployment. Provided value is "},
		{"case=canary-unknown-stage", apigateway.CreateDeploymentInput{RestApiId: &apiID, StageName: aws.String("non-existing"), CanarySettings: canary},
			"BadRequestException", "Invalid deployment content specified.Stage non-existing must already be created before making a canary release deployment"},
		{"case=no-methods", apigateway.CreateDeploymentInput{RestApiId: bare.Id},
			"BadRequestException", "The REST API doesn't contain any methods"},
		{"case=bad-stage-name", apigateway.CreateDeploymentInput{RestApiId: &apiID, StageName: aws.String("bad.name")},
			"BadRequestException", "Stage name only allows a-zA-Z0-9_"},
		{"case=bad-variable-name", apigateway.CreateDeploymentInput{RestApiId: &apiID, StageName: aws.String("s"),
			Variables: map[string]string{"owner:app": "x"}},
			"BadRequestException", "Invalid stage variable name: owner:app.  Please use names with only word characters."},
		{"case=empty-variable-value", apigateway.CreateDeploymentInput{RestApiId: &apiID, StageName: aws.String("s"),
			Variables: map[string]string{"v": ""}},
			"BadRequestException", "Invalid stage variable value: .  Please use values with alphanumeric characters and the symbols ' ', -', '.', '_', ':', '/', '?', '&', '=', and ','."},
		{"case=bad-cache-size", apigateway.CreateDeploymentInput{RestApiId: &apiID, CacheClusterSize: "2"},
			"ValidationException", "1 validation error detected: Value '2' at 'createDeploymentInput.cacheClusterSize' failed to satisfy constraint: Member must satisfy enum value set: [0.5, 1.6, 6.1, 13.5, 28.4, 58.2, 118, 237]"},
		{"case=unknown-api", apigateway.CreateDeploymentInput{RestApiId: aws.String("nope")},
			"NotFoundException", "Invalid API identifier specified " + account + ":nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateDeployment(ctx, &tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	// Nothing was created by the refused requests.
	list, err := c.GetDeployments(ctx, &apigateway.GetDeploymentsInput{RestApiId: &apiID})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("list: %v %+v", err, list)
	}
	stages, err := c.GetStages(ctx, &apigateway.GetStagesInput{RestApiId: &apiID})
	if err != nil || len(stages.Item) != 0 {
		t.Fatalf("stages: %v %+v", err, stages)
	}

	d, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ops  []types.PatchOperation
		code string
		msg  string
	}{
		{"case=unknown-path", []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/stageName"), Value: aws.String("x")}},
			"BadRequestException", "Invalid patch path  '/stageName' specified for op 'replace'. Must be one of: [/description]"},
		{"case=unsupported-op", []types.PatchOperation{{Op: types.OpAdd, Path: aws.String("/description"), Value: aws.String("x")}},
			"BadRequestException", "Invalid patch path  '/description' specified for op 'add'. Please choose supported operations"},
		{"case=bad-op", []types.PatchOperation{{Op: "wrong", Path: aws.String("/description")}},
			"ValidationException", "1 validation error detected: Value 'wrong' at 'updateDeploymentInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.UpdateDeployment(ctx, &apigateway.UpdateDeploymentInput{RestApiId: &apiID, DeploymentId: d.Id,
				PatchOperations: tc.ops})
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	_, err = c.UpdateDeployment(ctx, &apigateway.UpdateDeploymentInput{RestApiId: &apiID, DeploymentId: aws.String("nope00"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/description"), Value: aws.String("x")}}})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Deployment identifier specified")
	_, err = c.GetDeployments(ctx, &apigateway.GetDeploymentsInput{RestApiId: aws.String("nope")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+account+":nope")

	// Malformed input is a 4xx in AWS's shape, never a 500.
	for _, tc := range []struct{ name, body, errType string }{
		{"case=wrong-type", `{"stageName": 5}`, "SerializationException"},
		{"case=canary-wrong-type", `{"stageName": "s1", "canarySettings": {"percentTraffic": "x"}}`, "SerializationException"},
		{"case=not-json", `{"stageName":`, "BadRequestException"},
		{"case=empty-canary-unknown-stage", `{"stageName": "s9", "canarySettings": {}}`, "BadRequestException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := depRaw(t, srv, "POST", "/restapis/"+apiID+"/deployments", tc.body)
			if r.status != 400 || r.errType != tc.errType {
				t.Fatalf("got %d %s %v", r.status, r.errType, r.body)
			}
		})
	}
}

func TestDeploymentsPaginate(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	apiID, _ := depAPI(t, c)
	var ids []string
	for range 3 {
		d, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, aws.ToString(d.Id))
	}
	p1, err := c.GetDeployments(ctx, &apigateway.GetDeploymentsInput{RestApiId: &apiID, Limit: aws.Int32(2)})
	if err != nil || len(p1.Items) != 2 || p1.Position == nil {
		t.Fatalf("page 1: %v %+v", err, p1)
	}
	p2, err := c.GetDeployments(ctx, &apigateway.GetDeploymentsInput{RestApiId: &apiID, Limit: aws.Int32(2), Position: p1.Position})
	if err != nil || len(p2.Items) != 1 || p2.Position != nil {
		t.Fatalf("page 2: %v %+v", err, p2)
	}
	got := []string{aws.ToString(p1.Items[0].Id), aws.ToString(p1.Items[1].Id), aws.ToString(p2.Items[0].Id)}
	if !slices.Equal(got, ids) {
		t.Fatalf("pages %v, want creation order %v", got, ids)
	}
}

func TestDeploymentsPersist(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var apiID, depID string
	{
		srv, c := start(t, servertest.WithPersistence(dir))
		apiID, _ = depAPI(t, c)
		d, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID, Description: aws.String("kept"),
			StageName: aws.String("prod"), Variables: map[string]string{"v": "1"}})
		if err != nil {
			t.Fatal(err)
		}
		depID = aws.ToString(d.Id)
		gone, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteDeployment(ctx, &apigateway.DeleteDeploymentInput{RestApiId: &apiID, DeploymentId: gone.Id}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.UpdateStage(ctx, &apigateway.UpdateStageInput{RestApiId: &apiID, StageName: aws.String("prod"),
			PatchOperations: []types.PatchOperation{
				{Op: types.OpReplace, Path: aws.String("/*/*/metrics/enabled"), Value: aws.String("true")},
				{Op: types.OpReplace, Path: aws.String("/canarySettings/percentTraffic"), Value: aws.String("10")},
			}}); err != nil {
			t.Fatal(err)
		}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := srv.Emulator.Shutdown(sctx); err != nil {
			t.Fatal(err)
		}
	}
	_, c := start(t, servertest.WithPersistence(dir))
	list, err := c.GetDeployments(ctx, &apigateway.GetDeploymentsInput{RestApiId: &apiID})
	if err != nil || len(list.Items) != 1 || aws.ToString(list.Items[0].Id) != depID ||
		aws.ToString(list.Items[0].Description) != "kept" {
		t.Fatalf("deployments after restart: %v %+v", err, list)
	}
	d, err := c.GetDeployment(ctx, &apigateway.GetDeploymentInput{RestApiId: &apiID, DeploymentId: &depID,
		Embed: []string{"apisummary"}})
	if err != nil || aws.ToString(d.ApiSummary["/"]["GET"].AuthorizationType) != "NONE" {
		t.Fatalf("frozen configuration after restart: %v %+v", err, d)
	}
	sg, err := c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: &apiID, StageName: aws.String("prod")})
	if err != nil || aws.ToString(sg.DeploymentId) != depID || sg.Variables["v"] != "1" ||
		!sg.MethodSettings["*/*"].MetricsEnabled || sg.CanarySettings == nil || sg.CanarySettings.PercentTraffic != 10 {
		t.Fatalf("stage after restart: %v %+v", err, sg)
	}
	// The restored stage still holds its deployment.
	_, err = c.DeleteDeployment(ctx, &apigateway.DeleteDeploymentInput{RestApiId: &apiID, DeploymentId: &depID})
	servertest.WantAPIError(t, err, "BadRequestException", "Active stages pointing to this deployment must be moved or deleted")
}
