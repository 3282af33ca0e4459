package websocket

import (
	"testing"

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

func TestWildcardMatch(t *testing.T) {
	arn := "arn:aws:execute-api:us-east-1:000000000000:abc123/dev/$connect"
	for _, tc := range []struct {
		pattern string
		want    bool
	}{
		{arn, true},
		{"*", true},
		{"arn:aws:execute-api:us-east-1:000000000000:abc123/*", true},
		{"arn:aws:execute-api:*:*:abc123/dev/$connect", true},
		{"arn:aws:execute-api:us-east-1:000000000000:abc123/prod/*", false},
		{"arn:aws:execute-api:us-east-1:000000000000:abc12?/dev/$connect", true},
		{"arn:aws:execute-api:us-east-1:000000000000:abc123/dev", false},
	} {
		if got := wildcardMatch(tc.pattern, arn); got != tc.want {
			t.Errorf("wildcardMatch(%q) = %v, want %v", tc.pattern, got, tc.want)
		}
	}
}

func TestParseAuthorizerAnswer(t *testing.T) {
	arn := "arn:aws:execute-api:us-east-1:000000000000:abc123/dev/$connect"
	for _, tc := range []struct {
		name, answer string
		ok, allows   bool
	}{
		{"answer=allow", `{"principalId":"me","policyDocument":{"Statement":[{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"` + arn + `"}]}}`, true, true},
		{"answer=single-statement", `{"principalId":"me","policyDocument":{"Statement":{"Action":["execute-api:*"],"Effect":"Allow","Resource":["*"]}}}`, true, true},
		{"answer=deny-wins", `{"policyDocument":{"Statement":[{"Action":"*","Effect":"Allow","Resource":"*"},{"Action":"execute-api:Invoke","Effect":"Deny","Resource":"` + arn + `"}]}}`, true, false},
		{"answer=other-action", `{"policyDocument":{"Statement":[{"Action":"s3:GetObject","Effect":"Allow","Resource":"*"}]}}`, true, false},
		{"answer=no-policy", `{"principalId":"me"}`, false, false},
		{"answer=not-json", `nope`, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, ok := parseAuthorizerAnswer([]byte(tc.answer))
			if ok != tc.ok || (ok && res.allows(arn) != tc.allows) {
				t.Fatalf("ok %v, allows %v", ok, ok && res.allows(arn))
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
