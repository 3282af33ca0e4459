package execute

import (
	"math/rand/v2"
	"strings"
	"time"
)

// TraceHeader is the X-Amzn-Trace-Id the gateway passes on: the caller's
// Root (from the header it sent, client) with a new Parent, else a new
// root stamped with received.
func TraceHeader(client string, received time.Time) string {
	const hex = "0123456789abcdef"
	var buf [96]byte // a header the client sent may be longer: append grows it
	b := buf[:0]
	if strings.HasPrefix(client, "Root=") {
		root, _, _ := strings.Cut(client, ";")
		b = append(b, root...)
		b = append(b, ";Parent="...)
		p := rand.Uint64()
		for i := 0; i < 16; i++ {
			b = append(b, hex[p&15])
			p >>= 4
		}
		b = append(b, ";Sampled=0"...)
		return string(b)
	}
	b = append(b, "Root=1-"...)
	t := uint32(received.Unix())
	for i := 7; i >= 0; i-- {
		b = append(b, hex[(t>>(4*uint(i)))&15])
	}
	b = append(b, '-')
	r1, r2 := rand.Uint64(), rand.Uint64()
	for i := 0; i < 24; i++ {
		if i < 16 {
			b = append(b, hex[r1&15])
			r1 >>= 4
		} else {
			b = append(b, hex[r2&15])
			r2 >>= 4
		}
	}
	return string(b)
}
