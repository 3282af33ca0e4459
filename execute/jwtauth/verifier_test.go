package jwtauth_test

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/cloudemu/emulator/execute/jwtauth"
)

var aud1 = []string{"aud1"}

// withES adds the ECDSA algorithms to AWS's.
func withES(o jwtauth.Options) jwtauth.Options {
	o.Algorithms = append(slices.Clone(jwtauth.AWSAlgorithms), "ES256", "ES384")
	return o
}

func TestVerifyValid(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA(), "ec": ecP256(), "ec384": ecP384()})
	v := jwtauth.New(withES(newClock().options()))
	for _, tc := range []struct {
		name, alg, kid, prefix string
		key                    crypto.Signer
	}{
		{"alg=RS256", "RS256", "rsa", "", rsaA()},
		{"alg=RS384", "RS384", "rsa", "", rsaA()},
		{"alg=RS512", "RS512", "rsa", "", rsaA()},
		{"alg=PS256", "PS256", "rsa", "", rsaA()},
		{"alg=ES256", "ES256", "ec", "", ecP256()},
		{"alg=ES384", "ES384", "ec384", "", ecP384()},
		{"prefix=Bearer", "RS256", "rsa", "Bearer ", rsaA()},
		{"prefix=bearer", "ES256", "ec", "bearer ", ecP256()},
		{"prefix=BEARER-two-spaces", "RS256", "rsa", "BEARER  ", rsaA()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := sign(t, tc.key, tc.alg, tc.kid, is.claims(nil))
			res, err := v.Verify(context.Background(), tc.prefix+tok, is.url, aud1, nil, now)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if res.Claims["sub"] != "user-1" || res.Claims["iss"] != is.url {
				t.Errorf("claims = %v", res.Claims)
			}
			if res.Scopes != nil {
				t.Errorf("scopes = %q on a route without scopes, want nil", res.Scopes)
			}
		})
	}
}

func TestAlgorithms(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA(), "ec": ecP256()})
	v := jwtauth.New(newClock().options())
	der, err := x509.MarshalPKIXPublicKey(&rsaA().PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	hs := func(alg string) string {
		// The classic confusion: the issuer's public key as an HMAC secret.
		tok := jwt.NewWithClaims(jwt.GetSigningMethod(alg), is.claims(nil))
		tok.Header["kid"] = "rsa"
		s, err := tok.SignedString(der)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	none := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, is.claims(nil))
		tok.Header["kid"] = "rsa"
		s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	header := func(h string) string {
		valid := sign(t, rsaA(), "RS256", "rsa", is.claims(nil))
		parts := strings.Split(valid, ".")
		return b64u([]byte(h)) + "." + parts[1] + "." + parts[2]
	}
	for _, tc := range []struct{ name, token, desc string }{
		// Observed on API Gateway (doc.go).
		{"alg=ES256-by-default", sign(t, ecP256(), "ES256", "ec", is.claims(nil)), "signing method ES256 is invalid"},
		{"alg=HS256", hs("HS256"), "signing method HS256 is invalid"},
		{"alg=HS512", hs("HS512"), "signing method HS512 is invalid"},
		{"alg=none", none(), "signing method none is invalid"},
		{"alg=absent", header(`{"kid":"rsa","typ":"JWT"}`), "signing method (alg) is unspecified"},
		{"alg=unknown", header(`{"alg":"XX999","kid":"rsa"}`), "signing method (alg) is unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tc.token, is.url, aud1, nil, now)
			e := refusal(t, err, 401, jwtauth.ReasonAlgorithm)
			want := `Bearer scope="" error="invalid_token" error_description="` + tc.desc + `"`
			if e.WWWAuthenticate != want {
				t.Errorf("www-authenticate = %q, want %q", e.WWWAuthenticate, want)
			}
		})
	}
	if n := is.jwks.Load(); n != 0 {
		t.Errorf("the issuer's keys were fetched %d times for refused algorithms, want 0", n)
	}
}

func TestAlgorithmsOptionPanics(t *testing.T) {
	for _, alg := range []string{"none", "HS256", "EdDSA"} {
		t.Run("alg="+alg, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("New accepted algorithm %q", alg)
				}
			}()
			jwtauth.New(jwtauth.Options{Algorithms: []string{alg}})
		})
	}
}

