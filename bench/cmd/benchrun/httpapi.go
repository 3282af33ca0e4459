package main

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

// deployHTTPAPI creates an HTTP API with one route (routeKey) to an
// HTTP_PROXY integration at uri, an optional authorizer (JSON, "" for
// none) on the route, and an auto-deployed $default stage; it returns the
// API id.
func deployHTTPAPI(addr, name, routeKey, uri, authorizer string) (string, error) {
	var api struct {
		ID string `json:"apiId"`
	}
	if err := call(addr, "POST", "/v2/apis", `{"name":"`+name+`","protocolType":"HTTP"}`, 201, &api); err != nil {
		return "", err
	}
	var integ struct {
		ID string `json:"integrationId"`
	}
	if err := call(addr, "POST", "/v2/apis/"+api.ID+"/integrations",
		`{"integrationType":"HTTP_PROXY","integrationMethod":"ANY","payloadFormatVersion":"1.0","integrationUri":"`+uri+`"}`,
		201, &integ); err != nil {
		return "", err
	}
	route := `{"routeKey":"` + routeKey + `","target":"integrations/` + integ.ID + `"}`
	if authorizer != "" {
		// The authorizer is a JWT one.
		var auth struct {
			ID string `json:"authorizerId"`
		}
		if err := call(addr, "POST", "/v2/apis/"+api.ID+"/authorizers", authorizer, 201, &auth); err != nil {
			return "", err
		}
		route = `{"routeKey":"` + routeKey + `","target":"integrations/` + integ.ID +
			`","authorizationType":"JWT","authorizerId":"` + auth.ID + `"}`
	}
	if err := call(addr, "POST", "/v2/apis/"+api.ID+"/routes", route, 201, nil); err != nil {
		return "", err
	}
	return api.ID, call(addr, "POST", "/v2/apis/"+api.ID+"/stages", `{"stageName":"$default","autoDeploy":true}`, 201, nil)
}

// executeHTTPAPIProxy is a request to an HTTP API's `ANY /{proxy+}` route
// whose HTTP_PROXY backend is the bare server, measured against the bare
// reverse proxy to the same backend.
func executeHTTPAPIProxy() scenario {
	var path string
	return scenario{
		Name:     "ExecuteHttpApiProxy",
		Emulator: true,
		Baseline: "bare-proxy",
		Backend: func(_ context.Context, addr, backend string) error {
			id, err := deployHTTPAPI(addr, "bench-http-api", "ANY /{proxy+}", "http://"+backend+"/{proxy}", "")
			path = "/_aws/execute-api/" + id + "/items/42"
			return err
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
		},
	}
}

// executeHTTPAPIJWT is ExecuteHttpApiProxy with a JWT authorizer on the
// route: every request carries the same RS256 token of a local issuer
// (benchrun serves its discovery document and keys), so after the first
// request the keys are cached, as they are under load on AWS.
func executeHTTPAPIJWT() scenario {
	var path, token string
	return scenario{
		Name:     "ExecuteHttpApiJwt",
		Emulator: true,
		Baseline: "ExecuteHttpApiProxy",
		Backend: func(_ context.Context, addr, backend string) error {
			is, err := startIssuer()
			if err != nil {
				return err
			}
			token = is.token
			id, err := deployHTTPAPI(addr, "bench-http-api-jwt", "ANY /{proxy+}", "http://"+backend+"/{proxy}",
				`{"name":"jwt","authorizerType":"JWT","identitySource":["$request.header.Authorization"],`+
					`"jwtConfiguration":{"issuer":"`+is.url+`","audience":["bench"]}}`)
			path = "/_aws/execute-api/" + id + "/items/42"
			return err
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
			req.Header.Set("Authorization", "Bearer "+token)
		},
	}
}

// benchIssuer is a local OpenID provider with one RSA key, and a token it
// signed for audience "bench", valid for a day.
type benchIssuer struct {
	url, token string
}

// startIssuer serves discovery and keys on loopback for the rest of the
// process.
func startIssuer() (*benchIssuer, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	is := &benchIssuer{url: "http://" + ln.Addr().String()}
	b64 := base64.RawURLEncoding.EncodeToString
	discovery := `{"issuer":"` + is.url + `","jwks_uri":"` + is.url + `/keys"}`
	keys := `{"keys":[{"kty":"RSA","kid":"bench","use":"sig","alg":"RS256","n":"` + b64(key.N.Bytes()) +
		`","e":"` + b64(big.NewInt(int64(key.E)).Bytes()) + `"}]}`
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if r.URL.Path == "/keys" {
				_, _ = io.WriteString(w, keys)
				return
			}
			_, _ = io.WriteString(w, discovery)
		}))
	}()
	now := time.Now().Unix()
	header := b64([]byte(`{"alg":"RS256","typ":"JWT","kid":"bench"}`))
	claims := b64([]byte(`{"iss":"` + is.url + `","aud":"bench","sub":"bench-user","iat":` + strconv.FormatInt(now-60, 10) +
		`,"exp":` + strconv.FormatInt(now+86400, 10) + `}`))
	digest := sha256.Sum256([]byte(header + "." + claims))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		return nil, err
	}
	is.token = header + "." + claims + "." + b64(sig)
	return is, nil
}
