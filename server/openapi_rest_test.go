package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// petStore is AWS's PetStore sample (Swagger 2.0) as the console imports
// it, its integrations MOCK so that it runs without a backend.
const petStore = `{
  "swagger": "2.0",
  "info": {"title": "PetStore", "description": "Your first API with Amazon API Gateway.", "version": "2.0"},
  "schemes": ["https"],
  "paths": {
    "/": {
      "get": {
        "consumes": ["application/json"], "produces": ["text/html"],
        "responses": {"200": {"description": "Successful operation",
          "headers": {"Content-Type": {"type": "string"}}}},
        "x-amazon-apigateway-integration": {
          "responses": {"default": {"statusCode": "200",
            "responseParameters": {"method.response.header.Content-Type": "'text/html'"},
            "responseTemplates": {"text/html": "<html><body><h1>Welcome to your Pet Store API</h1></body></html>"}}},
          "passthroughBehavior": "when_no_match",
          "requestTemplates": {"application/json": "{\"statusCode\": 200}"},
          "type": "mock"
        }
      }
    },
    "/pets": {
      "get": {
        "produces": ["application/json"],
        "parameters": [
          {"name": "type", "in": "query", "required": false, "type": "string"},
          {"name": "page", "in": "query", "required": false, "type": "string"}
        ],
        "responses": {"200": {"description": "Successful operation", "schema": {"$ref": "#/definitions/Pets"},
          "headers": {"Access-Control-Allow-Origin": {"type": "string"}}}},
        "x-amazon-apigateway-integration": {
          "responses": {"default": {"statusCode": "200",
            "responseParameters": {"method.response.header.Access-Control-Allow-Origin": "'*'"},
            "responseTemplates": {"application/json": "[{\"id\": 1, \"type\": \"$input.params('type')\", \"price\": 249.99}]"}}},
          "requestTemplates": {"application/json": "{\"statusCode\": 200}"},
          "passthroughBehavior": "when_no_match",
          "type": "mock"
        }
      },
      "post": {
        "consumes": ["application/json"], "produces": ["application/json"],
        "parameters": [{"in": "body", "name": "NewPet", "required": true, "schema": {"$ref": "#/definitions/NewPet"}}],
        "responses": {"200": {"description": "Successful operation", "schema": {"$ref": "#/definitions/NewPetResponse"}}},
        "x-amazon-apigateway-integration": {
          "type": "http", "httpMethod": "POST", "uri": "http://petstore.execute-api.us-east-1.amazonaws.com/petstore/pets",
          "responses": {"default": {"statusCode": "200"}}, "passthroughBehavior": "when_no_match"
        }
      },
      "options": {
        "consumes": ["application/json"], "produces": ["application/json"],
        "responses": {"200": {"description": "200 response", "schema": {"$ref": "#/definitions/Empty"},
          "headers": {"Access-Control-Allow-Origin": {"type": "string"}, "Access-Control-Allow-Methods": {"type": "string"},
            "Access-Control-Allow-Headers": {"type": "string"}}}},
        "x-amazon-apigateway-integration": {
          "responses": {"default": {"statusCode": "200", "responseParameters": {
            "method.response.header.Access-Control-Allow-Methods": "'POST,GET,OPTIONS'",
            "method.response.header.Access-Control-Allow-Headers": "'Content-Type,X-Amz-Date,Authorization,X-Api-Key'",
            "method.response.header.Access-Control-Allow-Origin": "'*'"}}},
          "passthroughBehavior": "when_no_match",
          "requestTemplates": {"application/json": "{\"statusCode\": 200}"},
          "type": "mock"
        }
      }
    },
    "/pets/{petId}": {
      "get": {
        "produces": ["application/json"],
        "parameters": [{"name": "petId", "in": "path", "required": true, "type": "string"}],
        "responses": {"200": {"description": "Successful operation", "schema": {"$ref": "#/definitions/Pet"}}},
        "x-amazon-apigateway-integration": {
          "responses": {"default": {"statusCode": "200",
            "responseTemplates": {"application/json": "{\"id\": $input.params('petId'), \"type\": \"dog\", \"price\": 249.99}"}}},
          "requestTemplates": {"application/json": "{\"statusCode\": 200}"},
          "passthroughBehavior": "when_no_match",
          "type": "mock"
        }
      }
    }
  },
  "definitions": {
    "Pets": {"type": "array", "items": {"$ref": "#/definitions/Pet"}},
    "Empty": {"type": "object"},
    "NewPetResponse": {"type": "object", "properties": {"pet": {"$ref": "#/definitions/Pet"}, "message": {"type": "string"}}},
    "Pet": {"type": "object", "properties": {"id": {"type": "integer"}, "type": {"type": "string"}, "price": {"type": "number"}}},
    "NewPet": {"type": "object", "properties": {"type": {"$ref": "#/definitions/PetType"}, "price": {"type": "number"}}},
    "PetType": {"type": "string", "enum": ["dog", "cat", "fish", "bird", "gecko"]}
  }
}`