func TestMissingToken(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA()})
	v := jwtauth.New(newClock().options())
	_, err := v.Verify(context.Background(), "", is.url, aud1, nil, now)
	e := refusal(t, err, 401, jwtauth.ReasonMissing)
	if e.WWWAuthenticate != "Bearer" {
		t.Errorf("www-authenticate = %q, want the bare challenge", e.WWWAuthenticate)
	}
}

func TestMalformed(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA()})
	v := jwtauth.New(newClock().options())
	valid := sign(t, rsaA(), "RS256", "rsa", is.claims(nil))
	parts := strings.Split(valid, ".")
	hugeHeader := b64u([]byte(`{"alg":"RS256","kid":"rsa","x":"`+strings.Repeat("a", 1<<20)+`"}`)) + "." + parts[1] + "." + parts[2]
	for _, tc := range []struct{ name, token, desc string }{
		// Observed on API Gateway (doc.go).
		{"segments=1", "not-a-token", "token contains an invalid number of segments"},
		{"segments=1-bearer", "Bearer not-a-token", "token contains an invalid number of segments"},
		{"segments=2", parts[0] + "." + parts[1], "token contains an invalid number of segments"},
		{"segments=4", valid + ".x", "token contains an invalid number of segments"},
		{"segments=bearer-only", "Bearer ", "token contains an invalid number of segments"},
		{"header=base64", "!!!." + parts[1] + "." + parts[2], "illegal base64 data at input byte 0"},
		{"header=json", b64u([]byte(`{"alg":`)) + "." + parts[1] + "." + parts[2], "unexpected end of JSON input"},
		{"header=array", b64u([]byte(`["RS256"]`)) + "." + parts[1] + "." + parts[2], ""},
		{"payload=base64", parts[0] + ".%%%." + parts[2], "illegal base64 data at input byte 0"},
		{"payload=json", parts[0] + "." + b64u([]byte(`{"iss"`)) + "." + parts[2], ""},
		{"signature=base64", parts[0] + "." + parts[1] + ".***", "illegal base64 data at input byte 0"},
		{"header=huge", hugeHeader, "token is malformed"},
		{"dots-only", "..", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tc.token, is.url, aud1, nil, now)
			e := refusal(t, err, 401, jwtauth.ReasonMalformed)
			if tc.desc != "" && e.Description != tc.desc {
				t.Errorf("description = %q, want %q", e.Description, tc.desc)
			}
			if !strings.HasPrefix(e.WWWAuthenticate, `Bearer scope="" error="invalid_token" error_description="`) ||
				strings.Count(e.WWWAuthenticate, `"`) != 6 {
				t.Errorf("www-authenticate = %q", e.WWWAuthenticate)
			}
		})
	}
}

func TestSignature(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA(), "ec": ecP256(), "other": rsaB()})
	v := jwtauth.New(withES(newClock().options()))
	tamper := func(tok string) string {
		parts := strings.Split(tok, ".")
		forged := is.claims(map[string]any{"sub": "admin"})
		payload, _ := jwt.NewWithClaims(jwt.SigningMethodRS256, forged).SigningString()
		return parts[0] + "." + strings.Split(payload, ".")[1] + "." + parts[2]
	}
	for _, tc := range []struct{ name, token, desc string }{
		{"alg=RS256-tampered", tamper(sign(t, rsaA(), "RS256", "rsa", is.claims(nil))), "crypto/rsa: verification error"},
		{"alg=RS256-other-key", sign(t, rsaA(), "RS256", "other", is.claims(nil)), "crypto/rsa: verification error"},
		{"alg=PS256-tampered", tamper(sign(t, rsaA(), "PS256", "rsa", is.claims(nil))), "crypto/rsa: verification error"},
		{"alg=ES256-tampered", tamper(sign(t, ecP256(), "ES256", "ec", is.claims(nil))), "crypto/ecdsa: verification error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tc.token, is.url, aud1, nil, now)
			if e := refusal(t, err, 401, jwtauth.ReasonSignature); e.Description != tc.desc {
				t.Errorf("description = %q, want %q", e.Description, tc.desc)
			}
		})
	}
}

