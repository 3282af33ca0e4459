package jwtauth_test

import (
	"context"
	"crypto"
	"testing"

	"github.com/cloudemu/emulator/execute/jwtauth"
)

// BenchmarkVerify is the hot path of a JWT-protected route: the issuer's
// keys cached, the same token on every request (cache=token), or a token
// verified every time (cache=keys: the verified-token cache off, which is
// also the cost of a token's first request).
func BenchmarkVerify(b *testing.B) {
	is := newIssuer(b, map[string]crypto.Signer{"rsa": rsaA(), "ec": ecP256()})
	for _, bc := range []struct {
		name, alg, kid string
		key            crypto.Signer
	}{
		{"alg=RS256", "RS256", "rsa", rsaA()},
		{"alg=ES256", "ES256", "ec", ecP256()},
	} {
		tok := "Bearer " + sign(b, bc.key, bc.alg, bc.kid, is.claims(nil))
		required := []string{"read"}
		for _, cache := range []struct {
			name string
			size int
		}{{"cache=token", 0}, {"cache=keys", -1}} {
			o := withES(newClock().options())
			o.TokenCache = cache.size
			v := jwtauth.New(o)
			ctx := context.Background()
			if _, err := v.Verify(ctx, tok, is.url, aud1, required, now); err != nil {
				b.Fatal(err)
			}
			b.Run(bc.name+"/"+cache.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := v.Verify(ctx, tok, is.url, aud1, required, now); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(bc.name+"/"+cache.name+"/parallel", func(b *testing.B) {
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := v.Verify(ctx, tok, is.url, aud1, required, now); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
