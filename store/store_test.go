package store

import (
	"errors"
	"slices"
	"testing"
)

func TestKeyRoundTrip(t *testing.T) {
	tests := []struct {
		name                               string
		account, region, service, kind, id string
		sub                                []string
		want                               string
	}{
		{
			name:    "plain",
			account: "000000000000", region: "us-east-1", service: "apigateway", kind: "restapi", id: "abc123",
			want: "v1/000000000000/us-east-1/apigateway/restapi/abc123",
		},
		{
			name:    "one sub-key",
			account: "000000000000", region: "eu-west-1", service: "backup", kind: "vault", id: "main",
			sub:  []string{"tags"},
			want: "v1/000000000000/eu-west-1/backup/vault/main/tags",
		},
		{
			name:    "two sub-keys",
			account: "111111111111", region: "us-west-2", service: "apigateway", kind: "restapi", id: "r1",
			sub:  []string{"stage", "prod"},
			want: "v1/111111111111/us-west-2/apigateway/restapi/r1/stage/prod",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Key(tt.account, tt.region, tt.service, tt.kind, tt.id, tt.sub...)
			if got != tt.want {
				t.Fatalf("Key = %q, want %q", got, tt.want)
			}
			account, region, service, kind, id, sub, ok := ParseKey(got)
			if !ok {
				t.Fatalf("ParseKey(%q) not ok", got)
			}
			if account != tt.account || region != tt.region || service != tt.service || kind != tt.kind || id != tt.id {
				t.Fatalf("ParseKey(%q) = %q %q %q %q %q", got, account, region, service, kind, id)
			}
			if len(sub) != len(tt.sub) || !slices.Equal(sub, tt.sub) {
				t.Fatalf("ParseKey(%q) sub = %q, want %q", got, sub, tt.sub)
			}
		})
	}
}

func TestParseKeyRejects(t *testing.T) {
	tests := []struct{ name, key string }{
		{name: "empty", key: ""},
		{name: "wrong version", key: "v2/a/r/s/k/i"},
		{name: "too short", key: "v1/a/r/s/k"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, _, _, _, _, ok := ParseKey(tt.key); ok {
				t.Fatalf("ParseKey(%q) ok, want not ok", tt.key)
			}
		})
	}
}

func TestMemory(t *testing.T) {
	s := NewMemory()
	if got := s.Backend(); got != "memory" {
		t.Fatalf("Backend = %q", got)
	}
	e := s.Epoch()
	steps := []struct {
		name string
		do   func() error
		want error
	}{
		{name: "apply current epoch", do: func() error { return s.Apply(e, Put("k", []byte("v"))) }},
		{name: "load calls nothing", do: func() error {
			return s.Load(func(string, []byte) error { return errors.New("called") })
		}},
		{name: "wipe", do: s.Wipe},
		{name: "apply old epoch", do: func() error { return s.Apply(e, Put("k", nil)) }, want: ErrStale},
		{name: "apply new epoch", do: func() error { return s.Apply(e+1, Put("k", nil)) }},
		{name: "close", do: s.Close},
		{name: "apply after close", do: func() error { return s.Apply(e+1, Put("k", nil)) }, want: ErrClosed},
		{name: "wipe after close", do: s.Wipe, want: ErrClosed},
		{name: "load after close", do: func() error { return s.Load(nil) }, want: ErrClosed},
		{name: "close again", do: s.Close, want: ErrClosed},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.do(); !errors.Is(err, st.want) {
				t.Fatalf("err = %v, want %v", err, st.want)
			}
		})
	}
	if got := s.Epoch(); got != e+1 {
		t.Fatalf("Epoch after close = %d, want %d", got, e+1)
	}
}

func TestMemoryApplyAllocs(t *testing.T) {
	s := NewMemory()
	ops := []Op{Put("k", []byte("v"))}
	if n := testing.AllocsPerRun(100, func() { _ = s.Apply(0, ops...) }); n != 0 {
		t.Fatalf("Apply allocates %v times, want 0", n)
	}
}

func TestMemoryConcurrent(t *testing.T) {
	s := NewMemory()
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 1000 {
				_ = s.Apply(s.Epoch(), Put("k", nil))
			}
		}()
	}
	for range 100 {
		if err := s.Wipe(); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		<-done
	}
	if got := s.Epoch(); got != 100 {
		t.Fatalf("Epoch = %d, want 100", got)
	}
}