func TestKeyID(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA(), "ec": ecP256()})
	jwk := publicJWK("rs384-only", rsaA().Public())
	jwk["alg"] = "RS384"
	is.addJWK(jwk)
	v := jwtauth.New(withES(newClock().options()))
	for _, tc := range []struct{ name, token string }{
		{"kid=absent", sign(t, rsaA(), "RS256", "", is.claims(nil))},
		{"kid=unknown", sign(t, rsaA(), "RS256", "nope", is.claims(nil))},
		{"kid=ec-key-for-RS256", sign(t, rsaA(), "RS256", "ec", is.claims(nil))},
		{"kid=rsa-key-for-ES256", sign(t, ecP256(), "ES256", "rsa", is.claims(nil))},
		{"kid=jwk-alg-differs", sign(t, rsaA(), "RS256", "rs384-only", is.claims(nil))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tc.token, is.url, aud1, nil, now)
			refusal(t, err, 401, jwtauth.ReasonKeyID)
		})
	}
	// The JWK's alg is honoured when it matches.
	if _, err := v.Verify(context.Background(), sign(t, rsaA(), "RS384", "rs384-only", is.claims(nil)), is.url, aud1, nil, now); err != nil {
		t.Errorf("RS384 with a JWK naming RS384: %v", err)
	}
}

func TestClaims(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA()})
	v := jwtauth.New(newClock().options())
	audiences := []string{"aud0", "aud1"}
	for _, tc := range []struct {
		name    string
		changes map[string]any
		at      time.Time
		reason  jwtauth.Reason // "" accepted
	}{
		{"valid", nil, now, ""},
		{"aud=array-match", map[string]any{"aud": []string{"x", "aud1"}}, now, ""},
		{"aud=array-no-match", map[string]any{"aud": []string{"x", "y"}}, now, jwtauth.ReasonAudience},
		{"aud=wrong", map[string]any{"aud": "other"}, now, jwtauth.ReasonAudience},
		{"aud=number", map[string]any{"aud": 7}, now, jwtauth.ReasonAudience},
		{"aud=absent-client_id", map[string]any{"aud": nil, "client_id": "aud1"}, now, ""},
		{"aud=absent-client_id-wrong", map[string]any{"aud": nil, "client_id": "x"}, now, jwtauth.ReasonAudience},
		{"aud=absent-no-client_id", map[string]any{"aud": nil}, now, jwtauth.ReasonAudience},
		// AWS evaluates aud when both are present.
		{"aud=wrong-client_id-right", map[string]any{"aud": "x", "client_id": "aud1"}, now, jwtauth.ReasonAudience},
		{"iss=other", map[string]any{"iss": "https://elsewhere"}, now, jwtauth.ReasonIssuer},
		{"iss=trailing-slash", map[string]any{"iss": is.url + "/"}, now, jwtauth.ReasonIssuer},
		{"iss=absent", map[string]any{"iss": nil}, now, jwtauth.ReasonIssuer},
		{"iss=number", map[string]any{"iss": 1}, now, jwtauth.ReasonIssuer},
		{"exp=past", map[string]any{"exp": now.Add(-time.Second).Unix()}, now, jwtauth.ReasonExpired},
		{"exp=now", map[string]any{"exp": now.Unix()}, now, jwtauth.ReasonExpired},
		{"exp=fraction-ahead", map[string]any{"exp": float64(now.Unix()) + 0.5}, now, ""},
		{"exp=absent", map[string]any{"exp": nil}, now, jwtauth.ReasonClaim},
		{"exp=string", map[string]any{"exp": "4102444800"}, now, jwtauth.ReasonClaim},
		{"nbf=future", map[string]any{"nbf": now.Add(time.Second).Unix()}, now, jwtauth.ReasonNotYetValid},
		{"nbf=now", map[string]any{"nbf": now.Unix()}, now, ""},
		{"nbf=absent", map[string]any{"nbf": nil}, now, ""},
		{"nbf=string", map[string]any{"nbf": "x"}, now, jwtauth.ReasonClaim},
		{"iat=future", map[string]any{"iat": now.Add(time.Second).Unix()}, now, jwtauth.ReasonIssuedLater},
		{"iat=absent", map[string]any{"iat": nil}, now, ""},
		{"iat=bool", map[string]any{"iat": true}, now, jwtauth.ReasonClaim},
		{"at=later-than-exp", nil, now.Add(2 * time.Hour), jwtauth.ReasonExpired},
		{"at=before-nbf", nil, now.Add(-2 * time.Minute), jwtauth.ReasonNotYetValid},
		// Checked in AWS's order: the issuer before the audience and exp.
		{"order=iss-before-aud", map[string]any{"iss": "x", "aud": "x", "exp": 1}, now, jwtauth.ReasonIssuer},
		{"order=aud-before-exp", map[string]any{"aud": "x", "exp": 1}, now, jwtauth.ReasonAudience},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := sign(t, rsaA(), "RS256", "rsa", is.claims(tc.changes))
			// Twice: the second answer comes from the verified-token cache.
			for range 2 {
				res, err := v.Verify(context.Background(), tok, is.url, audiences, nil, tc.at)
				if tc.reason == "" {
					if err != nil || res == nil {
						t.Fatalf("Verify: %v", err)
					}
					continue
				}
				refusal(t, err, 401, tc.reason)
			}
		})
	}
}

