// Package jwtauth validates the bearer tokens of HTTP API (API Gateway v2)
// JWT authorizers the way API Gateway does: it finds the issuer's signing
// keys through OpenID discovery, checks the token's algorithm, key id and
// signature, then its claims (iss, aud or client_id, exp, nbf, iat) and the
// route's authorizationScopes, and hands back the claims and scopes as API
// Gateway passes them to the integration
// (requestContext.authorizer.jwt.claims and .scopes).
//
// It owns the issuers' key caches and a cache of verified tokens. It knows
// no HTTP server and no API Gateway snapshot: the HTTP API executor
// (execute/httpapi) reads the authorizer and the route, calls Verify, and
// writes the refusal (401 {"message":"Unauthorized"} or 403
// {"message":"Forbidden"}) or the event. It MUST NOT be given a clock of
// its own for claims: the caller passes the request's time, so that the
// emulator's fixed clock (-time) applies to exp, nbf and iat.
//
// # API
//
//	func New(o Options) *Verifier
//	func (v *Verifier) Verify(ctx context.Context, token, issuer string, audiences, required []string, now time.Time) (*Result, error)
//	func (v *Verifier) Flush()
//
// Verify answers a *Result, shared and read-only, or an *Error: Status 401
// or 403, the www-authenticate value to send, and a stable Reason for tests
// and logs.
//
// # What API Gateway does
//
// AWS documents the workflow in "Control access to HTTP APIs with JWT
// authorizers" (docs.aws.amazon.com/apigateway/latest/developerguide/
// http-api-jwt-authorizer.html): the identity source holds the token, alone
// or prefixed with "Bearer "; the token is decoded; its algorithm and
// signature are checked with the public key fetched from the issuer's
// jwks_uri, and "currently, only RSA-based algorithms are supported"; kid
// must name a key of the jwks_uri; iss must equal the configured issuer;
// aud must match one of the configured audiences; exp must be after the
// current time, nbf and iat before it; scope or scp must include at least
// one of the route's authorizationScopes. "Troubleshooting issues with HTTP
// API JWT authorizers" (http-api-troubleshooting-jwt.html) adds that
// client_id is checked only when aud is absent, and gives the one refusal
// AWS publishes word for word (with the body {"message":"Unauthorized"}):
//
//	www-authenticate: Bearer scope="" error="invalid_token" error_description="the token does not have a valid audience"
//
// No leeway for clock skew is documented, so none is allowed.
//
// # Refusals: where each wording comes from
//
// Only the audience text is published by AWS. Public reports of live HTTP
// APIs (found through the code search of public repositories; the reports
// are deployment logs, not AWS documents) show three more:
//
//   - no token: 401 with the bare challenge "www-authenticate: Bearer";
//   - "Authorization: Bearer not-a-token": error_description="token
//     contains an invalid number of segments";
//   - an ES256 token: error_description="signing method ES256 is invalid"
//     (consistent with "only RSA-based algorithms").
//
// Both texts are the messages of the Go JWT library jwt-go (now
// golang-jwt), so API Gateway evidently passes that library's errors
// through. The descriptions below marked "inferred" follow that library's
// messages for the same failure; those marked "chosen" have no public
// source and were written in the style of the audience text:
//
//	malformed (not 3 segments)  token contains an invalid number of segments   observed
//	bad base64 or JSON          the decoder's message, e.g. "illegal base64 data at input byte 4"  inferred
//	too long (16 KiB), other    token is malformed                              chosen
//	algorithm refused           signing method HS256 is invalid                 observed (ES256)
//	no alg, unknown alg         signing method (alg) is unspecified, … is unavailable  inferred
//	no kid, unknown kid         the token does not have a valid key id          chosen
//	bad signature               crypto/rsa: verification error (RS*, PS*), crypto/ecdsa: verification error (ES*)  inferred
//	keys unavailable            the issuer's signing keys could not be retrieved  chosen
//	wrong issuer                the token does not have a valid issuer          chosen
//	wrong audience              the token does not have a valid audience        AWS
//	exp absent or not a number  the token does not have a valid exp claim       chosen (likewise nbf, iat)
//	expired                     the token has expired                           chosen
//	nbf in the future           the token is not valid yet                      chosen
//	iat in the future           the token was used before it was issued         chosen
//
// Every 401 but the missing token carries
// `Bearer scope="" error="invalid_token" error_description="…"`. A token
// that lacks the route's scopes is refused with 403 {"message":"Forbidden"}
// (measured against AWS by the emulator floci, github.com/floci-io/floci,
// ApiGatewayExecuteController.java); whether AWS sends a challenge
// with it is not published: this package gives the RFC 6750 §3.1 one,
// `Bearer scope="<the route's scopes>" error="insufficient_scope"
// error_description="the token does not have a valid scope"` (chosen).
//
// # Algorithms
//
// By default the RSA-based ones, as AWS documents: RS256, RS384, RS512,
// PS256, PS384, PS512. Options.Algorithms may add ES256, ES384 and ES512
// for issuers AWS would refuse; "none" and the HS* algorithms are never
// accepted (an HMAC "key" would be the issuer's public key).
//
// # Claims and scopes handed on
//
// API Gateway passes every claim as a string (payload format 2.0). floci's
// authors, who measured it (JwtClaimsWireFormatTest.java), report: strings as they are, numbers and booleans
// as their text, arrays as "[admin poweruser]" (the elements joined by
// spaces between brackets, not JSON: Go's fmt form), null claims left out;
// and jwt.scopes null on a route without authorizationScopes even when the
// token has scopes, the token's full scope list on a route with them.
// Numbers keep their text from the token ("9999999999", not "1e+10").
// Objects are not reported; they are rendered in the same Go fmt form as
// the arrays, "map[country:JP]" (inferred, like the arrays, from the
// library). The scopes are the `scope` claim's (a space-separated string,
// or an array), or when it is absent the `scp` claim's (either form)
// (chosen: AWS says "scope or scp").
//
// # Keys
//
// The discovery document is the issuer with any trailing "/" removed
// followed by "/.well-known/openid-configuration" (OpenID Connect Discovery
// 1.0 §4); http issuers are allowed (local test issuers). Its jwks_uri is
// fetched and each RSA (n, e) and EC (crv, x, y) key with a kid is kept
// parsed; keys with "use" other than "sig" are skipped. A key set is kept
// Options.CacheTTL (1 h), and fetched again sooner when a token names a kid
// it lacks, at most once per issuer per Options.RefreshEvery (5 s): a flood
// of unknown kids cannot make the emulator hammer an issuer, and a failed
// fetch is not retried before then either (requests meanwhile are refused
// at once). Concurrent misses share one fetch. A fetch is bounded by
// Options.FetchTimeout (5 s) and 1 MiB a document; an issuer that cannot be
// reached refuses the request with 401. When a refresh fails, the keys
// already held are used until the next attempt.
//
// # Verified tokens
//
// A token whose signature was verified is remembered (per issuer, at most
// Options.TokenCache entries, the cache emptied when full) with its claims
// already decoded and rendered, so a repeated token costs a map look-up and
// the claim checks, which run on every call against the caller's now,
// audiences and scopes. An entry is dropped when the issuer's key set
// changes or grows older than CacheTTL.
package jwtauth