func gwClient(srv *servertest.Server) *apigateway.Client {
	return apigateway.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *apigateway.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
}

// resourcesByPath lists an API's resources with their methods, by path.
func resourcesByPath(t *testing.T, c *apigateway.Client, api string) map[string]types.Resource {
	t.Helper()
	out, err := c.GetResources(context.Background(), &apigateway.GetResourcesInput{RestApiId: &api, Embed: []string{"methods"}, Limit: aws.Int32(500)})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]types.Resource{}
	for _, r := range out.Items {
		m[aws.ToString(r.Path)] = r
	}
	return m
}

func deployAndGet(t *testing.T, srv *servertest.Server, c *apigateway.Client, api, path string) (int, http.Header, string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &api, StageName: aws.String("dev")}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/restapis/" + api + "/dev/_user_request_" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestImportRestAPIPetStore(t *testing.T) {
	srv := servertest.Start(t)
	c := gwClient(srv)
	ctx := context.Background()
	out, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(petStore), FailOnWarnings: true})
	if err != nil {
		t.Fatal(err)
	}
	api := aws.ToString(out.Id)
	if aws.ToString(out.Name) != "PetStore" || aws.ToString(out.Version) != "2.0" || !strings.HasPrefix(aws.ToString(out.Description), "Your first API") {
		t.Fatalf("api: %+v", out)
	}
	rs := resourcesByPath(t, c, api)
	for _, p := range []string{"/", "/pets", "/pets/{petId}"} {
		if _, ok := rs[p]; !ok {
			t.Fatalf("no resource %s in %v", p, rs)
		}
	}
	if n := len(rs["/pets"].ResourceMethods); n != 3 {
		t.Fatalf("/pets methods = %d", n)
	}
	get := rs["/pets"].ResourceMethods["GET"]
	if get.RequestParameters["method.request.querystring.type"] || len(get.RequestParameters) != 2 {
		t.Fatalf("request parameters %v", get.RequestParameters)
	}
	if get.MethodResponses["200"].ResponseModels["application/json"] != "Pets" {
		t.Fatalf("response models %+v", get.MethodResponses["200"])
	}
	if it := get.MethodIntegration; it == nil || it.Type != types.IntegrationTypeMock || it.PassthroughBehavior == nil || *it.PassthroughBehavior != "WHEN_NO_MATCH" ||
		it.IntegrationResponses["200"].SelectionPattern != nil {
		t.Fatalf("integration %+v", get.MethodIntegration)
	}
	post := rs["/pets"].ResourceMethods["POST"]
	if post.RequestModels["application/json"] != "NewPet" || aws.ToString(post.MethodIntegration.Uri) == "" {
		t.Fatalf("post %+v", post)
	}
	if !rs["/pets/{petId}"].ResourceMethods["GET"].RequestParameters["method.request.path.petId"] {
		t.Fatal("path parameter not required")
	}
	m, err := c.GetModel(ctx, &apigateway.GetModelInput{RestApiId: &api, ModelName: aws.String("NewPetResponse")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://apigateway.amazonaws.com/restapis/" + api + "/models/Pet"; !strings.Contains(aws.ToString(m.Schema), want) {
		t.Fatalf("schema %s lacks %s", aws.ToString(m.Schema), want)
	}
	models, err := c.GetModels(ctx, &apigateway.GetModelsInput{RestApiId: &api})
	if err != nil {
		t.Fatal(err)
	}
	if len(models.Items) != 7 { // the six definitions and the default Error
		t.Fatalf("models = %d", len(models.Items))
	}

	status, hdr, body := deployAndGet(t, srv, c, api, "/pets?type=cat")
	if status != 200 || !strings.Contains(body, `"type": "cat"`) || hdr.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("GET /pets: %d %v %s", status, hdr, body)
	}
	resp, err := http.Get(srv.URL + "/restapis/" + api + "/dev/_user_request_/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html" || !strings.Contains(string(b), "Pet Store") {
		t.Fatalf("GET /: %d %v %s", resp.StatusCode, resp.Header, b)
	}
	resp, err = http.Get(srv.URL + "/restapis/" + api + "/dev/_user_request_/pets/7")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"id": 7`) {
		t.Fatalf("GET /pets/7: %d %s", resp.StatusCode, b)
	}
}

// extensions is an OpenAPI 3 document, in YAML, with every extension the
// importer reads.
const extensions = `
openapi: 3.0.1
info:
  title: everything
  description: every extension
  version: "1.5"
x-amazon-apigateway-api-key-source: AUTHORIZER
x-amazon-apigateway-binary-media-types: [image/png, "application/octet-stream"]
x-amazon-apigateway-minimum-compression-size: 1024
x-amazon-apigateway-endpoint-configuration:
  types: [REGIONAL]
x-amazon-apigateway-request-validators:
  all: {validateRequestBody: true, validateRequestParameters: true}
  params: {validateRequestBody: false, validateRequestParameters: true}
x-amazon-apigateway-request-validator: params
x-amazon-apigateway-policy:
  Version: "2012-10-17"
  Statement:
    - {Effect: Allow, Principal: "*", Action: "execute-api:Invoke", Resource: "execute-api:/*"}
x-amazon-apigateway-documentation:
  version: "1"
  documentationParts:
    - location: {type: API}
      properties: {description: documented}
x-amazon-apigateway-gateway-responses:
  DEFAULT_4XX:
    statusCode: "418"
    responseParameters:
      gatewayresponse.header.X-Teapot: "'yes'"
    responseTemplates:
      application/json: '{"oops": $context.error.messageString}'
paths:
  /items/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
    get:
      operationId: getItem
      parameters:
        - {name: X-Trace, in: header, required: true, schema: {type: string}}
        - {name: q, in: query, schema: {type: string}}
      security:
        - tokenAuth: []
      x-amazon-apigateway-request-validator: all
      responses:
        "200":
          description: ok
          headers:
            X-Item: {schema: {type: string}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
      x-amazon-apigateway-integration:
        type: http
        httpMethod: GET
        uri: https://backend.example.com/items/{id}
        requestParameters:
          integration.request.path.id: method.request.path.id
          integration.request.header.X-Trace: method.request.header.X-Trace
        cacheKeyParameters: [method.request.path.id]
        cacheNamespace: items
        timeoutInMillis: 5000
        contentHandling: CONVERT_TO_TEXT
        connectionType: INTERNET
        tlsConfig: {insecureSkipVerification: true}
        responses:
          "2\\d{2}":
            statusCode: "200"
            responseParameters:
              method.response.header.X-Item: integration.response.header.X-Item
          "5\\d{2}":
            statusCode: "500"
            responseTemplates:
              application/json: '{"error": "backend"}'
    put:
      security:
        - requestAuth: []
        - api_key: []
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Item"}
      responses:
        "204": {description: saved}
      x-amazon-apigateway-integration:
        type: aws
        httpMethod: POST
        uri: arn:aws:apigateway:us-east-1:dynamodb:action/PutItem
        credentials: arn:aws:iam::123456789012:role/ddb
        requestTemplates:
          application/json: '{"TableName": "items"}'
        responses:
          default: {statusCode: "204"}
  /proxy/{proxy+}:
    x-amazon-apigateway-any-method:
      parameters:
        - {name: proxy, in: path, required: true, schema: {type: string}}
      security:
        - api_key: []
      x-amazon-apigateway-integration:
        type: http_proxy
        httpMethod: ANY
        uri: https://backend.example.com/{proxy}
        requestParameters:
          integration.request.path.proxy: method.request.path.proxy
  /fn:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: {type: string}
                item: {$ref: "#/components/schemas/Item"}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: array, items: {type: string}}
      x-amazon-apigateway-integration:
        type: aws_proxy
        httpMethod: POST
        uri: arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:fn/invocations
  /mock:
    get:
      responses:
        "200": {description: ok}
      x-amazon-apigateway-integration:
        type: mock
        requestTemplates:
          application/json: '{"statusCode": 200}'
        responses:
          default:
            statusCode: "200"
            responseTemplates:
              application/json: '{"mocked": true}'
components:
  schemas:
    Item:
      type: object
      properties:
        id: {type: string}
        children: {type: array, items: {$ref: "#/components/schemas/Item"}}
  securitySchemes:
    api_key: {type: apiKey, name: x-api-key, in: header}
    tokenAuth:
      type: apiKey
      name: Authorization
      in: header
      x-amazon-apigateway-authtype: custom
      x-amazon-apigateway-authorizer:
        type: token
        authorizerUri: arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:auth/invocations
        authorizerCredentials: arn:aws:iam::123456789012:role/auth
        identityValidationExpression: "^Bearer .+"
        authorizerResultTtlInSeconds: 60
    requestAuth:
      type: apiKey
      name: Unused
      in: header
      x-amazon-apigateway-authorizer:
        type: request
        identitySource: method.request.header.X-User, method.request.querystring.tenant
        authorizerUri: arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:auth/invocations
        authorizerResultTtlInSeconds: 0
`

func TestImportRestAPIExtensions(t *testing.T) {
	srv := servertest.Start(t)
	c := gwClient(srv)
	ctx := context.Background()
	out, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(extensions)})
	if err != nil {
		t.Fatal(err)
	}
	api := aws.ToString(out.Id)
	if out.ApiKeySource != types.ApiKeySourceTypeAuthorizer || len(out.BinaryMediaTypes) != 2 || aws.ToInt32(out.MinimumCompressionSize) != 1024 ||
		out.EndpointConfiguration.Types[0] != types.EndpointTypeRegional || aws.ToString(out.Version) != "1.5" {
		t.Fatalf("api %+v", out)
	}
	vals, err := c.GetRequestValidators(ctx, &apigateway.GetRequestValidatorsInput{RestApiId: &api})
	if err != nil {
		t.Fatal(err)
	}
	vid := map[string]string{}
	for _, v := range vals.Items {
		vid[aws.ToString(v.Name)] = aws.ToString(v.Id)
	}
	auths, err := c.GetAuthorizers(ctx, &apigateway.GetAuthorizersInput{RestApiId: &api})
	if err != nil {
		t.Fatal(err)
	}
	aid := map[string]types.Authorizer{}
	for _, a := range auths.Items {
		aid[aws.ToString(a.Name)] = a
	}
	tok := aid["tokenAuth"]
	if tok.Type != types.AuthorizerTypeToken || aws.ToString(tok.IdentitySource) != "method.request.header.Authorization" ||
		aws.ToString(tok.IdentityValidationExpression) != "^Bearer .+" || aws.ToInt32(tok.AuthorizerResultTtlInSeconds) != 60 ||
		aws.ToString(tok.AuthorizerCredentials) != "arn:aws:iam::123456789012:role/auth" {
		t.Fatalf("token authorizer %+v", tok)
	}
	if aid["requestAuth"].Type != types.AuthorizerTypeRequest || len(aid) != 2 {
		t.Fatalf("authorizers %+v", aid)
	}
	gr, err := c.GetGatewayResponse(ctx, &apigateway.GetGatewayResponseInput{RestApiId: &api, ResponseType: types.GatewayResponseTypeDefault4xx})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(gr.StatusCode) != "418" || gr.ResponseParameters["gatewayresponse.header.X-Teapot"] != "'yes'" || gr.DefaultResponse {
		t.Fatalf("gateway response %+v", gr)
	}

	rs := resourcesByPath(t, c, api)
	get := rs["/items/{id}"].ResourceMethods["GET"]
	if aws.ToString(get.AuthorizationType) != "CUSTOM" || aws.ToString(get.AuthorizerId) != aws.ToString(tok.Id) ||
		aws.ToString(get.RequestValidatorId) != vid["all"] || aws.ToString(get.OperationName) != "getItem" {
		t.Fatalf("GET method %+v", get)
	}
	wantParams := map[string]bool{"method.request.path.id": true, "method.request.header.X-Trace": true, "method.request.querystring.q": false}
	for k, v := range wantParams {
		if got, ok := get.RequestParameters[k]; !ok || got != v {
			t.Fatalf("request parameters %v", get.RequestParameters)
		}
	}
	it := get.MethodIntegration
	if it.Type != types.IntegrationTypeHttp || it.TimeoutInMillis != 5000 || it.ContentHandling != types.ContentHandlingStrategyConvertToText ||
		aws.ToString(it.CacheNamespace) != "items" || len(it.CacheKeyParameters) != 1 || it.TlsConfig == nil || !it.TlsConfig.InsecureSkipVerification ||
		it.RequestParameters["integration.request.header.X-Trace"] != "method.request.header.X-Trace" {
		t.Fatalf("GET integration %+v", it)
	}
	if ir := it.IntegrationResponses["500"]; ir.SelectionPattern == nil || *ir.SelectionPattern != `5\d{2}` {
		t.Fatalf("integration responses %+v", it.IntegrationResponses)
	}
	if get.MethodResponses["200"].ResponseModels["application/json"] != "Item" {
		t.Fatalf("method responses %+v", get.MethodResponses)
	}
	put := rs["/items/{id}"].ResourceMethods["PUT"]
	if aws.ToString(put.AuthorizationType) != "CUSTOM" || aws.ToString(put.AuthorizerId) != aws.ToString(aid["requestAuth"].Id) ||
		aws.ToString(put.RequestValidatorId) != vid["params"] || put.RequestModels["application/json"] != "Item" ||
		put.MethodIntegration.Type != types.IntegrationTypeAws {
		t.Fatalf("PUT method %+v", put)
	}
	anyM, ok := rs["/proxy/{proxy+}"].ResourceMethods["ANY"]
	if !ok || !aws.ToBool(anyM.ApiKeyRequired) || anyM.MethodIntegration.Type != types.IntegrationTypeHttpProxy {
		t.Fatalf("ANY method %+v", rs["/proxy/{proxy+}"].ResourceMethods)
	}
	fn := rs["/fn"].ResourceMethods["POST"]
	if fn.MethodIntegration.Type != types.IntegrationTypeAwsProxy {
		t.Fatalf("aws_proxy %+v", fn.MethodIntegration)
	}
	// Inline schemas become models named MODEL and six hex digits; a
	// reference inside one names the API's model.
	reqModel, respModel := fn.RequestModels["application/json"], fn.MethodResponses["200"].ResponseModels["application/json"]
	inlineName := regexp.MustCompile(`^MODEL[0-9a-f]{6}$`)
	if !inlineName.MatchString(reqModel) || !inlineName.MatchString(respModel) || reqModel == respModel {
		t.Fatalf("inline models %q %q", reqModel, respModel)
	}
	m, err := c.GetModel(ctx, &apigateway.GetModelInput{RestApiId: &api, ModelName: &reqModel})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(aws.ToString(m.Schema), `"$ref":"https://apigateway.amazonaws.com/restapis/`+api+`/models/Item"`) ||
		!strings.Contains(aws.ToString(m.Schema), `"required":["name"]`) {
		t.Fatalf("inline model schema %s", aws.ToString(m.Schema))
	}
	got, err := c.GetRestApi(ctx, &apigateway.GetRestApiInput{RestApiId: &api})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(aws.ToString(got.Policy), `"execute-api:Invoke"`) {
		t.Fatalf("policy %q", aws.ToString(got.Policy))
	}
	if _, ok := rs["/proxy"]; !ok {
		t.Fatal("intermediate resource /proxy missing")
	}

	status, _, body := deployAndGet(t, srv, c, api, "/mock")
	if status != 200 || body != `{"mocked": true}` {
		t.Fatalf("GET /mock: %d %s", status, body)
	}
}

func TestImportRestAPIWarnings(t *testing.T) {
	srv := servertest.Start(t)
	c := gwClient(srv)
	ctx := context.Background()
	doc := `{"openapi": "3.0.1", "info": {"title": "warned", "version": "1"},
	  "paths": {"/part/test": {"get": {"responses": {"200": {"description": "ok"}},
	    "x-amazon-apigateway-integration": {"type": "mock", "requestParameters": {"integration.request.header.nothing": true}}}}}}`
	_, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(doc), FailOnWarnings: true})
	servertest.WantAPIError(t, err, "BadRequestException", "Warnings found during import:\n\tInvalid format for 'requestParameters'. "+
		"Expected type string for property 'integration.request.header.nothing' of resource '/part/test' and method 'GET' but got 'true'")
	if apis, _ := c.GetRestApis(ctx, &apigateway.GetRestApisInput{}); len(apis.Items) != 0 {
		t.Fatalf("failed import created %d APIs", len(apis.Items))
	}
	out, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Warnings) != 1 || !strings.HasPrefix(out.Warnings[0], "Invalid format for 'requestParameters'") {
		t.Fatalf("warnings %v", out.Warnings)
	}
}

func TestImportRestAPIRefuses(t *testing.T) {
	srv := servertest.Start(t, servertest.WithMaxBody(64<<10))
	c := gwClient(srv)
	ctx := context.Background()
	deep := `{"openapi": "3.0.1", "info": {"title": "deep", "version": "1"}, "paths": {}, "x-deep": ` +
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`
	mock := func(integration string) string {
		return `{"openapi": "3.0.1", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}, ` +
			`"x-amazon-apigateway-integration": ` + integration + `}}}}`
	}
	cases := []struct {
		name, body, code, msg string
	}{
		{"json=malformed", `{"openapi": "3.0.1", "info": {`, "BadRequestException", "Invalid OpenAPI input."},
		{"yaml=malformed", "openapi: 3.0.1\ninfo:\n  title: [unclosed\n", "BadRequestException", "Invalid OpenAPI input."},
		{"version=none", `{"info": {"title": "x"}}`, "BadRequestException", "Invalid OpenAPI input."},
		{"ref=cycle", `{"openapi": "3.0.1", "info": {"title": "c", "version": "1"}, "paths": {},
		  "components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}}}}`, "BadRequestException", ""},
		{"ref=missing", mock(`{"type": "mock"}`)[:0] + `{"openapi": "3.0.1", "info": {"title": "m", "version": "1"}, "paths": {"/a": {"get": {"responses": {"200": {"description": "ok",
		  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nope"}}}}}}}}}`, "BadRequestException", ""},
		{"integration=unknown", mock(`{"type": "carrier_pigeon"}`), "BadRequestException",
			"Errors found during import:\n\tUnable to put integration on 'GET' for resource at path '/a': Invalid integration type specified: CARRIER_PIGEON. Valid options are HTTP,MOCK,AWS_PROXY,HTTP_PROXY,AWS"},
		{"integration=bad-uri", mock(`{"type": "http", "httpMethod": "GET", "uri": "nope"}`), "BadRequestException", ""},
		{"nesting=deep", deep, "BadRequestException", ""},
		{"size=80KiB", `{"openapi": "3.0.1", "info": {"title": "big", "version": "1"}, "paths": {}, "x-big": "` + strings.Repeat("x", 80<<10) + `"}`,
			"RequestEntityTooLargeException", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(tc.body)})
			var re interface{ HTTPStatusCode() int }
			if tc.code == "RequestEntityTooLargeException" && err != nil && (!errors.As(err, &re) || re.HTTPStatusCode() == 0) {
				// The front answers 413 and closes before the whole body
				// is read; the client may see the reset before the answer.
				// Refused either way: nothing is created (checked below).
				return
			}
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	if apis, _ := c.GetRestApis(ctx, &apigateway.GetRestApisInput{}); len(apis.Items) != 0 {
		t.Fatalf("refused imports created %d APIs", len(apis.Items))
	}
}

func TestPutRestAPI(t *testing.T) {
	srv := servertest.Start(t)
	c := gwClient(srv)
	ctx := context.Background()
	out, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(petStore)})
	if err != nil {
		t.Fatal(err)
	}
	api := aws.ToString(out.Id)
	if _, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &api, StageName: aws.String("dev")}); err != nil {
		t.Fatal(err)
	}
	extra := `openapi: 3.0.1
info: {title: PetStore, version: "3.0"}
paths:
  /pets:
    delete:
      responses: {"204": {description: gone}}
      x-amazon-apigateway-integration: {type: mock, responses: {default: {statusCode: "204"}}}
  /owners:
    get:
      responses: {"200": {description: ok}}
      x-amazon-apigateway-integration: {type: mock, responses: {default: {statusCode: "200"}}}
`
	merged, err := c.PutRestApi(ctx, &apigateway.PutRestApiInput{RestApiId: &api, Mode: types.PutModeMerge, Body: []byte(extra)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(merged.Version) != "3.0" || aws.ToString(merged.Id) != api {
		t.Fatalf("merged %+v", merged)
	}
	rs := resourcesByPath(t, c, api)
	if len(rs["/pets"].ResourceMethods) != 4 || rs["/pets/{petId}"].Id == nil || rs["/owners"].Id == nil {
		t.Fatalf("after merge %v", rs)
	}
	if _, err := c.PutRestApi(ctx, &apigateway.PutRestApiInput{RestApiId: &api, Mode: types.PutModeOverwrite, Body: []byte(extra)}); err != nil {
		t.Fatal(err)
	}
	rs = resourcesByPath(t, c, api)
	if len(rs) != 3 || len(rs["/pets"].ResourceMethods) != 1 || len(rs["/"].ResourceMethods) != 0 {
		t.Fatalf("after overwrite %v", rs)
	}
	if _, err := c.GetModel(ctx, &apigateway.GetModelInput{RestApiId: &api, ModelName: aws.String("Pet")}); err == nil {
		t.Fatal("overwrite kept model Pet")
	}
	st, err := c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: &api, StageName: aws.String("dev")})
	if err != nil || st.DeploymentId == nil {
		t.Fatalf("stage after overwrite: %v %v", st, err)
	}
	// The stage still serves its deployment: the old configuration.
	resp, err := http.Get(srv.URL + "/restapis/" + api + "/dev/_user_request_/pets/3")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("deployed GET /pets/3 after overwrite: %d", resp.StatusCode)
	}
	_, err = c.PutRestApi(ctx, &apigateway.PutRestApiInput{RestApiId: &api, Mode: types.PutModeOverwrite, Body: []byte(`{"openapi": "3.0.1", "info": {`)})
	servertest.WantAPIError(t, err, "BadRequestException", "Invalid OpenAPI input.")
	_, err = c.PutRestApi(ctx, &apigateway.PutRestApiInput{RestApiId: aws.String("nope"), Body: []byte(extra)})
	servertest.WantAPIError(t, err, "NotFoundException", "")
}

