package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	v2types "github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"sigs.k8s.io/yaml"

	"github.com/cloudemu/emulator/server/servertest"
)

// oasDoc is an OpenAPI 3.0 document using every extension ImportApi reads;
// BACKEND is the test's backend.
const oasDoc = `openapi: "3.0.1"
info:
  title: imported
  description: every extension
  version: "2024-01-01"
x-amazon-apigateway-importexport-version: "1.0"
x-amazon-apigateway-disable-execute-api-endpoint: false
x-amazon-apigateway-cors:
  allowOrigins: ["https://example.com"]
  allowMethods: ["GET", "POST"]
  allowHeaders: ["x-custom"]
  exposeHeaders: ["x-out"]
  maxAge: 300
  allowCredentials: true
x-amazon-apigateway-binary-media-types: ["image/png"]
paths:
  /pets:
    get:
      operationId: listPets
      x-amazon-apigateway-integration: &pets
        type: http_proxy
        httpMethod: ANY
        uri: "BACKEND/pets"
        payloadFormatVersion: "1.0"
        connectionType: INTERNET
        timeoutInMillis: 15000
        requestParameters:
          "append:header.x-imported": "yes"
        responseParameters:
          "200":
            "overwrite:header.x-mapped": "done"
        tlsConfig:
          serverNameToVerify: example.com
    post:
      security:
        - jwt: ["pets:write"]
      x-amazon-apigateway-integration: *pets
  /pets/{petId}:
    x-amazon-apigateway-any-method:
      security:
        - lambdaauth: []
      x-amazon-apigateway-integration:
        type: aws_proxy
        httpMethod: POST
        uri: "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:pets/invocations"
        payloadFormatVersion: "2.0"
  /signed:
    get:
      security:
        - sigv4: []
      x-amazon-apigateway-integration:
        type: http_proxy
        httpMethod: GET
        uri: "BACKEND/signed"
        payloadFormatVersion: "1.0"
  $default:
    x-amazon-apigateway-any-method:
      x-amazon-apigateway-integration:
        type: http_proxy
        httpMethod: ANY
        uri: "BACKEND/fallback"
        payloadFormatVersion: "1.0"
components:
  securitySchemes:
    jwt:
      type: oauth2
      flows: {}
      x-amazon-apigateway-authorizer:
        type: jwt
        identitySource: "$request.header.Authorization"
        jwtConfiguration:
          issuer: "https://issuer.example.com"
          audience: ["aud1", "aud2"]
    lambdaauth:
      type: apiKey
      name: Authorization
      in: header
      x-amazon-apigateway-authorizer:
        type: request
        identitySource: "$request.header.Authorization, $request.querystring.token"
        authorizerUri: "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:auth/invocations"
        authorizerPayloadFormatVersion: "2.0"
        enableSimpleResponses: true
        authorizerResultTtlInSeconds: 60
    sigv4:
      type: apiKey
      name: Authorization
      in: header
      x-amazon-apigateway-authtype: awsSigv4
`

// oasConfig is what the tests compare of an API: routes with their
// integration and authorization, integrations, authorizers.
func oasConfig(t *testing.T, gc *apigatewayv2.Client, id string) []string {
	t.Helper()
	ctx := context.Background()
	ints, err := gc.GetIntegrations(ctx, &apigatewayv2.GetIntegrationsInput{ApiId: &id})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	var out []string
	for _, i := range ints.Items {
		d := strings.Join([]string{string(i.IntegrationType), aws.ToString(i.IntegrationMethod), aws.ToString(i.IntegrationUri),
			aws.ToString(i.PayloadFormatVersion), string(i.ConnectionType)}, " ")
		byID[aws.ToString(i.IntegrationId)] = d
		out = append(out, "integration "+d)
	}
	auths, err := gc.GetAuthorizers(ctx, &apigatewayv2.GetAuthorizersInput{ApiId: &id})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, a := range auths.Items {
		names[aws.ToString(a.AuthorizerId)] = aws.ToString(a.Name)
		out = append(out, "authorizer "+aws.ToString(a.Name)+" "+string(a.AuthorizerType)+" "+strings.Join(a.IdentitySource, ","))
	}
	routes, err := gc.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: &id})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range routes.Items {
		target := byID[strings.TrimPrefix(aws.ToString(r.Target), "integrations/")]
		out = append(out, "route "+aws.ToString(r.RouteKey)+" → "+target+" "+string(r.AuthorizationType)+" "+
			names[aws.ToString(r.AuthorizerId)]+" "+strings.Join(r.AuthorizationScopes, ","))
	}
	slices.Sort(out)
	return out
}

