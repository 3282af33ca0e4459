package jwtauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/puzpuzpuz/xsync/v3"
)

// issuerState is one configured issuer: its key set and the tokens verified
// with it.
type issuerState struct {
	issuer string
	// keys is the current key set (nil until the first fetch succeeds);
	// read lock-free on every request.
	keys atomic.Pointer[keySet]
	// tokens are the tokens whose signature verified, by token.
	tokens *xsync.MapOf[string, *verified]

	mu sync.Mutex // guards the fields below
	// attempt is when the last fetch started (wall clock): no other starts
	// before attempt+RefreshEvery.
	attempt time.Time
	// failed is the last fetch's error (nil when it succeeded).
	failed error
	// inflight is the fetch under way, which callers share.
	inflight *fetchCall
}

// keySet is an issuer's JWKS, parsed.
type keySet struct {
	byKID   map[string]*publicKey
	fetched time.Time // wall clock
}

// publicKey is one JWK, parsed.
type publicKey struct {
	key crypto.PublicKey // *rsa.PublicKey or *ecdsa.PublicKey
	alg string           // the JWK's alg, "" when it names none
}

// fetchCall is one fetch of an issuer's keys; done is closed when ks and
// err are set.
type fetchCall struct {
	done chan struct{}
	ks   *keySet
	err  error
}

// errRateLimited is a refresh refused because one ran too recently.
var errRateLimited = errors.New("jwtauth: key refresh rate-limited")

// maxDocument bounds a discovery document or a JWKS.
const maxDocument = 1 << 20

// issuerFor returns the state of issuer, creating it.
func (v *Verifier) issuerFor(issuer string) *issuerState {
	if st, ok := v.issuers.Load(issuer); ok {
		return st
	}
	issuer = strings.Clone(issuer) // the key outlives the caller's string
	st, _ := v.issuers.LoadOrCompute(issuer, func() *issuerState {
		return &issuerState{issuer: issuer, tokens: xsync.NewMapOf[string, *verified]()}
	})
	return st
}

// keyFor returns the key named kid, fetching the issuer's keys when none
// are held or they are older than CacheTTL, and once more (rate-limited)
// when kid is not among them.
func (v *Verifier) keyFor(ctx context.Context, st *issuerState, kid string) (*keySet, *publicKey, *Error) {
	ks := st.keys.Load()
	if ks != nil && v.fresh(ks) {
		if k := ks.byKID[kid]; k != nil {
			return ks, k, nil
		}
	}
	got, err := v.refresh(ctx, st, ks)
	if got == nil {
		v.log.Debug("no keys", "issuer", st.issuer, "err", err)
		return nil, nil, errKeys
	}
	if k := got.byKID[kid]; k != nil {
		return got, k, nil
	}
	return nil, nil, errKeyID
}

// fresh reports whether ks is younger than CacheTTL.
func (v *Verifier) fresh(ks *keySet) bool {
	return v.o.Clock().Sub(ks.fetched) < v.o.CacheTTL
}

// refresh fetches the issuer's keys again, unless they changed since seen
// was read (then it answers the new ones), a fetch ran less than
// RefreshEvery ago (then it answers the keys held, possibly nil, and that
// fetch's error or errRateLimited), or one is under way (then it waits for
// it). A failed fetch leaves the keys held in place.
func (v *Verifier) refresh(ctx context.Context, st *issuerState, seen *keySet) (*keySet, error) {
	st.mu.Lock()
	if cur := st.keys.Load(); cur != seen {
		st.mu.Unlock()
		return cur, nil
	}
	c := st.inflight
	if c == nil {
		now := v.o.Clock()
		if !st.attempt.IsZero() && now.Sub(st.attempt) < v.o.RefreshEvery {
			err := st.failed
			st.mu.Unlock()
			if err == nil {
				err = errRateLimited
			}
			return seen, err
		}
		c = &fetchCall{done: make(chan struct{})}
		st.inflight, st.attempt = c, now
		// The fetch is not the caller's: it outlives a caller that gives
		// up, for the others waiting on it.
		go v.fetch(context.WithoutCancel(ctx), st, c)
	}
	st.mu.Unlock()
	select {
	case <-c.done:
	case <-ctx.Done():
		return seen, ctx.Err()
	}
	if c.err != nil {
		return seen, c.err
	}
	return c.ks, nil
}

