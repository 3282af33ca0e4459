package functions

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func wantError(t *testing.T, err error, code string, status int, contains string) {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T); want *Error %s", err, err, code)
	}
	if fe.Code != code || fe.Status != status || !strings.Contains(fe.Message, contains) {
		t.Errorf("error %s %d %q; want %s %d containing %q", fe.Code, fe.Status, fe.Message, code, status, contains)
	}
}

func TestCorruptZip(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := function("corrupt", "provided.al2023", "bootstrap", []byte("this is not a zip"))
	_, err := r.Invoke(context.Background(), fn, []byte(`{}`))
	wantError(t, err, CodeInvalidZipFile, 502, "Could not unzip uploaded file")
	if all, _ := poolSize(r, fn); all != 0 {
		t.Errorf("%d instances after a corrupt zip", all)
	}
}

func TestZipSlip(t *testing.T) {
	outside := t.TempDir()
	for name, entries := range map[string][]zipEntry{
		"dotdot":   {{name: "../../../../../../../.." + outside + "/evil", body: "x"}},
		"absolute": {{name: outside + "/evil", body: "x"}},
		"symlink": {
			{name: "link", body: outside, mode: os.ModeSymlink | 0o777},
			{name: "link/evil", body: "x"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			r, _ := newRuntime(t, Config{})
			code := makeZip(t, append([]zipEntry{{name: "bootstrap", body: "#!/bin/sh\n", mode: 0o755}}, entries...)...)
			_, err := r.Invoke(context.Background(), function("slip", "provided.al2023", "bootstrap", code), []byte(`{}`))
			wantError(t, err, CodeInvalidZipFile, 502, "Could not unzip uploaded file")
			if _, err := os.Stat(filepath.Join(outside, "evil")); err == nil {
				t.Fatalf("the zip wrote outside its directory")
			}
			// Nothing half-unpacked is left to be taken for the code.
			left, _ := filepath.Glob(filepath.Join(r.workDir, "*"))
			if len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

func TestZipSizeLimits(t *testing.T) {
	// Headers that understate: the bytes written are counted.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "bomb", Method: zip.Deflate, UncompressedSize64: 10, CompressedSize64: 0})
	if err != nil {
		t.Fatal(err)
	}
	fw, _ := flate.NewWriter(w, flate.BestSpeed)
	fw.Write(make([]byte, 2<<20))
	fw.Close()
	zw.Close()
	err = extractZip(buf.Bytes(), t.TempDir(), 1<<20)
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("understated size: %v", err)
	}
	// CRC and size checks of archive/zip may catch the lie first; either
	// way it is refused. Honest headers over the limit are refused before
	// anything is written.
	big := makeZip(t, zipEntry{name: "a", body: strings.Repeat("a", 3000)})
	err = extractZip(big, t.TempDir(), 1000)
	wantError(t, err, CodeInvalidParameterValue, 400, "Unzipped size must be smaller than")
}

func TestZipKeepsModesAndLinks(t *testing.T) {
	dir := t.TempDir()
	code := makeZip(t,
		zipEntry{name: "bin/tool", body: "#!/bin/sh\n", mode: 0o755},
		zipEntry{name: "data.txt", body: "data", mode: 0o640},
		zipEntry{name: "alias", body: "bin/tool", mode: os.ModeSymlink | 0o777},
		zipEntry{name: "empty/", mode: os.ModeDir | 0o755},
	)
	if err := extractZip(code, dir, MaxUnzippedSize); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"bin/tool": 0o755, "data.txt": 0o640} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: %v %v, want %v", name, st.Mode(), err, mode)
		}
	}
	if target, err := os.Readlink(filepath.Join(dir, "alias")); err != nil || target != "bin/tool" {
		t.Errorf("link: %q %v", target, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "empty")); err != nil || !st.IsDir() {
		t.Errorf("empty dir: %v", err)
	}
}

