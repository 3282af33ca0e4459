package functions

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// instance is one execution environment: a process (its own process
// group) and the Runtime API server it talks to.
type instance struct {
	pool *pool

	// Set by start (under mu), read-only after. cmd is nil until the
	// process runs.
	cmd     *exec.Cmd
	pid     int // also the process group's id
	srv     *http.Server
	out     *output
	started time.Time

	invocations chan *invocation // to the runtime's pending GET /next
	ready       chan struct{}    // closed at the runtime's first GET /next
	stopping    chan struct{}    // closed by stop
	exited      chan struct{}    // closed once the process is reaped
	exitErr     error            // why it exited; set before exited closes

	// The Runtime API's state, under mu.
	mu           sync.Mutex
	isReady      bool
	initFailed   bool
	initFailedCh chan struct{} // closed once initErr is set
	initErr      answer
	current      *invocation
	stopped      bool // stop ran
	// peakMB and peakAt: the last reading of the process's peak memory
	// (memoryUsed).
	peakMB int
	peakAt time.Time

	// The pool's bookkeeping, under pool.mu.
	idle      bool
	idleSince time.Time
	idleTimer *time.Timer
	retired   bool
}

func newInstance(p *pool) *instance {
	return &instance{
		pool:         p,
		invocations:  make(chan *invocation),
		ready:        make(chan struct{}),
		stopping:     make(chan struct{}),
		exited:       make(chan struct{}),
		initFailedCh: make(chan struct{}),
	}
}

// start launches the process with its Runtime API; the lines it writes
// while starting belong to first. An *errEntrypoint means the bootstrap
// cannot be run at all.
func (in *instance) start(r *Runtime, fn *Function, l launch, codeDir string, first *invocation) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.stopped {
		return newError(CodeService, nil, "the function's instances were stopped while one started")
	}
	if fi, err := os.Stat(l.argv[0]); err != nil || fi.IsDir() {
		return &errEntrypoint{fmt.Sprintf("Couldn't find valid bootstrap(s): [%s]", l.argv[0])}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return newError(CodeService, err, "opening the Runtime API")
	}
	in.srv = &http.Server{
		Handler:           in,
		ReadHeaderTimeout: 10 * time.Second, // a runtime that connects and says nothing
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(r.log.Handler(), slog.LevelDebug),
	}
	go func() { _ = in.srv.Serve(ln) }()

	pr, pw, err := os.Pipe()
	if err != nil {
		in.srv.Close()
		return newError(CodeService, err, "opening the function's output")
	}
	in.out, err = newOutput(pr, r.log.With("function", fn.Name))
	if err != nil {
		pr.Close()
		pw.Close()
		in.srv.Close()
		return newError(CodeService, err, "opening the function's output")
	}
	in.out.attach(first)

	cmd := exec.Command(l.argv[0], l.argv[1:]...)
	cmd.Dir = codeDir
	cmd.Env = r.environment(fn, l, codeDir, ln.Addr().String())
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = processAttributes()
	err = startProcess(cmd)
	pw.Close() // the child holds its own copy
	if err != nil {
		pr.Close()
		in.srv.Close()
		return &errEntrypoint{err.Error()} // "fork/exec …/bootstrap: permission denied", as Lambda says it
	}
	in.cmd, in.pid, in.started = cmd, cmd.Process.Pid, time.Now()
	go in.out.run()
	go in.wait()
	return nil
}

// wait reaps the process, then ends what it leaves: the rest of its group
// (a crashed bootstrap's children) and the Runtime API.
func (in *instance) wait() {
	err := in.cmd.Wait()
	if err == nil {
		err = errors.New("Runtime exited without providing a reason")
	} else {
		err = errors.New("Runtime exited with error: " + err.Error())
	}
	_ = syscall.Kill(-in.pid, syscall.SIGKILL)
	in.exitErr = err
	close(in.exited)
	in.srv.Close()
	in.pool.retire(in)
}

// stop kills the process group. The process is reaped by wait; exited
// closes then.
func (in *instance) stop() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.stopped {
		return
	}
	in.stopped = true
	close(in.stopping)
	if in.cmd == nil {
		close(in.exited) // nothing to reap
		return
	}
	if !in.hasExited() { // once reaped, the group's id may be reused
		_ = syscall.Kill(-in.pid, syscall.SIGKILL)
	}
}

// hasExited reports whether the process is gone.
func (in *instance) hasExited() bool {
	select {
	case <-in.exited:
		return true
	default:
		return false
	}
}

