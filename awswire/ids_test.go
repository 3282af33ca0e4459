package awswire_test

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cloudemu/emulator/awswire"
)

// uuidV4 is a version 4 UUID with the RFC 4122 variant, lowercase.
var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestUUID(t *testing.T) {
	seen := make(map[string]bool, 10000)
	for range 10000 {
		u := awswire.UUID()
		if !uuidV4.MatchString(u) {
			t.Fatalf("UUID() = %q, not a v4 UUID", u)
		}
		if seen[u] {
			t.Fatalf("UUID() repeated %q", u)
		}
		seen[u] = true
	}
}

func TestVersionID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		v := awswire.VersionID()
		if len(v) != 48 {
			t.Fatalf("VersionID() = %q: %d characters, want 48", v, len(v))
		}
		raw, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			t.Fatalf("VersionID() = %q: %v", v, err)
		}
		if !uuidV4.Match(raw) {
			t.Fatalf("VersionID() = %q decodes to %q, not a v4 UUID", v, raw)
		}
		if seen[v] {
			t.Fatalf("VersionID() repeated %q", v)
		}
		seen[v] = true
	}
}

func TestShortID(t *testing.T) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	for _, n := range []int{0, 1, 6, 10, 64} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			used := map[rune]bool{}
			for range 500 {
				id := awswire.ShortID(n)
				if len(id) != n {
					t.Fatalf("ShortID(%d) = %q: length %d", n, id, len(id))
				}
				for _, c := range id {
					if !strings.ContainsRune(alphabet, c) {
						t.Fatalf("ShortID(%d) = %q: %q is not a lowercase alphanumeric", n, id, c)
					}
					used[c] = true
				}
			}
			// 500 ids of 10 characters use every character of the alphabet
			// (the chance of missing one is about 36·(35/36)^5000).
			if n == 10 && len(used) != len(alphabet) {
				t.Errorf("ShortID(10) used %d characters of %d", len(used), len(alphabet))
			}
		})
	}
}

func TestRequestIDs(t *testing.T) {
	const workers, each = 8, 12500 // 100k ids
	g := awswire.NewRequestIDs()
	out := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]string, 0, each)
			var buf [36]byte
			for range each {
				ids = append(ids, string(g.Append(buf[:0])))
			}
			out[w] = ids
		})
	}
	wg.Wait()
	seen := make(map[string]bool, workers*each)
	for _, ids := range out {
		for _, id := range ids {
			if len(id) != 36 {
				t.Fatalf("request id %q: %d characters, want 36", id, len(id))
			}
			if !uuidV4.MatchString(id) {
				t.Fatalf("request id %q is not formatted as a UUID", id)
			}
			if seen[id] {
				t.Fatalf("request id %q repeated", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != workers*each {
		t.Fatalf("%d distinct ids, want %d", len(seen), workers*each)
	}
}

func TestRequestIDsAppend(t *testing.T) {
	g := awswire.NewRequestIDs()
	dst := g.Append([]byte("id="))
	if !strings.HasPrefix(string(dst), "id=") || !uuidV4.MatchString(string(dst[3:])) {
		t.Errorf("Append kept %q", dst)
	}
	// Two generators have different prefixes, so two processes do not mint
	// the same ids.
	a, b := awswire.NewRequestIDs().Append(nil), awswire.NewRequestIDs().Append(nil)
	if string(a[:18]) == string(b[:18]) {
		t.Errorf("two generators share the prefix %q", a[:18])
	}
}
