package oasrest_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/oasrest"
)

// TestExportRoundTrip: what Export writes, Parse reads back the same, for
// both document types in both encodings.
func TestExportRoundTrip(t *testing.T) {
	doc := `openapi: 3.0.1
info: {title: round, version: "2"}
x-amazon-apigateway-request-validators:
  body: {validateRequestBody: true, validateRequestParameters: false}
paths:
  /a/{id}:
    x-amazon-apigateway-any-method:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}, {name: q, in: query, schema: {type: string}}]
      x-amazon-apigateway-request-validator: body
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/M"}}}}
      responses:
        "200": {description: ok, headers: {X-A: {schema: {type: string}}}, content: {application/json: {schema: {$ref: "#/components/schemas/M"}}}}
      x-amazon-apigateway-integration:
        type: http_proxy
        httpMethod: ANY
        uri: https://example.com/{id}
        requestParameters: {integration.request.path.id: method.request.path.id}
        responses: {default: {statusCode: "200"}, "4\\d{2}": {statusCode: "400"}}
components:
  schemas:
    M: {type: object, properties: {next: {$ref: "#/components/schemas/M"}}}
`
	in, err := oasrest.Parse([]byte(doc), oasrest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, swagger := range []bool{false, true} {
		for _, yaml := range []bool{false, true} {
			out, err := oasrest.Export(in, oasrest.ExportOptions{Swagger: swagger, YAML: yaml, APIGateway: true, Host: "x.execute-api.r.amazonaws.com", Stage: "s"})
			if err != nil {
				t.Fatal(err)
			}
			if yaml == strings.HasPrefix(string(out), "{") {
				t.Fatalf("swagger=%v yaml=%v:\n%s", swagger, yaml, out)
			}
			back, err := oasrest.Parse(out, oasrest.Options{})
			if err != nil {
				t.Fatalf("swagger=%v yaml=%v: %v\n%s", swagger, yaml, err, out)
			}
			if !reflect.DeepEqual(back.Resources, in.Resources) || !reflect.DeepEqual(back.Models, in.Models) ||
				!reflect.DeepEqual(back.Validators, in.Validators) {
				t.Fatalf("swagger=%v yaml=%v:\n got %+v\nwant %+v\n%s", swagger, yaml, back.Resources, in.Resources, out)
			}
		}
	}
}