// reserved are the variables Lambda sets that a function's own environment
// may not change (Lambda refuses them at create; here Lambda's values win).
var reserved = map[string]bool{
	"_HANDLER": true, "_X_AMZN_TRACE_ID": true, "AWS_DEFAULT_REGION": true, "AWS_REGION": true,
	"AWS_EXECUTION_ENV": true, "AWS_LAMBDA_FUNCTION_NAME": true, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": true,
	"AWS_LAMBDA_FUNCTION_VERSION": true, "AWS_LAMBDA_INITIALIZATION_TYPE": true, "AWS_LAMBDA_LOG_GROUP_NAME": true,
	"AWS_LAMBDA_LOG_STREAM_NAME": true, "AWS_ACCESS_KEY": true, "AWS_ACCESS_KEY_ID": true,
	"AWS_SECRET_ACCESS_KEY": true, "AWS_SESSION_TOKEN": true, "AWS_LAMBDA_RUNTIME_API": true,
	"LAMBDA_TASK_ROOT": true, "LAMBDA_RUNTIME_DIR": true,
}

// environment is the process's whole environment: nothing of the
// emulator's own but PATH, as a Lambda sandbox has nothing of the host's.
func (r *Runtime) environment(fn *Function, l launch, codeDir, apiAddr string) []string {
	env := map[string]string{
		// Lambda's defaults that a function may change.
		"PATH":            r.path,
		"LANG":            "en_US.UTF-8",
		"TZ":              ":UTC",
		"LD_LIBRARY_PATH": codeDir + "/lib",
	}
	if r.cfg.EndpointURL != "" {
		env["AWS_ENDPOINT_URL"] = r.cfg.EndpointURL
	}
	for k, v := range fn.Environment {
		if !reserved[k] {
			env[k] = v
		}
	}
	// The function's calls to the emulator land in its own account: a
	// 12-digit access key stands for that account.
	key := "test"
	if isAccountID(fn.Account) {
		key = fn.Account
	}
	version := fn.version()
	env["_HANDLER"] = fn.Handler
	env["AWS_REGION"] = fn.Region
	env["AWS_DEFAULT_REGION"] = fn.Region
	env["AWS_LAMBDA_FUNCTION_NAME"] = fn.Name
	env["AWS_LAMBDA_FUNCTION_VERSION"] = version
	env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = strconv.Itoa(fn.memoryMB())
	env["AWS_LAMBDA_INITIALIZATION_TYPE"] = "on-demand"
	env["AWS_LAMBDA_LOG_GROUP_NAME"] = "/aws/lambda/" + fn.Name
	env["AWS_LAMBDA_LOG_STREAM_NAME"] = logStreamName(version)
	env["AWS_LAMBDA_RUNTIME_API"] = apiAddr
	env["AWS_ACCESS_KEY_ID"] = key
	env["AWS_SECRET_ACCESS_KEY"] = "test"
	env["AWS_SESSION_TOKEN"] = "test"
	env["LAMBDA_TASK_ROOT"] = codeDir
	env["LAMBDA_RUNTIME_DIR"] = r.runtimeDir
	if l.execEnv != "" {
		env["AWS_EXECUTION_ENV"] = l.execEnv
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func isAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// logStreamName is a stream name as Lambda makes them:
// 2026/01/02/[$LATEST]<32 hex digits>.
func logStreamName(version string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("2006/01/02") + "/[" + version + "]" + hex.EncodeToString(b[:])
}

// memoryUsed is the process's peak resident memory in MB, rounded up.
// A live process is read at most once a second: reading /proc per
// invocation cost a sixth of a warm invocation's CPU, and the peak only
// grows, so a reading a second old is at most a second behind.
func memoryUsed(in *instance) int {
	in.mu.Lock()
	launched, mb, at := in.cmd != nil, in.peakMB, in.peakAt
	in.mu.Unlock()
	if !launched {
		return 0
	}
	var bytes int64
	if in.hasExited() {
		if ru, ok := in.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			bytes = int64(ru.Maxrss) * maxRSSUnit
		}
	} else {
		if time.Since(at) < peakReadEvery {
			return mb
		}
		bytes = peakRSS(in.pid)
	}
	mb = int((bytes + 1<<20 - 1) >> 20)
	in.mu.Lock()
	in.peakMB, in.peakAt = mb, time.Now()
	in.mu.Unlock()
	return mb
}

// peakReadEvery is how often a live instance's peak memory is read.
const peakReadEvery = time.Second
