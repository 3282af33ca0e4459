package functions

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	// The tests' Go function is built from testdata with AWS's runtime
	// client; importing it here keeps it in go.mod.
	_ "github.com/aws/aws-lambda-go/lambda"
)

var testDir string // removed when the tests end

func TestMain(m *testing.M) {
	if os.Getenv("FUNCTIONS_TEST_CHILD") != "" {
		runChild()
		return
	}
	dir, err := os.MkdirTemp("", "functions-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// zipEntry is one file of a test zip.
type zipEntry struct {
	name string
	body string
	mode fs.FileMode // 0: 0644
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if len(e.body) > 64<<10 {
			h.Method = zip.Store // binaries: deflate is slow under -race
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return base64.StdEncoding.EncodeToString(s[:])
}

// function is a test function of the given runtime and code.
func function(name, runtime, handler string, code []byte) Function {
	return Function{
		Name: name, Version: "$LATEST", Account: "123456789012", Region: "us-east-1",
		ARN:     "arn:aws:lambda:us-east-1:123456789012:function:" + name + ":$LATEST",
		Runtime: runtime, Handler: handler, CodeSHA256: sha(code),
		Code:    func() ([]byte, error) { return code, nil },
		Timeout: 5 * time.Second, MemoryMB: 128,
	}
}

// builds are the tests' Go programs, built once per test binary.
var builds sync.Map // program name → *build

type build struct {
	once sync.Once
	bin  []byte
	err  error
}

// goProgram is testdata/<name> built for Linux as a static executable.
func goProgram(t testing.TB, name string) []byte {
	t.Helper()
	v, _ := builds.LoadOrStore(name, &build{})
	b := v.(*build)
	b.once.Do(func() {
		out := filepath.Join(testDir, name, "bootstrap")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./testdata/"+name)
		cmd.Env = append(os.Environ(), "GOOS=linux", "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, msg)
			return
		}
		b.bin, b.err = os.ReadFile(out)
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}

var goZipOnce sync.Once
var goZip []byte

// goFunctionZip is testdata/gofn zipped as an executable bootstrap.
func goFunctionZip(t testing.TB) []byte {
	bin := goProgram(t, "gofn")
	goZipOnce.Do(func() { goZip = makeZip(t, zipEntry{name: "bootstrap", body: string(bin), mode: 0o755}) })
	return goZip
}

func goFunction(t testing.TB, name string) Function {
	return function(name, "provided.al2023", "bootstrap", goFunctionZip(t))
}

// logLines collects what the Runtime logs.
type logLines struct {
	mu      sync.Mutex
	records []map[string]any
}

func (l *logLines) Write(p []byte) (int, error) {
	var m map[string]any
	if err := json.Unmarshal(p, &m); err == nil {
		l.mu.Lock()
		l.records = append(l.records, m)
		l.mu.Unlock()
	}
	return len(p), nil
}

func (l *logLines) find(msg string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, r := range l.records {
		if m, _ := r["msg"].(string); strings.Contains(m, msg) {
			out = append(out, r)
		}
	}
	return out
}

func newRuntime(t testing.TB, c Config) (*Runtime, *logLines) {
	t.Helper()
	logs := &logLines{}
	if c.Log == nil {
		c.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if c.WorkDir == "" {
		c.WorkDir = t.TempDir()
	}
	r := New(c)
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r, logs
}

func invoke(t testing.TB, r *Runtime, fn Function, payload string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := r.Invoke(ctx, fn, []byte(payload))
	if err != nil {
		t.Fatalf("Invoke(%s, %s): %v", fn.Name, payload, err)
	}
	return res
}

func mustOK(t testing.TB, res Result) {
	t.Helper()
	if res.FunctionError != "" {
		t.Fatalf("FunctionError %q: %s\nlog:\n%s", res.FunctionError, res.Payload, res.LogTail)
	}
}

func decode(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return m
}

// alive reports whether pid is a process that has not exited (zombies
// count as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// groupAlive reports whether any live (not zombie) process is left in the
// process group: orphans are reaped by PID 1, which a container may not do.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:])) // state, ppid, pgrp, ...
		if len(f) > 2 && f[0] != "Z" && f[2] == fmt.Sprint(pgid) {
			return true
		}
	}
	return false
}

// eventually waits up to d for cond.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

func poolSize(r *Runtime, fn Function) (all, idle int) {
	v, ok := r.pools.Load(fn.poolKey())
	if !ok {
		return 0, 0
	}
	p := v.(*pool)
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all), len(p.idle)
}

// processesIn lists the live processes whose working directory is in dir:
// every function process, and what it started, runs in its code's.
func processesIn(dir string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && strings.HasPrefix(cwd, dir+"/") && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// quietLog drops what it is given.
func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

// missingTool ends a test that needs a tool this machine lacks: skipped on
// a developer's machine, failed in CI (CI set), as the repository's other
// tests do (servertest.MissingTool).
func missingTool(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is required in CI (CI=%s) and was not usable: %v", what, os.Getenv("CI"), err)
	}
	t.Skipf("%s not usable: skipped here (CI fails instead): %v", what, err)
}
