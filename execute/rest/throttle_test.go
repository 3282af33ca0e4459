package rest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

const (
	tooMany       = `{"message":"Too Many Requests"}`
	limitExceeded = `{"message":"Limit Exceeded"}`
)

// enforcing starts an emulator that answers throttled requests with 429.
func enforcing() servertest.Option {
	return servertest.WithConfig(func(c *config.Config) { c.EnforceGatewayThrottle = true })
}

// keyed is a deployed stage "dev" whose methods at paths take an API key,
// a usage plan built by plan over the stage, and one key in it.
type keyed struct {
	*fixture
	plan, key, value string
}

func newKeyed(t *testing.T, plan *apigateway.CreateUsagePlanInput, paths []string, opts ...servertest.Option) *keyed {
	t.Helper()
	return keyedOn(t, newFixture(t, opts...), plan, "throttle-key-0123456789", paths...)
}

// keyedOn builds newKeyed's API on f: a MOCK GET taking a key at each
// path, deployed to dev, and a key of value in plan over dev.
func keyedOn(t *testing.T, f *fixture, plan *apigateway.CreateUsagePlanInput, value string, paths ...string) *keyed {
	t.Helper()
	for _, p := range paths {
		rid := f.mock(p, "GET", `{}`)
		_, err := f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("GET"),
			PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/apiKeyRequired"), Value: aws.String("true")}}})
		f.must(err)
	}
	f.deploy("dev", nil)
	k := &keyed{fixture: f, value: value}
	key, err := f.c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("k"), Enabled: true, Value: aws.String(k.value)})
	f.must(err)
	plan.Name = aws.String("p")
	for i := range plan.ApiStages {
		plan.ApiStages[i].ApiId, plan.ApiStages[i].Stage = &f.api, aws.String("dev")
	}
	if plan.ApiStages == nil {
		plan.ApiStages = []types.ApiStage{{ApiId: &f.api, Stage: aws.String("dev")}}
	}
	p, err := f.c.CreateUsagePlan(ctx, plan)
	f.must(err)
	_, err = f.c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: p.Id, KeyId: key.Id, KeyType: aws.String("API_KEY")})
	f.must(err)
	k.plan, k.key = *p.Id, *key.Id
	return k
}

func (k *keyed) get(path string) answer {
	k.t.Helper()
	return k.call("GET", "dev", path, map[string]string{"x-api-key": k.value}, "")
}

// wantError checks a gateway error's status, body and x-amzn-ErrorType.
func (a answer) wantError(t *testing.T, status int, body, errorType string) {
	t.Helper()
	a.want(t, status, body)
	if got := a.header.Get("x-amzn-ErrorType"); got != errorType {
		t.Fatalf("x-amzn-ErrorType %q, want %q", got, errorType)
	}
}

// usage is the key's [used, remaining] today.
func (k *keyed) usage() [2]int64 {
	k.t.Helper()
	today := time.Now().UTC().Format("2006-01-02")
	u, err := k.c.GetUsage(ctx, &apigateway.GetUsageInput{UsagePlanId: &k.plan, StartDate: &today, EndDate: &today})
	k.must(err)
	days := u.Items[k.key]
	if len(days) != 1 || len(days[0]) != 2 {
		k.t.Fatalf("usage %v", u.Items)
	}
	return [2]int64{days[0][0], days[0][1]}
}

// slow is a rate that refills nothing within a test.
const slow = 0.01

// TestPlanThrottle: under an enforcing emulator, a plan of burst 3 admits
// three requests, then answers THROTTLED; a refused request takes no quota.
func TestPlanThrottle(t *testing.T) {
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 3, RateLimit: slow},
		Quota:    &types.QuotaSettings{Limit: 100, Period: types.QuotaPeriodTypeDay}}, []string{"/pets"}, enforcing())
	for i := range 3 {
		t.Run(fmt.Sprintf("request=%d", i+1), func(t *testing.T) { k.get("/pets").want(t, 200, `{}`) })
	}
	k.get("/pets").wantError(t, 429, tooMany, "TooManyRequestsException")
	k.get("/pets").wantError(t, 429, tooMany, "TooManyRequestsException")
	if got := k.usage(); got != [2]int64{3, 97} {
		t.Fatalf("usage %v, want [3 97]", got)
	}
	// A method without a key is not the plan's to throttle.
	k.mock("/open", "GET", `{}`)
	k.deploy("dev", nil)
	k.call("GET", "dev", "/open", nil, "").want(t, 200, `{}`)
}

