package apigatewayhttp_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

// The paths AWS lists when it refuses a usage plan patch path.
const (
	keysRemovePaths = "[/apiStages, /quota, /throttle, /productCode, " +
		"/apiStages/<apidId:stageName>/throttle/<resourcePath>/<httpMethod>, /apiStages/<apidId:stageName>/throttle]"
	keysReplacePaths = "[/name, /description, /productCode, /throttle/burstLimit, /throttle/rateLimit, " +
		"/quota/limit, /quota/offset, /quota/period, /apiStages/<apidId:stageName>/throttle/<resourcePath>/<httpMethod>/burstLimit, " +
		"/apiStages/<apidId:stageName>/throttle/<resourcePath>/<httpMethod>/rateLimit]"
)

func keysOp(op types.Op, path, value string) types.PatchOperation {
	p := types.PatchOperation{Op: op, Path: aws.String(path)}
	if value != "" {
		p.Value = aws.String(value)
	}
	return p
}

// keysStages renders a plan's API stages as "api:stage{throttles}".
func keysStages(ss []types.ApiStage) string {
	var out []string
	for _, s := range ss {
		t := ""
		keys := make([]string, 0, len(s.Throttle))
		for k := range s.Throttle {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			t += fmt.Sprintf("%s=%d/%v;", k, s.Throttle[k].BurstLimit, s.Throttle[k].RateLimit)
		}
		out = append(out, aws.ToString(s.ApiId)+":"+aws.ToString(s.Stage)+"{"+t+"}")
	}
	return strings.Join(out, " ")
}

