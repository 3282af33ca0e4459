package jwtauth

import (
	"strings"
)

// Reason names why a token was refused: stable, for tests and logs (the
// client sees only the status and the www-authenticate value).
type Reason string

// The reasons, in the order API Gateway checks (doc.go has each wording's
// source).
const (
	ReasonMissing     Reason = "MissingToken"    // no token: 401, bare challenge
	ReasonMalformed   Reason = "Malformed"       // not a JWS compact token
	ReasonAlgorithm   Reason = "Algorithm"       // alg not accepted
	ReasonKeyID       Reason = "KeyID"           // no kid, or not in the issuer's keys
	ReasonKeys        Reason = "KeysUnavailable" // the issuer's keys could not be fetched
	ReasonSignature   Reason = "Signature"       // signature does not verify
	ReasonIssuer      Reason = "Issuer"          // iss is not the configured issuer
	ReasonAudience    Reason = "Audience"        // neither aud nor client_id matches
	ReasonClaim       Reason = "Claim"           // exp absent, or exp, nbf or iat not a number
	ReasonExpired     Reason = "Expired"         // exp not after now
	ReasonNotYetValid Reason = "NotYetValid"     // nbf after now
	ReasonIssuedLater Reason = "IssuedInFuture"  // iat after now
	ReasonScope       Reason = "Scope"           // none of the route's scopes: 403
)

// Error is a refusal. Status is 401 (the token is not valid) or 403 (it is
// valid but has none of the route's scopes). WWWAuthenticate is the value
// of the www-authenticate header to send with it. Errors may be shared
// between calls: callers MUST NOT modify them.
type Error struct {
	Status          int
	WWWAuthenticate string
	Reason          Reason
	// Description is the error_description of the challenge ("" for a
	// missing token).
	Description string
}

// Error implements error.
func (e *Error) Error() string {
	if e.Description == "" {
		return "jwtauth: " + string(e.Reason)
	}
	return "jwtauth: " + string(e.Reason) + ": " + e.Description
}

// invalid returns a 401 refusal with API Gateway's invalid_token challenge.
func invalid(r Reason, desc string) *Error {
	desc = quotable(desc)
	return &Error{Status: 401, Reason: r, Description: desc,
		WWWAuthenticate: `Bearer scope="" error="invalid_token" error_description="` + desc + `"`}
}

// The refusals whose text never varies, built once.
var (
	errMissing = &Error{Status: 401, Reason: ReasonMissing, WWWAuthenticate: "Bearer"}

	errSegments   = invalid(ReasonMalformed, "token contains an invalid number of segments")
	errMalformed  = invalid(ReasonMalformed, "token is malformed")
	errAlgMissing = invalid(ReasonAlgorithm, "signing method (alg) is unspecified")
	errAlgUnknown = invalid(ReasonAlgorithm, "signing method (alg) is unavailable")
	errKeyID      = invalid(ReasonKeyID, "the token does not have a valid key id")
	errKeys       = invalid(ReasonKeys, "the issuer's signing keys could not be retrieved")
	errRSA        = invalid(ReasonSignature, "crypto/rsa: verification error")
	errECDSA      = invalid(ReasonSignature, "crypto/ecdsa: verification error")
	errIssuer     = invalid(ReasonIssuer, "the token does not have a valid issuer")
	errAudience   = invalid(ReasonAudience, "the token does not have a valid audience")
	errExp        = invalid(ReasonClaim, "the token does not have a valid exp claim")
	errNbf        = invalid(ReasonClaim, "the token does not have a valid nbf claim")
	errIat        = invalid(ReasonClaim, "the token does not have a valid iat claim")
	errExpired    = invalid(ReasonExpired, "the token has expired")
	errNotYet     = invalid(ReasonNotYetValid, "the token is not valid yet")
	errIssued     = invalid(ReasonIssuedLater, "the token was used before it was issued")
)

// scopeDescription is the 403's error_description (chosen).
const scopeDescription = "the token does not have a valid scope"

// forbidden returns the 403 refusal for a route requiring scopes.
func forbidden(required []string) *Error {
	return &Error{Status: 403, Reason: ReasonScope, Description: scopeDescription,
		WWWAuthenticate: `Bearer scope="` + quotable(strings.Join(required, " ")) +
			`" error="insufficient_scope" error_description="` + scopeDescription + `"`}
}

// algorithmError is the refusal of a token signed with alg. The name comes
// from the token: only a short name of safe characters is echoed.
func algorithmError(alg string) *Error {
	if len(alg) > 16 || strings.ContainsFunc(alg, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '+' || r == '.')
	}) {
		return errAlgUnknown
	}
	return invalid(ReasonAlgorithm, "signing method "+alg+" is invalid")
}

// quotable makes s safe inside a quoted-string of a header value: ASCII
// without quote, backslash or control characters, at most 200 bytes.
func quotable(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x7f {
			clean = false
			break
		}
	}
	if !clean {
		s = strings.Map(func(r rune) rune {
			switch {
			case r == '"':
				return '\''
			case r == '\\':
				return '/'
			case r < 0x20 || r >= 0x7f:
				return '?'
			}
			return r
		}, s)
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
