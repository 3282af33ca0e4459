//go:build unix

package inithook

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a log sink that the runner's goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func testLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// write creates path (and its directories) with body and mode.
func write(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

// recorder is a script that appends its name to $ORDER_FILE, then runs more.
func recorder(name, more string) string {
	return "#!/bin/sh\necho " + name + " >> \"$ORDER_FILE\"\n" + more + "\n"
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// tree builds the two init trees every ordering test uses and returns
// their directories, the order file and the expected READY order.
func tree(t *testing.T) (dirs []string, order string) {
	t.Helper()
	root := t.TempDir()
	compatDir, ownDir := filepath.Join(root, "compat"), filepath.Join(root, "own")
	order = filepath.Join(root, "order")
	ready := filepath.Join(ownDir, "ready.d")
	write(t, filepath.Join(compatDir, "ready.d", "50-compat.sh"), recorder("50-compat", ""), 0o755)
	write(t, filepath.Join(ready, "10-a.sh"), recorder("10-a", `echo "hello from a"; echo "to stderr" >&2`), 0o755)
	write(t, filepath.Join(ready, "20-sub", "02-y.sh"), recorder("20-sub/02-y", ""), 0o755)
	write(t, filepath.Join(ready, "20-sub", "01-x.sh"), recorder("20-sub/01-x", ""), 0o755)
	write(t, filepath.Join(ready, "20-sub", "deeper", "01-z.sh"), recorder("20-sub/deeper/01-z", ""), 0o755)
	write(t, filepath.Join(ready, "25-fail.sh"), recorder("25-fail", "exit 3"), 0o755)
	write(t, filepath.Join(ready, "30-noexec.sh"), recorder("30-noexec", ""), 0o644)
	write(t, filepath.Join(ready, "40-hook.py"), "#!/usr/bin/env python3\nopen(__import__('os').environ['ORDER_FILE'],'a').write('40-hook.py\\n')\n", 0o755)
	write(t, filepath.Join(ready, "50-b.sh"), recorder("50-b", ""), 0o755)
	write(t, filepath.Join(ready, ".hidden.sh"), recorder(".hidden", ""), 0o755)
	write(t, filepath.Join(ready, "README.md"), "notes\n", 0o644)
	write(t, filepath.Join(ownDir, "boot.d", "boot.sh"), recorder("boot", ""), 0o755)
	write(t, filepath.Join(ownDir, "shutdown.d", "bye.sh"), recorder("bye", ""), 0o755)
	return []string{compatDir, ownDir}, order
}

func newRunner(t *testing.T, dirs []string, order string, timeout time.Duration, log *slog.Logger) *Runner {
	t.Helper()
	return New(Options{
		Dirs:     dirs,
		Timeout:  timeout,
		Environ:  append(os.Environ(), "ORDER_FILE="+order),
		Endpoint: "http://127.0.0.1:4566",
		Region:   "eu-west-3",
		Log:      log,
	})
}

func TestRunOrderStatesAndSkips(t *testing.T) {
	dirs, order := tree(t)
	log, logs := testLogger()
	r := newRunner(t, dirs, order, 10*time.Second, log)

	// Every stage's scripts are found at once, UNKNOWN, no stage completed.
	before := r.Status()
	if !before.Enabled || before.Completed != [4]bool{} {
		t.Fatalf("before any run: enabled=%v completed=%v", before.Enabled, before.Completed)
	}
	var found []string
	for _, s := range before.Scripts {
		if s.State != StateUnknown {
			t.Errorf("%s: state %s before any run", s.Path, s.State)
		}
		found = append(found, s.Stage.String()+" "+s.Name)
	}
	wantFound := []string{"BOOT boot.sh", "READY 50-compat.sh", "READY 10-a.sh", "READY 01-x.sh", "READY 02-y.sh",
		"READY 01-z.sh", "READY 25-fail.sh", "READY 50-b.sh", "SHUTDOWN bye.sh"}
	if !slices.Equal(found, wantFound) {
		t.Fatalf("found\n%q\nwant\n%q", found, wantFound)
	}

	r.Run(context.Background(), Ready)

	// The compatibility tree first; entries by name, a subdirectory at its
	// place; the failing script does not stop the next ones.
	want := []string{"50-compat", "10-a", "20-sub/01-x", "20-sub/02-y", "20-sub/deeper/01-z", "25-fail", "50-b"}
	if got := readLines(t, order); !slices.Equal(got, want) {
		t.Errorf("order = %q, want %q", got, want)
	}
	rep := r.Status()
	if rep.Completed != [4]bool{false, false, true, false} {
		t.Errorf("completed = %v, want READY only", rep.Completed)
	}
	for _, s := range rep.Scripts {
		want := StateSuccessful
		switch {
		case s.Stage != Ready:
			want = StateUnknown
		case s.Name == "25-fail.sh":
			want = StateError
		}
		if s.State != want {
			t.Errorf("%s %s: state %s, want %s", s.Stage, s.Name, s.State, want)
		}
		if s.Stage == Ready && (s.Started.IsZero() || s.Finished.Before(s.Started)) {
			t.Errorf("%s: started %v finished %v", s.Name, s.Started, s.Finished)
		}
		if s.Name == "25-fail.sh" && (!s.Exited || s.ExitCode != 3 || s.Error == "") {
			t.Errorf("failing script: exited=%v code=%d error=%q", s.Exited, s.ExitCode, s.Error)
		}
		if !filepath.IsAbs(s.Path) {
			t.Errorf("path %q is not absolute", s.Path)
		}
	}

	// Output lines are logged tagged with stage and script; skipped files
	// are logged once each, with a reason.
	out := logs.String()
	aPath := filepath.Join(dirs[1], "ready.d", "10-a.sh")
	for _, want := range []string{
		`msg="init script output" component=inithook stage=READY script=` + aPath + ` stream=stdout line="hello from a"`,
		`msg="init script output" component=inithook stage=READY script=` + aPath + ` stream=stderr line="to stderr"`,
		`msg="init script failed" component=inithook stage=READY script=` + filepath.Join(dirs[1], "ready.d", "25-fail.sh") +
			` state=ERROR error="exit status 3"`,
		`msg="init stage completed" component=inithook stage=READY scripts=7 failed=1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s\n%s", want, out)
		}
	}
	for _, skipped := range []string{"30-noexec.sh", "40-hook.py", "README.md", ".hidden.sh"} {
		if n := strings.Count(out, `msg="init file skipped" component=inithook stage=READY path=`+filepath.Join(dirs[1], "ready.d", skipped)+" "); n != 1 {
			t.Errorf("%s logged as skipped %d times, want 1\n%s", skipped, n, out)
		}
	}

	// A completed stage does not run again.
	r.Run(context.Background(), Ready)
	if got := readLines(t, order); len(got) != len(want) {
		t.Errorf("second Run of READY ran scripts again: %q", got)
	}
	// The other stages run their own scripts.
	r.Run(context.Background(), Boot)
	r.Run(context.Background(), Start)
	r.Run(context.Background(), Shutdown)
	if got := readLines(t, order); !slices.Equal(got[len(want):], []string{"boot", "bye"}) {
		t.Errorf("order after BOOT, START, SHUTDOWN = %q", got)
	}
	if got := r.Status().Completed; got != [4]bool{true, true, true, true} {
		t.Errorf("completed = %v, want all", got)
	}
}

// TestTimeoutKillsProcessGroup runs a script that starts a background child
// and outlives the timeout: both are killed, the script is ERROR and the
// next script runs.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	root := t.TempDir()
	order, pidFile := filepath.Join(root, "order"), filepath.Join(root, "child.pid")
	write(t, filepath.Join(root, "ready.d", "1-slow.sh"),
		"#!/bin/sh\nsleep 30 &\necho $! > "+pidFile+"\nsleep 30\necho slow >> \"$ORDER_FILE\"\n", 0o755)
	write(t, filepath.Join(root, "ready.d", "2-next.sh"), recorder("2-next", ""), 0o755)
	log, logs := testLogger()
	r := newRunner(t, []string{root}, order, 300*time.Millisecond, log)

	start := time.Now()
	r.Run(context.Background(), Ready)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("READY took %s with a 300ms timeout", took)
	}
	rep := r.Status()
	slow := rep.Scripts[0]
	if slow.State != StateError || !strings.Contains(slow.Error, "timed out after 300ms") || slow.Exited {
		t.Errorf("slow script: state=%s error=%q exited=%v", slow.State, slow.Error, slow.Exited)
	}
	if rep.Scripts[1].State != StateSuccessful || !rep.Completed[Ready] {
		t.Errorf("after a timeout: next=%s completed=%v", rep.Scripts[1].State, rep.Completed[Ready])
	}
	if got := readLines(t, order); !slices.Equal(got, []string{"2-next"}) {
		t.Errorf("order = %q", got)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if !strings.Contains(logs.String(), "timed out") {
		t.Errorf("timeout not logged:\n%s", logs)
	}
}

// waitGone waits until pid no longer runs (gone, or a zombie nobody reaped
// yet, which is dead).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			if _, serr := os.Stat("/proc/self/stat"); serr != nil {
				t.Skip("no /proc to check the child")
			}
			return // gone
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("background child %d of a timed-out script still runs: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCancelStopsStage cancels a stage while a script runs: that script is
// killed (ERROR), the next stays UNKNOWN and the stage is not completed.
func TestCancelStopsStage(t *testing.T) {
	root := t.TempDir()
	order := filepath.Join(root, "order")
	write(t, filepath.Join(root, "ready.d", "1-wait.sh"), "#!/bin/sh\nsleep 30\n", 0o755)
	write(t, filepath.Join(root, "ready.d", "2-never.sh"), recorder("2-never", ""), 0o755)
	log, logs := testLogger()
	r := newRunner(t, []string{root}, order, 30*time.Second, log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx, Ready)
	}()
	waitState(t, r, 0, StateRunning)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	rep := r.Status()
	if rep.Scripts[0].State != StateError || !strings.Contains(rep.Scripts[0].Error, "interrupted") {
		t.Errorf("running script after cancel: %s %q", rep.Scripts[0].State, rep.Scripts[0].Error)
	}
	if rep.Scripts[1].State != StateUnknown || rep.Completed[Ready] {
		t.Errorf("after cancel: next=%s completed=%v", rep.Scripts[1].State, rep.Completed[Ready])
	}
	if got := readLines(t, order); len(got) != 0 {
		t.Errorf("scripts ran after cancel: %q", got)
	}
	if out := logs.String(); !strings.Contains(out, `msg="init stage interrupted"`) || strings.Contains(out, "init stage completed") {
		t.Errorf("log after cancel:\n%s", out)
	}
}

func waitState(t *testing.T, r *Runner, i int, want State) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.Status().Scripts[i].State != want {
		if time.Now().After(deadline) {
			t.Fatalf("script %d never %s: %+v", i, want, r.Status().Scripts[i])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStatusWhileRunning reads the status from other goroutines while a
// stage runs (meaningful under -race) and sees RUNNING, then SUCCESSFUL.
func TestStatusWhileRunning(t *testing.T) {
	root := t.TempDir()
	release := filepath.Join(root, "release")
	write(t, filepath.Join(root, "start.d", "wait.sh"),
		"#!/bin/sh\nwhile [ ! -e "+release+" ]; do sleep 0.01; done\n", 0o755)
	r := newRunner(t, []string{root}, filepath.Join(root, "order"), 10*time.Second, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(context.Background(), Start)
	}()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				rep := r.Status()
				if len(rep.Scripts) != 1 || rep.Completed[Start] && rep.Scripts[0].State != StateSuccessful {
					t.Errorf("inconsistent snapshot: %+v", rep)
					return
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	waitState(t, r, 0, StateRunning)
	if r.Status().Completed[Start] {
		t.Error("START completed while its script runs")
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	<-done
	close(stop)
	wg.Wait()
	if rep := r.Status(); rep.Scripts[0].State != StateSuccessful || !rep.Completed[Start] {
		t.Errorf("after run: %+v", rep)
	}
}

// TestCannotStart checks that a script without a #! line is ERROR with a
// hint, and the next one runs.
func TestCannotStart(t *testing.T) {
	root := t.TempDir()
	order := filepath.Join(root, "order")
	write(t, filepath.Join(root, "boot.d", "a-noshebang.sh"), "echo hi\n", 0o755)
	write(t, filepath.Join(root, "boot.d", "b-next.sh"), recorder("b-next", ""), 0o755)
	r := newRunner(t, []string{root}, order, 10*time.Second, nil)
	r.Run(context.Background(), Boot)
	rep := r.Status()
	if s := rep.Scripts[0]; s.State != StateError || !strings.Contains(s.Error, "cannot start") || !strings.Contains(s.Error, "#!") {
		t.Errorf("script without #!: %s %q", s.State, s.Error)
	}
	if got := readLines(t, order); !slices.Equal(got, []string{"b-next"}) {
		t.Errorf("order = %q", got)
	}
}

// TestScriptEnvironment checks what a script sees: the emulator's
// environment, the endpoint, and region and credentials unless set.
func TestScriptEnvironment(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "env")
	write(t, filepath.Join(root, "ready.d", "env.sh"), "#!/bin/sh\nenv > "+out+"\nread -r x || echo stdin-empty >> "+out+"\n", 0o755)
	r := New(Options{
		Dirs: []string{root}, Timeout: 10 * time.Second,
		Environ:  []string{"PATH=" + os.Getenv("PATH"), "KEEP=me", "AWS_REGION=ap-south-1", "AWS_ENDPOINT_URL=http://elsewhere"},
		Endpoint: "http://127.0.0.1:1", Region: "eu-west-3",
	})
	r.SetEndpoint("http://127.0.0.1:4567")
	r.Run(context.Background(), Ready)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, want := range []string{
		"KEEP=me", "AWS_ENDPOINT_URL=http://127.0.0.1:4567", "EMULATOR_ENDPOINT=http://127.0.0.1:4567",
		"AWS_REGION=ap-south-1", "AWS_DEFAULT_REGION=eu-west-3", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
		"stdin-empty",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("script environment lacks %s:\n%s", want, b)
		}
	}
	if slices.Contains(got, "AWS_ENDPOINT_URL=http://elsewhere") {
		t.Errorf("the emulator's endpoint did not replace the inherited one:\n%s", b)
	}
}

func TestDisabled(t *testing.T) {
	dirs, order := tree(t)
	r := New(Options{Disabled: true, Dirs: dirs, Environ: []string{"ORDER_FILE=" + order}})
	if rep := r.Status(); rep.Enabled || len(rep.Scripts) != 0 || rep.Completed != [4]bool{} {
		t.Fatalf("disabled before run: %+v", rep)
	}
	for _, st := range Stages {
		r.Run(context.Background(), st)
		if !r.Status().Completed[st] {
			t.Errorf("%s not completed once passed", st)
		}
	}
	if got := readLines(t, order); len(got) != 0 {
		t.Errorf("disabled runner ran %q", got)
	}
}

// TestMissingDirs checks that absent init directories are no error and
// every stage completes with no scripts.
func TestMissingDirs(t *testing.T) {
	log, logs := testLogger()
	r := New(Options{Dirs: []string{filepath.Join(t.TempDir(), "nope")}, Log: log})
	for _, st := range Stages {
		r.Run(context.Background(), st)
	}
	if rep := r.Status(); !rep.Enabled || len(rep.Scripts) != 0 || rep.Completed != [4]bool{true, true, true, true} {
		t.Errorf("status = %+v", rep)
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("missing directories warned:\n%s", logs)
	}
}

// TestLongOutputBounded runs a script that prints 100000 bytes without a
// newline: it is logged in pieces of at most maxLine bytes.
func TestLongOutputBounded(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "ready.d", "spam.sh"),
		"#!/bin/sh\nhead -c 100000 /dev/zero | tr '\\0' a\n", 0o755)
	log, logs := testLogger()
	r := newRunner(t, []string{root}, filepath.Join(root, "order"), 10*time.Second, log)
	r.Run(context.Background(), Ready)
	if s := r.Status().Scripts[0]; s.State != StateSuccessful {
		t.Fatalf("spam.sh: %s %q", s.State, s.Error)
	}
	total, pieces := 0, 0
	for _, line := range strings.Split(logs.String(), "\n") {
		_, val, ok := strings.Cut(line, " line=")
		if !ok || !strings.Contains(line, `msg="init script output"`) {
			continue
		}
		pieces++
		if len(val) > maxLine {
			t.Errorf("a logged piece has %d bytes", len(val))
		}
		total += len(val)
	}
	if total != 100000 || pieces != (100000+maxLine-1)/maxLine {
		t.Errorf("logged %d bytes in %d pieces, want 100000 in %d", total, pieces, (100000+maxLine-1)/maxLine)
	}
}

// TestCancelLastScript cancels the stage's only script: the stage is not
// completed, since its script did not finish.
func TestCancelLastScript(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "ready.d", "wait.sh"), "#!/bin/sh\nsleep 30\n", 0o755)
	r := newRunner(t, []string{root}, filepath.Join(root, "order"), 30*time.Second, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		for i := 0; i < 1000 && r.Status().Scripts[0].State != StateRunning; i++ {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	r.Run(ctx, Ready)
	if rep := r.Status(); rep.Completed[Ready] || rep.Scripts[0].State != StateError {
		t.Errorf("after cancelling the last script: completed=%v state=%s", rep.Completed[Ready], rep.Scripts[0].State)
	}
}

// TestBackgroundChildHoldsOutput runs a script that exits 0 leaving a
// background process with its stdout: the script is SUCCESSFUL and the
// stage completes within about waitDelay.
func TestBackgroundChildHoldsOutput(t *testing.T) {
	root := t.TempDir()
	pidFile := filepath.Join(root, "pid")
	write(t, filepath.Join(root, "ready.d", "daemon.sh"), "#!/bin/sh\nsleep 20 &\necho $! > "+pidFile+"\necho started\n", 0o755)
	r := newRunner(t, []string{root}, filepath.Join(root, "order"), 10*time.Second, nil)
	start := time.Now()
	r.Run(context.Background(), Ready)
	took := time.Since(start)
	if b, err := os.ReadFile(pidFile); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL) // the test's own leftover
		}
	}
	if s := r.Status().Scripts[0]; s.State != StateSuccessful || !r.Status().Completed[Ready] {
		t.Errorf("daemon.sh: %s %q", s.State, s.Error)
	}
	if took > waitDelay+2*time.Second {
		t.Errorf("READY took %s", took)
	}
}
