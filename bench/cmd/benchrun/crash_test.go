package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCrashCommand runs two small kill -9 trials against the real emulator
// (the test binary plays it, see realEmulatorMain) and checks the report.
func TestCrashCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts emulator processes")
	}
	t.Setenv(realEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := a.crash(ctx, []string{"-emulator", self, "-trials", "2", "-writers", "8", "-writes-before-kill", "200"})
	if err != nil {
		t.Fatalf("crash: %v\n%s", err, out.String())
	}
	for trial := range 2 {
		f := tableRow(out.String(), strconv.Itoa(trial+1))
		if len(f) != 2+len(crashKinds)+2 {
			t.Fatalf("trial %d row %q\n%s", trial+1, f, out.String())
		}
		if acked, _ := strconv.Atoi(f[1]); acked < 200 {
			t.Errorf("trial %d: %d writes acknowledged before the kill, want >= 200", trial+1, acked)
		}
		if f[len(f)-2] != "0" {
			t.Errorf("trial %d lost %s writes\n%s", trial+1, f[len(f)-2], out.String())
		}
	}
	if !strings.Contains(out.String(), "# 2 trials,") || !strings.Contains(out.String(), " 0 lost") {
		t.Errorf("no summary line:\n%s", out.String())
	}
}

// TestCrashVerifyFindsLoss checks that the verifier reports writes that
// are not there, of every kind, and does not report those that are.
func TestCrashVerifyFindsLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an emulator process")
	}
	t.Setenv(realEnv, "1")
	self, _ := os.Executable()
	p := &procs{log: newTestApp(t, &bytes.Buffer{}, nil).log, grace: 5 * time.Second}
	defer p.stopAll()
	c, addr, err := p.startEmulator("emulator", self, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := waitHealthy(ctx, c, addr, 30*time.Second, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	cl := newCrashClient(addr, 4)
	// One real round of writes, all of which must be found.
	var acked []crashWrite
	wctx, stop := context.WithCancel(ctx)
	crashWriter(wctx, cl, 0, func(kind string, id ...string) {
		acked = append(acked, crashWrite{kind, id})
		if kind == "function" {
			stop() // one round
		}
	})
	stop()
	if len(acked) != 11 {
		t.Fatalf("one round acknowledged %d writes, want 11: %v", len(acked), acked)
	}
	// Writes that were never made, one of each kind.
	api, res := acked[2].id[0], acked[3].id[1]
	ghosts := []crashWrite{
		{"vault", []string{"ghost"}},
		{"vault-tag", []string{acked[0].id[0] + "-ghost"}},
		{"rest-api", []string{"ghostapi00"}},
		{"resource", []string{api, "ghostres00"}},
		{"method", []string{api, res + "x"}},
		{"api-key", []string{"ghostkey00"}},
		{"queue", []string{"ghost-queue"}},
		{"message", []string{acked[6].id[0], "never-sent"}},
		{"message", []string{"ghost-queue", "never-sent"}},
		{"topic", []string{"ghost-topic"}},
		{"function", []string{"ghost-function"}},
	}
	missing, err := crashVerify(ctx, cl, append(acked, ghosts...))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, g := range ghosts {
		want[g.kind+" "+strings.Join(g.id, " ")] = true
	}
	for _, m := range missing {
		k := m.kind + " " + strings.Join(m.id, " ")
		if !want[k] {
			t.Errorf("reported missing but made: %s", k)
		}
		delete(want, k)
	}
	for k := range want {
		t.Errorf("never made but not reported missing: %s", k)
	}
}
