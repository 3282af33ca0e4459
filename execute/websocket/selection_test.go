package websocket

import (
	"testing"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/vtl"
)

func TestExpression(t *testing.T) {
	body := `{"action":"send","service":"chat","meta":{"kind":"ping","n":7,"ok":true,"list":[1,2]},"detail-type":"x"}`
	parsed, err := vtl.ParseJSON([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	headers := func(name string) string {
		if name == "Auth" {
			return "tok"
		}
		return ""
	}
	for _, tc := range []struct{ name, expr, want string }{
		{"expr=action", "$request.body.action", "send"},
		{"expr=nested", "$request.body.meta.kind", "ping"},
		{"expr=number", "$request.body.meta.n", "7"},
		{"expr=bool", "$request.body.meta.ok", "true"},
		{"expr=array", "$request.body.meta.list", "[1,2]"},
		{"expr=object", "$request.body.meta", `{"kind":"ping","n":7,"ok":true,"list":[1,2]}`},
		{"expr=missing", "$request.body.nothing", ""},
		{"expr=hyphen", "$request.body.detail-type", "x"},
		{"expr=composite", "${request.body.service}/${request.body.action}", "chat/send"},
		{"expr=composite-missing", "${request.body.service}/${request.body.nope}", "chat/"},
		{"expr=escaped-literal", `\$default`, "$default"},
		{"expr=literal", "fixed", "fixed"},
		{"expr=header", "$request.header.Auth", "tok"},
		{"expr=whole-body", "$request.body", body},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := compileExpression(tc.expr).eval(parsed, body, headers); got != tc.want {
				t.Fatalf("%s = %q, want %q", tc.expr, got, tc.want)
			}
		})
	}
	t.Run("expr=not-json", func(t *testing.T) {
		if got := compileExpression("$request.body.action").eval(nil, "hello", nil); got != "" {
			t.Fatalf("got %q", got)
		}
	})
}

// TestAuthorizeReply: $connect authorizer answers are IAM policies,
// decided for the connection's method ARN.
func TestAuthorizeReply(t *testing.T) {
	arn := "arn:aws:execute-api:us-east-1:000000000000:abc123/dev/$connect"
	for _, tc := range []struct {
		name, answer, fnErr string
		status              int
	}{
		{"answer=allow", `{"principalId":"me","context":{"tier":"gold"},"policyDocument":{"Statement":[{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"` + arn + `"}]}}`, "", 200},
		{"answer=wildcard", `{"principalId":"me","policyDocument":{"Statement":{"Action":["execute-api:*"],"Effect":"Allow","Resource":["arn:aws:execute-api:*:*:abc12?/*"]}}}`, "", 200},
		{"answer=deny-wins", `{"principalId":"me","policyDocument":{"Statement":[{"Action":"*","Effect":"Allow","Resource":"*"},{"Action":"execute-api:Invoke","Effect":"Deny","Resource":"` + arn + `"}]}}`, "", 403},
		{"answer=other-action", `{"principalId":"me","policyDocument":{"Statement":[{"Action":"s3:GetObject","Effect":"Allow","Resource":"*"}]}}`, "", 403},
		{"answer=no-policy", `{"principalId":"me"}`, "", 500},
		{"answer=not-json", `nope`, "", 500},
		{"answer=unauthorized", `{"errorMessage":"Unauthorized","errorType":"Exception"}`, "Unhandled", 401},
		{"answer=raised", `{"errorMessage":"boom","errorType":"Exception"}`, "Unhandled", 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, status := authorizeReply(execute.FunctionReply{Payload: []byte(tc.answer), Error: tc.fnErr}, arn)
			if status != tc.status || (status == 200) != (res != nil) {
				t.Fatalf("status %d, result %+v", status, res)
			}
			if tc.name == "answer=allow" && (res.principalID != "me" || res.context["tier"] != "gold") {
				t.Fatalf("result %+v", res)
			}
		})
	}
}

func TestConnectionPath(t *testing.T) {
	for _, tc := range []struct {
		path, id string
		ok       bool
	}{
		{"/@connections/L0SM9cOFvHcCIhw=", "L0SM9cOFvHcCIhw=", true},
		{"/%40connections/L0SM9cOFvHcCIhw%3D", "L0SM9cOFvHcCIhw=", true},
		{"/@connections/", "", false},
		{"/other/x", "", false},
		{"", "", false},
	} {
		id, ok := connectionPath(tc.path)
		if id != tc.id || ok != tc.ok {
			t.Errorf("connectionPath(%q) = %q %v", tc.path, id, ok)
		}
	}
}

// TestIsConnectionsPath: malformed @connections paths are still
// management calls (403), not plain requests (426).
func TestIsConnectionsPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/@connections/": true, "//@connections/x": true, "/@connections": true, "/%40Connections/%zz": true,
		"/other": false, "/": false, "": false, "/connections/x": false,
	} {
		if got := isConnectionsPath(p); got != want {
			t.Errorf("isConnectionsPath(%q) = %v", p, got)
		}
	}
}