func TestAudienceWording(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA()})
	v := jwtauth.New(newClock().options())
	tok := sign(t, rsaA(), "RS256", "rsa", is.claims(map[string]any{"aud": "someone-else"}))
	_, err := v.Verify(context.Background(), tok, is.url, aud1, nil, now)
	e := refusal(t, err, 401, jwtauth.ReasonAudience)
	// AWS's published example (docs: http-api-troubleshooting-jwt).
	const want = `Bearer scope="" error="invalid_token" error_description="the token does not have a valid audience"`
	if e.WWWAuthenticate != want {
		t.Errorf("www-authenticate = %q, want %q", e.WWWAuthenticate, want)
	}
}

func TestScopes(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA()})
	v := jwtauth.New(newClock().options())
	for _, tc := range []struct {
		name     string
		changes  map[string]any
		required []string
		want     []string // nil with ok: no scopes handed on
		ok       bool
	}{
		{"route=none-token-has-scopes", nil, nil, nil, true},
		{"scope=string", nil, []string{"write"}, []string{"read", "write"}, true},
		{"scope=string-one-of-two", nil, []string{"admin", "read"}, []string{"read", "write"}, true},
		{"scope=array", map[string]any{"scope": []string{"a", "read"}}, []string{"read"}, []string{"a", "read"}, true},
		{"scp=string", map[string]any{"scope": nil, "scp": "x read"}, []string{"read"}, []string{"x", "read"}, true},
		{"scp=array", map[string]any{"scope": nil, "scp": []string{"read"}}, []string{"read"}, []string{"read"}, true},
		{"scope=before-scp", map[string]any{"scp": "admin"}, []string{"admin"}, nil, false},
		{"scope=missing-one", nil, []string{"admin"}, nil, false},
		{"scope=absent", map[string]any{"scope": nil}, []string{"read"}, nil, false},
		{"scope=prefix-only", map[string]any{"scope": "reader"}, []string{"read"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := sign(t, rsaA(), "RS256", "rsa", is.claims(tc.changes))
			res, err := v.Verify(context.Background(), tok, is.url, aud1, tc.required, now)
			if !tc.ok {
				e := refusal(t, err, 403, jwtauth.ReasonScope)
				want := `Bearer scope="` + strings.Join(tc.required, " ") +
					`" error="insufficient_scope" error_description="the token does not have a valid scope"`
				if e.WWWAuthenticate != want {
					t.Errorf("www-authenticate = %q, want %q", e.WWWAuthenticate, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !slices.Equal(res.Scopes, tc.want) || (tc.want == nil) != (res.Scopes == nil) {
				t.Errorf("scopes = %#v, want %#v", res.Scopes, tc.want)
			}
		})
	}
	// An invalid token is refused with 401 before its scopes are looked at.
	tok := sign(t, rsaA(), "RS256", "rsa", is.claims(map[string]any{"scope": "x", "aud": "x"}))
	_, err := v.Verify(context.Background(), tok, is.url, aud1, []string{"read"}, now)
	refusal(t, err, 401, jwtauth.ReasonAudience)
}

func TestClaimsHandedOn(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA()})
	v := jwtauth.New(newClock().options())
	tok := sign(t, rsaA(), "RS256", "rsa", is.claims(map[string]any{
		"cognito:groups": []string{"admin", "poweruser"},
		"email_verified": true,
		"auth_time":      1777636800,
		"ratio":          0.25,
		"big":            12345678901234567,
		"nickname":       "<a&b> \"q\"",
		"address":        map[string]any{"country": "JP", "zip": 100},
		"nested":         []any{1, []any{"x", nil}, map[string]any{"b": 2, "a": "1"}},
		"middle_name":    jwt.MapClaims(nil),
		"scope":          nil,
	}))
	res, err := v.Verify(context.Background(), tok, is.url, aud1, nil, now)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	want := map[string]string{
		"iss": is.url, "aud": "aud1", "sub": "user-1",
		"iat": fmt.Sprint(now.Add(-time.Minute).Unix()), "nbf": fmt.Sprint(now.Add(-time.Minute).Unix()),
		"exp":            fmt.Sprint(now.Add(time.Hour).Unix()),
		"cognito:groups": "[admin poweruser]",
		"email_verified": "true",
		"auth_time":      "1777636800",
		"ratio":          "0.25",
		"big":            "12345678901234567",
		"nickname":       `<a&b> "q"`,
		"address":        "map[country:JP zip:100]",
		"nested":         "[1 [x <nil>] map[a:1 b:2]]",
	}
	if len(res.Claims) != len(want) {
		t.Errorf("claims = %v, want %v", res.Claims, want)
	}
	for k, w := range want {
		if res.Claims[k] != w {
			t.Errorf("claim %s = %q, want %q", k, res.Claims[k], w)
		}
	}
	if !slices.IsSorted(res.ClaimNames) || len(res.ClaimNames) != len(want) {
		t.Errorf("claim names = %q", res.ClaimNames)
	}
	wantJSON := `{"address":"map[country:JP zip:100]","aud":"aud1","auth_time":"1777636800","big":"12345678901234567",` +
		`"cognito:groups":"[admin poweruser]","email_verified":"true","exp":"` + want["exp"] + `","iat":"` + want["iat"] +
		`","iss":"` + is.url + `","nbf":"` + want["nbf"] + `","nested":"[1 [x <nil>] map[a:1 b:2]]",` +
		`"nickname":"<a&b> \"q\"","ratio":"0.25","sub":"user-1"}`
	if string(res.ClaimsJSON) != wantJSON {
		t.Errorf("claims JSON =\n%s\nwant\n%s", res.ClaimsJSON, wantJSON)
	}
}