// shape is what an import must reproduce of an API: each method of each
// path with its parameters, models, responses and integration.
func shape(t *testing.T, c *apigateway.Client, api string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, r := range resourcesByPath(t, c, api) {
		out[p] = ""
		for verb, m := range r.ResourceMethods {
			s := fmt.Sprintf("auth=%s key=%v params=%v models=%v", aws.ToString(m.AuthorizationType), aws.ToBool(m.ApiKeyRequired),
				m.RequestParameters, m.RequestModels)
			for _, code := range slices.Sorted(maps.Keys(m.MethodResponses)) {
				mr := m.MethodResponses[code]
				s += fmt.Sprintf(" resp[%s]=%v,%v", code, mr.ResponseParameters, mr.ResponseModels)
			}
			if it := m.MethodIntegration; it != nil {
				s += fmt.Sprintf(" it=%s %s %s %v %v %s %d", it.Type, aws.ToString(it.HttpMethod), aws.ToString(it.Uri), it.RequestParameters,
					it.RequestTemplates, aws.ToString(it.PassthroughBehavior), it.TimeoutInMillis)
				for _, code := range slices.Sorted(maps.Keys(it.IntegrationResponses)) {
					ir := it.IntegrationResponses[code]
					s += fmt.Sprintf(" ir[%s]=%q,%v,%v", code, aws.ToString(ir.SelectionPattern), ir.ResponseParameters, ir.ResponseTemplates)
				}
			}
			out[p+" "+verb] = s
		}
	}
	return out
}

