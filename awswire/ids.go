package awswire

import (
	"encoding/base64"
	"math/rand/v2"
	"sync/atomic"
)

// Ids need to look like AWS's and never collide; they guard nothing, so a
// fast non-cryptographic source is enough.

// UUID returns a random version 4 UUID in its 36-character text form.
func UUID() string {
	var b [36]byte
	appendUUID(b[:0], rand.Uint64(), rand.Uint64())
	return string(b[:])
}

func appendUUID(dst []byte, hi, lo uint64) []byte {
	var raw [16]byte
	for i := 0; i < 8; i++ {
		raw[i] = byte(hi >> (56 - 8*i))
		raw[8+i] = byte(lo >> (56 - 8*i))
	}
	raw[6] = raw[6]&0x0f | 0x40 // version 4
	raw[8] = raw[8]&0x3f | 0x80 // RFC 4122 variant
	for i, c := range raw {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return dst
}

// VersionID returns a Backup plan version id: like AWS's, the base64 text of
// a UUID (48 characters).
func VersionID() string {
	return base64.StdEncoding.EncodeToString([]byte(UUID()))
}

const lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"

// ShortID returns n random lowercase alphanumerics, the form of API Gateway
// ids (10 for APIs, keys and plans; 6 for resources and deployments).
func ShortID(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = lowerAlnum[rand.IntN(len(lowerAlnum))]
	}
	return string(b)
}

// RequestIDs mints x-amzn-RequestId values: a random per-process prefix and
// a counter, formatted as a UUID, so that minting one costs an atomic add.
type RequestIDs struct {
	hi  uint64
	ctr atomic.Uint64
}

// NewRequestIDs returns a generator with a random prefix.
func NewRequestIDs() *RequestIDs {
	g := &RequestIDs{hi: rand.Uint64()}
	g.ctr.Store(rand.Uint64() >> 16)
	return g
}

// Append appends the next request id (36 bytes) to dst.
func (g *RequestIDs) Append(dst []byte) []byte {
	return appendUUID(dst, g.hi, g.ctr.Add(1)*0x9e3779b97f4a7c15)
}
