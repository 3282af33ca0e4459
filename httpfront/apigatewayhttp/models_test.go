package apigatewayhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// mdlReply is a raw HTTP answer.
type mdlReply struct {
	status int
	header http.Header
	body   []byte
}

// member decodes the body and returns one of its top-level members, and
// whether it is there.
func (r mdlReply) member(t *testing.T, name string) (any, bool) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	v, ok := m[name]
	return v, ok
}

// mdlRaw sends a request the SDK would refuse to send (or would reshape).
func mdlRaw(t *testing.T, srv *servertest.Server, method, path, body string) mdlReply {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return mdlReply{resp.StatusCode, resp.Header, b}
}

// mdlWantRaw fails unless r is the error code with exactly msg.
func mdlWantRaw(t *testing.T, r mdlReply, status int, code, msg string) {
	t.Helper()
	if r.status != status || r.header.Get("x-amzn-ErrorType") != code || !strings.Contains(string(r.body), msg) {
		t.Fatalf("want %d %s %q, got %d %s %s", status, code, msg, r.status, r.header.Get("x-amzn-ErrorType"), r.body)
	}
}

// mdlNewAPI creates a REST API and returns its id.
func mdlNewAPI(t *testing.T, c *apigateway.Client) string {
	t.Helper()
	out, err := c.CreateRestApi(context.Background(), &apigateway.CreateRestApiInput{Name: aws.String("models")})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Id)
}

var mdlShortID = regexp.MustCompile(`^[a-z0-9]{6}$`)

const mdlPetSchema = `{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}}}`

