package awswire

import (
	"encoding/base64"
	"strings"
)

// tokenPrefix versions the token format, so that a token minted by a later
// format is refused rather than misread.
const tokenPrefix = "t1:"

// EncodeToken returns an opaque pagination token (nextToken, position) that
// resumes a listing after key.
func EncodeToken(key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(tokenPrefix + key))
}

// DecodeToken returns the key an EncodeToken token carries. ok is false for
// anything EncodeToken did not produce.
func DecodeToken(token string) (key string, ok bool) {
	if token == "" || len(token) > 4096 {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(token, "="))
	if err != nil {
		return "", false
	}
	s := string(b)
	if !strings.HasPrefix(s, tokenPrefix) {
		return "", false
	}
	return s[len(tokenPrefix):], true
}