// TestPlanQuota: a quota of 2 per day admits two requests, then answers
// QUOTA_EXCEEDED; UpdateUsage grants more for the current period.
func TestPlanQuota(t *testing.T) {
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Quota: &types.QuotaSettings{Limit: 2, Period: types.QuotaPeriodTypeDay}}, []string{"/pets"}, enforcing())
	k.get("/pets").want(t, 200, `{}`)
	k.get("/pets").want(t, 200, `{}`)
	k.get("/pets").wantError(t, 429, limitExceeded, "LimitExceededException")
	if got := k.usage(); got != [2]int64{2, 0} {
		t.Fatalf("usage %v, want [2 0]", got)
	}

	out, err := k.c.UpdateUsage(ctx, &apigateway.UpdateUsageInput{UsagePlanId: &k.plan, KeyId: &k.key,
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/remaining"), Value: aws.String("3")}}})
	k.must(err)
	today := time.Now().UTC().Format("2006-01-02")
	if got := out.Items[k.key]; aws.ToString(out.UsagePlanId) != k.plan || aws.ToString(out.StartDate) != today ||
		aws.ToString(out.EndDate) != today || fmt.Sprint(got) != "[[2 3]]" {
		t.Fatalf("UpdateUsage: %s %s..%s %v", aws.ToString(out.UsagePlanId), aws.ToString(out.StartDate), aws.ToString(out.EndDate), out.Items)
	}
	for i := range 3 {
		t.Run(fmt.Sprintf("granted=%d", i+1), func(t *testing.T) { k.get("/pets").want(t, 200, `{}`) })
	}
	k.get("/pets").wantError(t, 429, limitExceeded, "LimitExceededException")
	if got := k.usage(); got != [2]int64{5, 0} {
		t.Fatalf("usage %v, want [5 0]", got)
	}
}

// TestThrottleNotEnforced: without EMULATOR_ENFORCE_GATEWAY_THROTTLE every
// request runs, and GetUsage counts what the plan would have admitted.
func TestThrottleNotEnforced(t *testing.T) {
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 3, RateLimit: slow},
		Quota:    &types.QuotaSettings{Limit: 100, Period: types.QuotaPeriodTypeDay}}, []string{"/pets"})
	for i := range 6 {
		t.Run(fmt.Sprintf("request=%d", i+1), func(t *testing.T) { k.get("/pets").want(t, 200, `{}`) })
	}
	if got := k.usage(); got != [2]int64{3, 97} {
		t.Fatalf("usage %v, want [3 97]", got)
	}

	// A plan that does not throttle counts every request.
	free := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Quota: &types.QuotaSettings{Limit: 100, Period: types.QuotaPeriodTypeDay}}, []string{"/pets"})
	for range 6 {
		free.get("/pets").want(t, 200, `{}`)
	}
	if got := free.usage(); got != [2]int64{6, 94} {
		t.Fatalf("usage %v, want [6 94]", got)
	}
}

// TestMethodThrottle: a method's entry in apiStages[].throttle replaces the
// plan's throttle for that method only.
func TestMethodThrottle(t *testing.T) {
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 100, RateLimit: slow},
		ApiStages: []types.ApiStage{{Throttle: map[string]types.ThrottleSettings{
			"/pets/GET": {BurstLimit: 1, RateLimit: slow}}}}}, []string{"/pets", "/toys"}, enforcing())
	k.get("/pets").want(t, 200, `{}`)
	k.get("/pets").wantError(t, 429, tooMany, "TooManyRequestsException")
	for range 3 {
		k.get("/toys").want(t, 200, `{}`)
	}
}

