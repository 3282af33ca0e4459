package compat_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/inithook"
	"github.com/cloudemu/emulator/server"
	"github.com/cloudemu/emulator/server/servertest"
)

// startWithHooks runs an emulator on 127.0.0.1:0 that serves r's status.
func startWithHooks(t *testing.T, r *inithook.Runner) string {
	t.Helper()
	cfg := config.Default()
	cfg.Host, cfg.Port = "127.0.0.1", 0
	em, err := server.Open(cfg, servertest.Logger(), server.WithInit(r))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = em.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = em.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}

func get(t *testing.T, method, url string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func script(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestInitStatus checks the init status endpoints, in the emulator's own
// form and in the legacy shape, before and after the READY stage.
func TestInitStatus(t *testing.T) {
	root := t.TempDir()
	// A name with the separators the spacing must not touch inside strings.
	odd := `c, d: "e".sh`
	script(t, filepath.Join(root, "ready.d", "a.sh"), "#!/bin/sh\nexit 0\n")
	script(t, filepath.Join(root, "ready.d", "b.sh"), "#!/bin/sh\nexit 4\n")
	script(t, filepath.Join(root, "ready.d", odd), "#!/bin/sh\n")
	script(t, filepath.Join(root, "boot.d", "boot.sh"), "#!/bin/sh\n")
	r := inithook.New(inithook.Options{Dirs: []string{root}, Timeout: 10 * time.Second, Log: servertest.Logger()})
	base := startWithHooks(t, r)

	legacyReady := func(states ...string) string {
		names := []string{"a.sh", "b.sh", `c, d: \"e\".sh`}
		var parts []string
		for i, st := range states {
			parts = append(parts, `{"stage": "READY", "name": "`+names[i]+`", "state": "`+st+`"}`)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	for _, prefix := range []string{"/_localstack", "/_compat"} {
		t.Run("before/prefix="+prefix, func(t *testing.T) {
			code, ctype, body := get(t, "GET", base+prefix+"/init/ready")
			want := `{"completed": false, "scripts": ` + legacyReady("UNKNOWN", "UNKNOWN", "UNKNOWN") + `}`
			if code != 200 || ctype != "application/json" || body != want {
				t.Errorf("%d %s\n%s\nwant\n%s", code, ctype, body, want)
			}
		})
	}

	r.Run(context.Background(), inithook.Boot)
	r.Run(context.Background(), inithook.Start)
	r.Run(context.Background(), inithook.Ready)

	for _, prefix := range []string{"/_localstack", "/_compat"} {
		t.Run("stage/prefix="+prefix, func(t *testing.T) {
			for _, stage := range []string{"ready", "READY"} {
				code, _, body := get(t, "GET", base+prefix+"/init/"+stage)
				want := `{"completed": true, "scripts": ` + legacyReady("SUCCESSFUL", "ERROR", "SUCCESSFUL") + `}`
				if code != 200 || body != want {
					t.Errorf("%s: %d\n%s\nwant\n%s", stage, code, body, want)
				}
				// What compose health checks grep.
				if !strings.Contains(body, `"completed": true,`) {
					t.Errorf("no \"completed\": true, in %s", body)
				}
			}
			code, _, body := get(t, "GET", base+prefix+"/init/shutdown")
			if want := `{"completed": false, "scripts": []}`; code != 200 || body != want {
				t.Errorf("shutdown: %d %s, want %s", code, body, want)
			}
		})
		t.Run("all/prefix="+prefix, func(t *testing.T) {
			code, _, body := get(t, "GET", base+prefix+"/init")
			want := `{"completed": {"BOOT": true, "START": true, "READY": true, "SHUTDOWN": false}, "scripts": [` +
				`{"stage": "BOOT", "name": "boot.sh", "state": "SUCCESSFUL"}, ` +
				strings.Trim(legacyReady("SUCCESSFUL", "ERROR", "SUCCESSFUL"), "[]") + `]}`
			if code != 200 || body != want {
				t.Errorf("%d\n%s\nwant\n%s", code, body, want)
			}
		})
	}

	t.Run("own/stage", func(t *testing.T) {
		code, _, body := get(t, "GET", base+"/_emulator/init/ready")
		if code != 200 || !strings.HasPrefix(body, `{"completed": true, `) {
			t.Fatalf("%d %s", code, body)
		}
		var doc struct {
			Completed bool
			Stage     string
			Enabled   bool
			Scripts   []struct {
				Stage, Name, State, Path, Error string
				ExitCode                        *int
				StartedAt, FinishedAt           string
				DurationMs                      *int64
			}
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatal(err)
		}
		if !doc.Completed || doc.Stage != "READY" || !doc.Enabled || len(doc.Scripts) != 3 {
			t.Fatalf("%+v", doc)
		}
		b := doc.Scripts[1]
		if b.Name != "b.sh" || b.State != "ERROR" || b.ExitCode == nil || *b.ExitCode != 4 || b.Error == "" ||
			b.Path != filepath.Join(root, "ready.d", "b.sh") || b.DurationMs == nil {
			t.Errorf("failing script: %+v", b)
		}
		for _, ts := range []string{b.StartedAt, b.FinishedAt} {
			if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
				t.Errorf("timestamp %q: %v", ts, err)
			}
		}
	})
	t.Run("own/all", func(t *testing.T) {
		code, _, body := get(t, "GET", base+"/_emulator/init")
		var doc struct {
			Completed map[string]bool
			Enabled   bool
			Scripts   []struct{ Stage, Name, State string }
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil || code != 200 {
			t.Fatalf("%d %v %s", code, err, body)
		}
		if !strings.HasPrefix(body, `{"completed": {"BOOT": true, "START": true, "READY": true, "SHUTDOWN": false}, `) ||
			len(doc.Scripts) != 4 || !doc.Enabled {
			t.Errorf("%s", body)
		}
	})
	t.Run("head", func(t *testing.T) {
		if code, _, body := get(t, "HEAD", base+"/_localstack/init/ready"); code != 200 || body != "" {
			t.Errorf("HEAD: %d %q", code, body)
		}
	})
	for _, path := range []string{"/_emulator/init/nope", "/_compat/init/ready.d", "/_localstack/init/%72eady", "/_emulator/init/" + strings.Repeat("x", 300)} {
		t.Run("unknown-stage/path="+path[:min(len(path), 40)], func(t *testing.T) {
			code, ctype, body := get(t, "GET", base+path)
			var e struct{ Code, Message string }
			if code != 404 || ctype != "application/json" || json.Unmarshal([]byte(body), &e) != nil ||
				e.Code == "" || !strings.Contains(e.Message, "boot, start, ready and shutdown") || len(body) > 400 {
				t.Errorf("%d %s %s", code, ctype, body)
			}
		})
	}
}

// TestInitStatusDisabled checks that with hooks disabled every stage the
// emulator passed reports completed with no scripts, so health checks pass.
func TestInitStatusDisabled(t *testing.T) {
	root := t.TempDir()
	script(t, filepath.Join(root, "ready.d", "a.sh"), "#!/bin/sh\nexit 0\n")
	r := inithook.New(inithook.Options{Disabled: true, Dirs: []string{root}})
	base := startWithHooks(t, r)
	for _, st := range []inithook.Stage{inithook.Boot, inithook.Start, inithook.Ready} {
		r.Run(context.Background(), st)
	}
	if _, _, body := get(t, "GET", base+"/_localstack/init/ready"); body != `{"completed": true, "scripts": []}` {
		t.Errorf("legacy: %s", body)
	}
	_, _, body := get(t, "GET", base+"/_emulator/init/ready")
	if body != `{"completed": true, "stage": "READY", "enabled": false, "scripts": []}` {
		t.Errorf("own: %s", body)
	}
}
