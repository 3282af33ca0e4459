package apigatewayv2http_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/cloudemu/emulator/server/servertest"
)

const authorizersLambda = "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:auth/invocations"

func TestAuthorizersWireShape(t *testing.T) {
	srv, c := startServer(t)
	apiID := deploymentsAPI(t, c, types.ProtocolTypeHttp)
	for _, tc := range []struct {
		name, body string
		keys       []string
	}{
		{"type=JWT",
			`{"name":"jwt","authorizerType":"JWT","identitySource":["$request.header.Authorization"],` +
				`"jwtConfiguration":{"audience":["123456abc"],"issuer":"https://cognito-idp.us-west-2.amazonaws.com/us-west-2_abc123"}}`,
			[]string{"authorizerId", "authorizerType", "identitySource", "jwtConfiguration", "name"}},
		// AWS leaves out the TTL it was not given (real capture).
		{"type=REQUEST",
			`{"name":"lambda","authorizerType":"REQUEST","identitySource":["$request.header.Approov-Token"],` +
				`"authorizerUri":"` + authorizersLambda + `","authorizerPayloadFormatVersion":"2.0","enableSimpleResponses":true}`,
			[]string{"authorizerId", "authorizerPayloadFormatVersion", "authorizerType", "authorizerUri", "enableSimpleResponses",
				"identitySource", "name"}},
		{"type=REQUEST/ttl",
			`{"name":"cached","authorizerType":"REQUEST","identitySource":["$request.header.X"],"authorizerResultTtlInSeconds":300,` +
				`"authorizerUri":"` + authorizersLambda + `","authorizerPayloadFormatVersion":"1.0"}`,
			[]string{"authorizerId", "authorizerPayloadFormatVersion", "authorizerResultTtlInSeconds", "authorizerType", "authorizerUri",
				"identitySource", "name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := send(t, srv, "POST", "/v2/apis/"+apiID+"/authorizers", tc.body)
			if r.status != http.StatusCreated {
				t.Fatalf("CreateAuthorizer = %d %s", r.status, r.raw)
			}
			wantKeys(t, r.body, tc.keys...)
			if id, _ := r.body["authorizerId"].(string); !regexp.MustCompile(`^[a-z0-9]{6}$`).MatchString(id) {
				t.Fatalf("authorizerId = %q", id)
			}
		})
	}
}