func TestRotation(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"a": rsaA()})
	clk := newClock()
	v := jwtauth.New(clk.options())
	ctx := context.Background()
	tokA := sign(t, rsaA(), "RS256", "a", is.claims(nil))
	tokB := sign(t, rsaB(), "RS256", "b", is.claims(nil))
	if _, err := v.Verify(ctx, tokA, is.url, aud1, nil, now); err != nil {
		t.Fatalf("key a: %v", err)
	}
	// The issuer rotates: b joins, a leaves.
	is.add("b", rsaB())
	is.remove("a")
	// Within RefreshEvery of the first fetch, an unknown kid fetches nothing.
	_, err := v.Verify(ctx, tokB, is.url, aud1, nil, now)
	refusal(t, err, 401, jwtauth.ReasonKeyID)
	if n := is.jwks.Load(); n != 1 {
		t.Fatalf("JWKS fetched %d times, want 1 (refresh rate-limited)", n)
	}
	// The verified token a is still accepted from the cache meanwhile.
	if _, err := v.Verify(ctx, tokA, is.url, aud1, nil, now); err != nil {
		t.Fatalf("key a, cached: %v", err)
	}
	clk.Add(5 * time.Second)
	if _, err := v.Verify(ctx, tokB, is.url, aud1, nil, now); err != nil {
		t.Fatalf("key b after the refresh: %v", err)
	}
	if n := is.jwks.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2", n)
	}
	// The key set changed: token a is verified again, and its key is gone.
	_, err = v.Verify(ctx, tokA, is.url, aud1, nil, now)
	refusal(t, err, 401, jwtauth.ReasonKeyID)
}

func TestKidFlood(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"a": rsaA()})
	clk := newClock()
	v := jwtauth.New(clk.options())
	ctx := context.Background()
	flood := func() {
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 25 {
					tok := sign(t, rsaA(), "RS256", fmt.Sprintf("bad-%d-%d", g, i), is.claims(nil))
					_, err := v.Verify(ctx, tok, is.url, aud1, nil, now)
					if e, ok := err.(*jwtauth.Error); !ok || e.Reason != jwtauth.ReasonKeyID {
						t.Errorf("unknown kid: %v", err)
					}
				}
			})
		}
		wg.Wait()
	}
	flood()
	if n := is.jwks.Load(); n != 1 {
		t.Errorf("200 unknown kids fetched the JWKS %d times, want 1", n)
	}
	clk.Add(4 * time.Second)
	flood()
	if n := is.jwks.Load(); n != 1 {
		t.Errorf("4 s later, JWKS fetched %d times, want 1", n)
	}
	clk.Add(time.Second)
	flood()
	if n := is.jwks.Load(); n != 2 {
		t.Errorf("5 s later, JWKS fetched %d times, want 2", n)
	}
	if d := is.discovery.Load(); d != is.jwks.Load() {
		t.Errorf("discovery fetched %d times, JWKS %d", d, is.jwks.Load())
	}
}