func TestGetExportRoundTrip(t *testing.T) {
	srv := servertest.Start(t)
	c := gwClient(srv)
	ctx := context.Background()
	for _, src := range []struct{ name, doc string }{{"petstore", petStore}, {"extensions", extensions}} {
		out, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(src.doc)})
		if err != nil {
			t.Fatal(err)
		}
		api := aws.ToString(out.Id)
		if _, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &api, StageName: aws.String("dev")}); err != nil {
			t.Fatal(err)
		}
		want := shape(t, c, api)
		for _, kind := range []string{"oas30", "swagger"} {
			for _, accept := range []string{"application/json", "application/yaml"} {
				t.Run(fmt.Sprintf("doc=%s/type=%s/accept=%s", src.name, kind, accept), func(t *testing.T) {
					ex, err := c.GetExport(ctx, &apigateway.GetExportInput{RestApiId: &api, StageName: aws.String("dev"), ExportType: aws.String(kind),
						Accepts: aws.String(accept), Parameters: map[string]string{"extensions": "apigateway"}})
					if err != nil {
						t.Fatal(err)
					}
					if !strings.HasPrefix(aws.ToString(ex.ContentDisposition), `attachment; filename="`+kind+"_") {
						t.Fatalf("content disposition %q", aws.ToString(ex.ContentDisposition))
					}
					host := api + ".execute-api.us-east-1.amazonaws.com"
					if !strings.Contains(string(ex.Body), host) {
						t.Fatalf("export names no %s:\n%s", host, ex.Body)
					}
					back, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: ex.Body, FailOnWarnings: true})
					if err != nil {
						t.Fatalf("re-import: %v\n%s", err, ex.Body)
					}
					got := shape(t, c, aws.ToString(back.Id))
					for k, v := range want {
						if got[k] != v {
							t.Errorf("%s:\n got %s\nwant %s", k, got[k], v)
						}
					}
					if len(got) != len(want) {
						t.Errorf("re-imported %d resources and methods, want %d", len(got), len(want))
					}
				})
			}
		}
	}
}