func TestCodeUnpackedOncePerSHA(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	var fetched atomic.Int32
	fn := goFunction(t, "once")
	code := goFunctionZip(t)
	fn.Code = func() ([]byte, error) { fetched.Add(1); return code, nil }
	done := make(chan Result, 4)
	for i := 0; i < 4; i++ {
		go func() { done <- invoke(t, r, fn, `{}`) }()
	}
	for i := 0; i < 4; i++ {
		mustOK(t, <-done)
	}
	other := fn
	other.Name, other.ARN = "once2", fn.ARN+"2"
	mustOK(t, invoke(t, r, other, `{}`))
	if n := fetched.Load(); n != 1 {
		t.Errorf("code fetched %d times", n)
	}
	// A Runtime on the same WorkDir finds it unpacked.
	r2 := New(Config{WorkDir: r.workDir})
	defer r2.Close()
	mustOK(t, invoke(t, r2, fn, `{}`))
	if n := fetched.Load(); n != 1 {
		t.Errorf("code fetched %d times", n)
	}
}

func TestCodeErrors(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := goFunction(t, "codeerr")
	fn.CodeSHA256 = sha([]byte("other"))
	_, err := r.Invoke(context.Background(), fn, nil)
	wantError(t, err, CodeInvalidParameterValue, 400, "not CodeSHA256")

	fn = goFunction(t, "codeerr")
	fn.CodeSHA256 = "not base64!"
	_, err = r.Invoke(context.Background(), fn, nil)
	wantError(t, err, CodeInvalidParameterValue, 400, "CodeSHA256")

	// A failing fetch is not remembered: the next cold start tries again.
	fn = goFunction(t, "codeerr")
	code := goFunctionZip(t)
	fails := true
	fn.Code = func() ([]byte, error) {
		if fails {
			return nil, errors.New("store unavailable")
		}
		return code, nil
	}
	_, err = r.Invoke(context.Background(), fn, nil)
	wantError(t, err, CodeService, 500, "fetching the code")
	fails = false
	mustOK(t, invoke(t, r, fn, `{}`))
}

func TestMissingAndNonExecutableBootstrap(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	res := invoke(t, r, function("nobootstrap", "provided.al2023", "bootstrap", makeZip(t, zipEntry{name: "main.sh", body: "#!/bin/sh\n", mode: 0o755})), `{}`)
	m := decode(t, res.Payload)
	if res.FunctionError != "Unhandled" || m["errorType"] != "Runtime.InvalidEntrypoint" ||
		!strings.HasPrefix(m["errorMessage"].(string), "RequestId: "+res.RequestID+" Error: Couldn't find valid bootstrap(s): [") {
		t.Errorf("missing bootstrap: %q %s", res.FunctionError, res.Payload)
	}
	res = invoke(t, r, function("noexec", "provided.al2", "bootstrap", makeZip(t, zipEntry{name: "bootstrap", body: "#!/bin/sh\n", mode: 0o644})), `{}`)
	m = decode(t, res.Payload)
	if res.FunctionError != "Unhandled" || m["errorType"] != "Runtime.InvalidEntrypoint" ||
		!strings.Contains(m["errorMessage"].(string), "bootstrap: permission denied") {
		t.Errorf("non-executable bootstrap: %q %s", res.FunctionError, res.Payload)
	}
	if !strings.Contains(string(res.LogTail), "END RequestId: "+res.RequestID) {
		t.Errorf("tail:\n%s", res.LogTail)
	}
}

func TestOversizedPayload(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := goFunction(t, "oversize")
	_, err := r.Invoke(context.Background(), fn, make([]byte, MaxPayloadSize+1))
	wantError(t, err, CodeRequestTooLarge, 413, "Request must be smaller than 6291456 bytes for the InvokeFunction operation")
	payload := `"` + strings.Repeat("x", MaxPayloadSize-2) + `"`
	res := invoke(t, r, fn, payload)
	mustOK(t, res)
	if len(res.Payload) != MaxPayloadSize {
		t.Errorf("echoed %d bytes", len(res.Payload))
	}
}

