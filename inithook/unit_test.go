package inithook

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

func TestLineWriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   []string
	}{
		{"one-line", []string{"a\n"}, []string{"a"}},
		{"split-writes", []string{"ab", "c\nd", "e\n"}, []string{"abc", "de"}},
		{"crlf", []string{"win\r\n"}, []string{"win"}},
		{"unterminated", []string{"tail"}, []string{"tail"}},
		{"empty-lines", []string{"\n\n"}, []string{"", ""}},
		{"exactly-max", []string{strings.Repeat("x", maxLine) + "\n"}, []string{strings.Repeat("x", maxLine)}},
		{"max-then-newline", []string{strings.Repeat("x", maxLine), "\n", "b\n"}, []string{strings.Repeat("x", maxLine), "b"}},
		{"twice-max", []string{strings.Repeat("x", 2*maxLine) + "\n\n"}, []string{strings.Repeat("x", maxLine), strings.Repeat("x", maxLine), ""}},
		{"long", []string{strings.Repeat("y", maxLine+10) + "\nz\n"}, []string{strings.Repeat("y", maxLine), strings.Repeat("y", 10), "z"}},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			var got []string
			w := newLineWriter(slog.New(captureHandler{&got}))
			for _, s := range tc.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			w.Flush()
			if !slices.Equal(got, tc.want) {
				t.Errorf("lines = %q, want %q", got, tc.want)
			}
		})
	}
}

// captureHandler records the line attribute of each record.
type captureHandler struct{ lines *[]string }

func (h captureHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h captureHandler) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			*h.lines = append(*h.lines, a.Value.String())
		}
		return true
	})
	return nil
}

func (h captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h captureHandler) WithGroup(string) slog.Handler      { return h }

func TestEndpointURL(t *testing.T) {
	for _, tc := range []struct {
		host string
		port int
		want string
	}{
		{"127.0.0.1", 4566, "http://127.0.0.1:4566"},
		{"0.0.0.0", 4566, "http://127.0.0.1:4566"},
		{"::", 8080, "http://127.0.0.1:8080"},
		{"::1", 8080, "http://[::1]:8080"},
		{"localhost", 1, "http://localhost:1"},
		{"0.0.0.0", 0, ""},
	} {
		t.Run("host="+tc.host, func(t *testing.T) {
			if got := EndpointURL(tc.host, tc.port); got != tc.want {
				t.Errorf("EndpointURL(%q, %d) = %q, want %q", tc.host, tc.port, got, tc.want)
			}
		})
	}
}

func TestScriptEnv(t *testing.T) {
	base := []string{"HOME=/root", "AWS_ACCESS_KEY_ID=AKIAREAL", "AWS_REGION=", "EMULATOR_ENDPOINT=old"}
	got := scriptEnv(base, "http://127.0.0.1:4566", "us-west-2")
	want := []string{"HOME=/root", "AWS_ACCESS_KEY_ID=AKIAREAL",
		"AWS_ENDPOINT_URL=http://127.0.0.1:4566", "EMULATOR_ENDPOINT=http://127.0.0.1:4566",
		"AWS_DEFAULT_REGION=us-west-2", "AWS_REGION=us-west-2", "AWS_SECRET_ACCESS_KEY=test"}
	if !slices.Equal(got, want) {
		t.Errorf("scriptEnv =\n%q\nwant\n%q", got, want)
	}
	// No endpoint yet (port 0): nothing points anywhere.
	got = scriptEnv([]string{"A=b"}, "", "us-east-1")
	if slices.ContainsFunc(got, func(kv string) bool { return bytes.Contains([]byte(kv), []byte("ENDPOINT")) }) {
		t.Errorf("endpoint variables without an endpoint: %q", got)
	}
}

func TestParseStage(t *testing.T) {
	for _, st := range Stages {
		for _, name := range []string{st.String(), strings.ToLower(st.String())} {
			if got, ok := ParseStage(name); !ok || got != st {
				t.Errorf("ParseStage(%q) = %v, %v", name, got, ok)
			}
		}
	}
	for _, bad := range []string{"", "ready.d", "BOOTS", "init"} {
		if _, ok := ParseStage(bad); ok {
			t.Errorf("ParseStage(%q) accepted", bad)
		}
	}
	if Ready.Dir() != "ready.d" || Stage(9).String() != "UNKNOWN" {
		t.Errorf("Dir/String: %q %q", Ready.Dir(), Stage(9).String())
	}
}
