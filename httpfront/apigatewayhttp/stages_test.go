package apigatewayhttp_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/cloudemu/emulator/server/servertest"
)

// stagePaths is UpdateStage's list of paths as AWS prints it.
const stagePaths = "[/deploymentId, /description, /cacheClusterEnabled, /cacheClusterSize, /clientCertificateId, /accessLogSettings, /accessLogSettings/destinationArn, /accessLogSettings/format, /{resourcePath}/{httpMethod}/metrics/enabled, /{resourcePath}/{httpMethod}/logging/dataTrace, /{resourcePath}/{httpMethod}/logging/loglevel, /{resourcePath}/{httpMethod}/throttling/burstLimit/{resourcePath}/{httpMethod}/throttling/rateLimit/{resourcePath}/{httpMethod}/caching/ttlInSeconds, /{resourcePath}/{httpMethod}/caching/enabled, /{resourcePath}/{httpMethod}/caching/dataEncrypted, /{resourcePath}/{httpMethod}/caching/requireAuthorizationForCacheControl, /{resourcePath}/{httpMethod}/caching/unauthorizedCacheControlHeaderStrategy, /*/*/metrics/enabled, /*/*/logging/dataTrace, /*/*/logging/loglevel, /*/*/throttling/burstLimit /*/*/throttling/rateLimit /*/*/caching/ttlInSeconds, /*/*/caching/enabled, /*/*/caching/dataEncrypted, /*/*/caching/requireAuthorizationForCacheControl, /*/*/caching/unauthorizedCacheControlHeaderStrategy, /variables/{variable_name}, /tracingEnabled]"

// stageOp is a patch operation.
func stageOp(op types.Op, path, value string) types.PatchOperation {
	p := types.PatchOperation{Op: op, Path: aws.String(path)}
	if value != "" {
		p.Value = aws.String(value)
	}
	return p
}

func stageCopy(from, path string) types.PatchOperation {
	return types.PatchOperation{Op: types.OpCopy, From: aws.String(from), Path: aws.String(path)}
}

// stageSetup creates a deployable API with n deployments.
func stageSetup(t *testing.T, c *apigateway.Client, n int) (string, []string) {
	t.Helper()
	apiID, _ := depAPI(t, c)
	var ids []string
	for range n {
		d, err := c.CreateDeployment(context.Background(), &apigateway.CreateDeploymentInput{RestApiId: &apiID})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, aws.ToString(d.Id))
	}
	return apiID, ids
}

