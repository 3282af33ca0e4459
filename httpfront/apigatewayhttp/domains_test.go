package apigatewayhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/aws/smithy-go"

	"github.com/cloudemu/emulator/server/servertest"
)

// domainsReply is a raw HTTP answer.
type domainsReply struct {
	status int
	code   string
	body   map[string]any
	raw    []byte
}

// domainsDo sends a raw request (for what the SDK refuses to send) with
// the path kept exactly as written.
func domainsDo(t *testing.T, srv *servertest.Server, method, path, body string) domainsReply {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.URL.RawPath = strings.SplitN(path, "?", 2)[0]
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/apigateway/aws4_request, "+
		"SignedHeaders=host, Signature=abc")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := domainsReply{status: resp.StatusCode, code: resp.Header.Get("x-amzn-ErrorType"), raw: raw}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			t.Fatalf("%s %s: body is not JSON: %s", method, path, raw)
		}
	}
	return r
}

// domainsWant checks a raw error answer's status, code and message.
func domainsWant(t *testing.T, r domainsReply, status int, code, msg string) {
	t.Helper()
	m, _ := r.body["message"].(string)
	if m == "" {
		m, _ = r.body["Message"].(string)
	}
	if r.status != status || r.code != code || (msg != "" && m != msg) {
		t.Fatalf("want %d %s %q, got %d %s %s", status, code, msg, r.status, r.code, r.raw)
	}
}