func TestGetExportFrozen(t *testing.T) {
	srv := servertest.Start(t)
	c := gwClient(srv)
	ctx := context.Background()
	out, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(petStore)})
	if err != nil {
		t.Fatal(err)
	}
	api := aws.ToString(out.Id)
	if _, err := c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &api, StageName: aws.String("prod")}); err != nil {
		t.Fatal(err)
	}
	// A change after the deployment is not in the stage's export.
	if _, err := c.PutRestApi(ctx, &apigateway.PutRestApiInput{RestApiId: &api, Mode: types.PutModeOverwrite,
		Body: []byte(`{"openapi": "3.0.1", "info": {"title": "PetStore", "version": "9"}, "paths": {"/later": {}}}`)}); err != nil {
		t.Fatal(err)
	}
	ex, err := c.GetExport(ctx, &apigateway.GetExportInput{RestApiId: &api, StageName: aws.String("prod"), ExportType: aws.String("oas30")})
	if err != nil {
		t.Fatal(err)
	}
	body := string(ex.Body)
	if !strings.Contains(body, `"/pets/{petId}"`) || strings.Contains(body, "/later") || strings.Contains(body, "x-amazon-apigateway-integration") ||
		!strings.Contains(body, `"default": "prod"`) || aws.ToString(ex.ContentDisposition) != `attachment; filename="oas30_2.0.json"` {
		t.Fatalf("export %q:\n%s", aws.ToString(ex.ContentDisposition), body)
	}
	_, err = c.GetExport(ctx, &apigateway.GetExportInput{RestApiId: &api, StageName: aws.String("nope"), ExportType: aws.String("oas30")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid stage identifier specified")
	_, err = c.GetExport(ctx, &apigateway.GetExportInput{RestApiId: &api, StageName: aws.String("prod"), ExportType: aws.String("raml")})
	servertest.WantAPIError(t, err, "BadRequestException", "")
}

func TestImportRestAPIParameters(t *testing.T) {
	srv := servertest.Start(t)
	c := gwClient(srv)
	ctx := context.Background()
	doc := `{"swagger": "2.0", "info": {"title": "based", "version": "1"}, "basePath": "/v1/shop",
	  "paths": {"/items": {"get": {"responses": {"200": {"description": "ok"}}}}}}`
	out, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(doc),
		Parameters: map[string]string{"basepath": "split", "endpointConfigurationTypes": "REGIONAL"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.EndpointConfiguration.Types[0] != types.EndpointTypeRegional {
		t.Fatalf("endpoint configuration %+v", out.EndpointConfiguration)
	}
	if _, ok := resourcesByPath(t, c, aws.ToString(out.Id))["/shop/items"]; !ok {
		t.Fatal("basepath=split did not prepend /shop")
	}
	_, err = c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(doc), Parameters: map[string]string{"basepath": "sideways"}})
	servertest.WantAPIError(t, err, "BadRequestException", "Invalid basepath specified: sideways. Valid options are ignore,prepend,split")
}