func TestUsagePlanLifecycle(t *testing.T) {
	srv, c, _ := keysStart(t)
	ctx := context.Background()

	// Name only: apiStages present and empty, nothing else.
	r := keysDo(t, srv, "POST", "/usageplans", `{"name":"basic"}`)
	if r.status != 201 || keysMembers(r.json) != "apiStages,id,name" || fmt.Sprint(r.json["apiStages"]) != "[]" ||
		!regexp.MustCompile(`^[a-z0-9]{6}$`).MatchString(r.json["id"].(string)) {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	basicID := r.json["id"].(string)

	// Everything: rateLimit travels as a double, the quota offset defaults
	// to 0, per-method throttles are kept.
	r = keysDo(t, srv, "POST", "/usageplans", `{"name":"full","description":"d","tags":{"tag_key":"tag_value"},
		"apiStages":[{"apiId":"keysapi001","stage":"prod","throttle":{"/pets/GET":{"burstLimit":5,"rateLimit":1}}}],
		"throttle":{"burstLimit":1,"rateLimit":2},"quota":{"limit":10,"period":"DAY"}}`)
	for _, frag := range []string{`"rateLimit":2.0`, `"rateLimit":1.0`, `"quota":{"limit":10,"offset":0,"period":"DAY"}`,
		`"tags":{"tag_key":"tag_value"}`, `"apiStages":[{"apiId":"keysapi001","stage":"prod","throttle":{"/pets/GET":{"burstLimit":5,"rateLimit":1.0}}}]`} {
		if r.status != 201 || !strings.Contains(r.body, frag) {
			t.Fatalf("create full: %d %s lacks %s", r.status, r.body, frag)
		}
	}
	fullID := r.json["id"].(string)

	t.Run("get", func(t *testing.T) {
		r := keysDo(t, srv, "GET", "/usageplans/"+basicID, "")
		if r.status != 200 || keysMembers(r.json) != "apiStages,id,name,tags" || fmt.Sprint(r.json["tags"]) != "map[]" {
			t.Fatalf("%d %s", r.status, r.body)
		}
		_, err := c.GetUsagePlan(ctx, &apigateway.GetUsagePlanInput{UsagePlanId: aws.String("nope")})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Usage Plan ID specified")
	})
	t.Run("list", func(t *testing.T) {
		r := keysDo(t, srv, "GET", "/usageplans", "")
		items, _ := r.json["item"].([]any)
		if r.status != 200 || len(items) != 2 || r.json["position"] != nil {
			t.Fatalf("%d %s", r.status, r.body)
		}
		for _, it := range items {
			if _, ok := it.(map[string]any)["tags"]; ok {
				t.Fatalf("tags listed: %s", r.body)
			}
		}
		p1, err := c.GetUsagePlans(ctx, &apigateway.GetUsagePlansInput{Limit: aws.Int32(1)})
		if err != nil || len(p1.Items) != 1 || p1.Position == nil {
			t.Fatalf("page 1: %v %+v", err, p1)
		}
		p2, err := c.GetUsagePlans(ctx, &apigateway.GetUsagePlansInput{Limit: aws.Int32(1), Position: p1.Position})
		if err != nil || len(p2.Items) != 1 || p2.Position != nil || aws.ToString(p2.Items[0].Id) == aws.ToString(p1.Items[0].Id) {
			t.Fatalf("page 2: %v %+v", err, p2)
		}
	})

	t.Run("update", func(t *testing.T) {
		out, err := c.UpdateUsagePlan(ctx, &apigateway.UpdateUsagePlanInput{UsagePlanId: aws.String(basicID), PatchOperations: []types.PatchOperation{
			keysOp(types.OpReplace, "/throttle/burstLimit", "100"),
			keysOp(types.OpReplace, "/throttle/rateLimit", "200"),
			keysOp(types.OpReplace, "/quota/period", "MONTH"),
			keysOp(types.OpReplace, "/quota/limit", "5000"),
			keysOp(types.OpReplace, "/name", "renamed"),
			keysOp(types.OpReplace, "/description", "desc"),
			keysOp(types.OpAdd, "/productCode", "pc-1"),
			keysOp(types.OpAdd, "/apiStages", "keysapi001:dev"),
			keysOp(types.OpAdd, "/apiStages", "keysapi002:prod"),
			// As Terraform sends them: the method path unescaped.
			keysOp(types.OpReplace, "/apiStages/keysapi001:dev/throttle//pets/GET/rateLimit", "1.5"),
			keysOp(types.OpReplace, "/apiStages/keysapi001:dev/throttle//pets/GET/burstLimit", "3"),
			keysOp(types.OpReplace, "/apiStages/keysapi001:dev/throttle/~1pets~1{id}/DELETE/burstLimit", "4"),
		}})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(out.Name) != "renamed" || aws.ToString(out.Description) != "desc" || aws.ToString(out.ProductCode) != "pc-1" ||
			out.Throttle.BurstLimit != 100 || out.Throttle.RateLimit != 200 ||
			out.Quota.Limit != 5000 || out.Quota.Offset != 0 || out.Quota.Period != types.QuotaPeriodTypeMonth ||
			keysStages(out.ApiStages) != "keysapi001:dev{/pets/GET=3/1.5;/pets/{id}/DELETE=4/0;} keysapi002:prod{}" ||
			out.Tags == nil {
			t.Fatalf("%+v %s", out, keysStages(out.ApiStages))
		}
		r := keysDo(t, srv, "PATCH", "/usageplans/"+basicID, `{"patchOperations":[
			{"op":"remove","path":"/apiStages/keysapi001:dev/throttle/~1pets~1{id}/DELETE"},
			{"op":"remove","path":"/apiStages","value":"keysapi002:prod"},
			{"op":"remove","path":"/productCode"},
			{"op":"remove","path":"/throttle"},
			{"op":"remove","path":"/quota"}]}`)
		if r.status != 200 || keysMembers(r.json) != "apiStages,description,id,name,tags" ||
			!strings.Contains(r.body, `"apiStages":[{"apiId":"keysapi001","stage":"dev","throttle":{"/pets/GET":{"burstLimit":3,"rateLimit":1.5}}}]`) {
			t.Fatalf("%d %s", r.status, r.body)
		}
		out, err = c.UpdateUsagePlan(ctx, &apigateway.UpdateUsagePlanInput{UsagePlanId: aws.String(basicID), PatchOperations: []types.PatchOperation{
			keysOp(types.OpRemove, "/apiStages/keysapi001:dev/throttle", ""),
			keysOp(types.OpAdd, "/quota/limit", "7"),
			keysOp(types.OpAdd, "/quota/offset", "2"),
			keysOp(types.OpAdd, "/quota/period", "WEEK"),
		}})
		if err != nil || keysStages(out.ApiStages) != "keysapi001:dev{}" || out.Quota.Limit != 7 || out.Quota.Offset != 2 {
			t.Fatalf("%v %+v", err, out)
		}
	})

	// UP-01..05 and the refusals around them; each leaves the plan as it was.
	for _, tc := range []struct {
		name, plan, ops string
		status          int
		code, msg       string
	}{
		{"plan=unknown", fullID + "1", `[{"op":"replace","path":"/throttle/burstLimit","value":"1"}]`, 404,
			"NotFoundException", "Invalid Usage Plan ID specified"},
		{"stages=no-value", fullID, `[{"op":"remove","path":"/apiStages"}]`, 400, "BadRequestException", "Invalid API Stage specified"},
		{"stages=no-api", fullID, `[{"op":"remove","path":"/apiStages","value":"keysapi001b:dev"}]`, 404,
			"NotFoundException", "Invalid API Stage {api: keysapi001b, stage: dev} specified for usageplan " + fullID},
		{"stages=no-stage", fullID, `[{"op":"remove","path":"/apiStages","value":"keysapi001:fakestagename"}]`, 404,
			"NotFoundException", "Invalid API Stage {api: keysapi001, stage: fakestagename} specified for usageplan " + fullID},
		{"stages=no-colon", fullID, `[{"op":"remove","path":"/apiStages","value":"fakevalue"}]`, 400, "BadRequestException", "Invalid API Stage specified"},
		{"stages=add-missing", fullID, `[{"op":"replace","path":"/name","value":"changed"},{"op":"add","path":"/apiStages","value":"keysapi002:dev"}]`, 404,
			"NotFoundException", "Invalid API Stage {api: keysapi002, stage: dev} specified for usageplan " + fullID},
		{"stages=remove-unlisted", fullID, `[{"op":"remove","path":"/apiStages","value":"keysapi002:prod"}]`, 404,
			"NotFoundException", "Invalid API Stage {api: keysapi002, stage: prod} specified for usageplan " + fullID},
		{"throttle=unlisted-stage", fullID, `[{"op":"replace","path":"/apiStages/keysapi001:dev/throttle/~1a/GET/rateLimit","value":"1"}]`, 404,
			"NotFoundException", "Invalid API Stage {api: keysapi001, stage: dev} specified for usageplan " + fullID},
		{"throttle=no-method", fullID, `[{"op":"replace","path":"/apiStages/keysapi001:prod/throttle/rateLimit","value":"1"}]`, 400,
			"BadRequestException", "Invalid patch path  '/apiStages/keysapi001:prod/throttle/rateLimit' specified for op 'replace'. Must be one of: " + keysReplacePaths},
		{"path=unknown", fullID, `[{"op":"replace","path":"/id","value":"x"}]`, 400, "BadRequestException",
			"Invalid patch path  '/id' specified for op 'replace'. Must be one of: " + keysReplacePaths},
		{"op=unsupported", fullID, `[{"op":"remove","path":"/name"}]`, 400, "BadRequestException",
			"Invalid patch path  '/name' specified for op 'remove'. Must be one of: " + keysRemovePaths},
		// As AWS answered it (boto/boto3#2629).
		{"path=stage-remove", fullID, `[{"op":"remove","path":"/apiStages/keysapi001:prod"}]`, 400, "BadRequestException",
			"Invalid patch path  '/apiStages/keysapi001:prod' specified for op 'remove'. Must be one of: " + keysRemovePaths},
		{"op=move", fullID, `[{"op":"move","path":"/name","from":"/description"}]`, 400, "BadRequestException",
			"Invalid patch path  '/name' specified for op 'move'. Please choose supported operations"},
		{"op=enum", fullID, `[{"op":"bad","path":"/name"}]`, 400, "ValidationException",
			"1 validation error detected: Value 'bad' at 'updateUsagePlanInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]"},
		{"burst=nan", fullID, `[{"op":"replace","path":"/throttle/burstLimit","value":"many"}]`, 400, "BadRequestException", ""},
		{"rate=nan", fullID, `[{"op":"replace","path":"/throttle/rateLimit","value":"fast"}]`, 400, "BadRequestException", ""},
		{"period=bad", fullID, `[{"op":"replace","path":"/quota/period","value":"YEAR"}]`, 400, "BadRequestException", ""},
		{"name=empty", fullID, `[{"op":"replace","path":"/name","value":""}]`, 400, "BadRequestException", ""},
	} {
		t.Run("update/"+tc.name, func(t *testing.T) {
			r := keysDo(t, srv, "PATCH", "/usageplans/"+tc.plan, `{"patchOperations":`+tc.ops+`}`)
			if r.status != tc.status || r.code != tc.code || (tc.msg != "" && r.message() != tc.msg) {
				t.Fatalf("got %d %s %s, want %d %s %q", r.status, r.code, r.body, tc.status, tc.code, tc.msg)
			}
		})
	}
	got, err := c.GetUsagePlan(ctx, &apigateway.GetUsagePlanInput{UsagePlanId: aws.String(fullID)})
	if err != nil || aws.ToString(got.Name) != "full" || keysStages(got.ApiStages) != "keysapi001:prod{/pets/GET=5/1;}" ||
		got.Throttle.BurstLimit != 1 || got.Quota.Period != types.QuotaPeriodTypeDay || got.Tags["tag_key"] != "tag_value" {
		t.Fatalf("after failed updates: %v %+v", err, got)
	}

	t.Run("delete", func(t *testing.T) {
		// AWS refuses while the plan names API stages.
		r := keysDo(t, srv, "DELETE", "/usageplans/"+fullID, "")
		if r.status != 400 || r.message() != "Cannot delete Usage Plan "+fullID+
			" because there are API Stages associated with it, including keysapi001:prod" {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if _, err := c.UpdateUsagePlan(ctx, &apigateway.UpdateUsagePlanInput{UsagePlanId: aws.String(fullID),
			PatchOperations: []types.PatchOperation{keysOp(types.OpRemove, "/apiStages", "keysapi001:prod")}}); err != nil {
			t.Fatal(err)
		}
		r = keysDo(t, srv, "DELETE", "/usageplans/"+fullID, "")
		if r.status != 202 || r.body != "" {
			t.Fatalf("%d %s", r.status, r.body)
		}
		_, err := c.DeleteUsagePlan(ctx, &apigateway.DeleteUsagePlanInput{UsagePlanId: aws.String(fullID)})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Usage Plan ID specified")
	})
}

func TestCreateUsagePlanErrors(t *testing.T) {
	srv, _, _ := keysStart(t)
	const unformatted = "Invalid API Stage {api: %s, stage: %s} specified for usageplan %s"
	for _, tc := range []struct {
		name, body string
		status     int
		code, msg  string
	}{
		{"stage=empty-api", `{"name":"p","apiStages":[{"apiId":"","stage":"dev"}]}`, 400, "BadRequestException", unformatted},
		{"stage=no-stage-member", `{"name":"p","apiStages":[{"apiId":"keysapi001"}]}`, 400, "BadRequestException", unformatted},
		{"stage=missing-api", `{"name":"p","apiStages":[{"apiId":"nope","stage":"dev"}]}`, 400, "BadRequestException", unformatted},
		{"stage=missing-stage", `{"name":"p","apiStages":[{"apiId":"keysapi002","stage":"dev"}]}`, 400, "BadRequestException", unformatted},
		{"name=missing", `{"description":"x"}`, 400, "BadRequestException", "Invalid usage plan name specified"},
		{"quota=bad-period", `{"name":"p","quota":{"limit":1,"period":"YEAR"}}`, 400, "ValidationException",
			"1 validation error detected: Value 'YEAR' at 'createUsagePlanInput.quota.period' failed to satisfy constraint: Member must satisfy enum value set: [DAY, WEEK, MONTH]"},
		{"quota=bad-period-before-name", `{"quota":{"limit":1,"period":"YEAR"}}`, 400, "ValidationException", ""},
		{"quota=no-period", `{"name":"p","quota":{"limit":1}}`, 400, "BadRequestException", ""},
		{"quota=negative", `{"name":"p","quota":{"limit":-1,"period":"DAY"}}`, 400, "BadRequestException", ""},
		{"throttle=fraction-burst", `{"name":"p","throttle":{"burstLimit":1.5}}`, 400, "SerializationException", ""},
		{"throttle=string-rate", `{"name":"p","throttle":{"rateLimit":"fast"}}`, 400, "SerializationException", ""},
		{"json=malformed", `{"name":"p"`, 400, "BadRequestException", ""},
		{"json=array", `[]`, 400, "BadRequestException", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := keysDo(t, srv, "POST", "/usageplans", tc.body)
			if r.status != tc.status || r.code != tc.code || (tc.msg != "" && r.message() != tc.msg) {
				t.Fatalf("got %d %s %s, want %d %s %q", r.status, r.code, r.body, tc.status, tc.code, tc.msg)
			}
		})
	}
}

func TestUsagePlanKeys(t *testing.T) {
	srv, c, _ := keysStart(t)
	ctx := context.Background()
	plan := func(name string, stages ...string) string {
		t.Helper()
		in := &apigateway.CreateUsagePlanInput{Name: aws.String(name)}
		for _, s := range stages {
			api, stage, _ := strings.Cut(s, ":")
			in.ApiStages = append(in.ApiStages, types.ApiStage{ApiId: aws.String(api), Stage: aws.String(stage)})
		}
		p, err := c.CreateUsagePlan(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(p.Id)
	}
	key := func(name string) *apigateway.CreateApiKeyOutput {
		t.Helper()
		k, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	gold := plan("gold", "keysapi001:prod")
	silver := plan("silver", "keysapi001:prod")
	other := plan("other", "keysapi002:prod")
	k1, k2, k3 := key("client-one"), key("client-two"), key("partner")

	r := keysDo(t, srv, "POST", "/usageplans/"+gold+"/keys", `{"keyId":"`+aws.ToString(k1.Id)+`","keyType":"API_KEY"}`)
	if r.status != 201 || keysMembers(r.json) != "id,name,type,value" || r.json["id"] != aws.ToString(k1.Id) ||
		r.json["name"] != "client-one" || r.json["type"] != "API_KEY" || r.json["value"] != aws.ToString(k1.Value) {
		t.Fatalf("link: %d %s", r.status, r.body)
	}
	for _, k := range []*apigateway.CreateApiKeyOutput{k2, k3} {
		if _, err := c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: aws.String(gold), KeyId: k.Id,
			KeyType: aws.String("API_KEY")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: aws.String(other), KeyId: k1.Id,
		KeyType: aws.String("API_KEY")}); err != nil {
		t.Fatalf("a key in two plans over different stages: %v", err)
	}

	t.Run("get", func(t *testing.T) {
		k, err := c.GetUsagePlanKey(ctx, &apigateway.GetUsagePlanKeyInput{UsagePlanId: aws.String(gold), KeyId: k2.Id})
		if err != nil || aws.ToString(k.Name) != "client-two" || aws.ToString(k.Value) != aws.ToString(k2.Value) || aws.ToString(k.Type) != "API_KEY" {
			t.Fatalf("%v %+v", err, k)
		}
		_, err = c.GetUsagePlanKey(ctx, &apigateway.GetUsagePlanKeyInput{UsagePlanId: aws.String(silver), KeyId: k2.Id})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Usage Plan ID specified")
		_, err = c.GetUsagePlanKey(ctx, &apigateway.GetUsagePlanKeyInput{UsagePlanId: aws.String(gold), KeyId: aws.String("nope")})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid API Key identifier specified")
	})
	for _, lc := range []struct {
		name, plan, query string
		want              []string
	}{
		{"list=all", gold, "", []string{"client-one", "client-two", "partner"}},
		{"list=name-prefix", gold, "?name=client", []string{"client-one", "client-two"}},
		{"list=name-case-sensitive", gold, "?name=Client", nil},
		{"list=unknown-plan", "bad-id", "", nil},
	} {
		t.Run(lc.name, func(t *testing.T) {
			r := keysDo(t, srv, "GET", "/usageplans/"+lc.plan+"/keys"+lc.query, "")
			items, ok := r.json["item"].([]any)
			var names []string
			for _, it := range items {
				m := it.(map[string]any)
				if m["value"] == nil || m["type"] != "API_KEY" {
					t.Fatalf("item %v", m)
				}
				names = append(names, m["name"].(string))
			}
			slices.Sort(names)
			if r.status != 200 || !ok || !slices.Equal(names, lc.want) {
				t.Fatalf("%d %s: got %v, want %v", r.status, r.body, names, lc.want)
			}
		})
	}
	t.Run("list=paged", func(t *testing.T) {
		p1, err := c.GetUsagePlanKeys(ctx, &apigateway.GetUsagePlanKeysInput{UsagePlanId: aws.String(gold), Limit: aws.Int32(2)})
		if err != nil || len(p1.Items) != 2 || p1.Position == nil {
			t.Fatalf("%v %+v", err, p1)
		}
		p2, err := c.GetUsagePlanKeys(ctx, &apigateway.GetUsagePlanKeysInput{UsagePlanId: aws.String(gold), Limit: aws.Int32(2), Position: p1.Position})
		if err != nil || len(p2.Items) != 1 || p2.Position != nil {
			t.Fatalf("%v %+v", err, p2)
		}
	})
	t.Run("plans-of-key", func(t *testing.T) {
		out, err := c.GetUsagePlans(ctx, &apigateway.GetUsagePlansInput{KeyId: k1.Id})
		var ids []string
		for _, p := range out.Items {
			ids = append(ids, aws.ToString(p.Id))
		}
		slices.Sort(ids)
		want := []string{gold, other}
		slices.Sort(want)
		if err != nil || !slices.Equal(ids, want) {
			t.Fatalf("%v %v, want %v", err, ids, want)
		}
	})

	for _, tc := range []struct {
		name, plan, body string
		status           int
		code, msg        string
	}{
		{"plan=unknown", "nope", `{"keyId":"` + aws.ToString(k1.Id) + `","keyType":"API_KEY"}`, 404, "NotFoundException", "Invalid Usage Plan ID specified"},
		{"key=unknown", silver, `{"keyId":"nope","keyType":"API_KEY"}`, 404, "NotFoundException", "Invalid API Key identifier specified"},
		{"key=linked", gold, `{"keyId":"` + aws.ToString(k1.Id) + `","keyType":"API_KEY"}`, 409, "ConflictException", ""},
		{"key=same-stage-other-plan", silver, `{"keyId":"` + aws.ToString(k2.Id) + `","keyType":"API_KEY"}`, 409, "ConflictException",
			"Usage Plan " + silver + " cannot be added because API Key " + aws.ToString(k2.Id) +
				" cannot reference multiple Usage Plans with the same API Stage: keysapi001:prod"},
		{"type=other", silver, `{"keyId":"` + aws.ToString(k2.Id) + `","keyType":"COGNITO"}`, 400, "BadRequestException", ""},
		{"json=wrong-type", silver, `{"keyId":5}`, 400, "SerializationException", ""},
	} {
		t.Run("link/"+tc.name, func(t *testing.T) {
			r := keysDo(t, srv, "POST", "/usageplans/"+tc.plan+"/keys", tc.body)
			if r.status != tc.status || r.code != tc.code || (tc.msg != "" && r.message() != tc.msg) {
				t.Fatalf("got %d %s %s, want %d %s %q", r.status, r.code, r.body, tc.status, tc.code, tc.msg)
			}
		})
	}

	t.Run("unlink", func(t *testing.T) {
		r := keysDo(t, srv, "DELETE", "/usageplans/"+gold+"/keys/"+aws.ToString(k3.Id), "")
		if r.status != 202 || r.body != "" {
			t.Fatalf("%d %s", r.status, r.body)
		}
		_, err := c.GetUsagePlanKey(ctx, &apigateway.GetUsagePlanKeyInput{UsagePlanId: aws.String(gold), KeyId: k3.Id})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Usage Plan ID specified")
		_, err = c.DeleteUsagePlanKey(ctx, &apigateway.DeleteUsagePlanKeyInput{UsagePlanId: aws.String(gold), KeyId: k3.Id})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Usage Plan ID specified")
		// The key itself stays, and may now join silver.
		if _, err := c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: aws.String(silver), KeyId: k3.Id,
			KeyType: aws.String("API_KEY")}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("delete-key", func(t *testing.T) {
		if _, err := c.DeleteApiKey(ctx, &apigateway.DeleteApiKeyInput{ApiKey: k1.Id}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{gold, other} {
			out, err := c.GetUsagePlanKeys(ctx, &apigateway.GetUsagePlanKeysInput{UsagePlanId: aws.String(p)})
			if err != nil || slices.ContainsFunc(out.Items, func(k types.UsagePlanKey) bool { return aws.ToString(k.Id) == aws.ToString(k1.Id) }) {
				t.Fatalf("plan %s still lists the deleted key: %v %+v", p, err, out)
			}
		}
		out, err := c.GetUsagePlans(ctx, &apigateway.GetUsagePlansInput{KeyId: k1.Id})
		if err != nil || len(out.Items) != 0 {
			t.Fatalf("%v %+v", err, out)
		}
	})
}

func TestUsage(t *testing.T) {
	today := time.Date(2024, 5, 15, 10, 0, 0, 0, time.UTC)
	srv, c, _ := keysStart(t, servertest.WithConfig(func(c *config.Config) { c.FixedTime = today }))
	ctx := context.Background()
	p, err := c.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("metered"),
		Quota: &types.QuotaSettings{Limit: 100, Period: types.QuotaPeriodTypeMonth}})
	if err != nil {
		t.Fatal(err)
	}
	k, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("metered-key")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: p.Id, KeyId: k.Id, KeyType: aws.String("API_KEY")}); err != nil {
		t.Fatal(err)
	}
	start, end := "2024-05-13", "2024-05-15"

	r := keysDo(t, srv, "GET", "/usageplans/"+aws.ToString(p.Id)+"/usage?startDate="+start+"&endDate="+end, "")
	if want := `{"usagePlanId":"` + aws.ToString(p.Id) + `","startDate":"` + start + `","endDate":"` + end +
		`","values":{"` + aws.ToString(k.Id) + `":[[0,100],[0,100],[0,100]]}}`; r.status != 200 || r.body != want {
		t.Fatalf("got %d %s, want %s", r.status, r.body, want)
	}

	out, err := c.UpdateUsage(ctx, &apigateway.UpdateUsageInput{UsagePlanId: p.Id, KeyId: k.Id,
		PatchOperations: []types.PatchOperation{keysOp(types.OpReplace, "/remaining", "150")}})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.StartDate) != "2024-05-01" || aws.ToString(out.EndDate) != "2024-05-31" ||
		fmt.Sprint(out.Items[aws.ToString(k.Id)]) != "[[0 150]]" {
		t.Fatalf("update usage: %+v", out)
	}
	u, err := c.GetUsage(ctx, &apigateway.GetUsageInput{UsagePlanId: p.Id, StartDate: aws.String(end), EndDate: aws.String(end), KeyId: k.Id})
	if err != nil || fmt.Sprint(u.Items[aws.ToString(k.Id)]) != "[[0 150]]" {
		t.Fatalf("usage after the grant: %v %+v", err, u)
	}

	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"get/plan=unknown", "GET", "/usageplans/nope/usage?startDate=" + end + "&endDate=" + end, "", 404, "NotFoundException"},
		{"get/start=missing", "GET", "/usageplans/" + aws.ToString(p.Id) + "/usage?endDate=" + end, "", 400, "BadRequestException"},
		{"get/start=malformed", "GET", "/usageplans/" + aws.ToString(p.Id) + "/usage?startDate=2024-13-01&endDate=" + end, "", 400, "BadRequestException"},
		{"get/range=reversed", "GET", "/usageplans/" + aws.ToString(p.Id) + "/usage?startDate=" + end + "&endDate=" + start, "", 400, "BadRequestException"},
		{"get/range=huge", "GET", "/usageplans/" + aws.ToString(p.Id) + "/usage?startDate=0001-01-01&endDate=9999-12-31", "", 400, "BadRequestException"},
		{"get/limit=bad", "GET", "/usageplans/" + aws.ToString(p.Id) + "/usage?startDate=" + end + "&endDate=" + end + "&limit=0", "", 400, "BadRequestException"},
		{"update/key=unlinked", "PATCH", "/usageplans/" + aws.ToString(p.Id) + "/keys/nope/usage",
			`{"patchOperations":[{"op":"replace","path":"/remaining","value":"1"}]}`, 404, "NotFoundException"},
		{"update/path=bad", "PATCH", "/usageplans/" + aws.ToString(p.Id) + "/keys/" + aws.ToString(k.Id) + "/usage",
			`{"patchOperations":[{"op":"replace","path":"/used","value":"1"}]}`, 400, "BadRequestException"},
		{"update/op=enum", "PATCH", "/usageplans/" + aws.ToString(p.Id) + "/keys/" + aws.ToString(k.Id) + "/usage",
			`{"patchOperations":[{"op":"set","path":"/remaining","value":"1"}]}`, 400, "ValidationException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := keysDo(t, srv, tc.method, tc.path, tc.body)
			if r.status != tc.status || r.code != tc.code {
				t.Fatalf("got %d %s %s, want %d %s", r.status, r.code, r.body, tc.status, tc.code)
			}
		})
	}
}

