package jwtauth

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// newVerified reads what the claim checks need from claims (decoded with
// json.Number) and renders the results once.
func newVerified(ks *keySet, claims jwt.MapClaims) *verified {
	e := &verified{ks: ks}
	e.iss, e.issOK = claims["iss"].(string)
	switch aud := claims["aud"].(type) {
	case nil:
	case string:
		e.aud, e.hasAud = []string{aud}, true
	case []any:
		e.hasAud = true
		for _, a := range aud {
			if s, ok := a.(string); ok {
				e.aud = append(e.aud, s)
			}
		}
	default:
		e.hasAud = true // present, but nothing can match it
	}
	e.clientID, _ = claims["client_id"].(string)
	var ok bool
	if e.exp, ok = numericDate(claims["exp"]); !ok {
		e.expErr = errExp
	}
	if v, present := claims["nbf"]; present && v != nil {
		if e.nbf, ok = numericDate(v); !ok {
			e.timeErr = errNbf
		}
		e.hasNbf = true
	}
	if v, present := claims["iat"]; present && v != nil && e.timeErr == nil {
		if e.iat, ok = numericDate(v); !ok {
			e.timeErr = errIat
		}
		e.hasIat = true
	}
	e.scopes = scopesOf(claims)

	res := &Result{Claims: make(map[string]string, len(claims))}
	for name, v := range claims {
		if v == nil {
			continue // null claims are left out
		}
		res.Claims[name] = render(nil, v)
		res.ClaimNames = append(res.ClaimNames, name)
	}
	slices.Sort(res.ClaimNames)
	res.ClaimsJSON = claimsJSON(res.ClaimNames, res.Claims)
	e.plain = res
	// Only returned when a required scope matched, so never without scopes.
	scoped := *res
	scoped.Scopes = e.scopes
	e.scoped = &scoped
	return e
}

// numericDate reads a NumericDate (RFC 7519 §2): seconds since the epoch,
// possibly fractional.
func numericDate(v any) (time.Time, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return time.Time{}, false
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return time.Unix(i, 0), true
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<62 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

// scopesOf returns the token's scopes: the scope claim's, or when it is
// absent the scp claim's; each a space-separated string or an array of
// strings. nil when the token has neither.
func scopesOf(claims jwt.MapClaims) []string {
	v := claims["scope"]
	if v == nil {
		v = claims["scp"]
	}
	switch s := v.(type) {
	case string:
		return strings.Fields(s)
	case []any:
		out := make([]string, 0, len(s))
		for _, x := range s {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

// render appends v, a decoded JSON value, as API Gateway passes a claim:
// strings as they are, numbers as their text, booleans as true or false,
// arrays and objects in Go's fmt form ("[a b]", "map[k:v]").
func render(b []byte, v any) string {
	return string(appendValue(b, v))
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "<nil>"...)
	case string:
		return append(b, x...)
	case json.Number:
		return append(b, x...)
	case bool:
		return strconv.AppendBool(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ' ')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, "map["...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, k...)
			b = append(b, ':')
			b = appendValue(b, x[k])
		}
		return append(b, ']')
	}
	return b
}

// claimsJSON encodes claims as a JSON object, members in names' order.
func claimsJSON(names []string, claims map[string]string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			buf.WriteByte(',')
		}
		_ = enc.Encode(n) // strings always encode
		buf.Truncate(buf.Len() - 1)
		buf.WriteByte(':')
		_ = enc.Encode(claims[n])
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}
