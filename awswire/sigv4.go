package awswire

import "bytes"

// DefaultAccount is the account of requests whose access key is not a
// 12-digit account number, and of unsigned requests.
const DefaultAccount = "000000000000"

var credentialKey = []byte("Credential=")

// Credential is what the SigV4 credential scope tells about a request. The
// slices alias the input.
type Credential struct {
	AccessKey []byte
	Region    []byte
	Service   []byte
}

// ParseCredential reads <key>/<date>/<region>/<service>/aws4_request, the
// value of X-Amz-Credential or of Credential= in an Authorization header.
func ParseCredential(cred []byte) (Credential, bool) {
	var parts [5][]byte
	n := 0
	for n < 4 {
		i := bytes.IndexByte(cred, '/')
		if i < 0 {
			return Credential{}, false
		}
		parts[n] = cred[:i]
		cred = cred[i+1:]
		n++
	}
	parts[4] = cred
	if len(parts[0]) == 0 || len(parts[2]) == 0 || len(parts[3]) == 0 {
		return Credential{}, false
	}
	return Credential{AccessKey: parts[0], Region: parts[2], Service: parts[3]}, true
}

// ParseAuthorization reads the credential scope of an
// "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=..." header.
// The signature is not checked: the emulator trusts its callers.
func ParseAuthorization(h []byte) (Credential, bool) {
	i := bytes.Index(h, credentialKey)
	if i < 0 {
		return Credential{}, false
	}
	v := h[i+len(credentialKey):]
	if j := bytes.IndexAny(v, ", "); j >= 0 {
		v = v[:j]
	}
	return ParseCredential(v)
}

// AccountOf returns the account an access key stands for: a key that is 12
// digits is that account; anything else is DefaultAccount. ok reports
// whether the key was an account number (then the caller must copy it).
func AccountOf(accessKey []byte) (account []byte, ok bool) {
	if len(accessKey) != 12 {
		return nil, false
	}
	for _, c := range accessKey {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	return accessKey, true
}
