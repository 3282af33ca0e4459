package awswire_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/awswire"
)

func TestTokenRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  string
	}{
		{"empty", ""},
		{"vault", "my-vault"},
		{"plan-id", "8F81F553-3A74-4A3F-B93D-B3360DC80C50"},
		{"arn", "arn:aws:backup:us-east-1:123456789012:backup-vault:my-vault"},
		{"prefix-like", "t1:t1:"},
		{"slashes-and-query", "/restapis/abc?x=1&y=2#frag"},
		{"unicode", "日本語🔒"},
		{"binary", "\x00\xff\xfe\n\r\t="},
		{"1-byte", "a"},
		{"2-bytes", "ab"},
		{"3-bytes", "abc"},
		{"3069-bytes", strings.Repeat("k", 3069)}, // the longest key whose token fits 4096
	} {
		t.Run("key="+tc.name, func(t *testing.T) {
			tok := awswire.EncodeToken(tc.key)
			if strings.ContainsAny(tok, "+/= \n") {
				t.Errorf("EncodeToken(%q) = %q: not URL-safe", tc.key, tok)
			}
			if tc.key != "" && strings.Contains(tok, tc.key) {
				t.Errorf("EncodeToken(%q) = %q: key is readable", tc.key, tok)
			}
			got, ok := awswire.DecodeToken(tok)
			if !ok || got != tc.key {
				t.Errorf("DecodeToken(EncodeToken(%q)) = %q, %v", tc.key, got, ok)
			}
		})
	}
}

func TestTokenDistinct(t *testing.T) {
	// Keys that differ give tokens that differ.
	seen := map[string]string{}
	for _, k := range []string{"", "a", "b", "a ", "A", "aa", "vault-1", "vault-2", "vault-10"} {
		tok := awswire.EncodeToken(k)
		if prev, dup := seen[tok]; dup {
			t.Errorf("EncodeToken(%q) = EncodeToken(%q) = %q", k, prev, tok)
		}
		seen[tok] = k
	}
}

func TestDecodeTokenRefuses(t *testing.T) {
	raw := base64.RawURLEncoding.EncodeToString
	for _, tc := range []struct {
		name  string
		token string
	}{
		{"empty", ""},
		{"garbage", "not a token!"},
		{"garbage-symbols", "%%%%"},
		{"std-alphabet", "dDE6+/+/"},
		{"truncated", "d"},
		{"no-prefix", raw([]byte("my-vault"))},
		{"other-version", raw([]byte("t2:my-vault"))},
		{"prefix-cut", raw([]byte("t1"))},
		{"uppercase-prefix", raw([]byte("T1:my-vault"))},
		{"prefix-not-at-start", raw([]byte("xt1:my-vault"))},
		{"plain-key", "my-vault"},
		{"json", `{"key":"x"}`},
		{"over-long-valid", awswire.EncodeToken(strings.Repeat("k", 3070))},
		{"over-long-garbage", strings.Repeat("A", 4097)},
		{"over-long-huge", strings.Repeat("A", 1<<20)},
	} {
		t.Run("token="+tc.name, func(t *testing.T) {
			if key, ok := awswire.DecodeToken(tc.token); ok {
				t.Errorf("DecodeToken(%.40q) = %q, true; want refused", tc.token, key)
			}
		})
	}
}

func TestDecodeTokenLength(t *testing.T) {
	for _, n := range []int{4092, 4096} { // multiples of 4: valid raw base64 lengths
		t.Run(fmt.Sprintf("len=%d", n), func(t *testing.T) {
			// A token of exactly n characters that EncodeToken made.
			keyLen := n*3/4 - len("t1:")
			tok := awswire.EncodeToken(strings.Repeat("k", keyLen))
			if len(tok) != n {
				t.Fatalf("token length %d, want %d", len(tok), n)
			}
			if _, ok := awswire.DecodeToken(tok); !ok {
				t.Errorf("DecodeToken refused a %d-character token", n)
			}
		})
	}
}

func FuzzDecodeToken(f *testing.F) {
	for _, s := range []string{
		"", "dDE6", awswire.EncodeToken("my-vault"), awswire.EncodeToken("arn:aws:backup:us-east-1:123456789012:backup-vault:v"),
		awswire.EncodeToken("\x00\xff"), awswire.EncodeToken("") + "==", "garbage", "dDE6bXk", "dDE6bXk=", "dDE6\nbXk",
		base64.StdEncoding.EncodeToString([]byte("t1:a+b/c")), base64.RawURLEncoding.EncodeToString([]byte("t2:x")),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		key, ok := awswire.DecodeToken(token)
		if !ok {
			if key != "" {
				t.Fatalf("DecodeToken(%q) refused but returned key %q", token, key)
			}
			return
		}
		if len(token) > 4096 {
			t.Fatalf("DecodeToken accepted a %d-character token", len(token))
		}
		// Whatever is accepted names a key whose canonical token decodes to
		// the same key.
		again, ok := awswire.DecodeToken(awswire.EncodeToken(key))
		if !ok || again != key {
			t.Fatalf("DecodeToken(%q) = %q, but DecodeToken(EncodeToken(%q)) = %q, %v", token, key, key, again, ok)
		}
	})
}
