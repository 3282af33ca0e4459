package jwtauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/puzpuzpuz/xsync/v3"
)

// Options configure a Verifier. Zero fields take the defaults named.
type Options struct {
	// Client fetches discovery documents and key sets (nil: a client of its
	// own, bounded by FetchTimeout, using the system's roots for https).
	Client *http.Client
	Log    *slog.Logger
	// CacheTTL is how long an issuer's keys are used before they are
	// fetched again (1 h).
	CacheTTL time.Duration
	// RefreshEvery is the least time between two fetches of one issuer's
	// keys, whatever asks for them (5 s).
	RefreshEvery time.Duration
	// FetchTimeout bounds one fetch: discovery document and key set (5 s).
	FetchTimeout time.Duration
	// TokenCache is how many verified tokens are remembered per issuer
	// (4096; negative: none).
	TokenCache int
	// Algorithms are the accepted signing algorithms (nil: AWS's, the
	// RSA-based RS256, RS384, RS512, PS256, PS384, PS512). ES256, ES384
	// and ES512 may be added. New panics on any other name.
	Algorithms []string
	// Clock is the wall clock of key freshness and refresh limits (nil:
	// time.Now). Claims are checked at the time Verify is given, not this.
	Clock func() time.Time
}

// AWSAlgorithms are the algorithms API Gateway accepts ("only RSA-based
// algorithms are supported").
var AWSAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}

// maxToken bounds a token (API Gateway bounds an HTTP API request's
// headers to 10 KiB in all).
const maxToken = 16 << 10

// Verifier validates tokens of JWT authorizers. It is safe for concurrent
// use.
type Verifier struct {
	o       Options
	log     *slog.Logger
	parser  *jwt.Parser
	ecdsaOK bool
	issuers *xsync.MapOf[string, *issuerState]
}

// New returns a Verifier.
func New(o Options) *Verifier {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = time.Hour
	}
	if o.RefreshEvery <= 0 {
		o.RefreshEvery = 5 * time.Second
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = 5 * time.Second
	}
	if o.TokenCache == 0 {
		o.TokenCache = 4096
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Client == nil {
		o.Client = defaultClient(o.FetchTimeout)
	}
	if o.Algorithms == nil {
		o.Algorithms = AWSAlgorithms
	}
	v := &Verifier{o: o, log: o.Log.With("component", "jwtauth"), issuers: xsync.NewMapOf[string, *issuerState]()}
	for _, alg := range o.Algorithms {
		switch alg {
		case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
		case "ES256", "ES384", "ES512":
			v.ecdsaOK = true
		default:
			panic(fmt.Sprintf("jwtauth: algorithm %q not supported", alg))
		}
	}
	v.o.Algorithms = slices.Clone(o.Algorithms)
	v.parser = jwt.NewParser(jwt.WithValidMethods(v.o.Algorithms), jwt.WithJSONNumber(), jwt.WithoutClaimsValidation())
	return v
}

// defaultClient is a client of its own, so that a slow issuer cannot hold
// the process's default transport.
func defaultClient(timeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: timeout}).DialContext
	t.TLSHandshakeTimeout = timeout
	t.ResponseHeaderTimeout = timeout
	t.MaxIdleConnsPerHost = 2
	return &http.Client{Transport: t, Timeout: timeout}
}

// Flush forgets every issuer's keys and every verified token (the
// emulator's reset). Fetches under way finish for nobody.
func (v *Verifier) Flush() {
	v.issuers.Clear()
}

// Result is what a valid token hands on: the claims and scopes of
// requestContext.authorizer.jwt. Results are shared between calls with
// the same token: callers MUST NOT modify them.
type Result struct {
	// Claims are every non-null claim as a string (doc.go: "Claims and
	// scopes handed on").
	Claims map[string]string
	// ClaimNames are the claims' names, sorted.
	ClaimNames []string
	// ClaimsJSON is Claims as a JSON object, members in ClaimNames' order.
	ClaimsJSON []byte
	// Scopes are the token's scopes when the route requires scopes; nil
	// otherwise (jwt.scopes is null then).
	Scopes []string
}

// verified is a token whose signature verified, with what the claim checks
// need.
type verified struct {
	ks       *keySet // the key set it verified with
	iss      string
	issOK    bool // iss is a string
	aud      []string
	hasAud   bool // aud is present and not null
	clientID string
	exp      time.Time
	nbf, iat time.Time
	expErr   *Error // exp absent or not a number
	timeErr  *Error // nbf or iat not a number
	hasNbf   bool
	hasIat   bool
	scopes   []string
	// plain and scoped are the results without and with scopes.
	plain, scoped *Result
}