// fetch runs c: fetches the keys and publishes them.
func (v *Verifier) fetch(ctx context.Context, st *issuerState, c *fetchCall) {
	ctx, cancel := context.WithTimeout(ctx, v.o.FetchTimeout)
	defer cancel()
	ks, err := v.fetchKeys(ctx, st.issuer)
	st.mu.Lock()
	if err == nil {
		st.keys.Store(ks)
	}
	st.failed, st.inflight = err, nil
	c.ks, c.err = ks, err
	st.mu.Unlock()
	close(c.done)
	if err != nil {
		// Rate-limited by RefreshEvery per issuer.
		v.log.Warn("issuer keys not fetched", "issuer", st.issuer, "err", err)
	} else {
		v.log.Debug("issuer keys fetched", "issuer", st.issuer, "keys", len(ks.byKID))
	}
}

// fetchKeys reads the issuer's discovery document, then its JWKS.
func (v *Verifier) fetchKeys(ctx context.Context, issuer string) (*keySet, error) {
	if err := checkURL(issuer); err != nil {
		return nil, fmt.Errorf("jwtauth: issuer: %w", err)
	}
	var disc struct {
		JWKSURI string `json:"jwks_uri"`
	}
	discovery := strings.TrimRight(issuer, "/") + "/.well-known/openid-configuration"
	if err := v.getJSON(ctx, discovery, &disc); err != nil {
		return nil, err
	}
	if err := checkURL(disc.JWKSURI); err != nil {
		return nil, fmt.Errorf("jwtauth: %s: jwks_uri: %w", discovery, err)
	}
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := v.getJSON(ctx, disc.JWKSURI, &set); err != nil {
		return nil, err
	}
	ks := &keySet{byKID: make(map[string]*publicKey, len(set.Keys)), fetched: v.o.Clock()}
	for i := range set.Keys {
		j := &set.Keys[i]
		if j.KID == "" || ks.byKID[j.KID] != nil || (j.Use != "" && j.Use != "sig") {
			continue
		}
		k, err := j.parse()
		if err != nil {
			v.log.Debug("key skipped", "jwks", disc.JWKSURI, "kid", j.KID, "err", err)
			continue
		}
		ks.byKID[j.KID] = k
	}
	return ks, nil
}

// checkURL accepts an absolute http or https URL.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	return nil
}

// getJSON GETs u and decodes its JSON body (at most maxDocument bytes) into
// out.
func (v *Verifier) getJSON(ctx context.Context, u string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("jwtauth: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.o.Client.Do(req)
	if err != nil {
		return fmt.Errorf("jwtauth: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("jwtauth: GET %s: status %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return fmt.Errorf("jwtauth: GET %s: %w", u, err)
	}
	if len(body) > maxDocument {
		return fmt.Errorf("jwtauth: GET %s: over %d bytes", u, maxDocument)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("jwtauth: GET %s: %w", u, err)
	}
	return nil
}

// jwk is a JSON Web Key (RFC 7517), the members this package reads.
type jwk struct {
	KTY string `json:"kty"`
	KID string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// parse decodes an RSA (n, e) or EC (crv, x, y) public key (RFC 7518 §6).
func (j *jwk) parse() (*publicKey, error) {
	switch j.KTY {
	case "RSA":
		n, err := b64(j.N)
		if err != nil || len(n) == 0 || n[0] == 0 {
			return nil, errors.New("bad n")
		}
		e, err := b64(j.E)
		if err != nil || len(e) == 0 || len(e) > 4 {
			return nil, errors.New("bad e")
		}
		var ev int
		for _, b := range e {
			ev = ev<<8 | int(b)
		}
		if ev < 3 || ev&1 == 0 {
			return nil, errors.New("bad e")
		}
		return &publicKey{key: &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: ev}, alg: j.Alg}, nil
	case "EC":
		var curve elliptic.Curve
		switch j.Crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		case "P-521":
			curve = elliptic.P521()
		default:
			return nil, fmt.Errorf("curve %q", j.Crv)
		}
		size := (curve.Params().BitSize + 7) / 8
		x, err := b64(j.X)
		if err != nil || len(x) != size {
			return nil, errors.New("bad x")
		}
		y, err := b64(j.Y)
		if err != nil || len(y) != size {
			return nil, errors.New("bad y")
		}
		// ParseUncompressedPublicKey checks that the point is on the curve.
		point := append(append([]byte{4}, x...), y...)
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, point)
		if err != nil {
			return nil, err
		}
		return &publicKey{key: pub, alg: j.Alg}, nil
	}
	return nil, fmt.Errorf("kty %q", j.KTY)
}

// b64 decodes base64url without padding, tolerating padding.
func b64(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}