func TestAuthorizersLifecycle(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := deploymentsAPI(t, c, types.ProtocolTypeHttp)
	jwt, err := c.CreateAuthorizer(ctx, &apigatewayv2.CreateAuthorizerInput{ApiId: &apiID, Name: aws.String("b-jwt"),
		AuthorizerType: types.AuthorizerTypeJwt, IdentitySource: []string{"$request.header.Authorization"},
		JwtConfiguration: &types.JWTConfiguration{Issuer: aws.String("https://issuer.example.com"), Audience: []string{"a1", "a2"}}})
	if err != nil {
		t.Fatal(err)
	}
	req, err := c.CreateAuthorizer(ctx, &apigatewayv2.CreateAuthorizerInput{ApiId: &apiID, Name: aws.String("a-lambda"),
		AuthorizerType: types.AuthorizerTypeRequest, IdentitySource: []string{},
		AuthorizerUri: aws.String(authorizersLambda), AuthorizerPayloadFormatVersion: aws.String("2.0")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetAuthorizer(ctx, &apigatewayv2.GetAuthorizerInput{ApiId: &apiID, AuthorizerId: jwt.AuthorizerId})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(got.Name) != "b-jwt" || !slices.Equal(got.JwtConfiguration.Audience, []string{"a1", "a2"}) ||
		got.AuthorizerResultTtlInSeconds != nil {
		t.Fatalf("GetAuthorizer = %+v", got)
	}

	// Listed by name, a page at a time.
	var names []string
	var token *string
	for {
		out, err := c.GetAuthorizers(ctx, &apigatewayv2.GetAuthorizersInput{ApiId: &apiID, MaxResults: aws.String("1"), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range out.Items {
			names = append(names, *a.Name)
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	if !slices.Equal(names, []string{"a-lambda", "b-jwt"}) {
		t.Fatalf("GetAuthorizers = %v", names)
	}

	// UpdateAuthorizer changes what it is sent and checks the result.
	up, err := c.UpdateAuthorizer(ctx, &apigatewayv2.UpdateAuthorizerInput{ApiId: &apiID, AuthorizerId: req.AuthorizerId,
		AuthorizerResultTtlInSeconds: aws.Int32(300), IdentitySource: []string{"$request.header.Auth", "$request.querystring.token"},
		EnableSimpleResponses: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToInt32(up.AuthorizerResultTtlInSeconds) != 300 || len(up.IdentitySource) != 2 || !aws.ToBool(up.EnableSimpleResponses) ||
		aws.ToString(up.AuthorizerUri) != authorizersLambda || aws.ToString(up.Name) != "a-lambda" {
		t.Fatalf("UpdateAuthorizer = %+v", up)
	}
	_, err = c.UpdateAuthorizer(ctx, &apigatewayv2.UpdateAuthorizerInput{ApiId: &apiID, AuthorizerId: req.AuthorizerId,
		AuthorizerPayloadFormatVersion: aws.String("1.0")})
	servertest.WantAPIError(t, err, "BadRequestException", "")
	_, err = c.UpdateAuthorizer(ctx, &apigatewayv2.UpdateAuthorizerInput{ApiId: &apiID, AuthorizerId: aws.String("zzzzzz"), Name: aws.String("x")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Authorizer identifier specified")

	// A route that uses the authorizer keeps it.
	route, err := c.CreateRoute(ctx, &apigatewayv2.CreateRouteInput{ApiId: &apiID, RouteKey: aws.String("POST /pdf/generate"),
		AuthorizationType: types.AuthorizationTypeJwt, AuthorizerId: jwt.AuthorizerId})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteAuthorizer(ctx, &apigatewayv2.DeleteAuthorizerInput{ApiId: &apiID, AuthorizerId: jwt.AuthorizerId})
	servertest.WantAPIError(t, err, "ConflictException", "Cannot delete authorizer 'b-jwt', is referenced in route: POST /pdf/generate")
	if _, err := c.DeleteRoute(ctx, &apigatewayv2.DeleteRouteInput{ApiId: &apiID, RouteId: route.RouteId}); err != nil {
		t.Fatal(err)
	}
	r := send(t, srv, "DELETE", "/v2/apis/"+apiID+"/authorizers/"+*jwt.AuthorizerId, "")
	if r.status != http.StatusNoContent || len(r.raw) != 0 {
		t.Fatalf("DeleteAuthorizer = %d %s", r.status, r.raw)
	}
	_, err = c.GetAuthorizer(ctx, &apigatewayv2.GetAuthorizerInput{ApiId: &apiID, AuthorizerId: jwt.AuthorizerId})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Authorizer identifier specified")
	r = send(t, srv, "GET", "/v2/apis/"+apiID+"/authorizers/"+*jwt.AuthorizerId, "")
	if r.body["resourceType"] != "Authorizer" {
		t.Fatalf("NotFound body = %s", r.raw)
	}
}

func TestAuthorizersValidation(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	httpAPI := deploymentsAPI(t, c, types.ProtocolTypeHttp)
	wsAPI := deploymentsAPI(t, c, types.ProtocolTypeWebsocket)
	jwtConf := &types.JWTConfiguration{Issuer: aws.String("https://issuer.example.com"), Audience: []string{"a"}}
	header := []string{"$request.header.Authorization"}
	lambda := aws.String(authorizersLambda)
	v2 := aws.String("2.0")
	for _, tc := range []struct {
		name string
		in   apigatewayv2.CreateAuthorizerInput
		code string // "" when AWS accepts it
		msg  string
	}{
		{"type=JWT/protocol=WEBSOCKET", apigatewayv2.CreateAuthorizerInput{ApiId: &wsAPI, AuthorizerType: types.AuthorizerTypeJwt,
			IdentitySource: header, JwtConfiguration: jwtConf}, "BadRequestException", ""},
		{"type=JWT/no-issuer", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeJwt,
			IdentitySource: header, JwtConfiguration: &types.JWTConfiguration{Audience: []string{"a"}}}, "BadRequestException", ""},
		{"type=JWT/no-configuration", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeJwt,
			IdentitySource: header}, "BadRequestException", ""},
		{"type=JWT/no-audience", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeJwt,
			IdentitySource: header, JwtConfiguration: &types.JWTConfiguration{Issuer: aws.String("https://i.example.com")}}, "BadRequestException", ""},
		{"type=JWT/two-sources", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeJwt,
			IdentitySource: []string{"$request.header.A", "$request.header.B"}, JwtConfiguration: jwtConf}, "BadRequestException", ""},
		{"type=JWT/bad-source", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeJwt,
			IdentitySource: []string{"route.request.header.Auth"}, JwtConfiguration: jwtConf},
			"BadRequestException", "Invalid identity source expression: route.request.header.Auth"},
		{"type=JWT/querystring", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeJwt,
			IdentitySource: []string{"$request.querystring.token"}, JwtConfiguration: jwtConf}, "", ""},
		{"type=REQUEST/no-payload-version", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: header, AuthorizerUri: lambda},
			"BadRequestException", "AuthorizerPayloadFormatVersion is a required parameter for REQUEST authorizer"},
		{"type=REQUEST/payload-version=3.0", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: header, AuthorizerUri: lambda, AuthorizerPayloadFormatVersion: aws.String("3.0")}, "BadRequestException", ""},
		{"type=REQUEST/simple-with-1.0", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: header, AuthorizerUri: lambda, AuthorizerPayloadFormatVersion: aws.String("1.0"),
			EnableSimpleResponses: aws.Bool(true)}, "BadRequestException", ""},
		{"type=REQUEST/ttl=3601", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: header, AuthorizerUri: lambda, AuthorizerPayloadFormatVersion: v2,
			AuthorizerResultTtlInSeconds: aws.Int32(3601)}, "BadRequestException", ""},
		{"type=REQUEST/ttl=-1", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: header, AuthorizerUri: lambda, AuthorizerPayloadFormatVersion: v2,
			AuthorizerResultTtlInSeconds: aws.Int32(-1)}, "BadRequestException", ""},
		{"type=REQUEST/caching-without-sources", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: []string{}, AuthorizerUri: lambda, AuthorizerPayloadFormatVersion: v2,
			AuthorizerResultTtlInSeconds: aws.Int32(300)}, "BadRequestException", ""},
		{"type=REQUEST/no-caching-no-sources", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: []string{}, AuthorizerUri: lambda, AuthorizerPayloadFormatVersion: v2,
			AuthorizerResultTtlInSeconds: aws.Int32(0)}, "", ""},
		{"type=REQUEST/no-uri", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: header, AuthorizerPayloadFormatVersion: v2}, "BadRequestException", ""},
		{"type=REQUEST/function-arn-uri", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: header, AuthorizerPayloadFormatVersion: v2,
			AuthorizerUri: aws.String("arn:aws:lambda:us-east-1:000000000000:function:auth")}, "BadRequestException", ""},
		{"type=REQUEST/http-sources", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: []string{"$request.header.Auth", "$request.querystring.q", "$stageVariables.v", "$context.routeKey"},
			AuthorizerUri:  lambda, AuthorizerPayloadFormatVersion: v2}, "", ""},
		{"type=REQUEST/http-websocket-source", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: []string{"route.request.header.Auth"}, AuthorizerUri: lambda, AuthorizerPayloadFormatVersion: v2},
			"BadRequestException", ""},
		{"type=REQUEST/protocol=WEBSOCKET", apigatewayv2.CreateAuthorizerInput{ApiId: &wsAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: []string{"route.request.header.Auth", "route.request.querystring.Name"}, AuthorizerUri: lambda}, "", ""},
		{"type=REQUEST/protocol=WEBSOCKET/http-source", apigatewayv2.CreateAuthorizerInput{ApiId: &wsAPI, AuthorizerType: types.AuthorizerTypeRequest,
			IdentitySource: header, AuthorizerUri: lambda}, "BadRequestException", ""},
		{"type=TOKEN", apigatewayv2.CreateAuthorizerInput{ApiId: &httpAPI, AuthorizerType: "TOKEN",
			IdentitySource: header, AuthorizerUri: lambda}, "BadRequestException", ""},
		{"api=unknown", apigatewayv2.CreateAuthorizerInput{ApiId: aws.String("abcdefghij"), AuthorizerType: types.AuthorizerTypeJwt,
			IdentitySource: header, JwtConfiguration: jwtConf}, "NotFoundException", "Invalid API identifier specified 000000000000:abcdefghij"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Name = aws.String("auth")
			_, err := c.CreateAuthorizer(ctx, &in)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("CreateAuthorizer: %v", err)
				}
				return
			}
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}

	// What the SDK will not send.
	for _, tc := range []struct{ name, body string }{
		{"missing=name", `{"authorizerType":"JWT","identitySource":["$request.header.A"]}`},
		{"missing=authorizerType", `{"name":"a","identitySource":["$request.header.A"]}`},
		{"missing=identitySource", `{"name":"a","authorizerType":"JWT"}`},
		{"name=empty", `{"name":"","authorizerType":"JWT","identitySource":["$request.header.A"],"jwtConfiguration":{"issuer":"https://i","audience":["a"]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := send(t, srv, "POST", "/v2/apis/"+httpAPI+"/authorizers", tc.body)
			if r.status != http.StatusBadRequest || r.code != "BadRequestException" {
				t.Fatalf("CreateAuthorizer = %d %s", r.status, r.raw)
			}
		})
	}
	r := send(t, srv, "POST", "/v2/apis/"+httpAPI+"/authorizers", `{"name":"a","authorizerType":"REQUEST","identitySource":[],"authorizerResultTtlInSeconds":"x"}`)
	if r.status != http.StatusBadRequest || r.code != "SerializationException" {
		t.Fatalf("TTL as a string = %d %s", r.status, r.raw)
	}
}