// Verify validates token for issuer and audiences at now, then, when
// required is not empty, checks that the token has one of the required
// scopes. token is the identity source's value, with or without a
// "Bearer " prefix ("" is a missing token). It answers a *Result or an
// *Error; it fetches the issuer's keys when it has none, bounded by
// FetchTimeout and ctx.
func (v *Verifier) Verify(ctx context.Context, token, issuer string, audiences, required []string, now time.Time) (*Result, error) {
	if token == "" {
		return nil, errMissing
	}
	if len(token) >= 7 && strings.EqualFold(token[:7], "bearer ") {
		token = token[7:]
		for token != "" && (token[0] == ' ' || token[0] == '\t') {
			token = token[1:]
		}
	}
	st := v.issuerFor(issuer)
	e, ok := st.tokens.Load(token)
	if !ok || !v.current(ctx, st, e.ks) {
		var err *Error
		if e, err = v.verify(ctx, st, token); err != nil {
			return nil, err
		}
	}
	return e.check(issuer, audiences, required, now)
}

// current reports whether ks, the key set a token verified with, is still
// the issuer's: the same set, and fresh or (when older than CacheTTL) not
// replaced by a refresh, which may be refused or fail.
func (v *Verifier) current(ctx context.Context, st *issuerState, ks *keySet) bool {
	if ks != st.keys.Load() {
		return false
	}
	if v.fresh(ks) {
		return true
	}
	got, _ := v.refresh(ctx, st, ks)
	return got == ks
}

// check runs the claim checks, in the order AWS lists them, and the scope
// check.
func (e *verified) check(issuer string, audiences, required []string, now time.Time) (*Result, error) {
	if !e.issOK || e.iss != issuer {
		return nil, errIssuer
	}
	if e.hasAud {
		if !anyIn(e.aud, audiences) {
			return nil, errAudience
		}
	} else if e.clientID == "" || !slices.Contains(audiences, e.clientID) {
		return nil, errAudience
	}
	if e.expErr != nil {
		return nil, e.expErr
	}
	if !now.Before(e.exp) {
		return nil, errExpired
	}
	if e.timeErr != nil {
		return nil, e.timeErr
	}
	if e.hasNbf && now.Before(e.nbf) {
		return nil, errNotYet
	}
	if e.hasIat && now.Before(e.iat) {
		return nil, errIssued
	}
	if len(required) == 0 {
		return e.plain, nil
	}
	if !anyIn(e.scopes, required) {
		return nil, forbidden(required)
	}
	return e.scoped, nil
}

// anyIn reports whether one of have is in want.
func anyIn(have, want []string) bool {
	for _, h := range have {
		if slices.Contains(want, h) {
			return true
		}
	}
	return false
}

// verify decodes token, checks its algorithm, key and signature, and
// remembers it.
func (v *Verifier) verify(ctx context.Context, st *issuerState, token string) (*verified, *Error) {
	if len(token) > maxToken {
		return nil, errMalformed
	}
	if strings.Count(token, ".") != 2 {
		return nil, errSegments
	}
	var ks *keySet
	claims := jwt.MapClaims{}
	tok, err := v.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errKeyID
		}
		got, k, kerr := v.keyFor(ctx, st, kid)
		if kerr != nil {
			return nil, kerr
		}
		if !keyFits(k, t.Method.Alg()) {
			return nil, errKeyID
		}
		ks = got
		return k.key, nil
	})
	if err != nil {
		return nil, v.refusal(tok, err)
	}
	e := newVerified(ks, claims)
	if v.o.TokenCache > 0 {
		if st.tokens.Size() >= v.o.TokenCache {
			// Why: a bound that needs no bookkeeping on the hit path; the
			// tokens still in use are verified again once.
			st.tokens.Clear()
		}
		st.tokens.Store(strings.Clone(token), e)
	}
	return e, nil
}

// keyFits reports whether k can verify alg: the key's type and curve, and
// the JWK's alg when it names one.
func keyFits(k *publicKey, alg string) bool {
	if k.alg != "" && k.alg != alg {
		return false
	}
	switch key := k.key.(type) {
	case *rsa.PublicKey:
		return alg[0] == 'R' || alg[0] == 'P'
	case *ecdsa.PublicKey:
		switch alg {
		case "ES256":
			return key.Curve == elliptic.P256()
		case "ES384":
			return key.Curve == elliptic.P384()
		case "ES512":
			return key.Curve == elliptic.P521()
		}
	}
	return false
}

// refusal maps the parser's error to API Gateway's refusal.
func (v *Verifier) refusal(tok *jwt.Token, err error) *Error {
	var own *Error
	if errors.As(err, &own) {
		return own
	}
	if errors.Is(err, jwt.ErrTokenMalformed) {
		// The decoder's own message, as the library AWS uses gives it.
		var b64 base64.CorruptInputError
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &b64):
			return invalid(ReasonMalformed, b64.Error())
		case errors.As(err, &syn):
			return invalid(ReasonMalformed, syn.Error())
		case errors.As(err, &typ):
			return invalid(ReasonMalformed, typ.Error())
		}
		return errMalformed
	}
	if tok == nil {
		return errMalformed
	}
	alg, _ := tok.Header["alg"].(string)
	switch {
	case alg == "":
		return errAlgMissing
	case tok.Method == nil:
		return errAlgUnknown
	case slices.Contains(v.o.Algorithms, alg):
		// An accepted algorithm whose signature did not verify.
		if strings.HasPrefix(alg, "ES") {
			return errECDSA
		}
		return errRSA
	}
	return algorithmError(alg)
}