func TestStageLifecycle(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	apiID, deps := stageSetup(t, c, 2)

	// CreateStage answers exactly the members AWS does.
	r := depRaw(t, srv, "POST", "/restapis/"+apiID+"/stages",
		`{"stageName": "s1", "deploymentId": "`+deps[0]+`", "description": "my stage", "documentationVersion": "v123", "variables": {}}`)
	if r.status != 201 {
		t.Fatalf("create: %d %v", r.status, r.body)
	}
	depWantKeys(t, "create", r.body, "cacheClusterEnabled", "cacheClusterStatus", "createdDate", "deploymentId", "description",
		"documentationVersion", "lastUpdatedDate", "methodSettings", "stageName", "tracingEnabled")
	if r.body["cacheClusterStatus"] != "NOT_AVAILABLE" || len(r.body["methodSettings"].(map[string]any)) != 0 {
		t.Fatalf("create: %v", r.body)
	}
	s2, err := c.CreateStage(ctx, &apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("s2"),
		DeploymentId: &deps[1], Variables: map[string]string{"url": "https://example.com/a?b=c&d=e,f"},
		Tags: map[string]string{"team": "x"}, TracingEnabled: true, CacheClusterEnabled: true,
		CacheClusterSize: types.CacheClusterSizeSize1Point6Gb})
	if err != nil || s2.Tags["team"] != "x" || !s2.TracingEnabled || s2.CacheClusterStatus != types.CacheClusterStatusAvailable ||
		s2.CacheClusterSize != types.CacheClusterSizeSize1Point6Gb || s2.Variables["url"] != "https://example.com/a?b=c&d=e,f" {
		t.Fatalf("create s2: %v %+v", err, s2)
	}

	got, err := c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: &apiID, StageName: aws.String("s1")})
	if err != nil || aws.ToString(got.DeploymentId) != deps[0] || aws.ToString(got.Description) != "my stage" ||
		got.CreatedDate == nil || got.LastUpdatedDate == nil || got.Variables != nil {
		t.Fatalf("get: %v %+v", err, got)
	}
	// GetStages lists under "item" and filters by deployment.
	r = depRaw(t, srv, "GET", "/restapis/"+apiID+"/stages", "")
	depWantKeys(t, "list", r.body, "item")
	if items := r.body["item"].([]any); len(items) != 2 || items[0].(map[string]any)["stageName"] != "s1" {
		t.Fatalf("list: %v", r.body)
	}
	list, err := c.GetStages(ctx, &apigateway.GetStagesInput{RestApiId: &apiID, DeploymentId: &deps[1]})
	if err != nil || len(list.Item) != 1 || aws.ToString(list.Item[0].StageName) != "s2" {
		t.Fatalf("list by deployment: %v %+v", err, list)
	}

	for _, tc := range []struct {
		name string
		in   apigateway.CreateStageInput
		code string
		msg  string
	}{
		{"case=exists", apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("s1"), DeploymentId: &deps[0]},
			"ConflictException", "Stage already exists"},
		{"case=bad-name", apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("s 1"), DeploymentId: &deps[0]},
			"BadRequestException", "Stage name only allows a-zA-Z0-9_"},
		{"case=unknown-deployment", apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("s3"), DeploymentId: aws.String("nope00")},
			"NotFoundException", "Invalid Deployment identifier specified"},
		{"case=unknown-canary-deployment", apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("dev3"),
			DeploymentId: &deps[0], CanarySettings: &types.CanarySettings{DeploymentId: aws.String("deploy")}},
			"BadRequestException", "Deployment id does not exist"},
		{"case=bad-variable-value", apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("s4"),
			DeploymentId: &deps[0], Variables: map[string]string{"v": "a;b"}},
			"BadRequestException", "Invalid stage variable value: a;b.  Please use values with alphanumeric characters and the symbols ' ', -', '.', '_', ':', '/', '?', '&', '=', and ','."},
		{"case=unknown-api", apigateway.CreateStageInput{RestApiId: aws.String("nope"), StageName: aws.String("s5"), DeploymentId: &deps[0]},
			"NotFoundException", "Invalid API identifier specified " + account + ":nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateStage(ctx, &tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	// Canary settings at creation default to the stage's deployment.
	cs, err := c.CreateStage(ctx, &apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("dev1"),
		DeploymentId: &deps[0], CanarySettings: &types.CanarySettings{PercentTraffic: 40,
			StageVariableOverrides: map[string]string{"testVar": "canary1"}}})
	if err != nil || aws.ToString(cs.CanarySettings.DeploymentId) != deps[0] || cs.CanarySettings.PercentTraffic != 40 {
		t.Fatalf("create with canary: %v %+v", err, cs)
	}

	// Flushing the (not emulated) caches answers 202 for a known stage.
	if _, err := c.FlushStageCache(ctx, &apigateway.FlushStageCacheInput{RestApiId: &apiID, StageName: aws.String("s1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.FlushStageAuthorizersCache(ctx, &apigateway.FlushStageAuthorizersCacheInput{RestApiId: &apiID,
		StageName: aws.String("s1")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.FlushStageCache(ctx, &apigateway.FlushStageCacheInput{RestApiId: &apiID, StageName: aws.String("nope")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Stage identifier specified")

	if _, err := c.DeleteStage(ctx, &apigateway.DeleteStageInput{RestApiId: &apiID, StageName: aws.String("s1")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"op=GetStage", func() error {
			_, err := c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: &apiID, StageName: aws.String("s1")})
			return err
		}},
		{"op=DeleteStage", func() error {
			_, err := c.DeleteStage(ctx, &apigateway.DeleteStageInput{RestApiId: &apiID, StageName: aws.String("s1")})
			return err
		}},
		{"op=UpdateStage", func() error {
			_, err := c.UpdateStage(ctx, &apigateway.UpdateStageInput{RestApiId: &apiID, StageName: aws.String("s1"),
				PatchOperations: []types.PatchOperation{stageOp(types.OpReplace, "/description", "x")}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servertest.WantAPIError(t, tc.call(), "NotFoundException", "Invalid Stage identifier specified")
		})
	}
	_, err = c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: aws.String("nope"), StageName: aws.String("s2")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+account+":nope")
}

// TestStageUpdate replays AWS's recorded UpdateStage sequence.
func TestStageUpdate(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	apiID, deps := stageSetup(t, c, 2)
	created, err := c.CreateStage(ctx, &apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("s1"),
		DeploymentId: &deps[0], Description: aws.String("my stage")})
	if err != nil {
		t.Fatal(err)
	}
	update := func(ops ...types.PatchOperation) (*apigateway.UpdateStageOutput, error) {
		return c.UpdateStage(ctx, &apigateway.UpdateStageInput{RestApiId: &apiID, StageName: aws.String("s1"), PatchOperations: ops})
	}
	time.Sleep(5 * time.Millisecond)
	sg, err := update(
		stageOp(types.OpReplace, "/description", "stage new"),
		stageOp(types.OpReplace, "/variables/var1", "test"),
		stageOp(types.OpReplace, "/variables/var2", "test2"),
		stageOp(types.OpReplace, "/*/*/throttling/burstLimit", "123"),
		stageOp(types.OpReplace, "/*/*/caching/enabled", "true"),
		stageOp(types.OpReplace, "/tracingEnabled", "true"),
		stageOp(types.OpReplace, "/test/GET/throttling/burstLimit", "124"),
	)
	if err != nil {
		t.Fatal(err)
	}
	all, get := sg.MethodSettings["*/*"], sg.MethodSettings["test/GET"]
	want := types.MethodSetting{CacheTtlInSeconds: 300, CachingEnabled: true, RequireAuthorizationForCacheControl: true,
		ThrottlingBurstLimit: 123, ThrottlingRateLimit: 10000, UnauthorizedCacheControlHeaderStrategy: types.UnauthorizedCacheControlHeaderStrategySucceedWithResponseHeader}
	if aws.ToString(sg.Description) != "stage new" || sg.Variables["var1"] != "test" || sg.Variables["var2"] != "test2" ||
		!sg.TracingEnabled || all != want || get.ThrottlingBurstLimit != 124 || !get.CachingEnabled ||
		!sg.LastUpdatedDate.After(*created.LastUpdatedDate) || !sg.CreatedDate.Equal(*created.CreatedDate) {
		t.Fatalf("update: %+v", sg)
	}
	// Updating */* does not change the entries already made from it.
	sg, err = update(stageOp(types.OpReplace, "/*/*/throttling/burstLimit", "100"))
	if err != nil || sg.MethodSettings["*/*"].ThrottlingBurstLimit != 100 || sg.MethodSettings["test/GET"].ThrottlingBurstLimit != 124 {
		t.Fatalf("override: %v %+v", err, sg)
	}
	// Escaped resource paths are kept as written; other settings apply.
	sg, err = update(
		stageOp(types.OpReplace, "/~1a~1b/POST/logging/loglevel", "INFO"),
		stageOp(types.OpReplace, "/~1a~1b/POST/throttling/rateLimit", "12.5"),
		stageOp(types.OpReplace, "/~1a~1b/POST/caching/unauthorizedCacheControlHeaderStrategy", "FAIL_WITH_403"),
		stageOp(types.OpReplace, "/deploymentId", deps[1]),
		stageOp(types.OpReplace, "/cacheClusterEnabled", "true"),
		stageOp(types.OpReplace, "/clientCertificateId", "cert1"),
		stageOp(types.OpReplace, "/accessLogSettings/format", "$context.requestId"),
		stageOp(types.OpReplace, "/accessLogSettings/destinationArn", "arn:aws:logs:us-east-1:000000000000:log-group:g"),
		stageOp(types.OpReplace, "/documentationVersion", "v2"),
		stageOp(types.OpAdd, "/variables/var3", "added"),
		stageOp(types.OpRemove, "/variables/var1", ""),
	)
	if err != nil {
		t.Fatal(err)
	}
	ms := sg.MethodSettings["~1a~1b/POST"]
	if aws.ToString(ms.LoggingLevel) != "INFO" || ms.ThrottlingRateLimit != 12.5 || ms.ThrottlingBurstLimit != 100 ||
		ms.UnauthorizedCacheControlHeaderStrategy != types.UnauthorizedCacheControlHeaderStrategyFailWith403 ||
		aws.ToString(sg.DeploymentId) != deps[1] || !sg.CacheClusterEnabled || sg.CacheClusterSize != types.CacheClusterSizeSize0Point5Gb ||
		aws.ToString(sg.ClientCertificateId) != "cert1" || aws.ToString(sg.AccessLogSettings.Format) != "$context.requestId" ||
		aws.ToString(sg.DocumentationVersion) != "v2" || sg.Variables["var3"] != "added" || sg.Variables["var1"] != "" ||
		len(sg.Variables) != 2 {
		t.Fatalf("update: %+v", sg)
	}
	sg, err = update(stageOp(types.OpRemove, "/accessLogSettings", ""), stageOp(types.OpRemove, "/~1a~1b/POST", ""))
	if err != nil || sg.AccessLogSettings != nil || len(sg.MethodSettings) != 2 {
		t.Fatalf("remove: %v %+v", err, sg)
	}
	sg, err = update(stageOp(types.OpRemove, "/*/*", ""))
	if err != nil || len(sg.MethodSettings) != 1 {
		t.Fatalf("remove */*: %v %+v", err, sg)
	}

	for _, tc := range []struct {
		name string
		ops  []types.PatchOperation
		code string
		msg  string
	}{
		{"case=doc-version", []types.PatchOperation{stageOp(types.OpReplace, "/documentation_version", "123")},
			"BadRequestException", "Invalid method setting path: /documentation_version. Must be one of: " + stagePaths},
		{"case=tags", []types.PatchOperation{stageOp(types.OpReplace, "/tags/tag1", "value1")},
			"BadRequestException", "Invalid method setting path: /tags/tag1. Must be one of: " + stagePaths},
		{"case=remove-missing-wildcard", []types.PatchOperation{stageOp(types.OpRemove, "/*/*", "")},
			"BadRequestException", "Cannot remove method setting */* because there is no method setting for this method "},
		{"case=unknown-setting", []types.PatchOperation{stageOp(types.OpReplace, "/*/*/accessLogSettings/format", "x")},
			"BadRequestException", "Invalid method setting path: accessLogSettings/format. Must be one of: [.../metrics/enabled, .../logging/dataTrace, .../logging/loglevel,.../throttling/burstLimit, .../throttling/rateLimit, .../caching/ttlInSeconds, .../caching/enabled, .../caching/dataEncrypted, .../caching/requireAuthorizationForCacheControl, .../caching/unauthorizedCacheControlHeaderStrategy]"},
		{"case=unknown-deployment", []types.PatchOperation{stageOp(types.OpReplace, "/deploymentId", "nope00")},
			"BadRequestException", "Deployment id does not exist"},
		{"case=bad-variable-name", []types.PatchOperation{stageOp(types.OpReplace, "/variables/owner:application-name", "foo")},
			"BadRequestException", "Invalid stage variable name: owner:application-name.  Please use names with only word characters."},
		{"case=add-description", []types.PatchOperation{stageOp(types.OpAdd, "/description", "x")},
			"BadRequestException", "Invalid add operation with path: /description"},
		{"case=bad-burst", []types.PatchOperation{stageOp(types.OpReplace, "/*/*/throttling/burstLimit", "many")},
			"BadRequestException", ""},
		{"case=nan-rate", []types.PatchOperation{stageOp(types.OpReplace, "/*/*/throttling/rateLimit", "NaN")},
			"BadRequestException", ""},
		{"case=nan-canary", []types.PatchOperation{stageOp(types.OpReplace, "/canarySettings/percentTraffic", "NaN")},
			"BadRequestException", "Canary traffic percentage must be between 0.0 and 100.0"},
		{"case=bad-op", []types.PatchOperation{stageOp("wrong", "/description", "x"), stageOp("wrong", "/description", "x")},
			"ValidationException", "2 validation errors detected: Value 'wrong' at 'updateStageInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]; Value 'wrong' at 'updateStageInput.patchOperations.2.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]"},
		// A failing operation undoes the ones before it.
		{"case=atomic", []types.PatchOperation{stageOp(types.OpReplace, "/description", "lost"), stageOp(types.OpReplace, "/nope", "x")},
			"BadRequestException", "Invalid method setting path: /nope. Must be one of: " + stagePaths},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := update(tc.ops...)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	got, err := c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: &apiID, StageName: aws.String("s1")})
	if err != nil || aws.ToString(got.Description) != "stage new" {
		t.Fatalf("a failed update changed the stage: %v %+v", err, got)
	}
}

// TestStageCanary replays AWS's recorded canary sequences.
func TestStageCanary(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	apiID, deps := stageSetup(t, c, 2)
	if _, err := c.CreateStage(ctx, &apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("dev"),
		DeploymentId: &deps[0], Variables: map[string]string{"testVar": "default"}}); err != nil {
		t.Fatal(err)
	}
	update := func(ops ...types.PatchOperation) (*apigateway.UpdateStageOutput, error) {
		return c.UpdateStage(ctx, &apigateway.UpdateStageInput{RestApiId: &apiID, StageName: aws.String("dev"), PatchOperations: ops})
	}
	for _, tc := range []struct {
		name string
		ops  []types.PatchOperation
		code string
		msg  string
	}{
		{"case=add", []types.PatchOperation{stageOp(types.OpAdd, "/canarySettings/deploymentId", deps[1])},
			"BadRequestException", "Invalid add operation with path: /canarySettings/deploymentId"},
		{"case=unknown-deployment", []types.PatchOperation{stageOp(types.OpReplace, "/canarySettings/deploymentId", "deploy")},
			"BadRequestException", "Deployment id does not exist"},
		{"case=replace-whole", []types.PatchOperation{stageOp(types.OpReplace, "/canarySettings", "test")},
			"BadRequestException", "Invalid method setting path: /canarySettings. Must be one of: " + stagePaths},
		{"case=replace-bad-path", []types.PatchOperation{stageOp(types.OpReplace, "/canarySettings/badPath", "badPath")},
			"BadRequestException", "Invalid method setting path: /canarySettings/badPath. Must be one of: " + stagePaths},
		{"case=remove-overrides", []types.PatchOperation{stageOp(types.OpRemove, "/canarySettings/stageVariableOverrides", "")},
			"BadRequestException", "Cannot remove method setting canarySettings/stageVariableOverrides because there is no method setting for this method "},
		{"case=remove-bad-path", []types.PatchOperation{stageOp(types.OpRemove, "/canarySettings/badPath", "")},
			"BadRequestException", "Cannot remove method setting canarySettings/badPath because there is no method setting for this method "},
		{"case=copy-backwards", []types.PatchOperation{stageCopy("/variables", "/canarySettings/stageVariableOverrides"),
			stageCopy("/deploymentId", "/canarySettings/deploymentId")},
			"BadRequestException", "Invalid copy operation with path: /canarySettings/stageVariableOverrides and from /variables. Valid copy:path are [/deploymentId, /variables] and valid copy:from are [/canarySettings/deploymentId, /canarySettings/stageVariableOverrides]"},
		{"case=promote-without-canary", []types.PatchOperation{stageCopy("/canarySettings/stageVariableOverrides", "/variables"),
			stageCopy("/canarySettings/deploymentId", "/deploymentId")},
			"BadRequestException", "Promotion not available. Canary does not exist."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := update(tc.ops...)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}

	// replace /canarySettings/deploymentId creates the canary.
	sg, err := update(stageOp(types.OpReplace, "/canarySettings/deploymentId", deps[1]))
	if err != nil || aws.ToString(sg.CanarySettings.DeploymentId) != deps[1] || sg.CanarySettings.PercentTraffic != 0 ||
		aws.ToString(sg.DeploymentId) != deps[0] {
		t.Fatalf("canary by update: %v %+v", err, sg)
	}
	sg, err = update(stageOp(types.OpRemove, "/canarySettings", ""))
	if err != nil || sg.CanarySettings != nil {
		t.Fatalf("remove canary: %v %+v", err, sg)
	}
	// replace /canarySettings/percentTraffic alone puts the canary on the
	// stage's deployment; the copies then have nothing to promote.
	sg, err = update(stageOp(types.OpReplace, "/canarySettings/percentTraffic", "0.0"),
		stageCopy("/canarySettings/deploymentId", "/deploymentId"),
		stageCopy("/canarySettings/stageVariableOverrides", "/variables"))
	if err != nil || aws.ToString(sg.CanarySettings.DeploymentId) != deps[0] || aws.ToString(sg.DeploymentId) != deps[0] ||
		sg.Variables["testVar"] != "default" || len(sg.Variables) != 1 {
		t.Fatalf("copy without a canary deployment: %v %+v", err, sg)
	}
	// A canary deployment, then its promotion: the stage takes the
	// canary's deployment and overrides; the canary stays.
	d3, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &apiID, StageName: aws.String("dev"),
		CanarySettings: &types.DeploymentCanarySettings{PercentTraffic: 50, StageVariableOverrides: map[string]string{"testVar": "override"}}})
	if err != nil {
		t.Fatal(err)
	}
	sg, err = update(stageOp(types.OpReplace, "/canarySettings/stageVariableOverrides/other", "x"),
		stageOp(types.OpReplace, "/canarySettings/useStageCache", "true"),
		stageOp(types.OpRemove, "/canarySettings/stageVariableOverrides/other", ""),
		stageOp(types.OpReplace, "/canarySettings/percentTraffic", "0.0"),
		stageCopy("/canarySettings/deploymentId", "/deploymentId"),
		stageCopy("/canarySettings/stageVariableOverrides", "/variables"))
	if err != nil || aws.ToString(sg.DeploymentId) != aws.ToString(d3.Id) || sg.Variables["testVar"] != "override" ||
		sg.CanarySettings == nil || aws.ToString(sg.CanarySettings.DeploymentId) != aws.ToString(d3.Id) ||
		sg.CanarySettings.PercentTraffic != 0 || !sg.CanarySettings.UseStageCache ||
		len(sg.CanarySettings.StageVariableOverrides) != 1 {
		t.Fatalf("promotion: %v %+v", err, sg)
	}
	_, err = update(stageOp(types.OpReplace, "/canarySettings/percentTraffic", "101"))
	servertest.WantAPIError(t, err, "BadRequestException", "Canary traffic percentage must be between 0.0 and 100.0")
}

