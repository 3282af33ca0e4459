package apigatewayv2http_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// ---- helpers of the domains group (domain names, VPC links, tags) ----

// domainsAPI creates an HTTP API with the given stages.
func domainsAPI(t *testing.T, c *apigatewayv2.Client, name string, stages ...string) string {
	t.Helper()
	ctx := context.Background()
	out, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String(name), ProtocolType: types.ProtocolTypeHttp})
	need(t, err)
	for _, s := range stages {
		_, err := c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: out.ApiId, StageName: aws.String(s)})
		need(t, err)
	}
	return aws.ToString(out.ApiId)
}

func domainsCreate(t *testing.T, c *apigatewayv2.Client, name string) *apigatewayv2.CreateDomainNameOutput {
	t.Helper()
	out, err := c.CreateDomainName(context.Background(), &apigatewayv2.CreateDomainNameInput{
		DomainName: aws.String(name),
		DomainNameConfigurations: []types.DomainNameConfiguration{{
			CertificateArn: aws.String("arn:aws:acm:us-east-1:000000000000:certificate/abc")}},
	})
	if err != nil {
		t.Fatalf("create domain %s: %v", name, err)
	}
	return out
}

var domainsTargetName = regexp.MustCompile(`^d-[a-z0-9]{10}\.execute-api\.eu-west-1\.amazonaws\.com$`)

// ---- domain names ----