// domainsNeed skips a test whose setup uses an operation another group has
// not landed yet (NotImplementedException), and fails on any other error.
func domainsNeed(t *testing.T, err error) {
	t.Helper()
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "NotImplementedException" {
		t.Skipf("setup needs an operation that is not implemented yet: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func domainsAPI(t *testing.T, c *apigateway.Client, name string) string {
	t.Helper()
	out, err := c.CreateRestApi(context.Background(), &apigateway.CreateRestApiInput{Name: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Id)
}

func TestDomainNameCreate(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	edge, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{
		DomainName: aws.String("api.example.com"), CertificateName: aws.String("cert"),
		CertificateArn: aws.String("arn:aws:acm:us-east-1:000000000000:certificate/abc"),
		Tags:           map[string]string{"team": "x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(edge.DomainName) != "api.example.com" || edge.DomainNameStatus != types.DomainNameStatusAvailable ||
		!strings.HasSuffix(aws.ToString(edge.DistributionDomainName), ".cloudfront.net") ||
		aws.ToString(edge.DistributionHostedZoneId) != "Z2FDTNDATAQYW2" || edge.RegionalDomainName != nil ||
		edge.SecurityPolicy != types.SecurityPolicyTls12 || aws.ToString(edge.CertificateName) != "cert" ||
		edge.CertificateUploadDate == nil || time.Since(*edge.CertificateUploadDate) > time.Minute ||
		aws.ToString(edge.DomainNameArn) != "arn:aws:apigateway:us-east-1::/domainnames/api.example.com" ||
		edge.DomainNameId != nil || edge.Tags["team"] != "x" ||
		len(edge.EndpointConfiguration.Types) != 1 || edge.EndpointConfiguration.Types[0] != types.EndpointTypeEdge ||
		edge.EndpointConfiguration.IpAddressType != types.IpAddressTypeIpv4 {
		t.Fatalf("edge: %+v", edge)
	}
	reg, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{
		DomainName:             aws.String("regional.example.com"),
		RegionalCertificateArn: aws.String("arn:aws:acm:us-east-1:000000000000:certificate/def"),
		EndpointConfiguration:  &types.EndpointConfiguration{Types: []types.EndpointType{types.EndpointTypeRegional}},
		SecurityPolicy:         types.SecurityPolicyTls10,
	})
	if err != nil {
		t.Fatal(err)
	}
	rdn := aws.ToString(reg.RegionalDomainName)
	if !strings.HasPrefix(rdn, "d-") || !strings.HasSuffix(rdn, ".execute-api.us-east-1.amazonaws.com") ||
		aws.ToString(reg.RegionalHostedZoneId) != "Z1UJRXOUMOOFQ8" || reg.DistributionDomainName != nil ||
		reg.SecurityPolicy != types.SecurityPolicyTls10 || reg.CertificateUploadDate != nil || reg.Tags != nil {
		t.Fatalf("regional: %+v", reg)
	}
	priv, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{
		DomainName:            aws.String("private.example.com"),
		EndpointConfiguration: &types.EndpointConfiguration{Types: []types.EndpointType{types.EndpointTypePrivate}},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(priv.DomainNameId)
	if id == "" || aws.ToString(priv.DomainNameArn) != "arn:aws:apigateway:us-east-1:"+account+":/domainnames/private.example.com+"+id ||
		priv.EndpointConfiguration.IpAddressType != types.IpAddressTypeDualstack {
		t.Fatalf("private: %+v", priv)
	}
	if _, err := c.GetDomainName(ctx, &apigateway.GetDomainNameInput{DomainName: priv.DomainName, DomainNameId: aws.String(id)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetDomainName(ctx, &apigateway.GetDomainNameInput{DomainName: priv.DomainName, DomainNameId: aws.String("other")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid domain name identifier specified")

	for _, tc := range []struct {
		name string
		in   *apigateway.CreateDomainNameInput
		code string
		msg  string
	}{
		{"case=duplicate", &apigateway.CreateDomainNameInput{DomainName: aws.String("api.example.com")},
			"BadRequestException", "The domain name you provided already exists."},
		{"case=empty-name", &apigateway.CreateDomainNameInput{DomainName: aws.String("")},
			"BadRequestException", "No Domain Name specified"},
		{"case=not-dns", &apigateway.CreateDomainNameInput{DomainName: aws.String("a b/c")},
			"BadRequestException", "Invalid domain name specified: a b/c"},
		{"case=two-types", &apigateway.CreateDomainNameInput{DomainName: aws.String("two.example.com"),
			EndpointConfiguration: &types.EndpointConfiguration{Types: []types.EndpointType{"EDGE", "REGIONAL"}}},
			"BadRequestException", "Cannot create a domain name with multiple Endpoint Types."},
		{"case=bad-type", &apigateway.CreateDomainNameInput{DomainName: aws.String("bad.example.com"),
			EndpointConfiguration: &types.EndpointConfiguration{Types: []types.EndpointType{"NOPE"}}},
			"ValidationException", "1 validation error detected: Value '[NOPE]' at 'createDomainNameInput.endpointConfiguration.types' " +
				"failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [PRIVATE, EDGE, REGIONAL]]"},
		{"case=bad-policy", &apigateway.CreateDomainNameInput{DomainName: aws.String("bad.example.com"), SecurityPolicy: "TLS_9"},
			"ValidationException", ""},
		{"case=aws-tag", &apigateway.CreateDomainNameInput{DomainName: aws.String("tag.example.com"),
			Tags: map[string]string{"AWS:x": "y"}},
			"BadRequestException", "Invalid tag key. Tag keys cannot start with 'aws:' (case insensitive)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateDomainName(ctx, tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
}

func TestDomainNameReadUpdateDelete(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	for _, n := range []string{"c.example.com", "a.example.com", "b.example.com"} {
		if _, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: aws.String(n),
			CertificateName: aws.String("cert")}); err != nil {
			t.Fatal(err)
		}
	}
	// GetDomainName answers tags {} even without tags; the list omits them.
	if r := domainsDo(t, srv, "GET", "/domainnames/a.example.com", ""); r.status != 200 || r.body["tags"] == nil {
		t.Fatalf("get: %d %s", r.status, r.raw)
	}
	r := domainsDo(t, srv, "GET", "/domainnames?limit=2", "")
	items, _ := r.body["item"].([]any)
	if r.status != 200 || len(items) != 2 || items[0].(map[string]any)["domainName"] != "a.example.com" ||
		items[0].(map[string]any)["tags"] != nil || r.body["position"] == nil {
		t.Fatalf("page 1: %d %s", r.status, r.raw)
	}
	page2, err := c.GetDomainNames(ctx, &apigateway.GetDomainNamesInput{Limit: aws.Int32(2), Position: aws.String(r.body["position"].(string))})
	if err != nil || len(page2.Items) != 1 || aws.ToString(page2.Items[0].DomainName) != "c.example.com" || page2.Position != nil {
		t.Fatalf("page 2: %v %+v", err, page2)
	}
	if r := domainsDo(t, srv, "GET", "/domainnames?resourceOwner=OTHER_ACCOUNTS", ""); r.status != 200 || len(r.body["item"].([]any)) != 0 {
		t.Fatalf("other accounts: %d %s", r.status, r.raw)
	}
	domainsWant(t, domainsDo(t, srv, "GET", "/domainnames?resourceOwner=X", ""), 400, "ValidationException",
		"1 validation error detected: Value 'X' at 'resourceOwner' failed to satisfy constraint: Member must satisfy enum value set: [SELF, OTHER_ACCOUNTS]")

	// Moving EDGE to REGIONAL as AWS documents it: add the new type and
	// its certificate, then remove the old type.
	name := aws.String("a.example.com")
	up, err := c.UpdateDomainName(ctx, &apigateway.UpdateDomainNameInput{DomainName: name, PatchOperations: []types.PatchOperation{
		{Op: types.OpAdd, Path: aws.String("/endpointConfiguration/types"), Value: aws.String("REGIONAL")},
		{Op: types.OpAdd, Path: aws.String("/regionalCertificateArn"), Value: aws.String("arn:aws:acm:us-east-1:000000000000:certificate/r")},
		{Op: types.OpReplace, Path: aws.String("/securityPolicy"), Value: aws.String("TLS_1_0")},
	}})
	if err != nil || len(up.EndpointConfiguration.Types) != 2 || up.RegionalDomainName == nil || up.DistributionDomainName == nil ||
		up.SecurityPolicy != types.SecurityPolicyTls10 || up.Tags == nil {
		t.Fatalf("add regional: %v %+v", err, up)
	}
	up, err = c.UpdateDomainName(ctx, &apigateway.UpdateDomainNameInput{DomainName: name, PatchOperations: []types.PatchOperation{
		{Op: types.OpRemove, Path: aws.String("/endpointConfiguration/types"), Value: aws.String("EDGE")},
		{Op: types.OpRemove, Path: aws.String("/certificateName")},
		{Op: types.OpReplace, Path: aws.String("/mutualTlsAuthentication/truststoreUri"), Value: aws.String("s3://b/k")},
	}})
	if err != nil || len(up.EndpointConfiguration.Types) != 1 || up.EndpointConfiguration.Types[0] != types.EndpointTypeRegional ||
		up.DistributionDomainName != nil || up.CertificateName != nil || up.CertificateUploadDate != nil ||
		up.MutualTlsAuthentication == nil || aws.ToString(up.MutualTlsAuthentication.TruststoreUri) != "s3://b/k" {
		t.Fatalf("remove edge: %v %+v", err, up)
	}
	// Terraform's form: replace /endpointConfiguration/types/0.
	up, err = c.UpdateDomainName(ctx, &apigateway.UpdateDomainNameInput{DomainName: name, PatchOperations: []types.PatchOperation{
		{Op: types.OpReplace, Path: aws.String("/endpointConfiguration/types/0"), Value: aws.String("EDGE")}}})
	if err != nil || up.EndpointConfiguration.Types[0] != types.EndpointTypeEdge || up.RegionalDomainName != nil {
		t.Fatalf("replace type: %v %+v", err, up)
	}
	for _, tc := range []struct {
		name string
		op   types.PatchOperation
		code string
		msg  string
	}{
		{"path=unknown", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/nope"), Value: aws.String("x")},
			"BadRequestException", "Invalid patch path /nope"},
		{"op=unsupported", types.PatchOperation{Op: types.OpAdd, Path: aws.String("/securityPolicy"), Value: aws.String("TLS_1_2")},
			"BadRequestException", "Invalid patch operation specified. Must be one of: [replace]"},
		{"op=enum", types.PatchOperation{Op: "frob", Path: aws.String("/securityPolicy")},
			"ValidationException", "1 validation error detected: Value 'frob' at 'updateDomainNameInput.patchOperations.1.member.op' " +
				"failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]"},
		{"value=bad-type", types.PatchOperation{Op: types.OpAdd, Path: aws.String("/endpointConfiguration/types"), Value: aws.String("X")},
			"BadRequestException", "Invalid EndpointTypes specified. Valid options are REGIONAL,EDGE"},
		{"value=last-type", types.PatchOperation{Op: types.OpRemove, Path: aws.String("/endpointConfiguration/types"), Value: aws.String("EDGE")},
			"BadRequestException", "REGIONAL Configuration and EDGE Configuration cannot be both DISABLED."},
		{"value=ip", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/endpointConfiguration/ipAddressType"), Value: aws.String("v6")},
			"BadRequestException", "ipAddressType must be either ipv4 or dualstack."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.UpdateDomainName(ctx, &apigateway.UpdateDomainNameInput{DomainName: name,
				PatchOperations: []types.PatchOperation{tc.op}})
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	// A failed update changes nothing.
	got, err := c.GetDomainName(ctx, &apigateway.GetDomainNameInput{DomainName: name})
	if err != nil || len(got.EndpointConfiguration.Types) != 1 || got.EndpointConfiguration.Types[0] != types.EndpointTypeEdge {
		t.Fatalf("after failed updates: %v %+v", err, got)
	}
	_, err = c.UpdateDomainName(ctx, &apigateway.UpdateDomainNameInput{DomainName: aws.String("none.example.com"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/securityPolicy"), Value: aws.String("TLS_1_2")}}})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid domain name identifier specified")

	if r := domainsDo(t, srv, "DELETE", "/domainnames/a.example.com", ""); r.status != 202 || len(r.raw) != 0 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	_, err = c.GetDomainName(ctx, &apigateway.GetDomainNameInput{DomainName: name})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid domain name identifier specified")
	_, err = c.DeleteDomainName(ctx, &apigateway.DeleteDomainNameInput{DomainName: name})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid domain name identifier specified")
	// The name is free again.
	if _, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: name}); err != nil {
		t.Fatal(err)
	}
}

func TestDomainNameBadInput(t *testing.T) {
	srv, _ := start(t)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code, msg                string
	}{
		{"body=no-name", "POST", "/domainnames", `{}`, 400, "BadRequestException", "No Domain Name specified"},
		{"body=name-number", "POST", "/domainnames", `{"domainName":1}`, 400, "SerializationException", ""},
		{"body=tags-string", "POST", "/domainnames", `{"domainName":"x.example.com","tags":"x"}`, 400, "SerializationException", ""},
		{"body=not-json", "POST", "/domainnames", `{"domainName":`, 400, "BadRequestException", ""},
		{"body=no-types", "POST", "/domainnames", `{"domainName":"x.example.com","endpointConfiguration":{"types":[]}}`,
			400, "BadRequestException", "REGIONAL Configuration and EDGE Configuration cannot be both DISABLED."},
		{"patch=ops-string", "PATCH", "/domainnames/x.example.com", `{"patchOperations":"x"}`, 400, "SerializationException", ""},
		{"mapping=no-domain", "POST", "/domainnames/none.example.com/basepathmappings", `{"restApiId":"x"}`,
			404, "NotFoundException", "Invalid domain name identifier specified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			domainsWant(t, domainsDo(t, srv, tc.method, tc.path, tc.body), tc.status, tc.code, tc.msg)
		})
	}
}

func TestBasePathMappings(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	api1, api2 := domainsAPI(t, c, "one"), domainsAPI(t, c, "two")
	domain := aws.String("map.example.com")
	if _, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: domain}); err != nil {
		t.Fatal(err)
	}
	// The empty base path is "(none)" everywhere.
	m, err := c.CreateBasePathMapping(ctx, &apigateway.CreateBasePathMappingInput{DomainName: domain, RestApiId: aws.String(api1)})
	if err != nil || aws.ToString(m.BasePath) != "(none)" || aws.ToString(m.RestApiId) != api1 || m.Stage != nil {
		t.Fatalf("create root: %v %+v", err, m)
	}
	if got, err := c.GetBasePathMapping(ctx, &apigateway.GetBasePathMappingInput{DomainName: domain, BasePath: aws.String("(none)")}); err != nil ||
		aws.ToString(got.RestApiId) != api1 {
		t.Fatalf("get root: %v %+v", err, got)
	}
	r := domainsDo(t, srv, "POST", "/domainnames/map.example.com/basepathmappings", `{"basePath":"v1","restApiId":"`+api1+`"}`)
	if r.status != 201 || r.body["basePath"] != "v1" || r.body["restApiId"] != api1 || len(r.body) != 2 {
		t.Fatalf("create v1: %d %s", r.status, r.raw)
	}
	for _, tc := range []struct {
		name string
		in   *apigateway.CreateBasePathMappingInput
		code string
		msg  string
	}{
		{"case=duplicate", &apigateway.CreateBasePathMappingInput{DomainName: domain, BasePath: aws.String("v1"), RestApiId: aws.String(api2)},
			"ConflictException", "Base path already exists for this domain name"},
		{"case=duplicate-root", &apigateway.CreateBasePathMappingInput{DomainName: domain, BasePath: aws.String(""), RestApiId: aws.String(api2)},
			"ConflictException", "Base path already exists for this domain name"},
		{"case=nested", &apigateway.CreateBasePathMappingInput{DomainName: domain, BasePath: aws.String("a/b"), RestApiId: aws.String(api1)},
			"BadRequestException", "API Gateway V1 doesn't support the slash character (/) in base path mappings. " +
				"To create a multi-level base path mapping, use API Gateway V2."},
		{"case=no-api", &apigateway.CreateBasePathMappingInput{DomainName: domain, BasePath: aws.String("v9"), RestApiId: aws.String("nope")},
			"BadRequestException", "Invalid REST API identifier specified"},
		{"case=no-stage", &apigateway.CreateBasePathMappingInput{DomainName: domain, BasePath: aws.String("v9"), RestApiId: aws.String(api1),
			Stage: aws.String("prod")}, "BadRequestException", "Invalid stage identifier specified"},
		{"case=no-domain", &apigateway.CreateBasePathMappingInput{DomainName: aws.String("x.example.com"), RestApiId: aws.String(api1)},
			"NotFoundException", "Invalid domain name identifier specified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateBasePathMapping(ctx, tc.in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	if _, err := c.CreateBasePathMapping(ctx, &apigateway.CreateBasePathMappingInput{DomainName: domain,
		BasePath: aws.String("v2"), RestApiId: aws.String(api2)}); err != nil {
		t.Fatal(err)
	}
	p1, err := c.GetBasePathMappings(ctx, &apigateway.GetBasePathMappingsInput{DomainName: domain, Limit: aws.Int32(2)})
	if err != nil || len(p1.Items) != 2 || aws.ToString(p1.Items[0].BasePath) != "(none)" || p1.Position == nil {
		t.Fatalf("page 1: %v %+v", err, p1)
	}
	p2, err := c.GetBasePathMappings(ctx, &apigateway.GetBasePathMappingsInput{DomainName: domain, Limit: aws.Int32(2), Position: p1.Position})
	if err != nil || len(p2.Items) != 1 || aws.ToString(p2.Items[0].BasePath) != "v2" || p2.Position != nil {
		t.Fatalf("page 2: %v %+v", err, p2)
	}

	// Re-point, rename, and rename onto an existing base path (AWS
	// replaces that mapping).
	up, err := c.UpdateBasePathMapping(ctx, &apigateway.UpdateBasePathMappingInput{DomainName: domain, BasePath: aws.String("v1"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/restapiId"), Value: aws.String(api2)}}})
	if err != nil || aws.ToString(up.RestApiId) != api2 || aws.ToString(up.BasePath) != "v1" {
		t.Fatalf("re-point: %v %+v", err, up)
	}
	up, err = c.UpdateBasePathMapping(ctx, &apigateway.UpdateBasePathMappingInput{DomainName: domain, BasePath: aws.String("v1"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/basePath"), Value: aws.String("v3")}}})
	if err != nil || aws.ToString(up.BasePath) != "v3" {
		t.Fatalf("rename: %v %+v", err, up)
	}
	_, err = c.GetBasePathMapping(ctx, &apigateway.GetBasePathMappingInput{DomainName: domain, BasePath: aws.String("v1")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid base path mapping identifier specified")
	up, err = c.UpdateBasePathMapping(ctx, &apigateway.UpdateBasePathMappingInput{DomainName: domain, BasePath: aws.String("v3"),
		PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/basePath"), Value: aws.String("v2")},
			{Op: types.OpReplace, Path: aws.String("/restapiId"), Value: aws.String(api1)},
		}})
	if err != nil || aws.ToString(up.BasePath) != "v2" || aws.ToString(up.RestApiId) != api1 {
		t.Fatalf("overwrite: %v %+v", err, up)
	}
	all, err := c.GetBasePathMappings(ctx, &apigateway.GetBasePathMappingsInput{DomainName: domain})
	if err != nil || len(all.Items) != 2 || aws.ToString(all.Items[1].RestApiId) != api1 {
		t.Fatalf("after overwrite: %v %+v", err, all)
	}
	for _, tc := range []struct {
		name     string
		basePath string
		op       types.PatchOperation
		code     string
		msg      string
	}{
		{"update=unknown-mapping", "badpath", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/basePath"), Value: aws.String("x")},
			"NotFoundException", "Invalid base path mapping identifier specified"},
		{"update=add", "v2", types.PatchOperation{Op: types.OpAdd, Path: aws.String("/basePath"), Value: aws.String("x")},
			"BadRequestException", "Invalid patch operation specified. Must be one of: [replace]"},
		{"update=bad-path", "v2", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/restapiid"), Value: aws.String(api1)},
			"BadRequestException", "Invalid patch path /restapiid"},
		{"update=no-api", "v2", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/restapiId"), Value: aws.String("abcdef")},
			"BadRequestException", "Invalid REST API identifier specified"},
		{"update=no-stage", "v2", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/stage"), Value: aws.String("wrongstage")},
			"BadRequestException", "Invalid stage identifier specified"},
		{"update=nested", "v2", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/basePath"), Value: aws.String("v2/orders")},
			"BadRequestException", "API Gateway V1 doesn't support the slash character (/) in base path mappings. " +
				"To create a multi-level base path mapping, use API Gateway V2."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.UpdateBasePathMapping(ctx, &apigateway.UpdateBasePathMappingInput{DomainName: domain,
				BasePath: aws.String(tc.basePath), PatchOperations: []types.PatchOperation{tc.op}})
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}

	if r := domainsDo(t, srv, "DELETE", "/domainnames/map.example.com/basepathmappings/(none)", ""); r.status != 202 {
		t.Fatalf("delete root: %d %s", r.status, r.raw)
	}
	_, err = c.DeleteBasePathMapping(ctx, &apigateway.DeleteBasePathMappingInput{DomainName: domain, BasePath: aws.String("(none)")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid base path mapping identifier specified")

	// Deleting an API drops the mappings that point at it.
	if _, err := c.DeleteRestApi(ctx, &apigateway.DeleteRestApiInput{RestApiId: aws.String(api1)}); err != nil {
		t.Fatal(err)
	}
	all, err = c.GetBasePathMappings(ctx, &apigateway.GetBasePathMappingsInput{DomainName: domain})
	if err != nil || len(all.Items) != 0 {
		t.Fatalf("after api delete: %v %+v", err, all)
	}
	_, err = c.GetBasePathMappings(ctx, &apigateway.GetBasePathMappingsInput{DomainName: aws.String("x.example.com")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid domain name identifier specified")
}

// TestBasePathMappingStages needs stages (group "deployments").
func TestBasePathMappingStages(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	api := domainsAPI(t, c, "staged")
	domain := aws.String("stages.example.com")
	if _, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: domain}); err != nil {
		t.Fatal(err)
	}
	res, err := c.GetResources(ctx, &apigateway.GetResourcesInput{RestApiId: aws.String(api)})
	domainsNeed(t, err)
	root := res.Items[0].Id
	_, err = c.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: aws.String(api), ResourceId: root,
		HttpMethod: aws.String("GET"), AuthorizationType: aws.String("NONE")})
	domainsNeed(t, err)
	_, err = c.PutIntegration(ctx, &apigateway.PutIntegrationInput{RestApiId: aws.String(api), ResourceId: root,
		HttpMethod: aws.String("GET"), Type: types.IntegrationTypeMock})
	domainsNeed(t, err)
	for _, stage := range []string{"prod", "dev"} {
		_, err = c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: aws.String(api), StageName: aws.String(stage)})
		domainsNeed(t, err)
	}
	for bp, stage := range map[string]string{"p": "prod", "d": "dev"} {
		m, err := c.CreateBasePathMapping(ctx, &apigateway.CreateBasePathMappingInput{DomainName: domain, BasePath: aws.String(bp),
			RestApiId: aws.String(api), Stage: aws.String(stage)})
		if err != nil || aws.ToString(m.Stage) != stage {
			t.Fatalf("create %s: %v %+v", bp, err, m)
		}
	}
	up, err := c.UpdateBasePathMapping(ctx, &apigateway.UpdateBasePathMappingInput{DomainName: domain, BasePath: aws.String("d"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/stage"), Value: aws.String("prod")}}})
	if err != nil || aws.ToString(up.Stage) != "prod" {
		t.Fatalf("re-stage: %v %+v", err, up)
	}
	if _, err := c.UpdateBasePathMapping(ctx, &apigateway.UpdateBasePathMappingInput{DomainName: domain, BasePath: aws.String("d"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/stage"), Value: aws.String("dev")}}}); err != nil {
		t.Fatal(err)
	}
	// Deleting a stage drops the mappings that name it, and only those.
	_, err = c.DeleteStage(ctx, &apigateway.DeleteStageInput{RestApiId: aws.String(api), StageName: aws.String("dev")})
	domainsNeed(t, err)
	all, err := c.GetBasePathMappings(ctx, &apigateway.GetBasePathMappingsInput{DomainName: domain})
	if err != nil || len(all.Items) != 1 || aws.ToString(all.Items[0].Stage) != "prod" {
		t.Fatalf("after stage delete: %v %+v", err, all)
	}
}

// TestDomainsPersist restarts on the same data directory and finds domain
// names, mappings, VPC links and tags as they were.
func TestDomainsPersist(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var linkID, apiID string
	{
		srv := servertest.Start(t, servertest.WithPersistence(dir))
		c := client(srv, "us-east-1", "test")
		apiID = domainsAPI(t, c, "kept")
		if _, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: aws.String("kept.example.com"),
			Tags: map[string]string{"a": "1"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: aws.String("gone.example.com")}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteDomainName(ctx, &apigateway.DeleteDomainNameInput{DomainName: aws.String("gone.example.com")}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateBasePathMapping(ctx, &apigateway.CreateBasePathMappingInput{DomainName: aws.String("kept.example.com"),
			BasePath: aws.String("v1"), RestApiId: aws.String(apiID)}); err != nil {
			t.Fatal(err)
		}
		l, err := c.CreateVpcLink(ctx, &apigateway.CreateVpcLinkInput{Name: aws.String("link"),
			TargetArns: []string{"arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/net/n/1"}})
		if err != nil {
			t.Fatal(err)
		}
		linkID = aws.ToString(l.Id)
		if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{
			ResourceArn: aws.String("arn:aws:apigateway:us-east-1::/vpclinks/" + linkID), Tags: map[string]string{"t": "2"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{
			ResourceArn: aws.String("arn:aws:apigateway:us-east-1::/restapis/" + apiID), Tags: map[string]string{"r": "3"}}); err != nil {
			t.Fatal(err)
		}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := srv.Emulator.Shutdown(sctx); err != nil {
			t.Fatal(err)
		}
	}
	srv := servertest.Start(t, servertest.WithPersistence(dir))
	c := client(srv, "us-east-1", "test")
	d, err := c.GetDomainName(ctx, &apigateway.GetDomainNameInput{DomainName: aws.String("kept.example.com")})
	if err != nil || d.Tags["a"] != "1" || d.DistributionDomainName == nil {
		t.Fatalf("domain: %v %+v", err, d)
	}
	if _, err := c.GetDomainName(ctx, &apigateway.GetDomainNameInput{DomainName: aws.String("gone.example.com")}); err == nil {
		t.Fatal("deleted domain came back")
	}
	m, err := c.GetBasePathMapping(ctx, &apigateway.GetBasePathMappingInput{DomainName: aws.String("kept.example.com"), BasePath: aws.String("v1")})
	if err != nil || aws.ToString(m.RestApiId) != apiID {
		t.Fatalf("mapping: %v %+v", err, m)
	}
	l, err := c.GetVpcLink(ctx, &apigateway.GetVpcLinkInput{VpcLinkId: aws.String(linkID)})
	if err != nil || l.Tags["t"] != "2" || l.Status != types.VpcLinkStatusAvailable {
		t.Fatalf("link: %v %+v", err, l)
	}
	tags, err := c.GetTags(ctx, &apigateway.GetTagsInput{ResourceArn: aws.String("arn:aws:apigateway:us-east-1::/restapis/" + apiID)})
	if err != nil || tags.Tags["r"] != "3" {
		t.Fatalf("api tags: %v %+v", err, tags)
	}
	// The restored name is still taken.
	_, err = c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: aws.String("kept.example.com")})
	servertest.WantAPIError(t, err, "BadRequestException", "The domain name you provided already exists.")
}
