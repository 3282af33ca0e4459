package httpapi_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudemu/emulator/server/servertest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/golang-jwt/jwt/v5"
)

// TestBackendFaultsAnswered: a backend that resets the connection, answers
// what is not HTTP or cuts its answer short is an HTTP API's 500 Internal
// Server Error; the emulator goes on serving.
func TestBackendFaultsAnswered(t *testing.T) {
	f := newFixture(t)
	linger0 := func(c net.Conn) { _ = c.(*net.TCPConn).SetLinger(0) }
	faults := map[string]func(net.Conn){
		"/reset":     linger0,
		"/garbage":   func(c net.Conn) { _, _ = c.Write([]byte("HELLO THERE\r\n\r\n")) },
		"/truncated": func(c net.Conn) { _, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort")) },
	}
	for path, fault := range faults {
		f.route("GET "+path, f.proxy(servertest.FaultyBackend(t, fault), nil), nil)
	}
	be := echoBackend(t)
	f.route("GET /ok", f.proxy(be.URL, nil), nil)
	f.stage("$default", nil)
	for path := range faults {
		f.call("GET", path, nil, "").want(t, 500, `{"message":"Internal Server Error"}`)
	}
	if a := f.call("GET", "/ok", nil, ""); a.status != 200 {
		t.Fatalf("after the faults: %d %s", a.status, a.body)
	}
}

// TestJWTIssuerDown: while the issuer of a JWT authorizer cannot be
// reached, a request is refused at once with 401 Unauthorized (not a 5xx,
// not a hang); once the issuer is back, tokens are accepted again within
// the verifier's refresh interval (5 s).
func TestJWTIssuerDown(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	var url string
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			panic(http.ErrAbortHandler) // the connection is cut
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": url, "jwks_uri": url + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			panic(http.ErrAbortHandler)
		}
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "use": "sig",
			"alg": "RS256", "n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	})
	is := httptest.NewServer(mux)
	t.Cleanup(is.Close)
	url = is.URL
	down.Store(true)

	f := newFixture(t)
	auth, err := f.c.CreateAuthorizer(ctx, &apigatewayv2.CreateAuthorizerInput{ApiId: &f.api, Name: aws.String("jwt"),
		AuthorizerType: types.AuthorizerTypeJwt, IdentitySource: []string{"$request.header.Authorization"},
		JwtConfiguration: &types.JWTConfiguration{Issuer: &url, Audience: []string{"my-app"}}})
	f.must(err)
	be := echoBackend(t)
	f.route("GET /private", f.proxy(be.URL, nil), func(in *apigatewayv2.CreateRouteInput) {
		in.AuthorizationType, in.AuthorizerId = types.AuthorizationTypeJwt, auth.AuthorizerId
	})
	f.stage("$default", nil)
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": url, "aud": "my-app", "sub": "alice",
		"exp": time.Now().Add(time.Hour).Unix()})
	tok.Header["kid"] = "k1"
	signed, err := tok.SignedString(key)
	f.must(err)
	bearer := map[string]string{"Authorization": "Bearer " + signed}

	for range 3 {
		start := time.Now()
		f.call("GET", "/private", bearer, "").want(t, 401, `{"message":"Unauthorized"}`)
		if took := time.Since(start); took > 3*time.Second {
			t.Fatalf("refused after %v", took)
		}
	}
	down.Store(false)
	deadline := time.Now().Add(15 * time.Second)
	for {
		a := f.call("GET", "/private", bearer, "")
		if a.status == 200 {
			break
		}
		if a.status != 401 || time.Now().After(deadline) {
			t.Fatalf("issuer back: %d %s", a.status, a.body)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