func TestDomainNameCreate(t *testing.T) {
	srv, _ := startServer(t)
	c := regionClient(srv, "eu-west-1", "test")
	ctx := context.Background()
	out, err := c.CreateDomainName(ctx, &apigatewayv2.CreateDomainNameInput{
		DomainName: aws.String("api.example.com"),
		DomainNameConfigurations: []types.DomainNameConfiguration{{
			CertificateArn: aws.String("arn:aws:acm:eu-west-1:000000000000:certificate/abc"),
			// AWS computes these; what a request says is ignored.
			ApiGatewayDomainName: aws.String("mine.example.com"), HostedZoneId: aws.String("ZZZ"),
		}},
		MutualTlsAuthentication: &types.MutualTlsAuthenticationInput{TruststoreUri: aws.String("s3://bucket/ca.pem"),
			TruststoreVersion: aws.String("v1")},
		Tags: map[string]string{"team": "x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.DomainName) != "api.example.com" ||
		aws.ToString(out.ApiMappingSelectionExpression) != "$request.basepath" ||
		aws.ToString(out.DomainNameArn) != "arn:aws:apigateway:eu-west-1::/domainnames/api.example.com" ||
		out.RoutingMode != types.RoutingModeApiMappingOnly || out.Tags["team"] != "x" ||
		aws.ToString(out.MutualTlsAuthentication.TruststoreUri) != "s3://bucket/ca.pem" ||
		aws.ToString(out.MutualTlsAuthentication.TruststoreVersion) != "v1" || len(out.DomainNameConfigurations) != 1 {
		t.Fatalf("create: %+v", out)
	}
	cfg := out.DomainNameConfigurations[0]
	if cfg.EndpointType != types.EndpointTypeRegional || cfg.SecurityPolicy != types.SecurityPolicyTls12 ||
		cfg.DomainNameStatus != types.DomainNameStatusAvailable || cfg.IpAddressType != types.IpAddressTypeIpv4 ||
		!domainsTargetName.MatchString(aws.ToString(cfg.ApiGatewayDomainName)) ||
		aws.ToString(cfg.HostedZoneId) != "ZLY8HYME6SFDD" ||
		aws.ToString(cfg.CertificateArn) != "arn:aws:acm:eu-west-1:000000000000:certificate/abc" {
		t.Fatalf("configuration: %+v", cfg)
	}
	got, err := c.GetDomainName(ctx, &apigatewayv2.GetDomainNameInput{DomainName: aws.String("api.example.com")})
	if err != nil || aws.ToString(got.DomainNameConfigurations[0].ApiGatewayDomainName) != aws.ToString(cfg.ApiGatewayDomainName) ||
		got.Tags["team"] != "x" {
		t.Fatalf("get: %v %+v", err, got)
	}
	// The domain lives in its region only.
	us := regionClient(srv, "us-east-1", "test")
	_, err = us.GetDomainName(ctx, &apigatewayv2.GetDomainNameInput{DomainName: aws.String("api.example.com")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid domain name identifier specified")
}

// TestDomainNameWire checks members that the SDK hides: tags present when
// empty, computed members absent when unset, the NotFound resourceType.
func TestDomainNameWire(t *testing.T) {
	srv, c := startServer(t)
	domainsCreate(t, c, "wire.example.com")
	r := send(t, srv, "GET", "/v2/domainnames/wire.example.com", "")
	if r.status != 200 || string(mustJSON(t, r.body["tags"])) != "{}" {
		t.Fatalf("get: %d %s", r.status, r.raw)
	}
	for _, absent := range []string{"mutualTlsAuthentication", "certificateUploadDate", "domainNameStatusMessage"} {
		if strings.Contains(string(r.raw), absent) {
			t.Fatalf("%s present: %s", absent, r.raw)
		}
	}
	r = send(t, srv, "GET", "/v2/domainnames/nope.example.com", "")
	wantReply(t, r, 404, "NotFoundException", "Invalid domain name identifier specified")
	if r.body["resourceType"] != "DomainName" {
		t.Fatalf("resourceType: %s", r.raw)
	}
	r = send(t, srv, "POST", "/v2/domainnames", `{"domainNameConfigurations":[{}]}`)
	wantReply(t, r, 400, "BadRequestException", "")
	r = send(t, srv, "POST", "/v2/domainnames", `{"domainName":5}`)
	if r.status != 400 {
		t.Fatalf("type mismatch: %d %s", r.status, r.raw)
	}
}

func TestDomainNameCreateErrors(t *testing.T) {
	_, c := startServer(t)
	domainsCreate(t, c, "taken.example.com")
	cert := aws.String("arn:aws:acm:us-east-1:000000000000:certificate/abc")
	regional := []types.DomainNameConfiguration{{CertificateArn: cert}}
	for _, tc := range []struct {
		name string
		in   apigatewayv2.CreateDomainNameInput
		code string
		msg  string
	}{
		{"case=duplicate", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("taken.example.com"),
			DomainNameConfigurations: regional}, "ConflictException", "The domain name you provided already exists."},
		{"case=edge", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("e.example.com"),
			DomainNameConfigurations: []types.DomainNameConfiguration{{CertificateArn: cert, EndpointType: types.EndpointTypeEdge}}},
			"BadRequestException", "EDGE endpoint type is not supported for APIGatewayV2 domainName"},
		{"case=tls10", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("t.example.com"),
			DomainNameConfigurations: []types.DomainNameConfiguration{{CertificateArn: cert, SecurityPolicy: types.SecurityPolicyTls10}}},
			"BadRequestException", "TLS_1_0 is not supported for APIGatewayV2 domainName."},
		{"case=bad-policy", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("t.example.com"),
			DomainNameConfigurations: []types.DomainNameConfiguration{{CertificateArn: cert, SecurityPolicy: "TLS_9"}}},
			"BadRequestException", ""},
		{"case=bad-ip-type", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("t.example.com"),
			DomainNameConfigurations: []types.DomainNameConfiguration{{CertificateArn: cert, IpAddressType: "ipv5"}}},
			"BadRequestException", ""},
		{"case=no-configuration", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("n.example.com")},
			"BadRequestException", "Invalid input. Expected one domain name configuration"},
		{"case=two-configurations", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("n.example.com"),
			DomainNameConfigurations: append(regional, regional...)},
			"BadRequestException", "Invalid input. Expected one domain name configuration"},
		{"case=bad-name", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("a/b.example.com"),
			DomainNameConfigurations: regional}, "BadRequestException", ""},
		{"case=empty-label", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("a..example.com"),
			DomainNameConfigurations: regional}, "BadRequestException", ""},
		{"case=routing-mode", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("r.example.com"),
			DomainNameConfigurations: regional, RoutingMode: "SOMETIMES"}, "BadRequestException", ""},
		{"case=truststore-not-s3", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("m.example.com"),
			DomainNameConfigurations: regional,
			MutualTlsAuthentication:  &types.MutualTlsAuthenticationInput{TruststoreUri: aws.String("https://x/ca.pem")}},
			"BadRequestException", ""},
		{"case=aws-tag", apigatewayv2.CreateDomainNameInput{DomainName: aws.String("g.example.com"),
			DomainNameConfigurations: regional, Tags: map[string]string{"aws:x": "1"}}, "BadRequestException", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateDomainName(context.Background(), &tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	// Nothing of the failed creates was kept.
	out, err := c.GetDomainNames(context.Background(), &apigatewayv2.GetDomainNamesInput{})
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("list: %v %+v", err, out)
	}
}