func TestModelLifecycle(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)
	out, err := c.CreateModel(ctx, &apigateway.CreateModelInput{RestApiId: &id, Name: aws.String("Pet"),
		ContentType: aws.String("application/json"), Schema: aws.String(mdlPetSchema), Description: aws.String("a pet")})
	if err != nil {
		t.Fatal(err)
	}
	if !mdlShortID.MatchString(aws.ToString(out.Id)) || aws.ToString(out.Name) != "Pet" ||
		aws.ToString(out.Schema) != mdlPetSchema || aws.ToString(out.Description) != "a pet" {
		t.Fatalf("create: %+v", out)
	}
	// An empty description is accepted and not echoed (B.7).
	r := mdlRaw(t, srv, "POST", "/restapis/"+id+"/models",
		`{"name":"NoDesc","contentType":"application/json","description":"","schema":"{\"type\":\"object\"}"}`)
	if r.status != 201 {
		t.Fatalf("create without description: %d %s", r.status, r.body)
	}
	if _, ok := r.member(t, "description"); ok {
		t.Fatalf("empty description echoed: %s", r.body)
	}

	got, err := c.GetModel(ctx, &apigateway.GetModelInput{RestApiId: &id, ModelName: aws.String("Pet")})
	if err != nil || aws.ToString(got.Id) != aws.ToString(out.Id) || aws.ToString(got.ContentType) != "application/json" {
		t.Fatalf("get: %v %+v", err, got)
	}
	tpl, err := c.GetModelTemplate(ctx, &apigateway.GetModelTemplateInput{RestApiId: &id, ModelName: aws.String("Pet")})
	if want := "#set($inputRoot = $input.path('$'))\n{\n  \"id\" : 42,\n  \"name\" : \"foo\"\n}"; err != nil || aws.ToString(tpl.Value) != want {
		t.Fatalf("template: %v %q", err, aws.ToString(tpl.Value))
	}

	upd, err := c.UpdateModel(ctx, &apigateway.UpdateModelInput{RestApiId: &id, ModelName: aws.String("Pet"),
		PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/description"), Value: aws.String("")},
			{Op: types.OpReplace, Path: aws.String("/schema"), Value: aws.String(`{"type":"array","items":{"type":"string"}}`)},
		}})
	if err != nil || upd.Description != nil || aws.ToString(upd.Schema) != `{"type":"array","items":{"type":"string"}}` {
		t.Fatalf("update: %v %+v", err, upd)
	}

	// Pages of one, in name order; the user's models only (DefaultModels is
	// CreateRestApi's to call).
	var names []string
	var pos *string
	for range 10 {
		page, err := c.GetModels(ctx, &apigateway.GetModelsInput{RestApiId: &id, Limit: aws.Int32(1), Position: pos})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Items {
			names = append(names, aws.ToString(m.Name))
		}
		if pos = page.Position; pos == nil {
			break
		}
	}
	if n := strings.Join(names, ","); !strings.HasSuffix(n, "NoDesc,Pet") {
		t.Fatalf("pages: %s", n)
	}

	if _, err := c.DeleteModel(ctx, &apigateway.DeleteModelInput{RestApiId: &id, ModelName: aws.String("Pet")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetModel(ctx, &apigateway.GetModelInput{RestApiId: &id, ModelName: aws.String("Pet")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid model name specified: Pet")
	_, err = c.DeleteModel(ctx, &apigateway.DeleteModelInput{RestApiId: &id, ModelName: aws.String("Pet")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid model name specified: Pet")
}

// TestModelDefaults needs DefaultModels wired into CreateRestApi's init:
// until then it skips.
func TestModelDefaults(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)
	out, err := c.GetModels(ctx, &apigateway.GetModelsInput{RestApiId: &id})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 2 || aws.ToString(out.Items[0].Name) != "Empty" || aws.ToString(out.Items[1].Name) != "Error" ||
		aws.ToString(out.Items[0].Description) != "This is a default empty schema model" ||
		aws.ToString(out.Items[1].Description) != "This is a default error schema model" {
		t.Fatalf("defaults: %+v", out.Items)
	}
	tpl, err := c.GetModelTemplate(ctx, &apigateway.GetModelTemplateInput{RestApiId: &id, ModelName: aws.String("Error")})
	if want := "#set($inputRoot = $input.path('$'))\n{\n  \"message\" : \"foo\"\n}"; err != nil || aws.ToString(tpl.Value) != want {
		t.Fatalf("template: %v %q", err, aws.ToString(tpl.Value))
	}
}

func TestModelErrors(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)
	if _, err := c.CreateModel(ctx, &apigateway.CreateModelInput{RestApiId: &id, Name: aws.String("MySchema"),
		ContentType: aws.String("application/json"), Schema: aws.String(mdlPetSchema)}); err != nil {
		t.Fatal(err)
	}
	const emptySchema = "Model schema must have at least 1 property or array items defined"
	create := func(name, ct, schema string) *apigateway.CreateModelInput {
		in := &apigateway.CreateModelInput{RestApiId: &id, Name: aws.String(name), ContentType: aws.String(ct)}
		if schema != "-" {
			in.Schema = aws.String(schema)
		}
		return in
	}
	for _, tc := range []struct {
		name      string
		in        *apigateway.CreateModelInput
		code, msg string
	}{
		{"MD-05", &apigateway.CreateModelInput{RestApiId: aws.String("abcde0"), Name: aws.String("MySchema"),
			ContentType: aws.String("application/json"), Schema: aws.String(mdlPetSchema)},
			"NotFoundException", "Invalid API identifier specified " + account + ":abcde0"},
		{"MD-09", create("MySchema", "application/json", mdlPetSchema), "ConflictException", "Model name already exists for this REST API"},
		{"MD-10", create("", "application/json", mdlPetSchema), "BadRequestException", "Model name must be non-empty"},
		{"MD-11", create("MyEmptySchema", "application/json", ""), "BadRequestException", emptySchema},
		{"MD-12", create("NoSchema", "application/json", "-"), "BadRequestException", emptySchema},
		{"MD-13", create("NoSchema", "application/xml", "-"), "BadRequestException", emptySchema},
		{"empty-object", create("EmptyObject", "application/json", "{}"), "BadRequestException", emptySchema},
		{"not-alphanumeric", create("body_1", "application/json", mdlPetSchema), "BadRequestException", "Model name must be alphanumeric: body_1"},
		{"json-not-json", create("Bad", "application/json", "{nope"), "BadRequestException",
			"Invalid model specified: Validation Result: warnings : [], errors : [Invalid model schema specified]"},
		{"missing-ref", create("Ref", "application/json",
			`{"properties":{"a":{"$ref":"https://apigateway.amazonaws.com/restapis/`+id+`/models/Nope"}}}`), "BadRequestException",
			"Invalid model specified: Validation Result: warnings : [], errors : [Invalid model specified: Nope]"},
		{"bad-content-type", create("Ct", "123", mdlPetSchema), "BadRequestException", "Invalid content type specified: 123"},
		{"nested-too-deep", create("Deep", "application/json", strings.Repeat(`{"a":`, 100000)), "BadRequestException",
			"Invalid model specified: Validation Result: warnings : [], errors : [Invalid model schema specified]"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			_, err := c.CreateModel(ctx, tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	t.Run("case=xml-not-json", func(t *testing.T) {
		if _, err := c.CreateModel(ctx, create("Xml", "application/xml", "<pet/>")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("case=ref-to-existing", func(t *testing.T) {
		if _, err := c.CreateModel(ctx, create("Pets", "application/json",
			`{"type":"array","items":{"$ref":"https://apigateway.amazonaws.com/restapis/`+id+`/models/MySchema"}}`)); err != nil {
			t.Fatal(err)
		}
		got, err := c.GetModel(ctx, &apigateway.GetModelInput{RestApiId: &id, ModelName: aws.String("Pets"), Flatten: true})
		if want := `{"type":"array","items":` + mdlPetSchema + `}`; err != nil || aws.ToString(got.Schema) != want {
			t.Fatalf("flatten: %v %s", err, aws.ToString(got.Schema))
		}
	})

	// Requests the SDK would not send.
	for _, tc := range []struct{ name, body, code, msg string }{
		{"null-members", `{"schema":"{}"}`, "ValidationException",
			"2 validation errors detected: Value null at 'createModelInput.name' failed to satisfy constraint: Member must not be null; Value null at 'createModelInput.contentType' failed to satisfy constraint: Member must not be null"},
		{"wrong-type", `{"name":1,"contentType":"application/json"}`, "SerializationException", ""},
		{"malformed", `{"name":`, "BadRequestException", ""},
	} {
		t.Run("raw="+tc.name, func(t *testing.T) {
			r := mdlRaw(t, srv, "POST", "/restapis/"+id+"/models", tc.body)
			mdlWantRaw(t, r, 400, tc.code, tc.msg)
		})
	}

	// Not found, by operation (Part C).
	_, err := c.GetModels(ctx, &apigateway.GetModelsInput{RestApiId: aws.String("abcde0")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+account+":abcde0") // MD-06
	_, err = c.GetModel(ctx, &apigateway.GetModelInput{RestApiId: aws.String("abcde0"), ModelName: aws.String("MySchema")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid model name specified: MySchema") // MD-07
	_, err = c.DeleteModel(ctx, &apigateway.DeleteModelInput{RestApiId: aws.String("abcde0"), ModelName: aws.String("MySchema")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid model name specified: MySchema") // MD-08
	_, err = c.GetModelTemplate(ctx, &apigateway.GetModelTemplateInput{RestApiId: aws.String("abcde0"), ModelName: aws.String("MySchema")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid model name specified: MySchema")

	// UpdateModel (MD-14..17).
	upd := func(api string, ops ...types.PatchOperation) error {
		_, err := c.UpdateModel(ctx, &apigateway.UpdateModelInput{RestApiId: &api, ModelName: aws.String("MySchema"), PatchOperations: ops})
		return err
	}
	op := func(o types.Op, path, value string) types.PatchOperation {
		return types.PatchOperation{Op: o, Path: aws.String(path), Value: aws.String(value)}
	}
	servertest.WantAPIError(t, upd("abcde0", op(types.OpReplace, "/description", "x")), "NotFoundException", "Invalid model name specified: MySchema")
	servertest.WantAPIError(t, upd(id, op(types.OpAdd, "/wrong-path", "not supported op")), "BadRequestException",
		"Invalid patch path  '/wrong-path' specified for op 'add'. Please choose supported operations")
	servertest.WantAPIError(t, upd(id, op(types.OpReplace, "/name", "invalid")), "BadRequestException",
		"Invalid patch path  '/name' specified for op 'replace'. Must be one of: [/description, /schema]")
	servertest.WantAPIError(t, upd(id, op(types.OpReplace, "/schema", "")), "BadRequestException", emptySchema)
	servertest.WantAPIError(t, upd(id, op("wrong", "/schema", "")), "ValidationException",
		"1 validation error detected: Value 'wrong' at 'updateModelInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]")
	// A failed update changes nothing.
	got, err := c.GetModel(ctx, &apigateway.GetModelInput{RestApiId: &id, ModelName: aws.String("MySchema")})
	if err != nil || aws.ToString(got.Schema) != mdlPetSchema {
		t.Fatalf("after failed updates: %v %+v", err, got)
	}
	r := mdlRaw(t, srv, "GET", "/restapis/"+id+"/models?limit=0", "")
	if r.status != 400 {
		t.Fatalf("limit=0: %d %s", r.status, r.body)
	}
}