func TestHTTPAPIOpenAPI(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-seen", r.Header.Get("x-imported"))
		_, _ = io.WriteString(w, r.Method+" "+r.URL.Path)
	}))
	defer backend.Close()
	doc := strings.ReplaceAll(oasDoc, "BACKEND", backend.URL)

	srv := servertest.Start(t)
	ctx := context.Background()
	gc := apigatewayv2.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *apigatewayv2.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	countAPIs := func() int {
		out, err := gc.GetApis(ctx, &apigatewayv2.GetApisInput{})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Items)
	}

	imp, err := gc.ImportApi(ctx, &apigatewayv2.ImportApiInput{Body: aws.String(doc)})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(imp.ApiId)
	if aws.ToString(imp.Name) != "imported" || aws.ToString(imp.Description) != "every extension" || aws.ToString(imp.Version) != "2024-01-01" ||
		imp.ProtocolType != v2types.ProtocolTypeHttp || imp.CorsConfiguration == nil || aws.ToInt32(imp.CorsConfiguration.MaxAge) != 300 ||
		!aws.ToBool(imp.CorsConfiguration.AllowCredentials) || len(imp.Warnings) != 1 || !strings.Contains(imp.Warnings[0], "binary-media-types") {
		t.Fatalf("ImportApi answered %+v", imp)
	}
	want := oasConfig(t, gc, id)
	if len(want) != 4+2+5 {
		t.Fatalf("imported:\n%s", strings.Join(want, "\n"))
	}
	for _, line := range []string{
		"route POST /pets → HTTP_PROXY ANY " + backend.URL + "/pets 1.0 INTERNET JWT jwt pets:write",
		"route ANY /pets/{petId} → AWS_PROXY POST arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:pets/invocations 2.0 INTERNET CUSTOM lambdaauth ",
		"route GET /signed → HTTP_PROXY GET " + backend.URL + "/signed 1.0 INTERNET AWS_IAM  ",
		"route $default → HTTP_PROXY ANY " + backend.URL + "/fallback 1.0 INTERNET NONE  ",
		"authorizer lambdaauth REQUEST $request.header.Authorization,$request.querystring.token",
	} {
		if !slices.Contains(want, line) {
			t.Errorf("missing %q in\n%s", line, strings.Join(want, "\n"))
		}
	}
	auths, _ := gc.GetAuthorizers(ctx, &apigatewayv2.GetAuthorizersInput{ApiId: &id})
	for _, a := range auths.Items {
		switch aws.ToString(a.Name) {
		case "jwt":
			if a.JwtConfiguration == nil || aws.ToString(a.JwtConfiguration.Issuer) != "https://issuer.example.com" || len(a.JwtConfiguration.Audience) != 2 {
				t.Errorf("jwt authorizer %+v", a)
			}
		case "lambdaauth":
			if !aws.ToBool(a.EnableSimpleResponses) || aws.ToInt32(a.AuthorizerResultTtlInSeconds) != 60 || aws.ToString(a.AuthorizerPayloadFormatVersion) != "2.0" {
				t.Errorf("request authorizer %+v", a)
			}
		}
	}
	ints, _ := gc.GetIntegrations(ctx, &apigatewayv2.GetIntegrationsInput{ApiId: &id})
	for _, i := range ints.Items {
		if strings.HasSuffix(aws.ToString(i.IntegrationUri), "/pets") &&
			(aws.ToInt32(i.TimeoutInMillis) != 15000 || i.RequestParameters["append:header.x-imported"] != "yes" ||
				i.ResponseParameters["200"]["overwrite:header.x-mapped"] != "done" || i.TlsConfig == nil) {
			t.Errorf("integration %+v", i)
		}
	}

	t.Run("executes", func(t *testing.T) {
		if _, err := gc.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: &id, StageName: aws.String("$default")}); err != nil {
			t.Fatal(err)
		}
		if _, err := gc.CreateDeployment(ctx, &apigatewayv2.CreateDeploymentInput{ApiId: &id, StageName: aws.String("$default")}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ path, body, seen, mapped string }{
			{"/pets", "GET /pets", "yes", "done"},
			{"/elsewhere", "GET /fallback/elsewhere", "", ""}, // the $default route carries the path, as built by hand
		} {
			resp, err := http.Get(srv.URL + "/_aws/execute-api/" + id + c.path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(b) != c.body || resp.Header.Get("x-seen") != c.seen || resp.Header.Get("x-mapped") != c.mapped {
				t.Errorf("GET %s: %d %q seen=%q mapped=%q", c.path, resp.StatusCode, b, resp.Header.Get("x-seen"), resp.Header.Get("x-mapped"))
			}
		}
	})

	t.Run("round-trip", func(t *testing.T) {
		for _, typ := range []string{"JSON", "YAML"} {
			for _, stage := range []string{"", "$default"} {
				in := &apigatewayv2.ExportApiInput{ApiId: &id, Specification: aws.String("OAS30"), OutputType: aws.String(typ)}
				if stage != "" {
					in.StageName = aws.String(stage)
				}
				out, err := gc.ExportApi(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				body := string(out.Body)
				if !strings.Contains(body, "x-amazon-apigateway-importexport-version") || !strings.Contains(body, id+".execute-api.") {
					t.Fatalf("export %s:\n%s", typ, body)
				}
				if typ == "JSON" && !strings.HasPrefix(body, "{") || typ == "YAML" && strings.HasPrefix(body, "{") {
					t.Fatalf("export %s:\n%s", typ, body)
				}
				back, err := gc.ImportApi(ctx, &apigatewayv2.ImportApiInput{Body: aws.String(body)})
				if err != nil {
					t.Fatalf("reimporting the %s export: %v\n%s", typ, err, body)
				}
				if got := oasConfig(t, gc, aws.ToString(back.ApiId)); !slices.Equal(got, want) {
					t.Errorf("%s export → import:\n%s\nwant\n%s", typ, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				if aws.ToString(back.Name) != "imported" || back.CorsConfiguration == nil {
					t.Errorf("%s export → import: %+v", typ, back)
				}
				if _, err := gc.DeleteApi(ctx, &apigatewayv2.DeleteApiInput{ApiId: back.ApiId}); err != nil {
					t.Fatal(err)
				}
			}
		}
		out, err := gc.ExportApi(ctx, &apigatewayv2.ExportApiInput{ApiId: &id, Specification: aws.String("OAS30"), OutputType: aws.String("JSON"),
			IncludeExtensions: aws.Bool(false)})
		if err != nil || strings.Contains(string(out.Body), "x-amazon-apigateway") {
			t.Errorf("without extensions: %v\n%s", err, out.Body)
		}
		_, err = gc.ExportApi(ctx, &apigatewayv2.ExportApiInput{ApiId: &id, Specification: aws.String("OAS30"), OutputType: aws.String("JSON"), StageName: aws.String("nope")})
		servertest.WantAPIError(t, err, "NotFoundException", "")
	})

	t.Run("json", func(t *testing.T) {
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		out, err := gc.ImportApi(ctx, &apigatewayv2.ImportApiInput{Body: aws.String(string(j))})
		if err != nil {
			t.Fatal(err)
		}
		if got := oasConfig(t, gc, aws.ToString(out.ApiId)); !slices.Equal(got, want) {
			t.Errorf("JSON import:\n%s", strings.Join(got, "\n"))
		}
		_, _ = gc.DeleteApi(ctx, &apigatewayv2.DeleteApiInput{ApiId: out.ApiId})
	})

	t.Run("reimport", func(t *testing.T) {
		small := `{"openapi": "3.0.1", "info": {"title": "smaller", "version": "2"}, "paths": {"/only": {"get": {
		  "x-amazon-apigateway-integration": {"type": "HTTP_PROXY", "httpMethod": "GET", "uri": "` + backend.URL + `/only", "payloadFormatVersion": "1.0"}}}}}`
		out, err := gc.ReimportApi(ctx, &apigatewayv2.ReimportApiInput{ApiId: &id, Body: aws.String(small)})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(out.ApiId) != id || aws.ToString(out.Name) != "smaller" || out.CorsConfiguration != nil {
			t.Errorf("ReimportApi answered %+v", out)
		}
		got := oasConfig(t, gc, id)
		if !slices.Equal(got, []string{"integration HTTP_PROXY GET " + backend.URL + "/only 1.0 INTERNET",
			"route GET /only → HTTP_PROXY GET " + backend.URL + "/only 1.0 INTERNET NONE  "}) {
			t.Errorf("after reimport:\n%s", strings.Join(got, "\n"))
		}
		if _, err := gc.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: &id, StageName: aws.String("$default")}); err != nil {
			t.Errorf("the stage did not survive: %v", err)
		}
		_, err = gc.ReimportApi(ctx, &apigatewayv2.ReimportApiInput{ApiId: aws.String("nope"), Body: aws.String(small)})
		servertest.WantAPIError(t, err, "NotFoundException", "")
		_, err = gc.ReimportApi(ctx, &apigatewayv2.ReimportApiInput{ApiId: &id, Body: aws.String("{")})
		servertest.WantAPIError(t, err, "BadRequestException", "")
		if got := oasConfig(t, gc, id); len(got) != 2 {
			t.Errorf("a refused reimport changed the API:\n%s", strings.Join(got, "\n"))
		}
	})

	t.Run("refused", func(t *testing.T) {
		before := countAPIs()
		_, err := gc.ImportApi(ctx, &apigatewayv2.ImportApiInput{Body: aws.String(doc), FailOnWarnings: aws.Bool(true)})
		servertest.WantAPIError(t, err, "BadRequestException", "")
		info := `"info": {"title": "x", "version": "1"}`
		for name, body := range map[string]string{
			"malformed-json": `{"openapi": "3.0.1", "info": {`,
			"malformed-yaml": "openapi: 3.0.1\ninfo: [\n  title: x",
			"swagger2":       `{"swagger": "2.0", ` + info + `, "paths": {}}`,
			"ref-cycle":      `{"openapi": "3.0.1", ` + info + `, "paths": {"/a": {"$ref": "#/paths/~1b"}, "/b": {"$ref": "#/paths/~1a"}}}`,
			"unknown-type": `{"openapi": "3.0.1", ` + info + `, "paths": {"/a": {"get": {"responses": {},
			  "x-amazon-apigateway-integration": {"type": "mock"}}}}}`,
			// Refused by CreateIntegration's rules after the document read
			// well: nothing may be left of the API.
			"bad-uri": `{"openapi": "3.0.1", ` + info + `, "paths": {"/a": {"get": {"responses": {},
			  "x-amazon-apigateway-integration": {"type": "http_proxy", "httpMethod": "GET", "uri": "not a url", "payloadFormatVersion": "1.0"}}}}}`,
			"bad-cors":  `{"openapi": "3.0.1", ` + info + `, "x-amazon-apigateway-cors": {"maxAge": 100000}, "paths": {}}`,
			"bad-route": `{"openapi": "3.0.1", ` + info + `, "paths": {"/a//b": {"get": {"responses": {}}}}}`,
		} {
			_, err := gc.ImportApi(ctx, &apigatewayv2.ImportApiInput{Body: aws.String(body)})
			if err == nil {
				t.Errorf("%s: imported", name)
				continue
			}
			servertest.WantAPIError(t, err, "BadRequestException", "")
		}
		if n := countAPIs(); n != before {
			t.Errorf("refused imports created %d APIs", n-before)
		}
	})
}