// TestStageShapes checks members AWS sends even when empty or zero.
func TestStageShapes(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	apiID, deps := stageSetup(t, c, 1)
	if _, err := c.CreateStage(ctx, &apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String("dev"),
		DeploymentId: &deps[0]}); err != nil {
		t.Fatal(err)
	}
	r := depRaw(t, srv, "PATCH", "/restapis/"+apiID+"/stages/dev",
		`{"patchOperations": [{"op": "replace", "path": "/canarySettings/deploymentId", "value": "`+deps[0]+`"}]}`)
	if r.status != 200 {
		t.Fatalf("update: %d %v", r.status, r.body)
	}
	depWantKeys(t, "canary", r.body["canarySettings"].(map[string]any), "deploymentId", "percentTraffic", "useStageCache")
	r = depRaw(t, srv, "PATCH", "/restapis/"+apiID+"/stages/dev",
		`{"patchOperations": [{"op": "replace", "path": "/*/*/metrics/enabled", "value": "true"}]}`)
	depWantKeys(t, "method setting", r.body["methodSettings"].(map[string]any)["*/*"].(map[string]any),
		"cacheDataEncrypted", "cacheTtlInSeconds", "cachingEnabled", "dataTraceEnabled", "metricsEnabled",
		"requireAuthorizationForCacheControl", "throttlingBurstLimit", "throttlingRateLimit", "unauthorizedCacheControlHeaderStrategy")
	for _, tc := range []struct{ name, method, path, body, errType string }{
		{"case=wrong-type", "POST", "/restapis/" + apiID + "/stages", `{"stageName": "x", "deploymentId": 5}`, "SerializationException"},
		{"case=missing-name", "POST", "/restapis/" + apiID + "/stages", `{"deploymentId": "` + deps[0] + `"}`, "BadRequestException"},
		{"case=missing-deployment", "POST", "/restapis/" + apiID + "/stages", `{"stageName": "x"}`, "NotFoundException"},
		{"case=patch-not-list", "PATCH", "/restapis/" + apiID + "/stages/dev", `{"patchOperations": {}}`, "SerializationException"},
		{"case=copy-without-from", "PATCH", "/restapis/" + apiID + "/stages/dev", `{"patchOperations": [{"op": "copy", "path": "/variables"}]}`, "BadRequestException"},
		{"case=no-path", "PATCH", "/restapis/" + apiID + "/stages/dev", `{"patchOperations": [{"op": "replace"}]}`, "BadRequestException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := depRaw(t, srv, tc.method, tc.path, tc.body)
			if r.status/100 != 4 || r.errType != tc.errType {
				t.Fatalf("got %d %s %v", r.status, r.errType, r.body)
			}
		})
	}
}