// TestImportRestAPIPersisted: an imported API survives a restart whole, and
// a PutRestApi that fails changes nothing.
func TestImportRestAPIPersisted(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var api string
	var want map[string]string
	{
		srv := servertest.Start(t, servertest.WithPersistence(dir))
		c := gwClient(srv)
		out, err := c.ImportRestApi(ctx, &apigateway.ImportRestApiInput{Body: []byte(extensions)})
		if err != nil {
			t.Fatal(err)
		}
		api = aws.ToString(out.Id)
		want = shape(t, c, api)
		bad := `{"openapi": "3.0.1", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {"responses": {},
		  "x-amazon-apigateway-integration": {"type": "carrier_pigeon"}}}}}`
		for _, mode := range []types.PutMode{types.PutModeOverwrite, types.PutModeMerge} {
			_, err = c.PutRestApi(ctx, &apigateway.PutRestApiInput{RestApiId: &api, Mode: mode, Body: []byte(bad)})
			servertest.WantAPIError(t, err, "BadRequestException", "")
		}
		shutdown(t, srv)
	}
	srv := servertest.Start(t, servertest.WithPersistence(dir))
	c := gwClient(srv)
	got := shape(t, c, api)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after restart:\n got %v\nwant %v", got, want)
	}
	status, _, body := deployAndGet(t, srv, c, api, "/mock")
	if status != 200 || body != `{"mocked": true}` {
		t.Fatalf("GET /mock after restart: %d %s", status, body)
	}
}
