package oasrest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/oasrest"
)

// FuzzParseExport: no document makes Parse panic or answer something other
// than an API or an *Error, and any document Parse accepts exports, in
// every form GetExport writes, to a document Parse reads again.
func FuzzParseExport(f *testing.F) {
	for _, doc := range []string{
		`openapi: 3.0.1
info: {title: round, version: "2"}
x-amazon-apigateway-request-validators:
  body: {validateRequestBody: true, validateRequestParameters: false}
x-amazon-apigateway-gateway-responses:
  DEFAULT_4XX: {statusCode: 400, responseTemplates: {application/json: '{"m": $context.error.messageString}'}}
x-amazon-apigateway-api-key-source: HEADER
x-amazon-apigateway-binary-media-types: [image/png]
paths:
  /a/{id}:
    x-amazon-apigateway-any-method:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}, {name: q, in: query, schema: {type: string}}]
      x-amazon-apigateway-request-validator: body
      security: [{key: []}]
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/M"}}}}
      responses:
        "200": {description: ok, headers: {X-A: {schema: {type: string}}}, content: {application/json: {schema: {$ref: "#/components/schemas/M"}}}}
      x-amazon-apigateway-integration:
        type: http_proxy
        httpMethod: ANY
        uri: https://example.com/{id}
        requestParameters: {integration.request.path.id: method.request.path.id}
        responses: {default: {statusCode: "200"}, "4\\d{2}": {statusCode: "400"}}
  /m:
    get:
      x-amazon-apigateway-integration:
        type: mock
        requestTemplates: {application/json: '{"statusCode": 200}'}
        responses: {default: {statusCode: "200", responseTemplates: {application/json: '{"a": "$input.params(''q'')"}'}}}
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    key: {type: apiKey, name: x-api-key, in: header}
    auth:
      type: apiKey
      name: Authorization
      in: header
      x-amazon-apigateway-authtype: custom
      x-amazon-apigateway-authorizer: {type: token, authorizerUri: "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:f/invocations", authorizerResultTtlInSeconds: 60}
  schemas:
    M: {type: object, properties: {next: {$ref: "#/components/schemas/M"}, inline: {type: object, properties: {x: {type: integer}}}}}
`,
		`{"swagger": "2.0", "info": {"title": "b", "version": "1"}, "basePath": "/stage/api/",
 "paths": {"/p/{x}": {"post": {"parameters": [{"name": "x", "in": "path", "required": true, "type": "string"},
  {"in": "body", "name": "b", "schema": {"$ref": "#/definitions/B"}}], "responses": {"201": {"description": "c"}},
  "x-amazon-apigateway-integration": {"type": "aws_proxy", "httpMethod": "POST",
   "uri": "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:f/invocations"}}}},
 "definitions": {"B": {"type": "array", "items": {"type": "string"}}},
 "x-amazon-apigateway-policy": {"Version": "2012-10-17", "Statement": []}}`,
		`{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "servers": [{"url": "https://{h}/v1", "variables": {"h": {"default": "a"}}}], "paths": {"/": {"options": {}}}}`,
		`{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"$ref": "#/paths/~1a"}}}`,
		`swagger: "2.0"
info: {title: s, version: "1"}
paths: {"/{proxy+}": {x-amazon-apigateway-any-method: {parameters: [{name: proxy, in: path, required: true, type: string}]}}}
`,
	} {
		f.Add([]byte(doc), uint8(0))
	}
	f.Fuzz(func(t *testing.T, doc []byte, how uint8) {
		base := []string{"", "ignore", "prepend", "split"}[how%4]
		api, err := oasrest.Parse(doc, oasrest.Options{BasePath: base})
		if err != nil {
			var e *oasrest.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		for _, o := range []oasrest.ExportOptions{
			{APIGateway: true, Host: "x.execute-api.us-east-1.amazonaws.com", Stage: "s"},
			{Swagger: true, YAML: true, APIGateway: true, Host: "x.execute-api.us-east-1.amazonaws.com", Stage: "s"},
			{Swagger: how&4 != 0, YAML: how&8 != 0, Version: "v"},
		} {
			out, err := oasrest.Export(api, o)
			if err != nil {
				t.Fatalf("export %+v: %v", o, err)
			}
			if _, err := oasrest.Parse(out, oasrest.Options{}); err != nil {
				t.Fatalf("export %+v does not parse again: %v\n%s", o, err, out)
			}
		}
	})
}

// TestParseRefToNoModel: a schema that references something other than a
// model (the document, a path, a model's property) is refused, not read as
// a model of that name (found by FuzzParseExport).
func TestParseRefToNoModel(t *testing.T) {
	for _, doc := range []string{
		`{"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {"/": {"post": {"parameters": [{"in": "body", "name": "b", "schema": {"$ref": "#"}}], "responses": {}}}}}`,
		`{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {"/": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/M/properties/a"}}}}, "responses": {}}}},
		  "components": {"schemas": {"M": {"type": "object", "properties": {"a": {"type": "string"}}}}}}`,
		`{"openapi": "3.0.1", "info": {"title": "x", "version": "1"}, "paths": {},
		  "components": {"schemas": {"M": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/M/properties/b"}, "b": {"type": "string"}}}}}}`,
	} {
		_, err := oasrest.Parse([]byte(doc), oasrest.Options{})
		var e *oasrest.Error
		if !errors.As(err, &e) || !strings.HasPrefix(e.Message, "Errors found during import:") {
			t.Errorf("err = %v\n%s", err, doc)
		}
	}
	// A reference to a model, Swagger's or OpenAPI's, is that model.
	api, err := oasrest.Parse([]byte(`{"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {"/": {"post": {"parameters": [{"in": "body", "name": "b", "schema": {"$ref": "#/definitions/B"}}], "responses": {}}}},
		"definitions": {"B": {"type": "object", "properties": {"next": {"$ref": "#/definitions/B"}}}}}`), oasrest.Options{})
	if err != nil || len(api.Resources) != 1 || api.Resources[0].Methods[0].RequestModels["application/json"] != "B" {
		t.Fatalf("%v %+v", err, api)
	}
}
