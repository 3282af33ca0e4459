package apigatewayv2http_test

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/cloudemu/emulator/server/servertest"
)

func tagsARN(region, path string) string { return "arn:aws:apigateway:" + region + "::" + path }

// tagsGet returns the tags GetTags answers for arn.
func tagsGet(t *testing.T, c *apigatewayv2.Client, arn string) map[string]string {
	t.Helper()
	out, err := c.GetTags(context.Background(), &apigatewayv2.GetTagsInput{ResourceArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("get tags %s: %v", arn, err)
	}
	return out.Tags
}

// tagsCycle tags, merges and untags the resource arn names, checking
// GetTags and what the resource's own read shows (own may be nil).
func tagsCycle(t *testing.T, c *apigatewayv2.Client, arn string, initial map[string]string, own func() map[string]string) {
	t.Helper()
	ctx := context.Background()
	if got := tagsGet(t, c, arn); !maps.Equal(got, initial) {
		t.Fatalf("initial tags: %v, want %v", got, initial)
	}
	// TagResource merges: new keys added, existing keys overwritten.
	if _, err := c.TagResource(ctx, &apigatewayv2.TagResourceInput{ResourceArn: aws.String(arn),
		Tags: map[string]string{"team": "y", "env": "dev", "cost": "1"}}); err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(initial)
	if want == nil {
		want = map[string]string{}
	}
	maps.Copy(want, map[string]string{"team": "y", "env": "dev", "cost": "1"})
	if got := tagsGet(t, c, arn); !maps.Equal(got, want) {
		t.Fatalf("after tag: %v, want %v", got, want)
	}
	if own != nil {
		if got := own(); !maps.Equal(got, want) {
			t.Fatalf("resource's own tags: %v, want %v", got, want)
		}
	}
	// Absent keys are ignored.
	if _, err := c.UntagResource(ctx, &apigatewayv2.UntagResourceInput{ResourceArn: aws.String(arn),
		TagKeys: []string{"cost", "absent"}}); err != nil {
		t.Fatal(err)
	}
	delete(want, "cost")
	if got := tagsGet(t, c, arn); !maps.Equal(got, want) {
		t.Fatalf("after untag: %v, want %v", got, want)
	}
}

func TestTagsDomainAndLink(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	domainsCreate(t, c, "tagged.example.com")
	dn := tagsARN("us-east-1", "/domainnames/tagged.example.com")
	tagsCycle(t, c, dn, map[string]string{}, func() map[string]string {
		d, err := c.GetDomainName(ctx, &apigatewayv2.GetDomainNameInput{DomainName: aws.String("tagged.example.com")})
		if err != nil {
			t.Fatal(err)
		}
		return d.Tags
	})
	l, err := c.CreateVpcLink(ctx, &apigatewayv2.CreateVpcLinkInput{Name: aws.String("l"), SubnetIds: []string{"s"},
		Tags: map[string]string{"team": "x", "keep": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	link := tagsARN("us-east-1", "/vpclinks/"+aws.ToString(l.VpcLinkId))
	tagsCycle(t, c, link, map[string]string{"team": "x", "keep": "1"}, func() map[string]string {
		got, err := c.GetVpcLink(ctx, &apigatewayv2.GetVpcLinkInput{VpcLinkId: l.VpcLinkId})
		if err != nil {
			t.Fatal(err)
		}
		return got.Tags
	})

	// docs/apigatewayv2.md's comma-separated form, with the ARN's slashes raw; the
	// last tags gone, GetTags answers {"tags": {}}.
	r := send(t, srv, "DELETE", "/v2/tags/"+link+"?tagKeys=team,env&tagKeys=keep", "")
	if r.status != 204 || len(r.raw) != 0 {
		t.Fatalf("untag comma form: %d %s", r.status, r.raw)
	}
	r = send(t, srv, "GET", "/v2/tags/"+url.PathEscape(link), "")
	if r.status != 200 || string(r.raw) != `{"tags":{}}` {
		t.Fatalf("empty tags: %d %s", r.status, r.raw)
	}
	// TagResource answers 201 with no body.
	r = send(t, srv, "POST", "/v2/tags/"+url.PathEscape(dn), `{"tags":{"a":"b"}}`)
	if r.status != 201 || len(r.raw) != 0 {
		t.Fatalf("tag: %d %s", r.status, r.raw)
	}
	// Tags go with their resource.
	if _, err := c.DeleteVpcLink(ctx, &apigatewayv2.DeleteVpcLinkInput{VpcLinkId: l.VpcLinkId}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetTags(ctx, &apigatewayv2.GetTagsInput{ResourceArn: aws.String(link)})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid VpcLink identifier specified")
}

// TestTagsRegion checks that the ARN's region, not the request's, selects
// the resource.
func TestTagsRegion(t *testing.T) {
	srv, _ := startServer(t)
	ctx := context.Background()
	eu := regionClient(srv, "eu-west-1", "test")
	us := regionClient(srv, "us-east-1", "test")
	domainsCreate(t, eu, "eu.example.com")
	arn := tagsARN("eu-west-1", "/domainnames/eu.example.com")
	if _, err := us.TagResource(ctx, &apigatewayv2.TagResourceInput{ResourceArn: aws.String(arn),
		Tags: map[string]string{"r": "eu"}}); err != nil {
		t.Fatal(err)
	}
	d, err := eu.GetDomainName(ctx, &apigatewayv2.GetDomainNameInput{DomainName: aws.String("eu.example.com")})
	if err != nil || d.Tags["r"] != "eu" {
		t.Fatalf("domain: %v %+v", err, d)
	}
	_, err = us.GetTags(ctx, &apigatewayv2.GetTagsInput{ResourceArn: aws.String(tagsARN("us-east-1", "/domainnames/eu.example.com"))})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid domain name identifier specified")
	// The account is the caller's: another account does not see it.
	other := regionClient(srv, "eu-west-1", "111122223333")
	_, err = other.GetTags(ctx, &apigatewayv2.GetTagsInput{ResourceArn: aws.String(arn)})
	servertest.WantAPIError(t, err, "NotFoundException", "")
}

func TestTagsErrors(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	domainsCreate(t, c, "e.example.com")
	dn := tagsARN("us-east-1", "/domainnames/e.example.com")
	for _, tc := range []struct {
		name, arn, code, resourceType string
	}{
		{"arn=unknown-api", tagsARN("us-east-1", "/apis/nope123456"), "NotFoundException", "Api"},
		{"arn=unknown-stage-api", tagsARN("us-east-1", "/apis/nope123456/stages/prod"), "NotFoundException", "Api"},
		{"arn=unknown-domain", tagsARN("us-east-1", "/domainnames/x.example.com"), "NotFoundException", "DomainName"},
		{"arn=unknown-link", tagsARN("us-east-1", "/vpclinks/abcdef"), "NotFoundException", "VpcLink"},
		{"arn=not-an-arn", "apis/abc", "BadRequestException", ""},
		{"arn=other-service", "arn:aws:lambda:us-east-1::/apis/abc", "BadRequestException", ""},
		{"arn=no-region", "arn:aws:apigateway:::/apis/abc", "BadRequestException", ""},
		{"arn=unknown-kind", tagsARN("us-east-1", "/restapis/abc"), "BadRequestException", ""},
		{"arn=empty-segment", tagsARN("us-east-1", "/apis//stages/x"), "BadRequestException", ""},
		{"arn=too-deep", tagsARN("us-east-1", "/vpclinks/abc/x"), "BadRequestException", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, method := range []string{"GET", "POST", "DELETE"} {
				path, body := "/v2/tags/"+url.PathEscape(tc.arn), ""
				switch method {
				case "POST":
					body = `{"tags":{"a":"b"}}`
				case "DELETE":
					path += "?tagKeys=a"
				}
				r := send(t, srv, method, path, body)
				wantReply(t, r, map[string]int{"NotFoundException": 404, "BadRequestException": 400}[tc.code], tc.code, "")
				if tc.resourceType != "" && r.body["resourceType"] != tc.resourceType {
					t.Fatalf("%s: resourceType %s", method, r.raw)
				}
			}
		})
	}
	for _, tc := range []struct {
		name string
		tags map[string]string
	}{
		{"tags=aws-prefix", map[string]string{"aws:team": "x"}},
		{"tags=empty-key", map[string]string{"": "x"}},
		{"tags=long-key", map[string]string{strings.Repeat("k", 129): "x"}},
		{"tags=long-value", map[string]string{"k": strings.Repeat("v", 1601)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.TagResource(ctx, &apigatewayv2.TagResourceInput{ResourceArn: aws.String(dn), Tags: tc.tags})
			servertest.WantAPIError(t, err, "BadRequestException", "")
		})
	}
	// The limits themselves are allowed (values up to the model's 1600).
	edge := map[string]string{strings.Repeat("k", 128): strings.Repeat("v", 1600), "empty": ""}
	if _, err := c.TagResource(ctx, &apigatewayv2.TagResourceInput{ResourceArn: aws.String(dn), Tags: edge}); err != nil {
		t.Fatal(err)
	}
	if got := tagsGet(t, c, dn); !maps.Equal(got, edge) {
		t.Fatalf("tags at the limits: %d tags", len(got))
	}
	if _, err := c.UntagResource(ctx, &apigatewayv2.UntagResourceInput{ResourceArn: aws.String(dn),
		TagKeys: []string{strings.Repeat("k", 128), "empty"}}); err != nil {
		t.Fatal(err)
	}
	// At most 50 tags, counted after the merge.
	many := map[string]string{}
	for i := range 40 {
		many[fmt.Sprintf("k%02d", i)] = "v"
	}
	if _, err := c.TagResource(ctx, &apigatewayv2.TagResourceInput{ResourceArn: aws.String(dn), Tags: many}); err != nil {
		t.Fatal(err)
	}
	more := map[string]string{}
	for i := range 11 {
		more[fmt.Sprintf("m%02d", i)] = "v"
	}
	_, err := c.TagResource(ctx, &apigatewayv2.TagResourceInput{ResourceArn: aws.String(dn), Tags: more})
	servertest.WantAPIError(t, err, "BadRequestException", "")
	if got := tagsGet(t, c, dn); len(got) != 40 {
		t.Fatalf("a refused merge changed the tags: %d", len(got))
	}
	r := send(t, srv, "DELETE", "/v2/tags/"+url.PathEscape(dn), "")
	wantReply(t, r, 400, "BadRequestException", "")
	r = send(t, srv, "POST", "/v2/tags/"+url.PathEscape(dn), `{"tags":["a"]}`)
	if r.status != 400 {
		t.Fatalf("tags not a map: %d %s", r.status, r.raw)
	}
}

// TestTagsAPIAndStage tags an API and a stage through their ARNs; tagging
// the API does not redeploy its auto-deploying stage.
func TestTagsAPIAndStage(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	out, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String("tagged"), ProtocolType: types.ProtocolTypeHttp,
		Tags: map[string]string{"team": "x"}})
	need(t, err)
	apiID := aws.ToString(out.ApiId)
	_, err = c.CreateStage(ctx, &apigatewayv2.CreateStageInput{ApiId: out.ApiId, StageName: aws.String("$default"),
		AutoDeploy: aws.Bool(true), Tags: map[string]string{"s": "1"}})
	need(t, err)
	deployments := func() int {
		t.Helper()
		d, err := c.GetDeployments(ctx, &apigatewayv2.GetDeploymentsInput{ApiId: out.ApiId})
		need(t, err)
		return len(d.Items)
	}
	before := deployments()

	tagsCycle(t, c, tagsARN("us-east-1", "/apis/"+apiID), map[string]string{"team": "x"}, func() map[string]string {
		got, err := c.GetApi(ctx, &apigatewayv2.GetApiInput{ApiId: out.ApiId})
		if err != nil {
			t.Fatal(err)
		}
		return got.Tags
	})
	if after := deployments(); after != before {
		t.Fatalf("tagging the API made deployments: %d, then %d", before, after)
	}
	// $default percent-encoded in the ARN, as the SDK sends it.
	tagsCycle(t, c, tagsARN("us-east-1", "/apis/"+apiID+"/stages/$default"), map[string]string{"s": "1"}, func() map[string]string {
		got, err := c.GetStage(ctx, &apigatewayv2.GetStageInput{ApiId: out.ApiId, StageName: aws.String("$default")})
		if err != nil {
			t.Fatal(err)
		}
		return got.Tags
	})
	_, err = c.GetTags(ctx, &apigatewayv2.GetTagsInput{ResourceArn: aws.String(tagsARN("us-east-1", "/apis/"+apiID+"/stages/nope"))})
	servertest.WantAPIError(t, err, "NotFoundException", "")
	// Deleting the API takes its tags.
	if _, err := c.DeleteApi(ctx, &apigatewayv2.DeleteApiInput{ApiId: out.ApiId}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetTags(ctx, &apigatewayv2.GetTagsInput{ResourceArn: aws.String(tagsARN("us-east-1", "/apis/"+apiID))})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified 000000000000:"+apiID)
}