// TestPlanChangedUnderLoad: UpdateUsagePlan re-sizes the buckets in use; the
// next request sees the new limits.
func TestPlanChangedUnderLoad(t *testing.T) {
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 100, RateLimit: slow}}, []string{"/pets"}, enforcing())
	k.get("/pets").want(t, 200, `{}`)
	update := func(path, value string) {
		t.Helper()
		_, err := k.c.UpdateUsagePlan(ctx, &apigateway.UpdateUsagePlanInput{UsagePlanId: &k.plan,
			PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String(path), Value: aws.String(value)}}})
		k.must(err)
	}
	t.Run("burst=lowered", func(t *testing.T) {
		update("/throttle/burstLimit", "2")
		k.get("/pets").want(t, 200, `{}`)
		k.get("/pets").want(t, 200, `{}`)
		k.get("/pets").wantError(t, 429, tooMany, "TooManyRequestsException")
	})
	t.Run("rate=raised", func(t *testing.T) {
		update("/throttle/rateLimit", "10000")
		time.Sleep(5 * time.Millisecond)
		k.get("/pets").want(t, 200, `{}`)
	})
	t.Run("throttle=removed", func(t *testing.T) {
		update("/throttle/burstLimit", "0")
		k.get("/pets").wantError(t, 429, tooMany, "TooManyRequestsException")
		_, err := k.c.UpdateUsagePlan(ctx, &apigateway.UpdateUsagePlanInput{UsagePlanId: &k.plan,
			PatchOperations: []types.PatchOperation{{Op: types.OpRemove, Path: aws.String("/throttle")}}})
		k.must(err)
		k.get("/pets").want(t, 200, `{}`)
	})
	t.Run("quota=added", func(t *testing.T) {
		_, err := k.c.UpdateUsagePlan(ctx, &apigateway.UpdateUsagePlanInput{UsagePlanId: &k.plan,
			PatchOperations: []types.PatchOperation{
				{Op: types.OpAdd, Path: aws.String("/quota/limit"), Value: aws.String("1000")},
				{Op: types.OpAdd, Path: aws.String("/quota/period"), Value: aws.String("DAY")}}})
		k.must(err)
		// The day's requests so far count against the new quota.
		used := k.usage()[0]
		if got := k.usage(); got[1] != 1000-used {
			t.Fatalf("usage %v after adding a quota", got)
		}
	})
}

// TestThrottledResponseCustomised: THROTTLED is a gateway response like the
// others.
func TestThrottledResponseCustomised(t *testing.T) {
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 1, RateLimit: slow}}, []string{"/pets"}, enforcing())
	_, err := k.c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &k.api,
		ResponseType: types.GatewayResponseTypeThrottled, StatusCode: aws.String("503"),
		ResponseParameters: map[string]string{"gatewayresponse.header.Retry-After": "'1'"},
		ResponseTemplates:  map[string]string{"application/json": `{"slow down": "$context.error.message", "type": "$context.error.responseType"}`}})
	k.must(err)
	k.deploy("dev", nil)
	k.get("/pets").want(t, 200, `{}`)
	a := k.get("/pets")
	a.want(t, 503, `{"slow down": "Too Many Requests", "type": "THROTTLED"}`)
	if a.header.Get("Retry-After") != "1" {
		t.Fatalf("headers %v", a.header)
	}
}

// TestStageThrottle: a stage's methodSettings throttle every client of a
// method, with or without a key; UpdateStage re-sizes them at once.
func TestStageThrottle(t *testing.T) {
	f := newFixture(t, enforcing())
	f.mock("/pets", "GET", `{}`)
	f.mock("/toys", "GET", `{}`)
	f.deploy("dev", nil)
	update := func(ops ...types.PatchOperation) {
		t.Helper()
		_, err := f.c.UpdateStage(ctx, &apigateway.UpdateStageInput{RestApiId: &f.api, StageName: aws.String("dev"), PatchOperations: ops})
		f.must(err)
	}
	replace := func(path, value string) types.PatchOperation {
		return types.PatchOperation{Op: types.OpReplace, Path: aws.String(path), Value: aws.String(value)}
	}
	for range 3 {
		f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{}`)
	}
	update(replace("/*/*/throttling/burstLimit", "1"), replace("/*/*/throttling/rateLimit", "0.01"))
	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{}`)
	f.call("GET", "dev", "/pets", nil, "").wantError(t, 429, tooMany, "TooManyRequestsException")
	// Each method has its own bucket; a method's own entry wins over */*.
	update(replace("/~1toys/GET/throttling/burstLimit", "2"))
	f.call("GET", "dev", "/toys", nil, "").want(t, 200, `{}`)
	f.call("GET", "dev", "/toys", nil, "").want(t, 200, `{}`)
	f.call("GET", "dev", "/toys", nil, "").wantError(t, 429, tooMany, "TooManyRequestsException")
}

