package apigatewayhttp_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/cloudemu/emulator/server/servertest"
)

const vpcLinkNLB = "arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/net/nlb/50dc6c495c0c9188"

func TestVpcLinkLifecycle(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	// CreateVpcLink answers 202; the link is AVAILABLE at once (docs/apigateway.md).
	r := domainsDo(t, srv, "POST", "/vpclinks", `{"name":"first","targetArns":["`+vpcLinkNLB+`"]}`)
	id, _ := r.body["id"].(string)
	if r.status != 202 || len(id) != 6 || r.body["name"] != "first" || r.body["status"] != "AVAILABLE" ||
		r.body["statusMessage"] != "Your vpc link is ready for use" || r.body["tags"] != nil || r.body["description"] != nil ||
		len(r.body["targetArns"].([]any)) != 1 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	second, err := c.CreateVpcLink(ctx, &apigateway.CreateVpcLinkInput{Name: aws.String("second"), Description: aws.String("d"),
		TargetArns: []string{vpcLinkNLB}, Tags: map[string]string{"k": "v"}})
	if err != nil || second.Tags["k"] != "v" || aws.ToString(second.Description) != "d" || second.Status != types.VpcLinkStatusAvailable {
		t.Fatalf("create second: %v %+v", err, second)
	}
	// GetVpcLink answers tags {} even without tags; list items have none.
	r = domainsDo(t, srv, "GET", "/vpclinks/"+id, "")
	if r.status != 200 || r.body["tags"] == nil || r.body["status"] != "AVAILABLE" {
		t.Fatalf("get: %d %s", r.status, r.raw)
	}
	r = domainsDo(t, srv, "GET", "/vpclinks?limit=1", "")
	items, _ := r.body["item"].([]any)
	if r.status != 200 || len(items) != 1 || items[0].(map[string]any)["id"] != id || items[0].(map[string]any)["tags"] != nil ||
		r.body["position"] == nil {
		t.Fatalf("page 1: %d %s", r.status, r.raw)
	}
	p2, err := c.GetVpcLinks(ctx, &apigateway.GetVpcLinksInput{Limit: aws.Int32(1), Position: aws.String(r.body["position"].(string))})
	if err != nil || len(p2.Items) != 1 || aws.ToString(p2.Items[0].Id) != aws.ToString(second.Id) || p2.Position != nil {
		t.Fatalf("page 2: %v %+v", err, p2)
	}

	up, err := c.UpdateVpcLink(ctx, &apigateway.UpdateVpcLinkInput{VpcLinkId: aws.String(id), PatchOperations: []types.PatchOperation{
		{Op: types.OpReplace, Path: aws.String("/name"), Value: aws.String("renamed")},
		{Op: types.OpReplace, Path: aws.String("/description"), Value: aws.String("now described")},
	}})
	if err != nil || aws.ToString(up.Name) != "renamed" || aws.ToString(up.Description) != "now described" || up.Tags == nil {
		t.Fatalf("update: %v %+v", err, up)
	}
	for _, tc := range []struct {
		name string
		id   string
		op   types.PatchOperation
		code string
		msg  string
	}{
		{"case=unknown-link", "invalid-id", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/name"), Value: aws.String("x")},
			"NotFoundException", "Invalid Vpc Link identifier specified"},
		{"case=bad-path", id, types.PatchOperation{Op: types.OpReplace, Path: aws.String("/targetArns"), Value: aws.String("x")},
			"BadRequestException", "Invalid patch path /targetArns"},
		{"case=bad-op", id, types.PatchOperation{Op: types.OpRemove, Path: aws.String("/name")},
			"BadRequestException", "Invalid patch operation specified. Must be one of: [replace]"},
		{"case=empty-name", id, types.PatchOperation{Op: types.OpReplace, Path: aws.String("/name"), Value: aws.String("")},
			"BadRequestException", "Name cannot be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.UpdateVpcLink(ctx, &apigateway.UpdateVpcLinkInput{VpcLinkId: aws.String(tc.id),
				PatchOperations: []types.PatchOperation{tc.op}})
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}

	if r := domainsDo(t, srv, "DELETE", "/vpclinks/"+id, ""); r.status != 202 || len(r.raw) != 0 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	_, err = c.GetVpcLink(ctx, &apigateway.GetVpcLinkInput{VpcLinkId: aws.String(id)})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Vpc Link identifier specified")
	_, err = c.DeleteVpcLink(ctx, &apigateway.DeleteVpcLinkInput{VpcLinkId: aws.String("invalid-id")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Vpc Link identifier specified")
	l, err := c.GetVpcLinks(ctx, &apigateway.GetVpcLinksInput{})
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("list after delete: %v %+v", err, l)
	}
}

func TestVpcLinkBadInput(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		in   *apigateway.CreateVpcLinkInput
		msg  string
	}{
		{"case=invalid-arn", &apigateway.CreateVpcLinkInput{Name: aws.String("x"), TargetArns: []string{"invalid-arn"}},
			"Invalid ARN. ARN is not well formed invalid-arn"},
		{"case=empty-name", &apigateway.CreateVpcLinkInput{Name: aws.String(""), TargetArns: []string{}},
			"Name cannot be empty"},
		{"case=no-targets", &apigateway.CreateVpcLinkInput{Name: aws.String("x"), TargetArns: []string{}},
			"Target ARNs cannot be empty"},
		{"case=aws-tag", &apigateway.CreateVpcLinkInput{Name: aws.String("x"), TargetArns: []string{vpcLinkNLB},
			Tags: map[string]string{"aws:k": "v"}}, "Invalid tag key. Tag keys cannot start with 'aws:' (case insensitive)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateVpcLink(ctx, tc.in)
			servertest.WantAPIError(t, err, "BadRequestException", tc.msg)
		})
	}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code, msg                string
	}{
		{"body=empty", "POST", "/vpclinks", ``, 400, "BadRequestException", "Name cannot be empty"},
		{"body=targets-string", "POST", "/vpclinks", `{"name":"x","targetArns":"a"}`, 400, "SerializationException", ""},
		{"body=name-bool", "POST", "/vpclinks", `{"name":true}`, 400, "SerializationException", ""},
		{"page=limit-zero", "GET", "/vpclinks?limit=0", ``, 400, "BadRequestException", ""},
		{"page=bad-position", "GET", "/vpclinks?position=%25%25", ``, 400, "BadRequestException", "Invalid position parameter"},
		{"get=unknown", "GET", "/vpclinks/invalid-id", ``, 404, "NotFoundException", "Invalid Vpc Link identifier specified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			domainsWant(t, domainsDo(t, srv, tc.method, tc.path, tc.body), tc.status, tc.code, tc.msg)
		})
	}
	l, err := c.GetVpcLinks(ctx, &apigateway.GetVpcLinksInput{})
	if err != nil || len(l.Items) != 0 {
		t.Fatalf("refused creates left links: %v %+v", err, l)
	}
}