func TestUnknownRuntimes(t *testing.T) {
	r, _ := newRuntime(t, Config{Python: "python-not-installed-here"})
	code := makeZip(t, zipEntry{name: "app.py", body: ""})
	for rt, want := range map[string]string{
		"java21":     "not supported by this emulator",
		"dotnet8":    "not supported by this emulator",
		"cobol1.0":   "not a Lambda runtime this emulator knows",
		"python3.12": "needs python-not-installed-here",
	} {
		_, err := r.Invoke(context.Background(), function("rt", rt, "app.handler", code), nil)
		wantError(t, err, CodeInvalidRuntime, 502, want)
	}
	for _, info := range r.Runtimes() {
		if strings.HasPrefix(info.Name, "python") && (info.Available || !strings.Contains(info.Problem, "python-not-installed-here")) {
			t.Errorf("%+v", info)
		}
	}
}

func TestRuntimesList(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	seen := map[string]RuntimeInfo{}
	for _, info := range r.Runtimes() {
		seen[info.Name] = info
	}
	if p := seen["provided.al2023"]; !p.Available || p.How == "" {
		t.Errorf("provided.al2023: %+v", p)
	}
	if _, err := exec.LookPath("python3"); err == nil {
		if p := seen["python3.12"]; !p.Available || p.Interpreter == "" || !strings.HasPrefix(p.Version, "3.") {
			t.Errorf("python3.12: %+v", p)
		}
	}
	if _, err := exec.LookPath("node"); err == nil {
		if p := seen["nodejs20.x"]; !p.Available || p.Interpreter == "" || p.Version == "" {
			t.Errorf("nodejs20.x: %+v", p)
		}
	}
}

func TestGo1xRunsTheHandler(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	code := makeZip(t, zipEntry{name: "main", body: string(goProgram(t, "gofn")), mode: 0o755})
	res := invoke(t, r, function("go1x", "go1.x", "main", code), `{"v":1}`)
	mustOK(t, res)
	if string(res.Payload) != `{"v":1}` {
		t.Errorf("payload %s", res.Payload)
	}
}

// rawFunction is the misbehaving runtime in the given mode.
func rawFunction(t *testing.T, mode string) Function {
	fn := function("raw-"+mode, "provided.al2023", "bootstrap",
		makeZip(t, zipEntry{name: "bootstrap", body: string(goProgram(t, "rawfn")), mode: 0o755}))
	fn.Environment = map[string]string{"RAW_MODE": mode}
	fn.Timeout = time.Second
	return fn
}

func TestRuntimeAPIGarbage(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := rawFunction(t, "garbage")
	res := invoke(t, r, fn, `{}`)
	mustOK(t, res)
	m := decode(t, res.Payload)
	check := func(name string, code int, body string) {
		t.Helper()
		s, _ := m[name].(map[string]any)
		if s["code"] != float64(code) || !strings.Contains(s["body"].(string), body) {
			t.Errorf("%s: %v; want %d %s", name, m[name], code, body)
		}
	}
	check("wrongId", 400, `{"errorMessage":"Invalid request ID","errorType":"InvalidRequestID"}`)
	check("lateInitError", 403, `"errorType":"InvalidStateTransition"`)
	check("badPath", 404, "")
	check("badMethod", 405, "")
	if s, _ := m["garbageBytes"].(string); !strings.HasPrefix(s, "HTTP/1.1 400") {
		t.Errorf("garbage bytes answered %q", s)
	}
	// A second answer to an answered invocation is refused.
	m = decode(t, invoke(t, r, fn, `{}`).Payload)
	check("previousDouble", 400, "InvalidRequestID")
}