// TestUsagePages: GetUsage pages through the plan's keys in id order
// (limit, position) and filters by keyId.
func TestUsagePages(t *testing.T) {
	srv, c, _ := keysStart(t)
	ctx := context.Background()
	p, err := c.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("paged"),
		Quota: &types.QuotaSettings{Limit: 10, Period: types.QuotaPeriodTypeWeek}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 3 {
		k, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String(fmt.Sprintf("k%d", i))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: p.Id, KeyId: k.Id, KeyType: aws.String("API_KEY")}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, aws.ToString(k.Id))
	}
	slices.Sort(ids)
	today := time.Now().UTC().Format("2006-01-02")
	var seen []string
	var pos *string
	for page := 0; ; page++ {
		u, err := c.GetUsage(ctx, &apigateway.GetUsageInput{UsagePlanId: p.Id, StartDate: &today, EndDate: &today,
			Limit: aws.Int32(2), Position: pos})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(u.UsagePlanId) != aws.ToString(p.Id) || aws.ToString(u.StartDate) != today || aws.ToString(u.EndDate) != today {
			t.Fatalf("page %d: %+v", page, u)
		}
		for id, days := range u.Items {
			if fmt.Sprint(days) != "[[0 10]]" {
				t.Fatalf("key %s: %v", id, days)
			}
			seen = append(seen, id)
		}
		if want := []int{2, 1}[min(page, 1)]; len(u.Items) != want {
			t.Fatalf("page %d has %d keys, want %d", page, len(u.Items), want)
		}
		if pos = u.Position; pos == nil {
			break
		}
	}
	slices.Sort(seen)
	if !slices.Equal(seen, ids) {
		t.Fatalf("pages hold %v, want %v", seen, ids)
	}
	u, err := c.GetUsage(ctx, &apigateway.GetUsageInput{UsagePlanId: p.Id, StartDate: &today, EndDate: &today, KeyId: &ids[1]})
	if err != nil || len(u.Items) != 1 || u.Items[ids[1]] == nil {
		t.Fatalf("keyId filter: %v %+v", err, u.Items)
	}
	// The wire name of the map is "values".
	r := keysDo(t, srv, "GET", "/usageplans/"+aws.ToString(p.Id)+"/usage?startDate="+today+"&endDate="+today+"&keyId="+ids[0], "")
	if want := `{"usagePlanId":"` + aws.ToString(p.Id) + `","startDate":"` + today + `","endDate":"` + today +
		`","values":{"` + ids[0] + `":[[0,10]]}}`; r.status != 200 || r.body != want {
		t.Fatalf("got %d %s, want %s", r.status, r.body, want)
	}
}

