package apigatewayhttp_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/cloudemu/emulator/server/servertest"
)

const (
	mdlLambdaURI = "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:myApiAuthorizer/invocations"
	mdlPoolARN   = "arn:aws:cognito-idp:us-east-1:123412341234:userpool/us-east-1_aWcZeQbuD"
	mdlPoolARN2  = "arn:aws:cognito-idp:us-east-1:123412341234:userpool/us-east-1_qWbZzQhzE"
)

func TestAuthorizerLifecycle(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)

	tok, err := c.CreateAuthorizer(ctx, &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("tok"),
		Type: types.AuthorizerTypeToken, AuthorizerUri: aws.String(mdlLambdaURI),
		IdentitySource: aws.String("method.request.header.Auth")})
	if err != nil {
		t.Fatal(err)
	}
	// authType is AWS's when not sent; the TTL is not echoed (B.15, CLI docs).
	if !mdlShortID.MatchString(aws.ToString(tok.Id)) || aws.ToString(tok.AuthType) != "custom" ||
		tok.AuthorizerResultTtlInSeconds != nil || aws.ToString(tok.IdentitySource) != "method.request.header.Auth" {
		t.Fatalf("token: %+v", tok)
	}
	r := mdlRaw(t, srv, "GET", "/restapis/"+id+"/authorizers/"+aws.ToString(tok.Id), "")
	if _, ok := r.member(t, "authorizerResultTtlInSeconds"); ok || r.status != 200 {
		t.Fatalf("get: %d %s", r.status, r.body)
	}
	req, err := c.CreateAuthorizer(ctx, &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("req"),
		Type: types.AuthorizerTypeRequest, AuthorizerUri: aws.String(mdlLambdaURI),
		IdentitySource:               aws.String("method.request.header.Authorization,context.accountId"),
		AuthorizerResultTtlInSeconds: aws.Int32(0)})
	if err != nil || aws.ToString(req.AuthType) != "custom" || aws.ToInt32(req.AuthorizerResultTtlInSeconds) != 0 ||
		req.AuthorizerResultTtlInSeconds == nil {
		t.Fatalf("request: %v %+v", err, req)
	}
	cog, err := c.CreateAuthorizer(ctx, &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("cog"),
		Type: types.AuthorizerTypeCognitoUserPools, ProviderARNs: []string{mdlPoolARN},
		IdentitySource: aws.String("method.request.header.Authorization")})
	if err != nil || aws.ToString(cog.AuthType) != "cognito_user_pools" || len(cog.ProviderARNs) != 1 {
		t.Fatalf("cognito: %v %+v", err, cog)
	}
	jwt, err := c.CreateAuthorizer(ctx, &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("jwt"),
		Type: "JWT", IdentitySource: aws.String("$request.header.Authorization")})
	if err != nil || jwt.Type != "JWT" || jwt.AuthType != nil {
		t.Fatalf("jwt: %v %+v", err, jwt)
	}

	all, err := c.GetAuthorizers(ctx, &apigateway.GetAuthorizersInput{RestApiId: &id})
	if err != nil || len(all.Items) != 4 || all.Position != nil {
		t.Fatalf("list: %v %+v", err, all)
	}
	page, err := c.GetAuthorizers(ctx, &apigateway.GetAuthorizersInput{RestApiId: &id, Limit: aws.Int32(3)})
	if err != nil || len(page.Items) != 3 || page.Position == nil {
		t.Fatalf("page 1: %v %+v", err, page)
	}
	page, err = c.GetAuthorizers(ctx, &apigateway.GetAuthorizersInput{RestApiId: &id, Limit: aws.Int32(3), Position: page.Position})
	if err != nil || len(page.Items) != 1 || page.Position != nil || aws.ToString(page.Items[0].Id) != aws.ToString(all.Items[3].Id) {
		t.Fatalf("page 2: %v %+v", err, page)
	}

	op := func(o types.Op, path, value string) types.PatchOperation {
		return types.PatchOperation{Op: o, Path: aws.String(path), Value: aws.String(value)}
	}
	upd, err := c.UpdateAuthorizer(ctx, &apigateway.UpdateAuthorizerInput{RestApiId: &id, AuthorizerId: tok.Id,
		PatchOperations: []types.PatchOperation{
			op(types.OpReplace, "/name", "renamed"),
			op(types.OpReplace, "/authorizerResultTtlInSeconds", "60"),
			op(types.OpReplace, "/identityValidationExpression", "^Bearer .+$"),
			op(types.OpReplace, "/authorizerCredentials", "arn:aws:iam::123456789012:role/auth"),
		}})
	if err != nil || aws.ToString(upd.Name) != "renamed" || aws.ToInt32(upd.AuthorizerResultTtlInSeconds) != 60 ||
		aws.ToString(upd.IdentityValidationExpression) != "^Bearer .+$" || aws.ToString(upd.AuthorizerCredentials) == "" {
		t.Fatalf("update: %v %+v", err, upd)
	}
	// Pools one by one, as Terraform changes them: add first, then remove.
	upd, err = c.UpdateAuthorizer(ctx, &apigateway.UpdateAuthorizerInput{RestApiId: &id, AuthorizerId: cog.Id,
		PatchOperations: []types.PatchOperation{
			op(types.OpAdd, "/providerARNs", mdlPoolARN2),
			op(types.OpRemove, "/providerARNs", mdlPoolARN),
		}})
	if err != nil || len(upd.ProviderARNs) != 1 || upd.ProviderARNs[0] != mdlPoolARN2 {
		t.Fatalf("update pools: %v %+v", err, upd)
	}
	// The last pool cannot go: a Cognito authorizer needs one.
	_, err = c.UpdateAuthorizer(ctx, &apigateway.UpdateAuthorizerInput{RestApiId: &id, AuthorizerId: cog.Id,
		PatchOperations: []types.PatchOperation{op(types.OpRemove, "/providerARNs", mdlPoolARN2)}})
	servertest.WantAPIError(t, err, "BadRequestException", "ProviderARNs must be specified for COGNITO_USER_POOLS authorizers")

	if _, err := c.DeleteAuthorizer(ctx, &apigateway.DeleteAuthorizerInput{RestApiId: &id, AuthorizerId: tok.Id}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetAuthorizer(ctx, &apigateway.GetAuthorizerInput{RestApiId: &id, AuthorizerId: tok.Id})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Authorizer identifier specified")
	_, err = c.DeleteAuthorizer(ctx, &apigateway.DeleteAuthorizerInput{RestApiId: &id, AuthorizerId: tok.Id})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Authorizer identifier specified")
}

