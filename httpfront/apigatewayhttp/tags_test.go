package apigatewayhttp_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/cloudemu/emulator/server/servertest"
)

func tagsARN(region, path string) *string {
	return aws.String("arn:aws:apigateway:" + region + "::" + path)
}

// tagsGet returns the tags GetTags answers for arn.
func tagsGet(t *testing.T, c *apigateway.Client, arn *string) map[string]string {
	t.Helper()
	out, err := c.GetTags(context.Background(), &apigateway.GetTagsInput{ResourceArn: arn})
	if err != nil {
		t.Fatalf("get tags %s: %v", aws.ToString(arn), err)
	}
	return out.Tags
}

func tagsEqual(got, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			return false
		}
	}
	return true
}

func TestTagsRestAPI(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	api, err := c.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String("tagged"),
		Tags: map[string]string{"_custom_id_": "myapi", "team": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	arn := tagsARN("us-east-1", "/restapis/myapi")
	if got := tagsGet(t, c, arn); !tagsEqual(got, map[string]string{"_custom_id_": "myapi", "team": "x"}) {
		t.Fatalf("creation tags: %v", got)
	}
	// TagResource merges: new keys added, existing keys overwritten.
	if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: arn,
		Tags: map[string]string{"team": "y", "env": "dev", "cost": "1"}}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"_custom_id_": "myapi", "team": "y", "env": "dev", "cost": "1"}
	if got := tagsGet(t, c, arn); !tagsEqual(got, want) {
		t.Fatalf("after tag: %v", got)
	}
	// The API itself shows them (its cached body is not stale).
	got, err := c.GetRestApi(ctx, &apigateway.GetRestApiInput{RestApiId: api.Id})
	if err != nil || !tagsEqual(got.Tags, want) {
		t.Fatalf("get api: %v %+v", err, got.Tags)
	}
	// The SDK sends tagKeys repeated; _custom_id_ is an ordinary tag now.
	if _, err := c.UntagResource(ctx, &apigateway.UntagResourceInput{ResourceArn: arn,
		TagKeys: []string{"_custom_id_", "cost", "absent"}}); err != nil {
		t.Fatal(err)
	}
	if got := tagsGet(t, c, arn); !tagsEqual(got, map[string]string{"team": "y", "env": "dev"}) {
		t.Fatalf("after untag: %v", got)
	}
	// docs/apigateway.md's comma-separated form, with the ARN's slashes raw.
	if r := domainsDo(t, srv, "DELETE", "/tags/arn:aws:apigateway:us-east-1::/restapis/myapi?tagKeys=team,env", ""); r.status != 204 || len(r.raw) != 0 {
		t.Fatalf("untag comma form: %d %s", r.status, r.raw)
	}
	// No tags: {"tags": {}}; the API loses its tags member.
	r := domainsDo(t, srv, "GET", "/tags/"+url.PathEscape(aws.ToString(arn)), "")
	if r.status != 200 || string(r.raw) != `{"tags":{}}` {
		t.Fatalf("empty tags: %d %s", r.status, r.raw)
	}
	if r := domainsDo(t, srv, "GET", "/restapis/myapi", ""); r.status != 200 || r.body["tags"] != nil || r.body["id"] != "myapi" {
		t.Fatalf("api after untag: %d %s", r.status, r.raw)
	}
	// Tags go with the API.
	if _, err := c.DeleteRestApi(ctx, &apigateway.DeleteRestApiInput{RestApiId: api.Id}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetTags(ctx, &apigateway.GetTagsInput{ResourceArn: arn})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+account+":myapi")
}