// An import and a reimport are durable: after a restart the API has what
// the last one wrote, and nothing of what the reimport replaced.
func TestHTTPAPIOpenAPIPersistence(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	client := func(srv *servertest.Server) *apigatewayv2.Client {
		return apigatewayv2.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *apigatewayv2.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	}
	srv := servertest.Start(t, servertest.WithPersistence(dir))
	gc := client(srv)
	doc := strings.ReplaceAll(oasDoc, "BACKEND", "https://example.com")
	imp, err := gc.ImportApi(ctx, &apigatewayv2.ImportApiInput{Body: aws.String(doc)})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(imp.ApiId)
	first := oasConfig(t, gc, id)
	second, err := gc.ImportApi(ctx, &apigatewayv2.ImportApiInput{Body: aws.String(doc)})
	if err != nil {
		t.Fatal(err)
	}
	small := `{"openapi": "3.0.1", "info": {"title": "smaller", "version": "2"}, "paths": {"/only": {"get": {
	  "x-amazon-apigateway-integration": {"type": "HTTP_PROXY", "httpMethod": "GET", "uri": "https://example.com/only", "payloadFormatVersion": "1.0"}}}}}`
	if _, err := gc.ReimportApi(ctx, &apigatewayv2.ReimportApiInput{ApiId: second.ApiId, Body: aws.String(small)}); err != nil {
		t.Fatal(err)
	}
	reimported := oasConfig(t, gc, aws.ToString(second.ApiId))
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Emulator.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}

	gc2 := client(servertest.Start(t, servertest.WithPersistence(dir)))
	if got := oasConfig(t, gc2, id); !slices.Equal(got, first) {
		t.Errorf("after restart:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(first, "\n"))
	}
	if got := oasConfig(t, gc2, aws.ToString(second.ApiId)); !slices.Equal(got, reimported) {
		t.Errorf("reimported after restart:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(reimported, "\n"))
	}
}
