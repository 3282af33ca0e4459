package apigatewayhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
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

	state "github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/server/servertest"
	"github.com/cloudemu/emulator/store"
)

// Usage plans name API stages, which other groups' operations create; the
// tests seed them in the store instead, as CreateDeployment leaves them,
// and start the emulator on it.

// keysAPIs are the seeded REST APIs and their stages.
var keysAPIs = map[string][]string{"keysapi001": {"dev", "prod"}, "keysapi002": {"prod"}}

// keysSeed writes keysAPIs into a new store in dir.
func keysSeed(t *testing.T, dir string) {
	t.Helper()
	st, err := store.OpenBolt(dir, store.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := func(id string, sub ...string) string {
		return store.Key(account, "us-east-1", "apigateway", "restapi", id, sub...)
	}
	enc := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var ops []store.Op
	seq := 0
	for id, stages := range keysAPIs {
		seq++
		root := state.Resource{ID: id[len(id)-4:] + "root", Path: "/"}
		api := state.API{ID: id, Name: id, RootResourceID: root.ID, APIKeySource: "HEADER",
			EndpointConfiguration: &state.EndpointConfiguration{Types: []string{"EDGE"}, IPAddressType: "ipv4"}}
		ops = append(ops,
			store.Put(key(id), enc(map[string]any{"api": api, "seq": seq})),
			store.Put(key(id, "resource", root.ID), enc(root)))
		for _, s := range stages {
			ops = append(ops, store.Put(key(id, "stage", s), enc(state.Stage{StageName: s, DeploymentID: "dep001",
				MethodSettings: map[string]*state.MethodSetting{}})))
		}
	}
	if err := st.Apply(st.Epoch(), ops...); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// keysStart starts an emulator on a store seeded with keysAPIs.
func keysStart(t *testing.T, opts ...servertest.Option) (*servertest.Server, *apigateway.Client, string) {
	t.Helper()
	dir := t.TempDir()
	keysSeed(t, dir)
	srv := servertest.Start(t, append(opts, servertest.WithPersistence(dir))...)
	return srv, client(srv, "us-east-1", "test"), dir
}

// keysReply is a raw HTTP answer.
type keysReply struct {
	status int
	code   string
	body   string
	json   map[string]any
}

// message is the error message: "message" for API Gateway's own errors,
// "Message" for ValidationException and SerializationException.
func (r keysReply) message() string {
	if m, ok := r.json["message"].(string); ok {
		return m
	}
	m, _ := r.json["Message"].(string)
	return m
}

// keysDo sends a raw request, for what the SDK will not send and for the
// exact members of a reply.
func keysDo(t *testing.T, srv *servertest.Server, method, path, body string) keysReply {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := keysReply{status: resp.StatusCode, code: resp.Header.Get("x-amzn-ErrorType"), body: string(b)}
	if len(b) > 0 && b[0] == '{' {
		if err := json.Unmarshal(b, &r.json); err != nil {
			t.Fatalf("%s %s: not JSON: %s", method, path, b)
		}
	}
	return r
}

// keysMembers lists an object's member names, sorted.
func keysMembers(m map[string]any) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

var keysValueRe = regexp.MustCompile(`^[A-Za-z0-9]{40}$`)

func TestAPIKeyLifecycle(t *testing.T) {
	srv, c, _ := keysStart(t)
	ctx := context.Background()

	// Defaults: disabled, a generated 40-character value, no description
	// or tags members.
	r := keysDo(t, srv, "POST", "/apikeys", `{"name":"alpha"}`)
	if r.status != 201 || keysMembers(r.json) != "createdDate,enabled,id,lastUpdatedDate,name,stageKeys,value" ||
		r.json["enabled"] != false || !keysValueRe.MatchString(r.json["value"].(string)) ||
		fmt.Sprint(r.json["stageKeys"]) != "[]" {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	alphaID, alphaValue := r.json["id"].(string), r.json["value"].(string)
	if !regexp.MustCompile(`^[a-z0-9]{10}$`).MatchString(alphaID) {
		t.Fatalf("id %q", alphaID)
	}

	value := "abcdefghij0123456789ABCDEFGHIJ"
	beta, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{
		Name: aws.String("beta"), Description: aws.String("second"), Enabled: true, Value: aws.String(value),
		CustomerId: aws.String("cust-1"), Tags: map[string]string{"team": "x"},
		StageKeys: []types.StageKey{{RestApiId: aws.String("keysapi001"), StageName: aws.String("prod")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(beta.Value) != value || !beta.Enabled || aws.ToString(beta.CustomerId) != "cust-1" ||
		beta.Tags["team"] != "x" || !slices.Equal(beta.StageKeys, []string{"keysapi001/prod"}) ||
		beta.CreatedDate == nil || time.Since(*beta.CreatedDate) > time.Minute {
		t.Fatalf("create beta: %+v", beta)
	}
	if _, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("Gamma")}); err != nil {
		t.Fatal(err)
	}

	t.Run("get=no-value", func(t *testing.T) {
		r := keysDo(t, srv, "GET", "/apikeys/"+alphaID, "")
		if r.status != 200 || keysMembers(r.json) != "createdDate,enabled,id,lastUpdatedDate,name,stageKeys,tags" ||
			fmt.Sprint(r.json["tags"]) != "map[]" {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("get=include-value", func(t *testing.T) {
		k, err := c.GetApiKey(ctx, &apigateway.GetApiKeyInput{ApiKey: beta.Id, IncludeValue: aws.Bool(true)})
		if err != nil || aws.ToString(k.Value) != value || aws.ToString(k.Description) != "second" {
			t.Fatalf("%v %+v", err, k)
		}
	})
	for _, lc := range []struct {
		name  string
		query string
		want  []string
	}{
		{"list=all", "", []string{"Gamma", "alpha", "beta"}},
		{"list=name-prefix", "?name=al", []string{"alpha"}},
		{"list=name-case-sensitive", "?name=Al", nil},
		{"list=name-infix", "?name=lph", nil},
		{"list=customer", "?customerId=cust-1", []string{"beta"}},
	} {
		t.Run(lc.name, func(t *testing.T) {
			r := keysDo(t, srv, "GET", "/apikeys"+lc.query, "")
			items, _ := r.json["item"].([]any)
			var names []string
			for _, it := range items {
				m := it.(map[string]any)
				if _, ok := m["value"]; ok {
					t.Fatalf("value listed without includeValues: %s", r.body)
				}
				names = append(names, m["name"].(string))
			}
			slices.Sort(names)
			if r.status != 200 || !slices.Equal(names, lc.want) {
				t.Fatalf("%d %s: got %v, want %v", r.status, r.body, names, lc.want)
			}
		})
	}
	t.Run("list=paged", func(t *testing.T) {
		var seen []string
		var pos *string
		for i := 0; ; i++ {
			out, err := c.GetApiKeys(ctx, &apigateway.GetApiKeysInput{Limit: aws.Int32(2), Position: pos, IncludeValues: aws.Bool(true)})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range out.Items {
				if aws.ToString(k.Value) == "" {
					t.Fatalf("includeValues: no value in %+v", k)
				}
				seen = append(seen, aws.ToString(k.Name))
			}
			if out.Position == nil {
				break
			}
			if i > 3 || len(out.Items) != 2 {
				t.Fatalf("page %d: %+v", i, out)
			}
			pos = out.Position
		}
		slices.Sort(seen)
		if !slices.Equal(seen, []string{"Gamma", "alpha", "beta"}) {
			t.Fatalf("pages gave %v", seen)
		}
	})

	t.Run("update", func(t *testing.T) {
		out, err := c.UpdateApiKey(ctx, &apigateway.UpdateApiKeyInput{ApiKey: aws.String(alphaID), PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/name"), Value: aws.String("alpha-2")},
			{Op: types.OpReplace, Path: aws.String("/description"), Value: aws.String("desc")},
			{Op: types.OpReplace, Path: aws.String("/enabled"), Value: aws.String("true")},
			{Op: types.OpReplace, Path: aws.String("/customerId"), Value: aws.String("cust-2")},
			{Op: types.OpAdd, Path: aws.String("/stageKeys"), Value: aws.String("keysapi001/dev")},
			{Op: types.OpAdd, Path: aws.String("/stageKeys"), Value: aws.String("keysapi002/prod")},
			{Op: types.OpRemove, Path: aws.String("/stageKeys"), Value: aws.String("keysapi001/dev")},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(out.Name) != "alpha-2" || !out.Enabled || aws.ToString(out.CustomerId) != "cust-2" ||
			!slices.Equal(out.StageKeys, []string{"keysapi002/prod"}) || aws.ToString(out.Value) != "" {
			t.Fatalf("%+v", out)
		}
		// The reply has "tags" even without tags, and no value.
		r := keysDo(t, srv, "PATCH", "/apikeys/"+alphaID,
			`{"patchOperations":[{"op":"replace","path":"/enabled","value":"false"}]}`)
		if r.status != 200 || r.json["enabled"] != false || fmt.Sprint(r.json["tags"]) != "map[]" || r.json["value"] != nil {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if _, err := c.DeleteApiKey(ctx, &apigateway.DeleteApiKeyInput{ApiKey: aws.String(alphaID)}); err != nil {
			t.Fatal(err)
		}
		_, err := c.GetApiKey(ctx, &apigateway.GetApiKeyInput{ApiKey: aws.String(alphaID)})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid API Key identifier specified")
		// The value of a deleted key is free again; a live key's is not.
		if _, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Value: aws.String(alphaValue)}); err != nil {
			t.Fatalf("freed value: %v", err)
		}
		_, err = c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Value: beta.Value})
		servertest.WantAPIError(t, err, "ConflictException", "API Key already exists")
	})
}

func TestAPIKeyErrors(t *testing.T) {
	srv, c, _ := keysStart(t)
	ctx := context.Background()
	k, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("k"), Value: aws.String(strings.Repeat("v", 20))})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(k.Id)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code, msg                string
	}{
		{"create/value=short", "POST", "/apikeys", `{"value":"` + strings.Repeat("a", 19) + `"}`, 400,
			"BadRequestException", "API Key value should be at least 20 characters"},
		{"create/value=empty", "POST", "/apikeys", `{"value":""}`, 400,
			"BadRequestException", "API Key value should be at least 20 characters"},
		{"create/value=long", "POST", "/apikeys", `{"value":"` + strings.Repeat("a", 129) + `"}`, 400,
			"BadRequestException", "API Key value exceeds maximum size of 128 characters"},
		{"create/value=taken", "POST", "/apikeys", `{"value":"` + strings.Repeat("v", 20) + `"}`, 409,
			"ConflictException", "API Key already exists"},
		{"create/stage-key=no-api", "POST", "/apikeys", `{"stageKeys":[{"restApiId":"nope","stageName":"prod"}]}`, 404,
			"NotFoundException", "Invalid API identifier specified " + account + ":nope"},
		{"create/stage-key=no-stage", "POST", "/apikeys", `{"stageKeys":[{"restApiId":"keysapi002","stageName":"dev"}]}`, 404,
			"NotFoundException", "Invalid stage identifier specified"},
		{"create/tags=aws", "POST", "/apikeys", `{"tags":{"aws:x":"1"}}`, 400, "BadRequestException", ""},
		{"create/json=malformed", "POST", "/apikeys", `{"name":`, 400, "BadRequestException", ""},
		{"create/json=wrong-type", "POST", "/apikeys", `{"enabled":"yes"}`, 400, "SerializationException", ""},
		{"get/id=unknown", "GET", "/apikeys/nope", "", 404, "NotFoundException", "Invalid API Key identifier specified"},
		{"update/id=unknown", "PATCH", "/apikeys/nope", `{"patchOperations":[{"op":"replace","path":"/name","value":"x"}]}`, 404,
			"NotFoundException", "Invalid API Key identifier specified"},
		{"update/path=value", "PATCH", "/apikeys/" + id, `{"patchOperations":[{"op":"replace","path":"/value","value":"x"}]}`, 400,
			"BadRequestException", "Invalid patch path /value"},
		{"update/op=remove-name", "PATCH", "/apikeys/" + id, `{"patchOperations":[{"op":"remove","path":"/name"}]}`, 400,
			"BadRequestException", "Invalid patch operation specified. Must be one of: [replace]"},
		{"update/op=enum", "PATCH", "/apikeys/" + id, `{"patchOperations":[{"op":"drop","path":"/name"}]}`, 400,
			"ValidationException", "1 validation error detected: Value 'drop' at 'updateApiKeyInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]"},
		{"update/stage-key=malformed", "PATCH", "/apikeys/" + id, `{"patchOperations":[{"op":"add","path":"/stageKeys","value":"nostage"}]}`, 400,
			"BadRequestException", ""},
		{"update/stage-key=no-stage", "PATCH", "/apikeys/" + id, `{"patchOperations":[{"op":"add","path":"/stageKeys","value":"keysapi002/dev"}]}`, 404,
			"NotFoundException", "Invalid stage identifier specified"},
		{"delete/id=unknown", "DELETE", "/apikeys/nope", "", 404, "NotFoundException", "Invalid API Key identifier specified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := keysDo(t, srv, tc.method, tc.path, tc.body)
			if r.status != tc.status || r.code != tc.code || (tc.msg != "" && r.message() != tc.msg) {
				t.Fatalf("got %d %s %s, want %d %s %q", r.status, r.code, r.body, tc.status, tc.code, tc.msg)
			}
		})
	}
	// A failed update changes nothing.
	got, err := c.GetApiKey(ctx, &apigateway.GetApiKeyInput{ApiKey: k.Id})
	if err != nil || aws.ToString(got.Name) != "k" || len(got.StageKeys) != 0 {
		t.Fatalf("after failed updates: %v %+v", err, got)
	}
}
