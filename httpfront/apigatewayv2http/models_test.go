package apigatewayv2http_test

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/cloudemu/emulator/server/servertest"
)

const modelsPetSchema = `{"$schema":"http://json-schema.org/draft-04/schema#","title":"Pet","type":"object",` +
	`"properties":{"id":{"type":"integer"},"name":{"type":"string"},"tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}}}}}`

func TestModelsLifecycle(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := integrationsAPI(t, c, types.ProtocolTypeWebsocket)
	pet, err := c.CreateModel(ctx, &apigatewayv2.CreateModelInput{ApiId: &apiID, Name: aws.String("Pet"),
		Schema: aws.String(modelsPetSchema), ContentType: aws.String("application/json"), Description: aws.String("a pet")})
	if err != nil {
		t.Fatal(err)
	}
	petID := aws.ToString(pet.ModelId)
	if !regexp.MustCompile(`^[a-z0-9]{6}$`).MatchString(petID) {
		t.Fatalf("modelId %q", petID)
	}
	t.Run("get-wire", func(t *testing.T) {
		r := send(t, srv, "GET", "/v2/apis/"+apiID+"/models/"+petID, "")
		want := map[string]any{"contentType": "application/json", "description": "a pet", "modelId": petID, "name": "Pet",
			"schema": modelsPetSchema}
		if r.status != 200 || len(r.body) != len(want) {
			t.Fatalf("got %d %s", r.status, r.raw)
		}
		for k, v := range want {
			if r.body[k] != v {
				t.Fatalf("%s = %v, want %v (%s)", k, r.body[k], v, r.raw)
			}
		}
	})
	t.Run("template", func(t *testing.T) {
		out, err := c.GetModelTemplate(ctx, &apigatewayv2.GetModelTemplateInput{ApiId: &apiID, ModelId: &petID})
		if err != nil {
			t.Fatal(err)
		}
		want := "#set($inputRoot = $input.path('$'))\n{\n  \"id\" : 42,\n  \"name\" : \"foo\",\n  \"tags\" : [\n    {\n      \"k\" : \"foo\"\n    }\n  ]\n}"
		if aws.ToString(out.Value) != want {
			t.Fatalf("template\n%s\nwant\n%s", aws.ToString(out.Value), want)
		}
		r := send(t, srv, "GET", "/v2/apis/"+apiID+"/models/"+petID+"/template", "")
		if r.status != 200 || len(r.body) != 1 || r.body["value"] != want {
			t.Fatalf("raw template %d %s", r.status, r.raw)
		}
	})
	t.Run("template-follows-references", func(t *testing.T) {
		owner, err := c.CreateModel(ctx, &apigatewayv2.CreateModelInput{ApiId: &apiID, Name: aws.String("Owner"),
			Schema: aws.String(`{"type":"object","properties":{"pet":{"$ref":"https://apigateway.amazonaws.com/restapis/` + apiID +
				`/models/Pet"},"age":{"type":"number"}}}`)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.GetModelTemplate(ctx, &apigatewayv2.GetModelTemplateInput{ApiId: &apiID, ModelId: owner.ModelId})
		if err != nil {
			t.Fatal(err)
		}
		want := "#set($inputRoot = $input.path('$'))\n{\n  \"pet\" : {\n    \"id\" : 42,\n    \"name\" : \"foo\",\n    \"tags\" : [\n      {\n        \"k\" : \"foo\"\n      }\n    ]\n  },\n  \"age\" : 3.1415\n}"
		if aws.ToString(out.Value) != want {
			t.Fatalf("template\n%s\nwant\n%s", aws.ToString(out.Value), want)
		}
		if _, err := c.DeleteModel(ctx, &apigatewayv2.DeleteModelInput{ApiId: &apiID, ModelId: owner.ModelId}); err != nil {
			t.Fatal(err)
		}
	})
	errCases := []struct {
		name string
		in   apigatewayv2.CreateModelInput
		code string
		msg  string
	}{
		{"name=not-alphanumeric", apigatewayv2.CreateModelInput{Name: aws.String("my-model"), Schema: aws.String(`{}`)},
			"BadRequestException", "Model name must be alphanumeric: my-model"},
		{"name=duplicate", apigatewayv2.CreateModelInput{Name: aws.String("Pet"), Schema: aws.String(`{}`)},
			"ConflictException", "Model name already exists for this API"},
		{"schema=not-json", apigatewayv2.CreateModelInput{Name: aws.String("Bad"), Schema: aws.String(`{"type":`)},
			"BadRequestException", "Invalid model specified: Validation Result: warnings : [], errors : [Invalid model schema specified]"},
		{"schema=not-an-object", apigatewayv2.CreateModelInput{Name: aws.String("Bad"), Schema: aws.String(`[1]`),
			ContentType: aws.String("application/json")}, "BadRequestException", ""},
		{"schema=empty", apigatewayv2.CreateModelInput{Name: aws.String("Bad"), Schema: aws.String("")}, "BadRequestException", ""},
		{"content-type=bad", apigatewayv2.CreateModelInput{Name: aws.String("Bad"), Schema: aws.String(`{}`), ContentType: aws.String("json")},
			"BadRequestException", "Invalid content type specified: json"},
		{"api=unknown", apigatewayv2.CreateModelInput{ApiId: aws.String("nope"), Name: aws.String("X"), Schema: aws.String(`{}`)},
			"NotFoundException", "Invalid API identifier specified 000000000000:nope"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			if in.ApiId == nil {
				in.ApiId = &apiID
			}
			_, err := c.CreateModel(ctx, &in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	t.Run("text-schema-kept-as-text", func(t *testing.T) {
		m, err := c.CreateModel(ctx, &apigatewayv2.CreateModelInput{ApiId: &apiID, Name: aws.String("Text"),
			Schema: aws.String("any text"), ContentType: aws.String("text/plain")})
		if err != nil || aws.ToString(m.Schema) != "any text" {
			t.Fatalf("create = %v %+v", err, m)
		}
		_, err = c.GetModelTemplate(ctx, &apigatewayv2.GetModelTemplateInput{ApiId: &apiID, ModelId: m.ModelId})
		servertest.WantAPIError(t, err, "BadRequestException", "")
		if _, err := c.DeleteModel(ctx, &apigatewayv2.DeleteModelInput{ApiId: &apiID, ModelId: m.ModelId}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("missing-members", func(t *testing.T) {
		for _, body := range []string{`{"schema":"{}"}`, `{"name":"NoSchema"}`, `{"name":"","schema":"{}"}`} {
			r := send(t, srv, "POST", "/v2/apis/"+apiID+"/models", body)
			if r.status != 400 || r.code != "BadRequestException" {
				t.Fatalf("%s: got %d %s %s", body, r.status, r.code, r.raw)
			}
		}
	})
	t.Run("http-api-refused", func(t *testing.T) {
		httpAPI := integrationsAPI(t, c, types.ProtocolTypeHttp)
		_, err := c.CreateModel(ctx, &apigatewayv2.CreateModelInput{ApiId: &httpAPI, Name: aws.String("Pet"), Schema: aws.String(`{}`)})
		servertest.WantAPIError(t, err, "BadRequestException", "Models are not supported on protocolType HTTP")
	})
	t.Run("update", func(t *testing.T) {
		other, err := c.CreateModel(ctx, &apigatewayv2.CreateModelInput{ApiId: &apiID, Name: aws.String("Other"), Schema: aws.String(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.UpdateModel(ctx, &apigatewayv2.UpdateModelInput{ApiId: &apiID, ModelId: other.ModelId,
			Name: aws.String("Renamed"), Description: aws.String("d"), Schema: aws.String(`{"type":"string"}`)})
		if err != nil || aws.ToString(out.Name) != "Renamed" || aws.ToString(out.Description) != "d" ||
			aws.ToString(out.Schema) != `{"type":"string"}` {
			t.Fatalf("update = %v %+v", err, out)
		}
		_, err = c.UpdateModel(ctx, &apigatewayv2.UpdateModelInput{ApiId: &apiID, ModelId: other.ModelId, Name: aws.String("Pet")})
		servertest.WantAPIError(t, err, "ConflictException", "Model name already exists for this API")
		_, err = c.UpdateModel(ctx, &apigatewayv2.UpdateModelInput{ApiId: &apiID, ModelId: other.ModelId, Schema: aws.String("nope")})
		servertest.WantAPIError(t, err, "BadRequestException", "Invalid model specified: Validation Result: warnings : [], errors : [Invalid model schema specified]")
		_, err = c.UpdateModel(ctx, &apigatewayv2.UpdateModelInput{ApiId: &apiID, ModelId: aws.String("nope12"), Name: aws.String("X")})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Model identifier specified")
		got, err := c.GetModel(ctx, &apigatewayv2.GetModelInput{ApiId: &apiID, ModelId: other.ModelId})
		if err != nil || aws.ToString(got.Name) != "Renamed" || aws.ToString(got.Schema) != `{"type":"string"}` {
			t.Fatalf("a refused update changed the model: %v %+v", err, got)
		}
	})
	t.Run("list-in-creation-order", func(t *testing.T) {
		var names []string
		var token *string
		for {
			out, err := c.GetModels(ctx, &apigatewayv2.GetModelsInput{ApiId: &apiID, MaxResults: aws.String("1"), NextToken: token})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range out.Items {
				names = append(names, aws.ToString(m.Name))
			}
			if token = out.NextToken; token == nil {
				break
			}
		}
		if !slices.Equal(names, []string{"Pet", "Renamed"}) {
			t.Fatalf("listed %v", names)
		}
	})
	t.Run("delete-referenced-by-route", func(t *testing.T) {
		route, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &apiID, RouteKey: aws.String("sendmessage"),
			ModelSelectionExpression: aws.String("$request.body.action"), RequestModels: map[string]string{"sendmessage": "Pet"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.DeleteModel(ctx, &apigatewayv2.DeleteModelInput{ApiId: &apiID, ModelId: &petID})
		servertest.WantAPIError(t, err, "ConflictException", "Cannot delete model 'Pet', is referenced in route: sendmessage")
		if _, err := c.DeleteRoute(ctx, &apigatewayv2.DeleteRouteInput{ApiId: &apiID, RouteId: route.RouteId}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteModel(ctx, &apigatewayv2.DeleteModelInput{ApiId: &apiID, ModelId: &petID}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []func() error{
			func() error {
				_, err := c.GetModel(ctx, &apigatewayv2.GetModelInput{ApiId: &apiID, ModelId: &petID})
				return err
			},
			func() error {
				_, err := c.GetModelTemplate(ctx, &apigatewayv2.GetModelTemplateInput{ApiId: &apiID, ModelId: &petID})
				return err
			},
			func() error {
				_, err := c.DeleteModel(ctx, &apigatewayv2.DeleteModelInput{ApiId: &apiID, ModelId: &petID})
				return err
			},
		} {
			servertest.WantAPIError(t, f(), "NotFoundException", "Invalid Model identifier specified")
		}
	})
	t.Run("api=unknown", func(t *testing.T) {
		_, err := c.GetModels(ctx, &apigatewayv2.GetModelsInput{ApiId: aws.String("nope")})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified 000000000000:nope")
		_, err = c.GetModelTemplate(ctx, &apigatewayv2.GetModelTemplateInput{ApiId: aws.String("nope"), ModelId: &petID})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified 000000000000:nope")
	})
}