func TestDomainNameList(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	for _, n := range []string{"c.example.com", "a.example.com", "b.example.com"} {
		domainsCreate(t, c, n)
	}
	var names []string
	var token *string
	for pages := 0; ; pages++ {
		out, err := c.GetDomainNames(ctx, &apigatewayv2.GetDomainNamesInput{MaxResults: aws.String("2"), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range out.Items {
			names = append(names, aws.ToString(d.DomainName))
		}
		if token = out.NextToken; token == nil {
			break
		}
		if pages > 3 {
			t.Fatal("pagination does not end")
		}
	}
	if strings.Join(names, ",") != "a.example.com,b.example.com,c.example.com" {
		t.Fatalf("names: %v", names)
	}
	for _, tc := range []struct{ name, query string }{
		{"maxResults=zero", "maxResults=0"},
		{"maxResults=word", "maxResults=many"},
		{"nextToken=garbage", "nextToken=%21%21"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantReply(t, send(t, srv, "GET", "/v2/domainnames?"+tc.query, ""), 400, "BadRequestException", "")
		})
	}
	r := send(t, srv, "GET", "/v2/domainnames", "")
	items, _ := r.body["items"].([]any)
	if r.status != 200 || len(items) != 3 || r.body["nextToken"] != nil {
		t.Fatalf("list: %s", r.raw)
	}
	if first, _ := items[0].(map[string]any); first["tags"] == nil {
		t.Fatalf("items carry tags: %s", r.raw)
	}
}

func TestDomainNameUpdate(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	created := domainsCreate(t, c, "u.example.com")
	name := aws.String("u.example.com")
	target := aws.ToString(created.DomainNameConfigurations[0].ApiGatewayDomainName)

	// A new configuration: the certificate changes, the target name stays.
	out, err := c.UpdateDomainName(ctx, &apigatewayv2.UpdateDomainNameInput{DomainName: name,
		DomainNameConfigurations: []types.DomainNameConfiguration{{
			CertificateArn: aws.String("arn:aws:acm:us-east-1:000000000000:certificate/new"),
			IpAddressType:  types.IpAddressTypeDualstack}}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := out.DomainNameConfigurations[0]
	if aws.ToString(cfg.CertificateArn) != "arn:aws:acm:us-east-1:000000000000:certificate/new" ||
		aws.ToString(cfg.ApiGatewayDomainName) != target || cfg.IpAddressType != types.IpAddressTypeDualstack ||
		cfg.SecurityPolicy != types.SecurityPolicyTls12 || cfg.EndpointType != types.EndpointTypeRegional {
		t.Fatalf("update configuration: %+v", cfg)
	}
	// Members not sent stay; mutual TLS and the routing mode change.
	out, err = c.UpdateDomainName(ctx, &apigatewayv2.UpdateDomainNameInput{DomainName: name,
		MutualTlsAuthentication: &types.MutualTlsAuthenticationInput{TruststoreUri: aws.String("s3://b/ca.pem")},
		RoutingMode:             types.RoutingModeRoutingRuleThenApiMapping})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.DomainNameConfigurations[0].CertificateArn) != "arn:aws:acm:us-east-1:000000000000:certificate/new" ||
		aws.ToString(out.MutualTlsAuthentication.TruststoreUri) != "s3://b/ca.pem" ||
		out.RoutingMode != types.RoutingModeRoutingRuleThenApiMapping {
		t.Fatalf("update: %+v", out)
	}
	// An empty truststore turns mutual TLS off.
	out, err = c.UpdateDomainName(ctx, &apigatewayv2.UpdateDomainNameInput{DomainName: name,
		MutualTlsAuthentication: &types.MutualTlsAuthenticationInput{TruststoreUri: aws.String("")}})
	if err != nil || out.MutualTlsAuthentication != nil {
		t.Fatalf("mtls off: %v %+v", err, out)
	}
	got, err := c.GetDomainName(ctx, &apigatewayv2.GetDomainNameInput{DomainName: name})
	if err != nil || got.MutualTlsAuthentication != nil || got.RoutingMode != types.RoutingModeRoutingRuleThenApiMapping {
		t.Fatalf("get after update: %v %+v", err, got)
	}
	for _, tc := range []struct {
		name string
		in   apigatewayv2.UpdateDomainNameInput
		code string
	}{
		{"case=unknown", apigatewayv2.UpdateDomainNameInput{DomainName: aws.String("x.example.com")}, "NotFoundException"},
		{"case=edge", apigatewayv2.UpdateDomainNameInput{DomainName: name, DomainNameConfigurations: []types.DomainNameConfiguration{
			{EndpointType: types.EndpointTypeEdge}}}, "BadRequestException"},
		{"case=empty-configurations", apigatewayv2.UpdateDomainNameInput{DomainName: name,
			DomainNameConfigurations: []types.DomainNameConfiguration{}}, "BadRequestException"},
		{"case=routing-mode", apigatewayv2.UpdateDomainNameInput{DomainName: name, RoutingMode: "NEVER"}, "BadRequestException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.UpdateDomainName(ctx, &tc.in)
			servertest.WantAPIError(t, err, tc.code, "")
		})
	}
}

func TestDomainNameDelete(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	domainsCreate(t, c, "d.example.com")
	r := send(t, srv, "DELETE", "/v2/domainnames/d.example.com", "")
	if r.status != 204 || len(r.raw) != 0 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	_, err := c.DeleteDomainName(ctx, &apigatewayv2.DeleteDomainNameInput{DomainName: aws.String("d.example.com")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid domain name identifier specified")
	// The name is free again.
	domainsCreate(t, c, "d.example.com")
}

// ---- API mappings ----

func TestAPIMappings(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	apiID := domainsAPI(t, c, "mapped", "prod", "dev")
	domainsCreate(t, c, "m.example.com")
	dn := aws.String("m.example.com")

	root, err := c.CreateApiMapping(ctx, &apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String(apiID),
		Stage: aws.String("prod")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(root.ApiId) != apiID || aws.ToString(root.Stage) != "prod" || root.ApiMappingKey == nil ||
		*root.ApiMappingKey != "" || !regexp.MustCompile(`^[a-z0-9]{10}$`).MatchString(aws.ToString(root.ApiMappingId)) {
		t.Fatalf("root mapping: %+v", root)
	}
	deep, err := c.CreateApiMapping(ctx, &apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String(apiID),
		Stage: aws.String("dev"), ApiMappingKey: aws.String("v1/api")})
	if err != nil || aws.ToString(deep.ApiMappingKey) != "v1/api" {
		t.Fatalf("multi-level mapping: %v %+v", err, deep)
	}
	// The root mapping's key is on the wire as "".
	r := send(t, srv, "GET", "/v2/domainnames/m.example.com/apimappings/"+aws.ToString(root.ApiMappingId), "")
	if r.status != 200 || r.body["apiMappingKey"] != "" {
		t.Fatalf("get root mapping: %d %s", r.status, r.raw)
	}

	for _, tc := range []struct {
		name string
		in   apigatewayv2.CreateApiMappingInput
		code string
		msg  string
	}{
		{"case=duplicate-key", apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String(apiID), Stage: aws.String("dev"),
			ApiMappingKey: aws.String("v1/api")}, "ConflictException", "ApiMapping key already exists for this domain name"},
		{"case=duplicate-root", apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String(apiID), Stage: aws.String("dev")},
			"ConflictException", "ApiMapping key already exists for this domain name"},
		{"case=unknown-stage", apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String(apiID), Stage: aws.String("qa"),
			ApiMappingKey: aws.String("qa")}, "BadRequestException", "Invalid stage identifier specified"},
		{"case=unknown-api", apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String("nope123456"), Stage: aws.String("prod"),
			ApiMappingKey: aws.String("x")}, "NotFoundException", "Invalid API identifier specified 000000000000:nope123456"},
		{"case=unknown-domain", apigatewayv2.CreateApiMappingInput{DomainName: aws.String("x.example.com"), ApiId: aws.String(apiID),
			Stage: aws.String("prod")}, "NotFoundException", "Invalid domain name identifier specified"},
		{"case=bad-char", apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String(apiID), Stage: aws.String("prod"),
			ApiMappingKey: aws.String("a b")}, "BadRequestException",
			"An ApiMapping key may contain only letters, numbers and one of $-_.+!*'(),"},
		{"case=leading-slash", apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String(apiID), Stage: aws.String("prod"),
			ApiMappingKey: aws.String("/v2")}, "BadRequestException", "API mapping key should not start with a '/' or have consecutive '/'s."},
		{"case=double-slash", apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String(apiID), Stage: aws.String("prod"),
			ApiMappingKey: aws.String("v2//a")}, "BadRequestException", "API mapping key should not start with a '/' or have consecutive '/'s."},
		{"case=trailing-slash", apigatewayv2.CreateApiMappingInput{DomainName: dn, ApiId: aws.String(apiID), Stage: aws.String("prod"),
			ApiMappingKey: aws.String("v2/")}, "BadRequestException", "API mapping key should not end with a '/'."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateApiMapping(ctx, &tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	r = send(t, srv, "POST", "/v2/domainnames/m.example.com/apimappings", `{"stage":"prod"}`)
	wantReply(t, r, 400, "BadRequestException", "")

	// Listing pages through the mappings.
	var seen []string
	var token *string
	for {
		out, err := c.GetApiMappings(ctx, &apigatewayv2.GetApiMappingsInput{DomainName: dn, MaxResults: aws.String("1"), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Items {
			seen = append(seen, aws.ToString(m.ApiMappingKey))
		}
		if token = out.NextToken; token == nil || len(seen) > 2 {
			break
		}
	}
	if len(seen) != 2 {
		t.Fatalf("listed: %q", seen)
	}

	// Update: re-key, re-point; a key in use is refused.
	up, err := c.UpdateApiMapping(ctx, &apigatewayv2.UpdateApiMappingInput{DomainName: dn, ApiMappingId: deep.ApiMappingId,
		ApiId: aws.String(apiID), ApiMappingKey: aws.String("v2"), Stage: aws.String("prod")})
	if err != nil || aws.ToString(up.ApiMappingKey) != "v2" || aws.ToString(up.Stage) != "prod" ||
		aws.ToString(up.ApiMappingId) != aws.ToString(deep.ApiMappingId) {
		t.Fatalf("update: %v %+v", err, up)
	}
	_, err = c.UpdateApiMapping(ctx, &apigatewayv2.UpdateApiMappingInput{DomainName: dn, ApiMappingId: deep.ApiMappingId,
		ApiId: aws.String(apiID), ApiMappingKey: aws.String("")})
	servertest.WantAPIError(t, err, "ConflictException", "ApiMapping key already exists for this domain name")
	_, err = c.UpdateApiMapping(ctx, &apigatewayv2.UpdateApiMappingInput{DomainName: dn, ApiMappingId: deep.ApiMappingId,
		ApiId: aws.String(apiID), Stage: aws.String("nope")})
	servertest.WantAPIError(t, err, "BadRequestException", "Invalid stage identifier specified")
	_, err = c.UpdateApiMapping(ctx, &apigatewayv2.UpdateApiMappingInput{DomainName: dn, ApiMappingId: aws.String("zzzzzzzzzz"),
		ApiId: aws.String(apiID)})
	servertest.WantAPIError(t, err, "NotFoundException", "")
	r = send(t, srv, "PATCH", "/v2/domainnames/m.example.com/apimappings/"+aws.ToString(deep.ApiMappingId), `{"stage":"dev"}`)
	wantReply(t, r, 400, "BadRequestException", "")
	got, err := c.GetApiMapping(ctx, &apigatewayv2.GetApiMappingInput{DomainName: dn, ApiMappingId: deep.ApiMappingId})
	if err != nil || aws.ToString(got.ApiMappingKey) != "v2" || aws.ToString(got.Stage) != "prod" {
		t.Fatalf("get after update: %v %+v", err, got)
	}

	// Delete.
	r = send(t, srv, "DELETE", "/v2/domainnames/m.example.com/apimappings/"+aws.ToString(deep.ApiMappingId), "")
	if r.status != 204 || len(r.raw) != 0 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	_, err = c.GetApiMapping(ctx, &apigatewayv2.GetApiMappingInput{DomainName: dn, ApiMappingId: deep.ApiMappingId})
	servertest.WantAPIError(t, err, "NotFoundException", "")
	_, err = c.DeleteApiMapping(ctx, &apigatewayv2.DeleteApiMappingInput{DomainName: dn, ApiMappingId: deep.ApiMappingId})
	servertest.WantAPIError(t, err, "NotFoundException", "")
	_, err = c.GetApiMappings(ctx, &apigatewayv2.GetApiMappingsInput{DomainName: aws.String("x.example.com")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid domain name identifier specified")

	// Deleting the domain takes its mappings: a domain of the same name
	// starts empty.
	if _, err := c.DeleteDomainName(ctx, &apigatewayv2.DeleteDomainNameInput{DomainName: dn}); err != nil {
		t.Fatal(err)
	}
	domainsCreate(t, c, "m.example.com")
	list, err := c.GetApiMappings(ctx, &apigatewayv2.GetApiMappingsInput{DomainName: dn})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("mappings of a new domain: %v %+v", err, list)
	}
}

// TestAPIMappingsFollowDeletes checks that no mapping outlives the stage or
// API it names.
func TestAPIMappingsFollowDeletes(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	a := domainsAPI(t, c, "a", "prod", "dev")
	b := domainsAPI(t, c, "b", "prod")
	domainsCreate(t, c, "one.example.com")
	domainsCreate(t, c, "two.example.com")
	for _, m := range []struct{ domain, api, stage, key string }{
		{"one.example.com", a, "prod", ""},
		{"one.example.com", a, "dev", "dev"},
		{"one.example.com", b, "prod", "b"},
		{"two.example.com", a, "prod", "a"},
	} {
		if _, err := c.CreateApiMapping(ctx, &apigatewayv2.CreateApiMappingInput{DomainName: aws.String(m.domain),
			ApiId: aws.String(m.api), Stage: aws.String(m.stage), ApiMappingKey: aws.String(m.key)}); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(domain string) string {
		t.Helper()
		out, err := c.GetApiMappings(ctx, &apigatewayv2.GetApiMappingsInput{DomainName: aws.String(domain)})
		if err != nil {
			t.Fatal(err)
		}
		var ks []string
		for _, m := range out.Items {
			ks = append(ks, aws.ToString(m.ApiId)+"/"+aws.ToString(m.Stage))
		}
		slices.Sort(ks)
		return strings.Join(ks, ",")
	}
	_, err := c.DeleteStage(ctx, &apigatewayv2.DeleteStageInput{ApiId: aws.String(a), StageName: aws.String("dev")})
	need(t, err)
	if got := keys("one.example.com"); got != strings.Join(domainsSorted(a+"/prod", b+"/prod"), ",") {
		t.Fatalf("after stage delete: %s", got)
	}
	_, err = c.DeleteApi(ctx, &apigatewayv2.DeleteApiInput{ApiId: aws.String(a)})
	need(t, err)
	if got := keys("one.example.com"); got != b+"/prod" {
		t.Fatalf("after api delete: %s", got)
	}
	if got := keys("two.example.com"); got != "" {
		t.Fatalf("after api delete, other domain: %s", got)
	}
}

func domainsSorted(s ...string) []string { slices.Sort(s); return s }

// TestDomainsPersistence restarts on the same data directory and finds the
// domain names, their mappings, VPC links and tags.
func TestDomainsPersistence(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var linkID, mappingID, apiID string
	func() {
		srv, c := startServer(t, servertest.WithPersistence(dir))
		defer func() { _ = srv.Emulator.Shutdown(ctx) }()
		domainsCreate(t, c, "kept.example.com")
		domainsCreate(t, c, "gone.example.com")
		if _, err := c.DeleteDomainName(ctx, &apigatewayv2.DeleteDomainNameInput{DomainName: aws.String("gone.example.com")}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.TagResource(ctx, &apigatewayv2.TagResourceInput{
			ResourceArn: aws.String("arn:aws:apigateway:us-east-1::/domainnames/kept.example.com"),
			Tags:        map[string]string{"a": "1"}}); err != nil {
			t.Fatal(err)
		}
		l, err := c.CreateVpcLink(ctx, &apigatewayv2.CreateVpcLinkInput{Name: aws.String("link"),
			SubnetIds: []string{"subnet-1"}, Tags: map[string]string{"t": "2"}})
		if err != nil {
			t.Fatal(err)
		}
		linkID = aws.ToString(l.VpcLinkId)
		if _, err := c.UpdateVpcLink(ctx, &apigatewayv2.UpdateVpcLinkInput{VpcLinkId: l.VpcLinkId, Name: aws.String("renamed")}); err != nil {
			t.Fatal(err)
		}
		out, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("p"), ProtocolType: types.ProtocolTypeHttp})
		need(t, err)
		apiID = aws.ToString(out.ApiId)
		_, err = c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: out.ApiId, StageName: aws.String("prod")})
		need(t, err)
		m, err := c.CreateApiMapping(ctx, &apigatewayv2.CreateApiMappingInput{DomainName: aws.String("kept.example.com"),
			ApiId: out.ApiId, Stage: aws.String("prod"), ApiMappingKey: aws.String("v1")})
		if err != nil {
			t.Fatal(err)
		}
		mappingID = aws.ToString(m.ApiMappingId)
		if _, err := c.TagResource(ctx, &apigatewayv2.TagResourceInput{
			ResourceArn: aws.String("arn:aws:apigateway:us-east-1::/apis/" + apiID + "/stages/prod"),
			Tags:        map[string]string{"s": "3"}}); err != nil {
			t.Fatal(err)
		}
	}()

	_, c := startServer(t, servertest.WithPersistence(dir))
	d, err := c.GetDomainName(ctx, &apigatewayv2.GetDomainNameInput{DomainName: aws.String("kept.example.com")})
	if err != nil || d.Tags["a"] != "1" || len(d.DomainNameConfigurations) != 1 {
		t.Fatalf("domain: %v %+v", err, d)
	}
	_, err = c.GetDomainName(ctx, &apigatewayv2.GetDomainNameInput{DomainName: aws.String("gone.example.com")})
	servertest.WantAPIError(t, err, "NotFoundException", "")
	l, err := c.GetVpcLink(ctx, &apigatewayv2.GetVpcLinkInput{VpcLinkId: aws.String(linkID)})
	if err != nil || aws.ToString(l.Name) != "renamed" || l.Tags["t"] != "2" || l.VpcLinkStatus != types.VpcLinkStatusAvailable {
		t.Fatalf("link: %v %+v", err, l)
	}
	// New resources order after the restored ones.
	l2, err := c.CreateVpcLink(ctx, &apigatewayv2.CreateVpcLinkInput{Name: aws.String("later"), SubnetIds: []string{"subnet-2"}})
	if err != nil {
		t.Fatal(err)
	}
	links, err := c.GetVpcLinks(ctx, &apigatewayv2.GetVpcLinksInput{})
	if err != nil || len(links.Items) != 2 || aws.ToString(links.Items[0].VpcLinkId) != linkID ||
		aws.ToString(links.Items[1].VpcLinkId) != aws.ToString(l2.VpcLinkId) {
		t.Fatalf("links: %v %+v", err, links)
	}
	m, err := c.GetApiMapping(ctx, &apigatewayv2.GetApiMappingInput{DomainName: aws.String("kept.example.com"),
		ApiMappingId: aws.String(mappingID)})
	if err != nil || aws.ToString(m.ApiId) != apiID || aws.ToString(m.ApiMappingKey) != "v1" {
		t.Fatalf("mapping: %v %+v", err, m)
	}
	tags, err := c.GetTags(ctx, &apigatewayv2.GetTagsInput{
		ResourceArn: aws.String("arn:aws:apigateway:us-east-1::/apis/" + apiID + "/stages/prod")})
	if err != nil || tags.Tags["s"] != "3" {
		t.Fatalf("stage tags: %v %+v", err, tags)
	}
}

// TestAPIMappingsConcurrentKey races creates of one key: the domain's owner
// serializes them, so exactly one wins.
func TestAPIMappingsConcurrentKey(t *testing.T) {
	srv, _ := startServer(t)
	// Its own transport, whose idle connections are closed before the
	// server shuts down (cleanups run last-registered first); left open,
	// they hold the shutdown up to its grace period.
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := apigatewayv2.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *apigatewayv2.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
		o.HTTPClient = &http.Client{Transport: tr}
	})
	ctx := context.Background()
	apiID := domainsAPI(t, c, "race", "prod")
	domainsCreate(t, c, "race.example.com")
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := c.CreateApiMapping(ctx, &apigatewayv2.CreateApiMappingInput{DomainName: aws.String("race.example.com"),
				ApiId: aws.String(apiID), Stage: aws.String("prod"), ApiMappingKey: aws.String("same")})
			errs <- err
		}()
	}
	won := 0
	for range n {
		if err := <-errs; err == nil {
			won++
		} else {
			servertest.WantAPIError(t, err, "ConflictException", "ApiMapping key already exists for this domain name")
		}
	}
	out, err := c.GetApiMappings(ctx, &apigatewayv2.GetApiMappingsInput{DomainName: aws.String("race.example.com")})
	if won != 1 || err != nil || len(out.Items) != 1 {
		t.Fatalf("won %d, listed %v %+v", won, err, out)
	}
}
