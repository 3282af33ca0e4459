package apigatewayv2http_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
)

const openAPIMinimal = `{"openapi": "3.0.1", "info": {"title": "minimal", "version": "1"}, "paths": {"/a": {"get": {"responses": {},
  "x-amazon-apigateway-integration": {"type": "http_proxy", "httpMethod": "GET", "uri": "https://example.com/a", "payloadFormatVersion": "1.0"}}}}}`

// The wire shape of ImportApi and ExportApi: the members and query
// parameters are checked before the document is read.
func TestOpenAPIWire(t *testing.T) {
	srv, c := startServer(t)
	r := send(t, srv, "PUT", "/v2/apis", `{}`)
	wantReply(t, r, 400, "BadRequestException", "Missing required parameter: body")
	r = send(t, srv, "PUT", "/v2/apis?failOnWarnings=maybe", `{"body": "{}"}`)
	wantReply(t, r, 400, "BadRequestException", "")
	r = send(t, srv, "PUT", "/v2/apis?basepath=sideways", `{"body": `+jsonString(openAPIMinimal)+`}`)
	wantReply(t, r, 400, "BadRequestException", "")
	// A member of the wrong type is Java's answer, as for every operation.
	r = send(t, srv, "PUT", "/v2/apis", `{"body": 42}`)
	wantReply(t, r, 400, "SerializationException", "")

	out, err := c.ImportApi(context.Background(), &apigatewayv2.ImportApiInput{Body: aws.String(openAPIMinimal)})
	need(t, err)
	id := aws.ToString(out.ApiId)
	if aws.ToString(out.Name) != "minimal" || len(out.Warnings) != 0 {
		t.Fatalf("ImportApi answered %+v", out)
	}
	for _, q := range []string{"/exports/OAS20?outputType=JSON", "/exports/OAS30", "/exports/OAS30?outputType=XML",
		"/exports/OAS30?outputType=JSON&exportVersion=2.0", "/exports/OAS30?outputType=JSON&includeExtensions=yes"} {
		wantReply(t, send(t, srv, "GET", "/v2/apis/"+id+q, ""), 400, "BadRequestException", "")
	}
	wantReply(t, send(t, srv, "GET", "/v2/apis/nope/exports/OAS30?outputType=JSON", ""), 404, "NotFoundException", "")
	r = send(t, srv, "GET", "/v2/apis/"+id+"/exports/OAS30?outputType=JSON", "")
	if r.status != 200 || r.body["openapi"] != "3.0.1" {
		t.Fatalf("export: %d %s", r.status, r.raw)
	}
}

func jsonString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