func TestRuntimeAPIMisbehaviour(t *testing.T) {
	r, _ := newRuntime(t, Config{InitTimeout: time.Second})
	for _, c := range []struct {
		mode, errorType, message, tail string
		maxTime                        time.Duration
	}{
		{"oversize-error", "Function.ResponseSizeTooLarge", "exceeded maximum allowed payload size (6291556 bytes)", "", 5 * time.Second},
		{"truncated", "Runtime.TruncatedResponse", "cut short", "", 5 * time.Second},
		{"garbage-exit", "Runtime.ExitError", "Runtime exited with error: exit status 3", "HTTP/1.1 400 Bad Request", 5 * time.Second},
		{"never", "", "Task timed out after 1.0", "Status: timeout", 5 * time.Second},
		{"next-twice", "", "Task timed out after 1.0", "Status: timeout", 5 * time.Second},
		{"no-next", "", "Task timed out after 1.0", "Phase: init\tStatus: timeout", 5 * time.Second},
		{"init-error", "Custom.InitFailure", "no database", "next after init error answered 403", 5 * time.Second},
		{"init-exit", "Runtime.ExitError", "Runtime exited with error: exit status 7", "exiting during init", 5 * time.Second},
	} {
		t.Run(c.mode, func(t *testing.T) {
			fn := rawFunction(t, c.mode)
			begin := time.Now()
			res := invoke(t, r, fn, `{}`)
			if took := time.Since(begin); took > c.maxTime {
				t.Errorf("took %v", took)
			}
			m := decode(t, res.Payload)
			if res.FunctionError != "Unhandled" || !strings.Contains(m["errorMessage"].(string), c.message) ||
				(c.errorType != "" && m["errorType"] != c.errorType) {
				t.Errorf("%q %s", res.FunctionError, res.Payload)
			}
			if !strings.Contains(string(res.LogTail), c.tail) {
				t.Errorf("tail lacks %q:\n%s", c.tail, res.LogTail)
			}
			if all, _ := poolSize(r, fn); c.errorType != "Function.ResponseSizeTooLarge" && c.errorType != "Runtime.TruncatedResponse" && all != 0 {
				t.Errorf("%d instances kept", all)
			}
		})
	}
	// Only the runtimes that went back to /next are left, and Close ends them.
	if n := len(processesIn(r.workDir)); n != 2 {
		t.Errorf("%d processes left; want the 2 that asked for more work", n)
	}
	r.Close()
	if left := processesIn(r.workDir); len(left) != 0 {
		t.Errorf("processes left after Close: %v", left)
	}
}

func TestShellBootstrapWithCurl(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl", err)
	}
	const bootstrap = `#!/bin/sh
set -eu
API="http://${AWS_LAMBDA_RUNTIME_API}/2018-06-01/runtime"
HEADERS="$(mktemp)"
trap 'rm -f "$HEADERS"' EXIT
while true; do
  EVENT=$(curl -sS -D "$HEADERS" "$API/invocation/next")
  REQUEST_ID=$(grep -i '^Lambda-Runtime-Aws-Request-Id:' "$HEADERS" | tr -d '[:space:]' | cut -d: -f2)
  echo "handling $REQUEST_ID in $(pwd)"
  case "$EVENT" in
    *fail*) curl -sS -o /dev/null -X POST -H 'Lambda-Runtime-Function-Error-Type: Shell.Failure' \
              "$API/invocation/$REQUEST_ID/error" -d '{"errorMessage":"asked to fail","errorType":"Shell.Failure"}' ;;
    *) curl -sS -o /dev/null -X POST "$API/invocation/$REQUEST_ID/response" -d "{\"echo\":$EVENT,\"handler\":\"$_HANDLER\"}" ;;
  esac
done
`
	r, _ := newRuntime(t, Config{})
	fn := function("shell", "provided.al2023", "function.handler", makeZip(t, zipEntry{name: "bootstrap", body: bootstrap, mode: 0o755}))
	res := invoke(t, r, fn, `{"x":1}`)
	mustOK(t, res)
	if string(res.Payload) != `{"echo":{"x":1},"handler":"function.handler"}` {
		t.Errorf("payload %s", res.Payload)
	}
	if !strings.Contains(string(res.LogTail), "handling "+res.RequestID) {
		t.Errorf("tail:\n%s", res.LogTail)
	}
	res = invoke(t, r, fn, `{"fail":true}`)
	if m := decode(t, res.Payload); res.FunctionError != "Unhandled" || m["errorType"] != "Shell.Failure" || res.ErrorType != "Shell.Failure" {
		t.Errorf("error: %q %s", res.FunctionError, res.Payload)
	}
	if res.InitDuration != 0 {
		t.Errorf("the shell runtime was restarted")
	}
}
