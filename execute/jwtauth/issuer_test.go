package jwtauth_test

import (
	"crypto"
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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/cloudemu/emulator/execute/jwtauth"
)

// The keys are made once: RSA key generation is slow under -race.
var (
	rsaA   = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA() })
	rsaB   = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA() })
	ecP256 = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC(elliptic.P256()) })
	ecP384 = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC(elliptic.P384()) })
)

func mustRSA() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

func mustEC(c elliptic.Curve) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

// issuer is a local OpenID issuer on 127.0.0.1: a discovery document and a
// JWKS, counting the requests for each.
type issuer struct {
	srv       *httptest.Server
	url       string // the issuer identifier (iss)
	mu        sync.Mutex
	keys      []map[string]any
	discovery atomic.Int32
	jwks      atomic.Int32
	// broken answers 500 to everything when set.
	broken atomic.Bool
	// jwksBody, when set, is served instead of the keys.
	jwksBody atomic.Pointer[string]
}

type issuerOption func(*issuerConfig)

type issuerConfig struct {
	path string // the issuer's path, e.g. "/realms/x/"
}

// withPath gives the issuer identifier a path (which may end in "/").
func withPath(p string) issuerOption { return func(c *issuerConfig) { c.path = p } }

// newIssuer starts an issuer serving the public halves of keys, by kid.
func newIssuer(t testing.TB, keys map[string]crypto.Signer, opts ...issuerOption) *issuer {
	t.Helper()
	var cfg issuerConfig
	for _, o := range opts {
		o(&cfg)
	}
	is := &issuer{}
	mux := http.NewServeMux()
	base := strings.TrimRight(cfg.path, "/")
	mux.HandleFunc("GET "+base+"/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		is.discovery.Add(1)
		if is.broken.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": is.url, "jwks_uri": is.srv.URL + "/keys"})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		is.jwks.Add(1)
		if is.broken.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if b := is.jwksBody.Load(); b != nil {
			_, _ = w.Write([]byte(*b))
			return
		}
		is.mu.Lock()
		defer is.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": is.keys})
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	is.url = is.srv.URL + cfg.path
	for kid, k := range keys {
		is.add(kid, k)
	}
	return is
}

// add publishes the public half of k as kid.
func (is *issuer) add(kid string, k crypto.Signer) {
	is.addJWK(publicJWK(kid, k.Public()))
}

// addJWK publishes a JWK as it is.
func (is *issuer) addJWK(j map[string]any) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = append(is.keys, j)
}

// remove stops publishing kid.
func (is *issuer) remove(kid string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	for i, k := range is.keys {
		if k["kid"] == kid {
			is.keys = append(is.keys[:i], is.keys[i+1:]...)
			return
		}
	}
}

func b64u(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// publicJWK is pub as a JWK.
func publicJWK(kid string, pub crypto.PublicKey) map[string]any {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return map[string]any{"kty": "RSA", "kid": kid, "use": "sig", "n": b64u(k.N.Bytes()),
			"e": b64u(big.NewInt(int64(k.E)).Bytes())}
	case *ecdsa.PublicKey:
		raw, err := k.Bytes()
		if err != nil {
			panic(err)
		}
		size := (k.Curve.Params().BitSize + 7) / 8
		return map[string]any{"kty": "EC", "kid": kid, "crv": k.Curve.Params().Name,
			"x": b64u(raw[1 : 1+size]), "y": b64u(raw[1+size:])}
	}
	panic("key type")
}

// clock is a settable wall clock for key freshness and refresh limits.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) Now() time.Time           { return time.Unix(0, c.ns.Load()) }
func (c *clock) Add(d time.Duration)      { c.ns.Add(int64(d)) }
func (c *clock) options() jwtauth.Options { return jwtauth.Options{Clock: c.Now} }

// now is the request time tokens are checked at.
var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// claims are valid claims for is at now, with changes applied (a nil value
// deletes the claim).
func (is *issuer) claims(changes map[string]any) jwt.MapClaims {
	c := jwt.MapClaims{
		"iss": is.url, "aud": "aud1", "sub": "user-1",
		"iat": now.Add(-time.Minute).Unix(), "nbf": now.Add(-time.Minute).Unix(),
		"exp": now.Add(time.Hour).Unix(), "scope": "read write",
	}
	for k, v := range changes {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// sign signs claims with k under alg, naming kid ("" names none).
func sign(t testing.TB, k crypto.Signer, alg, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.GetSigningMethod(alg), claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(k)
	if err != nil {
		t.Fatalf("sign %s: %v", alg, err)
	}
	return s
}

// refusal asserts that err is a refusal with status and reason, and
// returns it.
func refusal(t testing.TB, err error, status int, reason jwtauth.Reason) *jwtauth.Error {
	t.Helper()
	e, ok := err.(*jwtauth.Error)
	if !ok {
		t.Fatalf("err = %v (%T), want a *jwtauth.Error", err, err)
	}
	if e.Status != status || e.Reason != reason {
		t.Fatalf("refusal = %d %s (%q), want %d %s", e.Status, e.Reason, e.WWWAuthenticate, status, reason)
	}
	return e
}