func TestTagsRegion(t *testing.T) {
	srv, east := start(t)
	ctx := context.Background()
	west := client(srv, "us-west-2", "test")
	api, err := west.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String("west")})
	if err != nil {
		t.Fatal(err)
	}
	// The ARN's region picks the region, whatever the request is signed for.
	if _, err := east.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: tagsARN("us-west-2", "/restapis/"+aws.ToString(api.Id)),
		Tags: map[string]string{"k": "v"}}); err != nil {
		t.Fatal(err)
	}
	got, err := west.GetRestApi(ctx, &apigateway.GetRestApiInput{RestApiId: api.Id})
	if err != nil || got.Tags["k"] != "v" {
		t.Fatalf("west api: %v %+v", err, got)
	}
	_, err = east.GetTags(ctx, &apigateway.GetTagsInput{ResourceArn: tagsARN("us-east-1", "/restapis/"+aws.ToString(api.Id))})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+account+":"+aws.ToString(api.Id))
	// Another account does not see it.
	other := client(srv, "us-west-2", "123456789012")
	_, err = other.GetTags(ctx, &apigateway.GetTagsInput{ResourceArn: tagsARN("us-west-2", "/restapis/"+aws.ToString(api.Id))})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified 123456789012:"+aws.ToString(api.Id))
}

func TestTagsDomainAndLink(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	if _, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: aws.String("t.example.com"),
		Tags: map[string]string{"a": "1"}}); err != nil {
		t.Fatal(err)
	}
	darn := tagsARN("us-east-1", "/domainnames/t.example.com")
	if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: darn, Tags: map[string]string{"b": "2"}}); err != nil {
		t.Fatal(err)
	}
	d, err := c.GetDomainName(ctx, &apigateway.GetDomainNameInput{DomainName: aws.String("t.example.com")})
	if err != nil || !tagsEqual(d.Tags, map[string]string{"a": "1", "b": "2"}) {
		t.Fatalf("domain: %v %+v", err, d.Tags)
	}
	// Tags go with the domain.
	if _, err := c.DeleteDomainName(ctx, &apigateway.DeleteDomainNameInput{DomainName: aws.String("t.example.com")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: aws.String("t.example.com")}); err != nil {
		t.Fatal(err)
	}
	if got := tagsGet(t, c, darn); len(got) != 0 {
		t.Fatalf("recreated domain has tags %v", got)
	}
	// A private domain is named with its id.
	p, err := c.CreateDomainName(ctx, &apigateway.CreateDomainNameInput{DomainName: aws.String("p.example.com"),
		EndpointConfiguration: &types.EndpointConfiguration{Types: []types.EndpointType{types.EndpointTypePrivate}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: p.DomainNameArn, Tags: map[string]string{"p": "1"}}); err != nil {
		t.Fatal(err)
	}
	if got := tagsGet(t, c, p.DomainNameArn); got["p"] != "1" {
		t.Fatalf("private domain tags: %v", got)
	}

	l, err := c.CreateVpcLink(ctx, &apigateway.CreateVpcLinkInput{Name: aws.String("l"), TargetArns: []string{vpcLinkNLB}})
	if err != nil {
		t.Fatal(err)
	}
	larn := tagsARN("us-east-1", "/vpclinks/"+aws.ToString(l.Id))
	if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: larn, Tags: map[string]string{"x": "y"}}); err != nil {
		t.Fatal(err)
	}
	gl, err := c.GetVpcLink(ctx, &apigateway.GetVpcLinkInput{VpcLinkId: l.Id})
	if err != nil || gl.Tags["x"] != "y" {
		t.Fatalf("link: %v %+v", err, gl)
	}
	if _, err := c.UntagResource(ctx, &apigateway.UntagResourceInput{ResourceArn: larn, TagKeys: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	if got := tagsGet(t, c, larn); len(got) != 0 {
		t.Fatalf("link after untag: %v", got)
	}
}

// TestTagsKeysPlansStages needs API keys, usage plans (group "keys") and
// stages (group "deployments").
func TestTagsKeysPlansStages(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	t.Run("kind=apikey", func(t *testing.T) {
		k, err := c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("k"), Tags: map[string]string{"a": "1"}})
		domainsNeed(t, err)
		arn := tagsARN("us-east-1", "/apikeys/"+aws.ToString(k.Id))
		if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: arn, Tags: map[string]string{"b": "2"}}); err != nil {
			t.Fatal(err)
		}
		got, err := c.GetApiKey(ctx, &apigateway.GetApiKeyInput{ApiKey: k.Id})
		domainsNeed(t, err)
		if !tagsEqual(got.Tags, map[string]string{"a": "1", "b": "2"}) {
			t.Fatalf("key tags: %v", got.Tags)
		}
	})
	t.Run("kind=usageplan", func(t *testing.T) {
		p, err := c.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("p")})
		domainsNeed(t, err)
		arn := tagsARN("us-east-1", "/usageplans/"+aws.ToString(p.Id))
		if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: arn, Tags: map[string]string{"b": "2"}}); err != nil {
			t.Fatal(err)
		}
		got, err := c.GetUsagePlan(ctx, &apigateway.GetUsagePlanInput{UsagePlanId: p.Id})
		domainsNeed(t, err)
		if !tagsEqual(got.Tags, map[string]string{"b": "2"}) {
			t.Fatalf("plan tags: %v", got.Tags)
		}
	})
	t.Run("kind=stage", func(t *testing.T) {
		api := domainsAPI(t, c, "staged")
		res, err := c.GetResources(ctx, &apigateway.GetResourcesInput{RestApiId: aws.String(api)})
		domainsNeed(t, err)
		_, err = c.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: aws.String(api), ResourceId: res.Items[0].Id,
			HttpMethod: aws.String("GET"), AuthorizationType: aws.String("NONE")})
		domainsNeed(t, err)
		_, err = c.PutIntegration(ctx, &apigateway.PutIntegrationInput{RestApiId: aws.String(api), ResourceId: res.Items[0].Id,
			HttpMethod: aws.String("GET"), Type: types.IntegrationTypeMock})
		domainsNeed(t, err)
		_, err = c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: aws.String(api), StageName: aws.String("prod")})
		domainsNeed(t, err)
		arn := tagsARN("us-east-1", "/restapis/"+api+"/stages/prod")
		if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: arn, Tags: map[string]string{"s": "1"}}); err != nil {
			t.Fatal(err)
		}
		st, err := c.GetStage(ctx, &apigateway.GetStageInput{RestApiId: aws.String(api), StageName: aws.String("prod")})
		domainsNeed(t, err)
		if st.Tags["s"] != "1" || tagsGet(t, c, arn)["s"] != "1" {
			t.Fatalf("stage tags: %v", st.Tags)
		}
		_, err = c.GetTags(ctx, &apigateway.GetTagsInput{ResourceArn: tagsARN("us-east-1", "/restapis/"+api+"/stages/none")})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid stage identifier specified")
	})
}