func TestConcurrentFirstFetchShared(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"a": rsaA()})
	v := jwtauth.New(newClock().options())
	tok := sign(t, rsaA(), "RS256", "a", is.claims(nil))
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if _, err := v.Verify(context.Background(), tok, is.url, aud1, nil, now); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
	wg.Wait()
	if n := is.jwks.Load(); n != 1 {
		t.Errorf("16 concurrent first requests fetched the JWKS %d times, want 1", n)
	}
}

func TestCacheTTL(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"a": rsaA()})
	clk := newClock()
	v := jwtauth.New(clk.options())
	tok := sign(t, rsaA(), "RS256", "a", is.claims(nil))
	verify := func() {
		t.Helper()
		if _, err := v.Verify(context.Background(), tok, is.url, aud1, nil, now); err != nil {
			t.Fatalf("Verify: %v", err)
		}
	}
	verify()
	clk.Add(59 * time.Minute)
	verify()
	if n := is.jwks.Load(); n != 1 {
		t.Fatalf("JWKS fetched %d times within the hour, want 1", n)
	}
	clk.Add(time.Minute)
	verify()
	if n := is.jwks.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times after an hour, want 2", n)
	}
	// Stale keys are still used while the issuer cannot be reached.
	is.broken.Store(true)
	clk.Add(time.Hour)
	verify()
	// So is a token not seen before, and the failed refresh is not retried
	// before RefreshEvery.
	other := sign(t, rsaA(), "RS256", "a", is.claims(map[string]any{"sub": "user-2"}))
	if _, err := v.Verify(context.Background(), other, is.url, aud1, nil, now); err != nil {
		t.Fatalf("new token on stale keys: %v", err)
	}
	if n := is.jwks.Load(); n != 2 || is.discovery.Load() != 3 {
		t.Errorf("after a failed refresh: JWKS %d, discovery %d fetches, want 2 and 3", n, is.discovery.Load())
	}
}

func TestFlush(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"a": rsaA()})
	v := jwtauth.New(newClock().options())
	tok := sign(t, rsaA(), "RS256", "a", is.claims(nil))
	for range 2 {
		if _, err := v.Verify(context.Background(), tok, is.url, aud1, nil, now); err != nil {
			t.Fatalf("Verify: %v", err)
		}
		v.Flush()
	}
	if n := is.jwks.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times across a Flush, want 2", n)
	}
}

func TestIssuerPath(t *testing.T) {
	for _, path := range []string{"/realms/test", "/realms/test/", "/"} {
		t.Run("path="+path, func(t *testing.T) {
			is := newIssuer(t, map[string]crypto.Signer{"a": rsaA()}, withPath(path))
			v := jwtauth.New(newClock().options())
			tok := sign(t, rsaA(), "RS256", "a", is.claims(nil))
			if _, err := v.Verify(context.Background(), tok, is.url, aud1, nil, now); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if is.discovery.Load() != 1 {
				t.Errorf("discovery fetched %d times, want 1", is.discovery.Load())
			}
		})
	}
}

