package httpapi_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/golang-jwt/jwt/v5"
)

// issuer is a local OpenID provider: discovery and a JWKS with one RSA key.
type issuer struct {
	url string
	key *rsa.PrivateKey
}

func newIssuer(t testing.TB) *issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": is.url, "jwks_uri": is.url + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "use": "sig",
			"alg": "RS256", "n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	is.url = srv.URL
	return is
}

// token signs claims with the issuer's key (kid k1), RS256.
func (is *issuer) token(t testing.TB, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = "k1"
	s, err := tok.SignedString(is.key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJWTAuthorizer: tokens of a local issuer are checked as API Gateway
// checks them; the claims and scopes reach the integration.
func TestJWTAuthorizer(t *testing.T) {
	f := newFixture(t)
	is := newIssuer(t)
	auth, err := f.c.CreateAuthorizer(ctx, &apigatewayv2.CreateAuthorizerInput{ApiId: &f.api, Name: aws.String("jwt"),
		AuthorizerType: types.AuthorizerTypeJwt, IdentitySource: []string{"$request.header.Authorization"},
		JwtConfiguration: &types.JWTConfiguration{Issuer: &is.url, Audience: []string{"my-app"}}})
	f.must(err)
	target := f.pythonFunction("claims", functionSource)
	integ := f.lambdaIntegration(target, "2.0")
	f.route("GET /open", integ, func(in *apigatewayv2.CreateRouteInput) {
		in.AuthorizationType, in.AuthorizerId = types.AuthorizationTypeJwt, auth.AuthorizerId
	})
	f.route("GET /admin", integ, func(in *apigatewayv2.CreateRouteInput) {
		in.AuthorizationType, in.AuthorizerId = types.AuthorizationTypeJwt, auth.AuthorizerId
		in.AuthorizationScopes = []string{"admin"}
	})
	f.stage("$default", nil)

	now := time.Now().Unix()
	good := jwt.MapClaims{"iss": is.url, "aud": "my-app", "sub": "alice", "exp": now + 300, "iat": now - 10,
		"scope": "read admin", "groups": []string{"a", "b"}}
	a := f.call("GET", "/open", map[string]string{"Authorization": "Bearer " + is.token(t, good)}, "")
	if a.status != 200 {
		t.Fatalf("valid token: %d %s", a.status, a.body)
	}
	var ev struct {
		RequestContext struct {
			Authorizer struct {
				JWT struct {
					Claims map[string]string `json:"claims"`
					Scopes []string          `json:"scopes"`
				} `json:"jwt"`
			} `json:"authorizer"`
		} `json:"requestContext"`
	}
	f.must(json.Unmarshal([]byte(a.body), &ev))
	claims := ev.RequestContext.Authorizer.JWT.Claims
	if claims["sub"] != "alice" || claims["aud"] != "my-app" || claims["groups"] != "[a b]" || claims["exp"] == "" {
		t.Errorf("claims %v", claims)
	}
	// Without the Bearer prefix, on the scoped route.
	a = f.call("GET", "/admin", map[string]string{"Authorization": is.token(t, good)}, "")
	if a.status != 200 || strings.Join(ev.RequestContext.Authorizer.JWT.Scopes, " ") != "" {
		t.Errorf("scoped route: %d %s", a.status, a.body)
	}
	f.must(json.Unmarshal([]byte(a.body), &ev))
	if got := strings.Join(ev.RequestContext.Authorizer.JWT.Scopes, " "); got != "read admin" {
		t.Errorf("scopes %q", got)
	}

	refuse := func(name string, header map[string]string, status int, body, wwwAuth string) {
		t.Helper()
		a := f.call("GET", "/admin", header, "")
		if a.status != status || a.body != body || (wwwAuth != "" && a.header.Get("www-authenticate") != wwwAuth) {
			t.Errorf("%s: %d %s www-authenticate %q", name, a.status, a.body, a.header.Get("www-authenticate"))
		}
	}
	with := func(edit func(jwt.MapClaims)) map[string]string {
		c := jwt.MapClaims{}
		for k, v := range good {
			c[k] = v
		}
		edit(c)
		return map[string]string{"Authorization": "Bearer " + is.token(t, c)}
	}
	refuse("no token", nil, 401, `{"message":"Unauthorized"}`, "Bearer")
	refuse("wrong audience", with(func(c jwt.MapClaims) { c["aud"] = "other" }), 401, `{"message":"Unauthorized"}`,
		`Bearer scope="" error="invalid_token" error_description="the token does not have a valid audience"`)
	refuse("expired", with(func(c jwt.MapClaims) { c["exp"] = now - 5 }), 401, `{"message":"Unauthorized"}`, "")
	refuse("wrong issuer", with(func(c jwt.MapClaims) { c["iss"] = "https://elsewhere" }), 401, `{"message":"Unauthorized"}`, "")
	refuse("missing scope", with(func(c jwt.MapClaims) { c["scope"] = "read" }), 403, `{"message":"Forbidden"}`, "")
	refuse("garbage", map[string]string{"Authorization": "Bearer a.b"}, 401, `{"message":"Unauthorized"}`,
		`Bearer scope="" error="invalid_token" error_description="token contains an invalid number of segments"`)
	refuse("none algorithm", map[string]string{"Authorization": "Bearer " + noneToken(good)}, 401, `{"message":"Unauthorized"}`, "")

	// ES256 is refused as AWS refuses it (RSA keys only).
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	f.must(err)
	es := jwt.NewWithClaims(jwt.SigningMethodES256, good)
	es.Header["kid"] = "k1"
	signed, err := es.SignedString(ec)
	f.must(err)
	refuse("ES256", map[string]string{"Authorization": "Bearer " + signed}, 401, `{"message":"Unauthorized"}`,
		`Bearer scope="" error="invalid_token" error_description="signing method ES256 is invalid"`)
}

// noneToken is an unsigned token (alg none).
func noneToken(claims jwt.MapClaims) string {
	s, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claims).SignedString(jwt.UnsafeAllowNoneSignatureType)
	return s
}
