package apigatewayv2http_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/cloudemu/emulator/server/servertest"
)

func TestVpcLinkCreate(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	before := time.Now().Add(-time.Second)
	out, err := c.CreateVpcLink(ctx, &apigatewayv2.CreateVpcLinkInput{Name: aws.String("link"),
		SubnetIds: []string{"subnet-a", "subnet-b"}, SecurityGroupIds: []string{"sg-1"}, Tags: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.Name) != "link" || out.VpcLinkStatus != types.VpcLinkStatusAvailable ||
		aws.ToString(out.VpcLinkStatusMessage) != "VPC link is ready to route traffic" || out.VpcLinkVersion != types.VpcLinkVersionV2 ||
		strings.Join(out.SubnetIds, ",") != "subnet-a,subnet-b" || strings.Join(out.SecurityGroupIds, ",") != "sg-1" ||
		out.Tags["k"] != "v" || out.CreatedDate == nil || out.CreatedDate.Before(before) ||
		!regexp.MustCompile(`^[a-z0-9]{6}$`).MatchString(aws.ToString(out.VpcLinkId)) {
		t.Fatalf("create: %+v", out)
	}
	got, err := c.GetVpcLink(ctx, &apigatewayv2.GetVpcLinkInput{VpcLinkId: out.VpcLinkId})
	if err != nil || aws.ToString(got.Name) != "link" || got.VpcLinkStatus != types.VpcLinkStatusAvailable || got.Tags["k"] != "v" {
		t.Fatalf("get: %v %+v", err, got)
	}
	// Without security groups, the list members are still there, as
	// lists require them; tags is {} when there are none.
	r := send(t, srv, "POST", "/v2/vpclinks", `{"name":"bare","subnetIds":["subnet-c"]}`)
	if r.status != 201 || string(mustJSON(t, r.body["securityGroupIds"])) != "[]" ||
		string(mustJSON(t, r.body["tags"])) != "{}" {
		t.Fatalf("bare create: %d %s", r.status, r.raw)
	}
	if !regexp.MustCompile(`"createdDate":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`).Match(r.raw) {
		t.Fatalf("createdDate is not ISO 8601: %s", r.raw)
	}
}

func TestVpcLinkCreateErrors(t *testing.T) {
	srv, c := startServer(t)
	for _, tc := range []struct {
		name string
		in   apigatewayv2.CreateVpcLinkInput
	}{
		{"case=empty-subnets", apigatewayv2.CreateVpcLinkInput{Name: aws.String("n"), SubnetIds: []string{}}},
		{"case=empty-subnet-id", apigatewayv2.CreateVpcLinkInput{Name: aws.String("n"), SubnetIds: []string{""}}},
		{"case=long-name", apigatewayv2.CreateVpcLinkInput{Name: aws.String(strings.Repeat("n", 129)), SubnetIds: []string{"s"}}},
		{"case=aws-tag", apigatewayv2.CreateVpcLinkInput{Name: aws.String("n"), SubnetIds: []string{"s"},
			Tags: map[string]string{"AWS:x": "1"}}},
		{"case=long-tag-value", apigatewayv2.CreateVpcLinkInput{Name: aws.String("n"), SubnetIds: []string{"s"},
			Tags: map[string]string{"k": strings.Repeat("v", 1601)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateVpcLink(context.Background(), &tc.in)
			servertest.WantAPIError(t, err, "BadRequestException", "")
		})
	}
	// What the SDK refuses to send.
	for _, tc := range []struct{ name, body string }{
		{"case=no-name", `{"subnetIds":["s"]}`},
		{"case=no-subnets", `{"name":"n"}`},
		{"case=subnets-not-list", `{"name":"n","subnetIds":"s"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := send(t, srv, "POST", "/v2/vpclinks", tc.body)
			if r.status != 400 {
				t.Fatalf("want 400, got %d %s", r.status, r.raw)
			}
		})
	}
	out, err := c.GetVpcLinks(context.Background(), &apigatewayv2.GetVpcLinksInput{})
	if err != nil || len(out.Items) != 0 {
		t.Fatalf("failed creates left links: %v %+v", err, out)
	}
}

func TestVpcLinkListUpdateDelete(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	var ids []string
	for _, n := range []string{"zeta", "alpha", "mid"} {
		out, err := c.CreateVpcLink(ctx, &apigatewayv2.CreateVpcLinkInput{Name: aws.String(n), SubnetIds: []string{"s"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, aws.ToString(out.VpcLinkId))
	}
	// Creation order, two pages.
	var listed []string
	var token *string
	for pages := 0; pages < 4; pages++ {
		out, err := c.GetVpcLinks(ctx, &apigatewayv2.GetVpcLinksInput{MaxResults: aws.String("2"), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range out.Items {
			listed = append(listed, aws.ToString(l.VpcLinkId))
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	if strings.Join(listed, ",") != strings.Join(ids, ",") {
		t.Fatalf("listed %v, created %v", listed, ids)
	}

	up, err := c.UpdateVpcLink(ctx, &apigatewayv2.UpdateVpcLinkInput{VpcLinkId: aws.String(ids[0]), Name: aws.String("renamed")})
	if err != nil || aws.ToString(up.Name) != "renamed" || up.VpcLinkStatus != types.VpcLinkStatusAvailable {
		t.Fatalf("update: %v %+v", err, up)
	}
	// No name: nothing changes.
	r := send(t, srv, "PATCH", "/v2/vpclinks/"+ids[0], `{}`)
	if r.status != 200 || r.body["name"] != "renamed" {
		t.Fatalf("empty update: %d %s", r.status, r.raw)
	}
	r = send(t, srv, "PATCH", "/v2/vpclinks/"+ids[0], `{"name":""}`)
	wantReply(t, r, 400, "BadRequestException", "")
	_, err = c.UpdateVpcLink(ctx, &apigatewayv2.UpdateVpcLinkInput{VpcLinkId: aws.String("nope12"), Name: aws.String("x")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid VpcLink identifier specified")

	// Delete answers 202 with an empty structure; the link is gone at once.
	r = send(t, srv, "DELETE", "/v2/vpclinks/"+ids[1], "")
	if r.status != 202 || string(r.raw) != "{}" {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	_, err = c.GetVpcLink(ctx, &apigatewayv2.GetVpcLinkInput{VpcLinkId: aws.String(ids[1])})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid VpcLink identifier specified")
	_, err = c.DeleteVpcLink(ctx, &apigatewayv2.DeleteVpcLinkInput{VpcLinkId: aws.String(ids[1])})
	servertest.WantAPIError(t, err, "NotFoundException", "")
	if _, err := c.DeleteVpcLink(ctx, &apigatewayv2.DeleteVpcLinkInput{VpcLinkId: aws.String(ids[2])}); err != nil {
		t.Fatal(err)
	}
	r = send(t, srv, "GET", "/v2/vpclinks/"+ids[2], "")
	wantReply(t, r, 404, "NotFoundException", "")
	if r.body["resourceType"] != "VpcLink" {
		t.Fatalf("resourceType: %s", r.raw)
	}
	out, err := c.GetVpcLinks(ctx, &apigatewayv2.GetVpcLinksInput{})
	if err != nil || len(out.Items) != 1 || aws.ToString(out.Items[0].VpcLinkId) != ids[0] {
		t.Fatalf("list after deletes: %v %+v", err, out)
	}
	// Another account sees none of them.
	other := regionClient(srv, "us-east-1", "111122223333")
	out, err = other.GetVpcLinks(ctx, &apigatewayv2.GetVpcLinksInput{})
	if err != nil || len(out.Items) != 0 {
		t.Fatalf("other account: %v %+v", err, out)
	}
}