func TestKeysPersistence(t *testing.T) {
	srv, c, dir := keysStart(t)
	ctx := context.Background()
	k, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("kept"), Enabled: true,
		Value: aws.String("persisted-key-value-0001"), Tags: map[string]string{"a": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("kept-plan"),
		ApiStages: []types.ApiStage{{ApiId: aws.String("keysapi001"), Stage: aws.String("prod")},
			{ApiId: aws.String("keysapi002"), Stage: aws.String("prod")}},
		Throttle: &types.ThrottleSettings{BurstLimit: 7, RateLimit: 3.5}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: p.Id, KeyId: k.Id, KeyType: aws.String("API_KEY")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateApiKey(ctx, &apigateway.UpdateApiKeyInput{ApiKey: k.Id, PatchOperations: []types.PatchOperation{
		keysOp(types.OpReplace, "/description", "updated")}}); err != nil {
		t.Fatal(err)
	}
	gone, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("gone")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteApiKey(ctx, &apigateway.DeleteApiKeyInput{ApiKey: gone.Id}); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Emulator.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}

	srv = servertest.Start(t, servertest.WithPersistence(dir))
	c = client(srv, "us-east-1", "test")
	got, err := c.GetApiKey(ctx, &apigateway.GetApiKeyInput{ApiKey: k.Id, IncludeValue: aws.Bool(true)})
	if err != nil || aws.ToString(got.Value) != "persisted-key-value-0001" || aws.ToString(got.Description) != "updated" ||
		!got.Enabled || got.Tags["a"] != "1" {
		t.Fatalf("key: %v %+v", err, got)
	}
	if _, err := c.GetApiKey(ctx, &apigateway.GetApiKeyInput{ApiKey: gone.Id}); err == nil {
		t.Fatal("deleted key came back")
	}
	_, err = c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Value: aws.String("persisted-key-value-0001")})
	servertest.WantAPIError(t, err, "ConflictException", "API Key already exists")
	gp, err := c.GetUsagePlan(ctx, &apigateway.GetUsagePlanInput{UsagePlanId: p.Id})
	if err != nil || keysStages(gp.ApiStages) != "keysapi001:prod{} keysapi002:prod{}" || gp.Throttle.RateLimit != 3.5 {
		t.Fatalf("plan: %v %+v", err, gp)
	}
	keys, err := c.GetUsagePlanKeys(ctx, &apigateway.GetUsagePlanKeysInput{UsagePlanId: p.Id})
	if err != nil || len(keys.Items) != 1 || aws.ToString(keys.Items[0].Id) != aws.ToString(k.Id) {
		t.Fatalf("plan keys: %v %+v", err, keys)
	}
	// Usage is not persisted, but the restored link has its counters:
	// GetUsage starts from nothing and UpdateUsage finds the key.
	today := time.Now().UTC().Format("2006-01-02")
	u, err := c.GetUsage(ctx, &apigateway.GetUsageInput{UsagePlanId: p.Id, StartDate: &today, EndDate: &today})
	if err != nil || fmt.Sprint(u.Items) != "map["+aws.ToString(k.Id)+":[[0 0]]]" {
		t.Fatalf("usage after restart: %v %+v", err, u.Items)
	}
	// Deleting an API drops its stages from the plans that name them.
	if _, err := c.DeleteRestApi(ctx, &apigateway.DeleteRestApiInput{RestApiId: aws.String("keysapi001")}); err != nil {
		t.Fatal(err)
	}
	gp, err = c.GetUsagePlan(ctx, &apigateway.GetUsagePlanInput{UsagePlanId: p.Id})
	if err != nil || keysStages(gp.ApiStages) != "keysapi002:prod{}" {
		t.Fatalf("plan after DeleteRestApi: %v %+v", err, gp)
	}
}
