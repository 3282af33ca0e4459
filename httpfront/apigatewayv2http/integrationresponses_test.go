package apigatewayv2http_test

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"

	"github.com/cloudemu/emulator/server/servertest"
)

func TestIntegrationsResponses(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	wsAPI := integrationsAPI(t, c, types.ProtocolTypeWebsocket)
	it, err := c.CreateIntegration(ctx, &apigatewayv2.CreateIntegrationInput{ApiId: &wsAPI, IntegrationType: types.IntegrationTypeMock})
	if err != nil {
		t.Fatal(err)
	}
	itID := aws.ToString(it.IntegrationId)
	def, err := c.CreateIntegrationResponse(ctx, &apigatewayv2.CreateIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
		IntegrationResponseKey: aws.String("$default"), TemplateSelectionExpression: aws.String(`\$default`),
		ResponseTemplates:       map[string]string{"$default": `{"ok":true}`},
		ContentHandlingStrategy: types.ContentHandlingStrategyConvertToText})
	if err != nil {
		t.Fatal(err)
	}
	defID := aws.ToString(def.IntegrationResponseId)
	if !regexp.MustCompile(`^[a-z0-9]{6}$`).MatchString(defID) {
		t.Fatalf("integrationResponseId %q", defID)
	}
	ok2xx, err := c.CreateIntegrationResponse(ctx, &apigatewayv2.CreateIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
		IntegrationResponseKey: aws.String(`/2\d\d/`), ResponseParameters: map[string]string{"method.response.header.x": "'y'"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("get-wire", func(t *testing.T) {
		r := send(t, srv, "GET", "/v2/apis/"+wsAPI+"/integrations/"+itID+"/integrationresponses/"+defID, "")
		want := `{"contentHandlingStrategy":"CONVERT_TO_TEXT","integrationResponseId":"` + defID +
			`","integrationResponseKey":"$default","responseTemplates":{"$default":"{\"ok\":true}"},"templateSelectionExpression":"\\$default"}`
		if r.status != 200 || string(r.raw) != want {
			t.Fatalf("got %d %s\nwant %s", r.status, r.raw, want)
		}
	})
	t.Run("list-in-creation-order", func(t *testing.T) {
		var got []string
		var token *string
		for {
			out, err := c.GetIntegrationResponses(ctx, &apigatewayv2.GetIntegrationResponsesInput{ApiId: &wsAPI, IntegrationId: &itID,
				MaxResults: aws.String("1"), NextToken: token})
			if err != nil {
				t.Fatal(err)
			}
			for _, ir := range out.Items {
				got = append(got, aws.ToString(ir.IntegrationResponseId))
			}
			if token = out.NextToken; token == nil {
				break
			}
		}
		if !slices.Equal(got, []string{defID, aws.ToString(ok2xx.IntegrationResponseId)}) {
			t.Fatalf("listed %v", got)
		}
	})
	errCases := []struct {
		name    string
		api, it string
		key     string
		code    string
		msg     string
	}{
		{"key=duplicate", wsAPI, itID, "$default", "ConflictException", ""},
		{"key=not-a-pattern", wsAPI, itID, "200", "BadRequestException", ""},
		{"key=empty-pattern", wsAPI, itID, "//", "BadRequestException", ""},
		{"integration=unknown", wsAPI, "nope123", "$default", "NotFoundException", "Invalid Integration identifier specified"},
		{"api=unknown", "nope", itID, "$default", "NotFoundException", "Invalid API identifier specified 000000000000:nope"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateIntegrationResponse(ctx, &apigatewayv2.CreateIntegrationResponseInput{ApiId: &tc.api, IntegrationId: &tc.it,
				IntegrationResponseKey: aws.String(tc.key)})
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	t.Run("key=missing", func(t *testing.T) {
		r := send(t, srv, "POST", "/v2/apis/"+wsAPI+"/integrations/"+itID+"/integrationresponses", `{}`)
		if r.status != 400 || r.code != "BadRequestException" {
			t.Fatalf("got %d %s %s", r.status, r.code, r.raw)
		}
	})
	t.Run("http-api-refused", func(t *testing.T) {
		httpAPI := integrationsAPI(t, c, types.ProtocolTypeHttp)
		hit, err := c.CreateIntegration(ctx, integrationsLambdaInput(httpAPI))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.CreateIntegrationResponse(ctx, &apigatewayv2.CreateIntegrationResponseInput{ApiId: &httpAPI,
			IntegrationId: hit.IntegrationId, IntegrationResponseKey: aws.String("$default")})
		servertest.WantAPIError(t, err, "BadRequestException", "Integration responses are not supported on protocolType HTTP")
	})
	t.Run("update", func(t *testing.T) {
		out, err := c.UpdateIntegrationResponse(ctx, &apigatewayv2.UpdateIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
			IntegrationResponseId: ok2xx.IntegrationResponseId, IntegrationResponseKey: aws.String(`/4\d\d/`),
			ResponseTemplates: map[string]string{"$default": "x"}})
		if err != nil || aws.ToString(out.IntegrationResponseKey) != `/4\d\d/` || out.ResponseTemplates["$default"] != "x" ||
			out.ResponseParameters["method.response.header.x"] != "'y'" {
			t.Fatalf("update = %v %+v", err, out)
		}
		_, err = c.UpdateIntegrationResponse(ctx, &apigatewayv2.UpdateIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
			IntegrationResponseId: ok2xx.IntegrationResponseId, IntegrationResponseKey: aws.String("$default")})
		servertest.WantAPIError(t, err, "ConflictException", "")
		_, err = c.UpdateIntegrationResponse(ctx, &apigatewayv2.UpdateIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
			IntegrationResponseId: ok2xx.IntegrationResponseId, ContentHandlingStrategy: "BINARY"})
		servertest.WantAPIError(t, err, "BadRequestException", "Invalid ContentHandlingStrategy specified. Valid options are CONVERT_TO_BINARY,CONVERT_TO_TEXT")
		_, err = c.UpdateIntegrationResponse(ctx, &apigatewayv2.UpdateIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
			IntegrationResponseId: aws.String("nope12")})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid IntegrationResponse identifier specified")
	})
	t.Run("delete", func(t *testing.T) {
		if _, err := c.DeleteIntegrationResponse(ctx, &apigatewayv2.DeleteIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
			IntegrationResponseId: ok2xx.IntegrationResponseId}); err != nil {
			t.Fatal(err)
		}
		_, err := c.GetIntegrationResponse(ctx, &apigatewayv2.GetIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
			IntegrationResponseId: ok2xx.IntegrationResponseId})
		servertest.WantAPIError(t, err, "NotFoundException", "")
		_, err = c.DeleteIntegrationResponse(ctx, &apigatewayv2.DeleteIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
			IntegrationResponseId: ok2xx.IntegrationResponseId})
		servertest.WantAPIError(t, err, "NotFoundException", "")
	})
	t.Run("go-with-their-integration", func(t *testing.T) {
		if _, err := c.DeleteIntegration(ctx, &apigatewayv2.DeleteIntegrationInput{ApiId: &wsAPI, IntegrationId: &itID}); err != nil {
			t.Fatal(err)
		}
		_, err := c.GetIntegrationResponse(ctx, &apigatewayv2.GetIntegrationResponseInput{ApiId: &wsAPI, IntegrationId: &itID,
			IntegrationResponseId: &defID})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Integration identifier specified")
	})
}