func TestIssuerUnavailable(t *testing.T) {
	ctx := context.Background()
	t.Run("issuer=refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + l.Addr().String()
		l.Close()
		v := jwtauth.New(newClock().options())
		tok := sign(t, rsaA(), "RS256", "a", jwt.MapClaims{"iss": url, "aud": "aud1", "exp": now.Add(time.Hour).Unix()})
		_, err = v.Verify(ctx, tok, url, aud1, nil, now)
		if e := refusal(t, err, 401, jwtauth.ReasonKeys); !strings.Contains(e.WWWAuthenticate, `error="invalid_token"`) {
			t.Errorf("www-authenticate = %q", e.WWWAuthenticate)
		}
	})
	t.Run("issuer=hangs", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var accepted sync.WaitGroup
		// Cleanups run last first: the listener closes, then the
		// goroutine accepting on it is waited for.
		t.Cleanup(accepted.Wait)
		t.Cleanup(func() { l.Close() })
		accepted.Go(func() {
			// Accepts and never answers.
			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				conns = append(conns, c)
			}
		})
		url := "http://" + l.Addr().String()
		clk := newClock()
		o := clk.options()
		o.FetchTimeout = 1500 * time.Millisecond
		v := jwtauth.New(o)
		tok := sign(t, rsaA(), "RS256", "a", jwt.MapClaims{"iss": url, "aud": "aud1", "exp": now.Add(time.Hour).Unix()})
		start := time.Now()
		_, err = v.Verify(ctx, tok, url, aud1, nil, now)
		refusal(t, err, 401, jwtauth.ReasonKeys)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("refused after %v, want within the 1.5 s fetch timeout", d)
		}
		// A failed fetch is not retried before RefreshEvery: refused at once.
		start = time.Now()
		_, err = v.Verify(ctx, tok, url, aud1, nil, now)
		refusal(t, err, 401, jwtauth.ReasonKeys)
		if d := time.Since(start); d > time.Second {
			t.Errorf("second refusal took %v, want immediate", d)
		}
		// The caller's context bounds its wait even when the fetch is slower.
		clk.Add(5 * time.Second)
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		start = time.Now()
		_, err = v.Verify(short, tok, url, aud1, nil, now)
		refusal(t, err, 401, jwtauth.ReasonKeys)
		if d := time.Since(start); d > time.Second {
			t.Errorf("refusal with a 100 ms context took %v, the fetch takes 1.5 s", d)
		}
	})
	t.Run("issuer=500", func(t *testing.T) {
		is := newIssuer(t, map[string]crypto.Signer{"a": rsaA()})
		is.broken.Store(true)
		v := jwtauth.New(newClock().options())
		_, err := v.Verify(ctx, sign(t, rsaA(), "RS256", "a", is.claims(nil)), is.url, aud1, nil, now)
		refusal(t, err, 401, jwtauth.ReasonKeys)
	})
	t.Run("jwks=too-big", func(t *testing.T) {
		is := newIssuer(t, nil)
		big := `{"keys":[],"pad":"` + strings.Repeat("x", 1<<20) + `"}`
		is.jwksBody.Store(&big)
		v := jwtauth.New(newClock().options())
		_, err := v.Verify(ctx, sign(t, rsaA(), "RS256", "a", is.claims(nil)), is.url, aud1, nil, now)
		refusal(t, err, 401, jwtauth.ReasonKeys)
	})
	t.Run("issuer=not-a-url", func(t *testing.T) {
		v := jwtauth.New(newClock().options())
		tok := sign(t, rsaA(), "RS256", "a", jwt.MapClaims{"iss": "cognito", "aud": "aud1", "exp": now.Add(time.Hour).Unix()})
		_, err := v.Verify(ctx, tok, "cognito", aud1, nil, now)
		refusal(t, err, 401, jwtauth.ReasonKeys)
	})
}

func TestBadKeysSkipped(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"good": rsaA()})
	ec := publicJWK("off-curve", ecP256().Public())
	ec["y"] = ec["x"] // (x, x) is not on P-256
	is.addJWK(ec)
	evenE := publicJWK("even-e", rsaB().Public())
	evenE["e"] = b64u([]byte{1, 0, 0})
	is.addJWK(evenE)
	enc := publicJWK("enc", rsaB().Public())
	enc["use"] = "enc"
	is.addJWK(enc)
	is.addJWK(map[string]any{"kty": "oct", "kid": "hmac", "k": b64u([]byte("secret"))})
	is.addJWK(map[string]any{"kty": "RSA", "kid": "bad-n", "n": "!!", "e": "AQAB"})
	v := jwtauth.New(withES(newClock().options()))
	for _, tc := range []struct {
		name, alg, kid string
		key            crypto.Signer
	}{
		{"kid=off-curve", "ES256", "off-curve", ecP256()},
		{"kid=even-e", "RS256", "even-e", rsaB()},
		{"kid=use-enc", "RS256", "enc", rsaB()},
		{"kid=oct", "RS256", "hmac", rsaB()},
		{"kid=bad-n", "RS256", "bad-n", rsaB()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), sign(t, tc.key, tc.alg, tc.kid, is.claims(nil)), is.url, aud1, nil, now)
			refusal(t, err, 401, jwtauth.ReasonKeyID)
		})
	}
	if _, err := v.Verify(context.Background(), sign(t, rsaA(), "RS256", "good", is.claims(nil)), is.url, aud1, nil, now); err != nil {
		t.Errorf("the good key beside bad ones: %v", err)
	}
}

