package functions

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// runChild is the emulator in TestEmulatorDeathKillsFunctions: it starts a
// function that never talks to its Runtime API (so nothing but the
// emulator's death can end it) and waits to be killed.
func runChild() {
	code, err := os.ReadFile(os.Getenv("FUNCTIONS_TEST_ZIP"))
	if err != nil {
		os.Exit(1)
	}
	r := New(Config{WorkDir: os.Getenv("FUNCTIONS_TEST_CHILD"), InitTimeout: time.Minute})
	fn := function("orphan", "provided.al2023", "bootstrap", code)
	fn.Environment = map[string]string{"RAW_MODE": "no-next"}
	_, _ = r.Invoke(context.Background(), fn, nil)
	os.Exit(1)
}

// TestEmulatorDeathKillsFunctions: an emulator killed without a chance to
// Close leaves no function behind (Pdeathsig).
func TestEmulatorDeathKillsFunctions(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	zipPath := filepath.Join(dir, "code.zip")
	code := makeZip(t, zipEntry{name: "bootstrap", body: string(goProgram(t, "rawfn")), mode: 0o755})
	if err := os.WriteFile(zipPath, code, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FUNCTIONS_TEST_CHILD="+work, "FUNCTIONS_TEST_ZIP="+zipPath)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var pids []int
	if !eventually(10*time.Second, func() bool { pids = processesIn(work); return len(pids) == 1 }) {
		t.Fatalf("the function did not start: %v", pids)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if !eventually(2*time.Second, func() bool { return !alive(pids[0]) }) {
		_ = syscall.Kill(-pids[0], syscall.SIGKILL)
		t.Fatalf("function %d outlived its emulator", pids[0])
	}
}