func TestTagsBadInput(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	api := domainsAPI(t, c, "limits")
	arn := tagsARN("us-east-1", "/restapis/"+api)
	many := map[string]string{}
	for i := range 51 {
		many[fmt.Sprintf("k%02d", i)] = "v"
	}
	for _, tc := range []struct {
		name string
		arn  *string
		tags map[string]string
		code string
		msg  string
	}{
		{"arn=not-an-arn", aws.String("invalid-arn"), map[string]string{"a": "b"},
			"BadRequestException", "Invalid ARN. ARN is not well formed invalid-arn"},
		{"arn=no-path", aws.String("arn:aws:apigateway:us-east-1::restapis"), map[string]string{"a": "b"},
			"BadRequestException", "Invalid ARN. ARN is not well formed arn:aws:apigateway:us-east-1::restapis"},
		{"arn=untaggable", tagsARN("us-east-1", "/restapis/"+api+"/resources/abc"), map[string]string{"a": "b"},
			"BadRequestException", "Invalid ARN. ARN is not well formed arn:aws:apigateway:us-east-1::/restapis/" + api + "/resources/abc"},
		{"arn=no-region", aws.String("arn:aws:apigateway:::/restapis/" + api), map[string]string{"a": "b"},
			"BadRequestException", "Invalid ARN. ARN is not well formed arn:aws:apigateway:::/restapis/" + api},
		{"missing=restapi", tagsARN("us-east-1", "/restapis/nope"), map[string]string{"a": "b"},
			"NotFoundException", "Invalid API identifier specified " + account + ":nope"},
		{"missing=stage-api", tagsARN("us-east-1", "/restapis/nope/stages/prod"), map[string]string{"a": "b"},
			"NotFoundException", "Invalid API identifier specified " + account + ":nope"},
		{"missing=stage", tagsARN("us-east-1", "/restapis/"+api+"/stages/prod"), map[string]string{"a": "b"},
			"NotFoundException", "Invalid stage identifier specified"},
		{"missing=apikey", tagsARN("us-east-1", "/apikeys/nope"), map[string]string{"a": "b"},
			"NotFoundException", "Invalid API Key identifier specified"},
		{"missing=usageplan", tagsARN("us-east-1", "/usageplans/nope"), map[string]string{"a": "b"},
			"NotFoundException", "Invalid Usage Plan ID specified"},
		{"missing=domain", tagsARN("us-east-1", "/domainnames/nope.example.com"), map[string]string{"a": "b"},
			"NotFoundException", "Invalid domain name identifier specified"},
		{"missing=vpclink", tagsARN("us-east-1", "/vpclinks/nope"), map[string]string{"a": "b"},
			"NotFoundException", "Invalid Vpc Link identifier specified"},
		{"missing=clientcert", tagsARN("us-east-1", "/clientcertificates/nope"), map[string]string{"a": "b"},
			"NotFoundException", "Invalid Client Certificate identifier specified"},
		{"tag=aws-prefix", arn, map[string]string{"Aws:x": "b"},
			"BadRequestException", "Invalid tag key. Tag keys cannot start with 'aws:' (case insensitive)"},
		{"tag=long-key", arn, map[string]string{strings.Repeat("k", 129): "b"},
			"BadRequestException", "Invalid tag key. Tag keys must be between 1 and 128 characters long."},
		{"tag=empty-key", arn, map[string]string{"": "b"},
			"BadRequestException", "Invalid tag key. Tag keys must be between 1 and 128 characters long."},
		{"tag=long-value", arn, map[string]string{"k": strings.Repeat("v", 257)},
			"BadRequestException", "Invalid tag value. Tag values must be at most 256 characters long."},
		{"tag=too-many", arn, many,
			"BadRequestException", "Too many tags. A resource can have at most 50 tags."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: tc.arn, Tags: tc.tags})
			servertest.WantAPIError(t, err, tc.code, tc.msg)
			if tc.code == "NotFoundException" || strings.HasPrefix(tc.name, "arn=") {
				_, err = c.GetTags(ctx, &apigateway.GetTagsInput{ResourceArn: tc.arn})
				servertest.WantAPIError(t, err, tc.code, tc.msg)
				_, err = c.UntagResource(ctx, &apigateway.UntagResourceInput{ResourceArn: tc.arn, TagKeys: []string{"a"}})
				servertest.WantAPIError(t, err, tc.code, tc.msg)
			}
		})
	}
	// The limit counts the merged set; the boundary itself is fine.
	fifty := map[string]string{}
	for i := range 50 {
		fifty[fmt.Sprintf("k%02d", i)] = "v"
	}
	fifty[strings.Repeat("k", 128)] = strings.Repeat("v", 256)
	delete(fifty, "k00")
	if _, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: arn, Tags: fifty}); err != nil {
		t.Fatal(err)
	}
	_, err := c.TagResource(ctx, &apigateway.TagResourceInput{ResourceArn: arn, Tags: map[string]string{"one-more": "v"}})
	servertest.WantAPIError(t, err, "BadRequestException", "Too many tags. A resource can have at most 50 tags.")
	if got := tagsGet(t, c, arn); len(got) != 50 {
		t.Fatalf("refused tag changed the set: %d tags", len(got))
	}
	escaped := "/tags/" + url.PathEscape(aws.ToString(arn))
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code, msg                string
	}{
		{"untag=no-keys", "DELETE", escaped, "", 400, "BadRequestException", "Missing required parameter: tagKeys"},
		{"tag=no-tags", "PUT", escaped, `{}`, 400, "BadRequestException", "Missing required parameter: tags"},
		{"tag=tags-list", "PUT", escaped, `{"tags":["a"]}`, 400, "SerializationException", ""},
		{"tag=value-number", "PUT", escaped, `{"tags":{"a":1}}`, 400, "SerializationException", ""},
		{"tag=empty-map", "PUT", escaped, `{"tags":{}}`, 204, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := domainsDo(t, srv, tc.method, tc.path, tc.body)
			if tc.status == 204 {
				if r.status != 204 {
					t.Fatalf("%d %s", r.status, r.raw)
				}
				return
			}
			domainsWant(t, r, tc.status, tc.code, tc.msg)
		})
	}
}
