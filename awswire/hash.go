package awswire

import "hash/maphash"

var stringsSeed = maphash.MakeSeed()

// HashStrings hashes a key made of strings, for lock-free maps keyed by
// structs of strings: the maps' default hasher walks the struct's type
// information and costs several times as much on every request.
func HashStrings(seed uint64, parts ...string) uint64 {
	h := seed
	for _, s := range parts {
		h = (h ^ maphash.String(stringsSeed, s)) * 0x9e3779b97f4a7c15
	}
	return h
}

// HashScope is HashStrings for a Scope.
func HashScope(s Scope, seed uint64) uint64 { return HashStrings(seed, s.Account, s.Region) }