// TestStageDeleteDropsReferences checks that deleting a stage drops the
// usage plans' API stages and the base path mappings that named it.
func TestStageDeleteDropsReferences(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	apiID, deps := stageSetup(t, c, 1)
	for _, name := range []string{"gone", "kept"} {
		if _, err := c.CreateStage(ctx, &apigateway.CreateStageInput{RestApiId: &apiID, StageName: aws.String(name),
			DeploymentId: &deps[0]}); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := c.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("plan"), ApiStages: []types.ApiStage{
		{ApiId: &apiID, Stage: aws.String("gone")}, {ApiId: &apiID, Stage: aws.String("kept")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: aws.String("api.example.com")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateBasePathMapping(ctx, &apigateway.CreateBasePathMappingInput{DomainName: aws.String("api.example.com"),
		BasePath: aws.String("v1"), RestApiId: &apiID, Stage: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteStage(ctx, &apigateway.DeleteStageInput{RestApiId: &apiID, StageName: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	p, err := c.GetUsagePlan(ctx, &apigateway.GetUsagePlanInput{UsagePlanId: plan.Id})
	if err != nil || len(p.ApiStages) != 1 || aws.ToString(p.ApiStages[0].Stage) != "kept" {
		t.Fatalf("usage plan after deleting its stage: %v %+v", err, p)
	}
	m, err := c.GetBasePathMappings(ctx, &apigateway.GetBasePathMappingsInput{DomainName: aws.String("api.example.com")})
	if err != nil || len(m.Items) != 0 {
		t.Fatalf("base path mappings after deleting their stage: %v %+v", err, m)
	}
}