// TestAccountThrottle: the account's limit applies to every request of the
// account and region.
func TestAccountThrottle(t *testing.T) {
	f := newFixture(t, servertest.WithConfig(func(c *config.Config) {
		c.EnforceGatewayThrottle, c.AccountThrottleRate, c.AccountThrottleBurst = true, slow, 2
	}))
	f.mock("/pets", "GET", `{}`)
	f.mock("/toys", "GET", `{}`)
	f.deploy("dev", nil)
	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{}`)
	f.call("GET", "dev", "/toys", nil, "").want(t, 200, `{}`)
	f.call("GET", "dev", "/pets", nil, "").wantError(t, 429, tooMany, "TooManyRequestsException")

	// A reset forgets the account's bucket with everything else.
	f.must(f.srv.Emulator.Reset())
	f = newFixtureOn(t, f.srv)
	f.mock("/pets", "GET", `{}`)
	f.deploy("dev", nil)
	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{}`)
}

// TestThrottleAfterRestart: usage is not persisted, but the restored plans'
// keys are throttled and counted from a fresh start.
func TestThrottleAfterRestart(t *testing.T) {
	dir := t.TempDir()
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 1, RateLimit: slow},
		Quota:    &types.QuotaSettings{Limit: 5, Period: types.QuotaPeriodTypeDay}}, []string{"/pets"},
		enforcing(), servertest.WithPersistence(dir))
	k.get("/pets").want(t, 200, `{}`)
	k.get("/pets").wantError(t, 429, tooMany, "TooManyRequestsException")
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	k.must(k.srv.Emulator.Shutdown(shut))

	srv := servertest.Start(t, enforcing(), servertest.WithPersistence(dir))
	k2 := &keyed{fixture: &fixture{t: t, srv: srv, api: k.api, http: k.http, c: apigateway.NewFromConfig(
		servertest.AWSConfig("us-east-1", "test"), func(o *apigateway.Options) { o.BaseEndpoint = aws.String(srv.URL) })},
		plan: k.plan, key: k.key, value: k.value}
	if got := k2.usage(); got != [2]int64{0, 5} {
		t.Fatalf("usage after restart %v, want [0 5]", got)
	}
	k2.get("/pets").want(t, 200, `{}`)
	k2.get("/pets").wantError(t, 429, tooMany, "TooManyRequestsException")
	if got := k2.usage(); got != [2]int64{1, 4} {
		t.Fatalf("usage %v, want [1 4]", got)
	}
}

// TestThrottleFixedClock: under EMULATOR_FIXED_TIME requests count on the
// frozen day, the one GetUsage reports, and buckets never refill.
func TestThrottleFixedClock(t *testing.T) {
	day := time.Date(2024, 5, 15, 10, 0, 0, 0, time.UTC)
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 2, RateLimit: 10000},
		Quota:    &types.QuotaSettings{Limit: 10, Period: types.QuotaPeriodTypeWeek}}, []string{"/pets"},
		enforcing(), servertest.WithConfig(func(c *config.Config) { c.FixedTime = day }))
	k.get("/pets").want(t, 200, `{}`)
	time.Sleep(5 * time.Millisecond)
	k.get("/pets").want(t, 200, `{}`)
	time.Sleep(5 * time.Millisecond)
	k.get("/pets").wantError(t, 429, tooMany, "TooManyRequestsException")
	u, err := k.c.GetUsage(ctx, &apigateway.GetUsageInput{UsagePlanId: &k.plan,
		StartDate: aws.String("2024-05-14"), EndDate: aws.String("2024-05-15")})
	k.must(err)
	if got := fmt.Sprint(u.Items[k.key]); got != "[[0 10] [2 8]]" {
		t.Fatalf("usage %s, want [[0 10] [2 8]]", got)
	}
}