func TestAuthorizerErrors(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)
	token := func(api, uri, source string) *apigateway.CreateAuthorizerInput {
		return &apigateway.CreateAuthorizerInput{RestApiId: aws.String(api), Name: aws.String("a"),
			Type: types.AuthorizerTypeToken, AuthorizerUri: aws.String(uri), IdentitySource: aws.String(source)}
	}
	const header = "method.request.header.Authorization"
	for _, tc := range []struct {
		name      string
		in        *apigateway.CreateAuthorizerInput
		code, msg string
	}{
		{"AU-01", token("test-fake-rest-id", mdlLambdaURI, header), "ConflictException",
			"Unable to complete operation due to concurrent modification. Please try again later."},
		{"uri-before-api", token("test-fake-rest-id", "arn:aws:apigateway:region:lambda:path/x", header), "BadRequestException",
			"Invalid Authorizer URI: arn:aws:apigateway:region:lambda:path/x. Authorizer URI should be a valid API Gateway ARN that represents a Lambda function invocation."},
		{"no-uri", &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("a"), Type: types.AuthorizerTypeRequest,
			IdentitySource: aws.String(header)}, "BadRequestException",
			"Invalid Authorizer URI: null. Authorizer URI should be a valid API Gateway ARN that represents a Lambda function invocation."},
		{"token-source-querystring", token(id, mdlLambdaURI, "method.request.querystring.key"), "BadRequestException",
			"Invalid token source expression: method.request.querystring.key. The source must be a method request header, matching 'method.request.header.[a-zA-Z0-9._-]+'."},
		{"token-two-sources", token(id, mdlLambdaURI, header+",method.request.header.appkey"), "BadRequestException",
			"Invalid token source expression: " + header + ",method.request.header.appkey. The source must be a method request header, matching 'method.request.header.[a-zA-Z0-9._-]+'."},
		{"request-bad-source", &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("a"), Type: types.AuthorizerTypeRequest,
			AuthorizerUri: aws.String(mdlLambdaURI), IdentitySource: aws.String("header.x")}, "BadRequestException",
			"Invalid identity source expression: header.x"},
		{"request-cached-no-source", &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("a"), Type: types.AuthorizerTypeRequest,
			AuthorizerUri: aws.String(mdlLambdaURI)}, "BadRequestException",
			"Identity source must be specified when authorization caching is enabled"},
		{"cognito-no-pools", &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("a"), Type: types.AuthorizerTypeCognitoUserPools,
			IdentitySource: aws.String(header)}, "BadRequestException", "ProviderARNs must be specified for COGNITO_USER_POOLS authorizers"},
		{"cognito-bad-pool", &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("a"), Type: types.AuthorizerTypeCognitoUserPools,
			ProviderARNs: []string{"invalid-arn"}, IdentitySource: aws.String(header)}, "BadRequestException",
			"Invalid Cognito User Pool ARN specified: invalid-arn"},
		{"ttl-too-long", &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("a"), Type: types.AuthorizerTypeToken,
			AuthorizerUri: aws.String(mdlLambdaURI), IdentitySource: aws.String(header), AuthorizerResultTtlInSeconds: aws.Int32(3601)},
			"BadRequestException", "Authorizer result TTL must be between 0 and 3600 seconds"},
		{"empty-name", &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String(""), Type: types.AuthorizerTypeToken,
			AuthorizerUri: aws.String(mdlLambdaURI), IdentitySource: aws.String(header)}, "BadRequestException", "Authorizer name must be non-empty"},
		{"bad-type", &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("a"), Type: "OAUTH"}, "ValidationException",
			"1 validation error detected: Value 'OAUTH' at 'createAuthorizerInput.type' failed to satisfy constraint: Member must satisfy enum value set: [TOKEN, REQUEST, COGNITO_USER_POOLS]"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			_, err := c.CreateAuthorizer(ctx, tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	t.Run("case=null-members", func(t *testing.T) {
		mdlWantRaw(t, mdlRaw(t, srv, "POST", "/restapis/"+id+"/authorizers", `{}`), 400, "ValidationException",
			"2 validation errors detected: Value null at 'createAuthorizerInput.name' failed to satisfy constraint: Member must not be null; Value null at 'createAuthorizerInput.type' failed to satisfy constraint: Member must not be null")
	})
	t.Run("case=ttl-not-integer", func(t *testing.T) {
		r := mdlRaw(t, srv, "POST", "/restapis/"+id+"/authorizers", `{"name":"a","type":"TOKEN","authorizerResultTtlInSeconds":"x"}`)
		mdlWantRaw(t, r, 400, "SerializationException", "")
	})

	_, err := c.GetAuthorizers(ctx, &apigateway.GetAuthorizersInput{RestApiId: aws.String("test-fake-rest-id")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+account+":test-fake-rest-id") // AU-02
	_, err = c.GetAuthorizer(ctx, &apigateway.GetAuthorizerInput{RestApiId: aws.String("test-fake-rest-id"), AuthorizerId: aws.String("abc123")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Authorizer identifier specified")
	_, err = c.GetAuthorizer(ctx, &apigateway.GetAuthorizerInput{RestApiId: &id, AuthorizerId: aws.String("abc123")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Authorizer identifier specified")

	a, err := c.CreateAuthorizer(ctx, token(id, mdlLambdaURI, header))
	if err != nil {
		t.Fatal(err)
	}
	upd := func(ops ...types.PatchOperation) error {
		_, err := c.UpdateAuthorizer(ctx, &apigateway.UpdateAuthorizerInput{RestApiId: &id, AuthorizerId: a.Id, PatchOperations: ops})
		return err
	}
	op := func(o types.Op, path, value string) types.PatchOperation {
		return types.PatchOperation{Op: o, Path: aws.String(path), Value: aws.String(value)}
	}
	servertest.WantAPIError(t, upd(op(types.OpReplace, "/nope", "x")), "BadRequestException",
		"Invalid patch path  '/nope' specified for op 'replace'. Must be one of: [/name, /type, /authType, /authorizerUri, /authorizerCredentials, /identitySource, /identityValidationExpression, /authorizerResultTtlInSeconds]")
	servertest.WantAPIError(t, upd(op(types.OpAdd, "/name", "x")), "BadRequestException",
		"Invalid patch path  '/name' specified for op 'add'. Please choose supported operations")
	servertest.WantAPIError(t, upd(op(types.OpReplace, "/authorizerResultTtlInSeconds", "soon")), "BadRequestException",
		"Authorizer result TTL must be between 0 and 3600 seconds")
	servertest.WantAPIError(t, upd(op(types.OpReplace, "/type", "OAUTH")), "BadRequestException",
		"Invalid authorizer type specified: OAUTH. Valid options are TOKEN,REQUEST,COGNITO_USER_POOLS")
	// A change to a type whose rules the authorizer breaks is refused.
	servertest.WantAPIError(t, upd(op(types.OpReplace, "/type", "COGNITO_USER_POOLS")), "BadRequestException",
		"ProviderARNs must be specified for COGNITO_USER_POOLS authorizers")
	servertest.WantAPIError(t, upd(op("wrong", "/name", "x")), "ValidationException",
		"1 validation error detected: Value 'wrong' at 'updateAuthorizerInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]")
	_, err = c.UpdateAuthorizer(ctx, &apigateway.UpdateAuthorizerInput{RestApiId: aws.String("nope"), AuthorizerId: a.Id,
		PatchOperations: []types.PatchOperation{op(types.OpReplace, "/name", "x")}})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Authorizer identifier specified")
	got, err := c.GetAuthorizer(ctx, &apigateway.GetAuthorizerInput{RestApiId: &id, AuthorizerId: a.Id})
	if err != nil || aws.ToString(got.Name) != "a" || got.Type != types.AuthorizerTypeToken {
		t.Fatalf("after failed updates: %v %+v", err, got)
	}
}