func TestTokenCacheBounded(t *testing.T) {
	is := newIssuer(t, map[string]crypto.Signer{"a": rsaA()})
	o := newClock().options()
	o.TokenCache = 4
	v := jwtauth.New(o)
	for i := range 10 {
		tok := sign(t, rsaA(), "RS256", "a", is.claims(map[string]any{"sub": fmt.Sprint(i)}))
		res, err := v.Verify(context.Background(), tok, is.url, aud1, nil, now)
		if err != nil || res.Claims["sub"] != fmt.Sprint(i) {
			t.Fatalf("token %d: %v %v", i, res, err)
		}
	}
}

func TestConcurrent(t *testing.T) {
	is1 := newIssuer(t, map[string]crypto.Signer{"rsa": rsaA(), "ec": ecP256()})
	is2 := newIssuer(t, map[string]crypto.Signer{"rsa": rsaB()})
	v := jwtauth.New(withES(newClock().options()))
	type call struct {
		token, issuer string
		required      []string
		status        int // 0: accepted
	}
	calls := []call{
		{sign(t, rsaA(), "RS256", "rsa", is1.claims(nil)), is1.url, nil, 0},
		{sign(t, ecP256(), "ES256", "ec", is1.claims(nil)), is1.url, []string{"read"}, 0},
		{sign(t, rsaB(), "RS256", "rsa", is2.claims(nil)), is2.url, nil, 0},
		{sign(t, rsaB(), "RS256", "rsa", is2.claims(nil)), is1.url, nil, 401}, // is1's rsa key differs
		{sign(t, rsaA(), "RS256", "rsa", is1.claims(map[string]any{"aud": "x"})), is1.url, nil, 401},
		{sign(t, rsaA(), "RS256", "rsa", is1.claims(nil)), is1.url, []string{"admin"}, 403},
		{"garbage", is1.url, nil, 401},
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				c := calls[(g+i)%len(calls)]
				res, err := v.Verify(context.Background(), "Bearer "+c.token, c.issuer, aud1, c.required, now)
				switch {
				case c.status == 0 && (err != nil || res.Claims["sub"] != "user-1"):
					t.Errorf("call %d: %v", (g+i)%len(calls), err)
				case c.status != 0 && (err == nil || err.(*jwtauth.Error).Status != c.status):
					t.Errorf("call %d: %v, want %d", (g+i)%len(calls), err, c.status)
				}
				if i%50 == 49 && g == 0 {
					v.Flush()
				}
			}
		})
	}
	wg.Wait()
}

// FuzzVerify feeds arbitrary tokens: every answer is a 401 or 403 refusal
// or a result, never a panic.
func FuzzVerify(f *testing.F) {
	is := newIssuer(f, map[string]crypto.Signer{"rsa": rsaA(), "ec": ecP256()})
	v := jwtauth.New(withES(newClock().options()))
	f.Add(sign(f, rsaA(), "RS256", "rsa", is.claims(nil)))
	f.Add(sign(f, ecP256(), "ES256", "ec", is.claims(map[string]any{"aud": []string{"a", "aud1"}})))
	f.Add("Bearer not-a-token")
	f.Add("e30.e30.")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + ".e30.")
	f.Fuzz(func(t *testing.T, token string) {
		res, err := v.Verify(context.Background(), token, is.url, aud1, []string{"read"}, now)
		if err == nil {
			if res == nil || res.Claims == nil {
				t.Fatalf("no error and no result for %q", token)
			}
			return
		}
		e, ok := err.(*jwtauth.Error)
		if !ok || (e.Status != 401 && e.Status != 403) || (e.WWWAuthenticate == "") {
			t.Fatalf("Verify(%q) = %v", token, err)
		}
		if strings.ContainsAny(e.WWWAuthenticate, "\r\n\x00") {
			t.Fatalf("header value %q", e.WWWAuthenticate)
		}
	})
}
