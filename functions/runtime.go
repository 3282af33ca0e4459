package functions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Runtime runs functions: it keeps a warm pool per function version, code
// and configuration, and starts, reuses, reaps and kills the instances.
type Runtime struct {
	cfg Config
	log *slog.Logger

	pools      sync.Map // pool key → *pool
	code       codeStore
	python     *interpreter
	node       *interpreter
	path       string // PATH given to functions
	workDir    string
	ownWorkDir bool   // a temp dir of ours: Close removes it
	runtimeDir string // our bootstraps (LAMBDA_RUNTIME_DIR)
	setupErr   error  // the work directory could not be made

	scriptsOnce sync.Once
	scriptsErr  error

	closed atomic.Bool
	// inFlight counts the invocations running or waiting for an
	// instance, every function together (bounded by cfg.MaxInvocations).
	inFlight atomic.Int64

	activity activityLog // recent invocations, for a dashboard (activity.go)
}

var errPoolGone = errors.New("pool evicted")

// initErrorGrace is how long a runtime that reported an init error may
// take to exit before it is killed.
const initErrorGrace = 200 * time.Millisecond

// New makes a Runtime. It starts nothing: instances start on first invoke.
func New(c Config) *Runtime {
	c = c.withDefaults()
	r := &Runtime{cfg: c, log: c.Log, python: newPython(c.Python), node: newNode(c.Node), path: os.Getenv("PATH")}
	if r.path == "" {
		r.path = "/usr/local/bin:/usr/bin:/bin"
	}
	r.workDir = c.WorkDir
	if r.workDir == "" {
		dir, err := os.MkdirTemp("", "emulator-functions-")
		if err != nil {
			r.setupErr = newError(CodeService, err, "making the functions' work directory")
			return r
		}
		r.workDir, r.ownWorkDir = dir, true
	} else if err := os.MkdirAll(r.workDir, 0o755); err != nil {
		r.setupErr = newError(CodeService, err, "making the functions' work directory %s", r.workDir)
		return r
	}
	if abs, err := filepath.Abs(r.workDir); err == nil {
		r.workDir = abs
	}
	r.code.dir = r.workDir
	r.runtimeDir = filepath.Join(r.workDir, ".runtime")
	return r
}

// Invoke runs fn on payload and waits for its answer (at most the
// function's timeout, plus its init when cold). It is safe for concurrent
// use; each call gets an instance of its own, waiting for one while the
// pool is full, and TooManyRequestsException when none frees within the
// function's timeout.
func (r *Runtime) Invoke(ctx context.Context, fn Function, payload []byte) (Result, error) {
	return r.InvokeWith(ctx, fn, Invocation{Payload: payload})
}

// InvokeWith is Invoke with the rest of what an invocation may carry: its
// request id, trace id, client context and identity.
func (r *Runtime) InvokeWith(ctx context.Context, fn Function, in Invocation) (Result, error) {
	if r.closed.Load() {
		return Result{}, newError(CodeService, nil, "the functions runtime is closed")
	}
	if r.setupErr != nil {
		return Result{}, r.setupErr
	}
	if len(in.Payload) > MaxPayloadSize {
		return Result{}, newError(CodeRequestTooLarge, nil, "Request must be smaller than %d bytes for the InvokeFunction operation", MaxPayloadSize)
	}
	if err := fn.check(); err != nil {
		return Result{}, err
	}
	if _, ok := familyOf(fn.Runtime); !ok {
		return Result{}, unsupportedRuntime(fn.Runtime)
	}
	// Past the account's concurrency an invocation is refused at once, as
	// Lambda does: waiters on full pools cannot pile up without bound.
	if r.inFlight.Add(1) > int64(r.cfg.MaxInvocations) {
		r.inFlight.Add(-1)
		return Result{}, errAccountConcurrency()
	}
	defer r.inFlight.Add(-1)
	inv := newInvocation(&fn, in)
	key := fn.poolKey()
	// A full pool is waited on for as long as the function may run, or
	// until the caller gives up.
	waitCtx, stopWait := context.WithTimeout(ctx, fn.timeout())
	defer stopWait()
	const attempts = 8
	for attempt := 1; ; attempt++ {
		v, ok := r.pools.Load(key)
		if !ok {
			v, _ = r.pools.LoadOrStore(key, &pool{key: key, arn: fn.ARN, runtime: r, all: map[*instance]struct{}{}})
		}
		p := v.(*pool)
		inst, cold, err := p.acquire(waitCtx.Done())
		if err == errPoolGone {
			if attempt < attempts {
				continue // evicted or emptied between lookup and acquire
			}
			return Result{}, newError(CodeService, err, "no pool for %s", fn.ARN)
		}
		if err != nil {
			return Result{}, err
		}
		if cold {
			res, err, started := r.coldStart(ctx, &fn, inst, inv)
			if !started {
				return res, err
			}
		} else {
			inst.out.attach(inv)
			r.platformLine(&fn, inst, inv, startLine(inv))
		}
		res, err := r.run(ctx, &fn, inst, inv, attempt == attempts)
		if err == errNotDelivered {
			// The instance died before its runtime took the invocation
			// (a runtime exits after a panic it reported, or a refused
			// answer): the function never saw it, so another instance may.
			inv.tail = tail{}
			continue
		}
		return res, err
	}
}

// errNotDelivered: the instance exited before taking the invocation.
var errNotDelivered = errors.New("the instance exited before taking the invocation")

// ending is how an invocation (or a cold start) ended.
type ending struct {
	answer   *answer // the runtime answered, or reported an init error
	timedOut bool
	exited   bool // the process exited first
	canceled bool // the caller stopped waiting
}

// coldStart unpacks the code if needed, starts the instance and waits for
// its runtime to ask for an invocation. started is false when it did not
// get that far; then res or err is the invocation's outcome.
func (r *Runtime) coldStart(ctx context.Context, fn *Function, inst *instance, inv *invocation) (res Result, err error, started bool) {
	fail := func() {
		inst.pool.retire(inst)
		inst.stop()
	}
	codeDir, err := r.code.dirFor(fn)
	if err != nil {
		fail()
		return Result{}, err, false
	}
	l, err := r.launchFor(fn, codeDir)
	if err == nil {
		err = inst.start(r, fn, l, codeDir, inv)
	}
	var entry *errEntrypoint
	if errors.As(err, &entry) {
		fail()
		return r.entrypointFailure(fn, inv, entry.msg), nil, false
	}
	if err != nil {
		fail()
		return Result{}, err, false
	}
	if r.closed.Load() {
		// Close ran after this invocation's first check and may not
		// have seen its pool: the instance is stopped here instead.
		fail()
		return Result{}, newError(CodeService, nil, "the functions runtime is closed"), false
	}
	timer := time.NewTimer(r.cfg.InitTimeout)
	defer timer.Stop()
	var e ending
	select {
	case <-inst.ready:
		inv.initDuration = time.Since(inst.started)
		r.platformLine(fn, inst, inv, startLine(inv))
		return Result{}, nil, true
	case <-inst.initFailedCh:
		e.answer = &inst.initErr
	case <-inst.exited:
		select {
		case <-inst.initFailedCh: // reported, then exited: the report says why
			e.answer = &inst.initErr
		default:
			e.exited = true
		}
	case <-timer.C:
		e.timedOut = true
	case <-ctx.Done():
		fail()
		return Result{}, canceled(ctx), false
	}
	inv.initDuration = time.Since(inst.started)
	return r.settle(fn, inst, inv, time.Now(), e, true), nil, false
}

// run hands inv to a ready instance and waits for the answer, at most the
// function's timeout.
//
// An instance that exits before taking inv answers errNotDelivered, unless
// last: then the exit is the invocation's outcome.
func (r *Runtime) run(ctx context.Context, fn *Function, inst *instance, inv *invocation, last bool) (Result, error) {
	timeout := fn.timeout()
	start := time.Now()
	inv.deadline = start.Add(timeout)
	timer := time.NewTimer(timeout)
	select {
	case inst.invocations <- inv:
	case <-inst.exited:
		timer.Stop()
		if !last {
			inst.out.detach(inv)
			return Result{}, errNotDelivered
		}
		return r.settle(fn, inst, inv, start, ending{exited: true}, false), nil
	case <-timer.C:
		return r.settle(fn, inst, inv, start, ending{timedOut: true}, false), nil
	case <-ctx.Done():
		// Not handed over: the instance is as it was.
		timer.Stop()
		inst.out.detach(inv)
		inst.pool.release(inst)
		return Result{}, canceled(ctx)
	}
	e := await(ctx.Done(), inst, inv, timer)
	if e.canceled {
		// Lambda lets an invocation run on when its caller leaves; so
		// does this, so the instance is free again only once it answers
		// (or times out, or Close kills it).
		go func() {
			e := await(nil, inst, inv, timer)
			timer.Stop()
			r.settle(fn, inst, inv, start, e, false)
		}()
		return Result{}, canceled(ctx)
	}
	timer.Stop()
	return r.settle(fn, inst, inv, start, e, false), nil
}

func await(canceled <-chan struct{}, inst *instance, inv *invocation, timer *time.Timer) ending {
	select {
	case a := <-inv.done:
		return ending{answer: &a}
	case <-inst.exited:
	case <-timer.C:
		select {
		case a := <-inv.done: // answered just in time
			return ending{answer: &a}
		default:
			return ending{timedOut: true}
		}
	case <-canceled:
		return ending{canceled: true}
	}
	select {
	case a := <-inv.done: // answered, then exited
		return ending{answer: &a}
	default:
		return ending{exited: true}
	}
}

func canceled(ctx context.Context) error {
	return newError(CodeService, ctx.Err(), "the invocation was abandoned by its caller")
}

// settle turns an ending into the invocation's Result and log, and returns
// the instance to its pool or stops it. inInit: the ending came before the
// runtime asked for its first invocation.
func (r *Runtime) settle(fn *Function, inst *instance, inv *invocation, start time.Time, e ending, inInit bool) Result {
	duration := time.Since(start)
	res := Result{RequestID: inv.id, Duration: duration, InitDuration: inv.initDuration}
	if inInit {
		res.Duration = 0
	}
	maxMem := memoryUsed(inst)
	keep := false
	var before, after []string // lines before END, after REPORT
	switch {
	case e.answer != nil && !inInit:
		res.Payload = e.answer.payload
		if e.answer.errorType != "" {
			res.FunctionError, res.ErrorType = "Unhandled", e.answer.errorType
		}
		keep = true
	case e.answer != nil: // the runtime's init error
		res.Payload, res.FunctionError, res.ErrorType = e.answer.payload, "Unhandled", e.answer.errorType
	case e.timedOut:
		took := duration
		if inInit {
			took = res.InitDuration
		}
		msg := fmt.Sprintf("%s %s Task timed out after %.2f seconds", time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), inv.id, took.Seconds())
		res.Payload, res.FunctionError, res.ErrorType = errorPayload(msg, ""), "Unhandled", "Sandbox.Timedout"
		after = append(after, msg)
	default: // exited
		msg := "RequestId: " + inv.id + " Error: " + inst.exitErr.Error()
		res.Payload, res.FunctionError, res.ErrorType = errorPayload(msg, "Runtime.ExitError"), "Unhandled", "Runtime.ExitError"
		before = append(before, msg, "Runtime.ExitError")
	}
	if !keep {
		inst.pool.retire(inst)
		if e.answer != nil {
			// A runtime that reported its init error exits by itself:
			// a moment's grace lets its last lines reach the log.
			select {
			case <-inst.exited:
			case <-time.After(initErrorGrace):
			}
		}
		inst.stop()
		// Bounded: a killed group is reaped within milliseconds.
		select {
		case <-inst.exited:
		case <-time.After(2 * time.Second):
		}
	}
	res.MaxMemoryUsedMB = maxMem
	inst.out.detach(inv)

	status := ""
	switch {
	case e.timedOut:
		status = "Status: timeout"
	case res.FunctionError != "" && !keep:
		status = "Status: error\tError Type: " + res.ErrorType
	}
	if inInit {
		initStatus := "Status: error\tError Type: " + res.ErrorType
		if e.timedOut {
			initStatus = "Status: timeout"
		}
		r.platformLine(fn, inst, inv, fmt.Sprintf("INIT_REPORT Init Duration: %.2f ms\tPhase: init\t%s", ms(res.InitDuration), initStatus))
		r.platformLine(fn, inst, inv, startLine(inv))
	}
	for _, l := range before {
		r.platformLine(fn, inst, inv, l)
	}
	r.platformLine(fn, inst, inv, "END RequestId: "+inv.id)
	r.platformLine(fn, inst, inv, reportLine(fn, inv.id, res, status))
	for _, l := range after {
		r.platformLine(fn, inst, inv, l)
	}
	res.LogTail = lastBytes(inv.tail.b, TailSize)
	// Every invocation that reached an instance ends here, once: before
	// the release, so the next one on this instance records after it.
	r.recordInvocation(fn, start.Add(-res.InitDuration), &res)
	if keep {
		inst.pool.release(inst)
	}
	return res
}

// entrypointFailure is the Result of a bootstrap that cannot be started,
// Runtime.InvalidEntrypoint as Lambda reports it.
func (r *Runtime) entrypointFailure(fn *Function, inv *invocation, why string) Result {
	msg := "RequestId: " + inv.id + " Error: " + why
	res := Result{RequestID: inv.id, Payload: errorPayload(msg, "Runtime.InvalidEntrypoint"),
		FunctionError: "Unhandled", ErrorType: "Runtime.InvalidEntrypoint"}
	log := r.log.With("function", fn.Name, "requestId", inv.id)
	for _, l := range []string{
		"INIT_REPORT Init Duration: 0.00 ms\tPhase: init\tStatus: error\tError Type: Runtime.InvalidEntrypoint",
		startLine(inv), msg, "Runtime.InvalidEntrypoint", "END RequestId: " + inv.id,
		reportLine(fn, inv.id, res, "Status: error\tError Type: Runtime.InvalidEntrypoint"),
	} {
		inv.tail.addString(l)
		log.Info(l)
	}
	res.LogTail = lastBytes(inv.tail.b, TailSize)
	r.recordInvocation(fn, time.Now(), &res)
	return res
}

// platformLine writes one of Lambda's own log lines (START, END, REPORT…)
// into the invocation's tail and the log.
// The lines go to the invocation's log tail always, and to the emulator's
// log at debug: three lines per invocation at info would drown the
// function's own output (which is logged at info) under load.
func (r *Runtime) platformLine(fn *Function, inst *instance, inv *invocation, line string) {
	inst.out.note(inv, line)
	inst.out.log.Debug(line, "requestId", inv.id)
}

func startLine(inv *invocation) string {
	return "START RequestId: " + inv.id + " Version: " + inv.version
}

// reportLine is Lambda's REPORT line. Billed duration is rounded up to the
// millisecond; OS-only runtimes are billed their init too, as on Lambda.
func reportLine(fn *Function, id string, res Result, status string) string {
	billed := res.Duration
	if fam, _ := familyOf(fn.Runtime); fam == native {
		billed += res.InitDuration
	}
	var b strings.Builder
	fmt.Fprintf(&b, "REPORT RequestId: %s\tDuration: %.2f ms\tBilled Duration: %d ms\tMemory Size: %d MB\tMax Memory Used: %d MB\t",
		id, ms(res.Duration), max(1, int64(math.Ceil(ms(billed)))), fn.memoryMB(), res.MaxMemoryUsedMB)
	if res.InitDuration > 0 {
		fmt.Fprintf(&b, "Init Duration: %.2f ms\t", ms(res.InitDuration))
	}
	if status != "" {
		b.WriteString(status)
		b.WriteByte('\t')
	}
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// lastBytes is the last n bytes of b, not starting inside a UTF-8 sequence.
func lastBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return append([]byte(nil), b...)
	}
	b = b[len(b)-n:]
	for i := 0; i < 3 && len(b) > 0 && b[0]&0xC0 == 0x80; i++ {
		b = b[1:]
	}
	return append([]byte(nil), b...)
}

// Evict drops the warm instances of the functions whose qualified ARN is
// arnPrefix or starts with arnPrefix+":" (so "…:function:f" is every
// version of f, not f2). Busy instances finish their invocation first.
// A function evicted whole (deleted) loses its remembered invocations.
func (r *Runtime) Evict(arnPrefix string) {
	r.activity.forget(arnPrefix)
	r.pools.Range(func(k, v any) bool {
		p := v.(*pool)
		if arnUnder(p.arn, arnPrefix) {
			r.pools.CompareAndDelete(k, p)
			p.kill(false)
		}
		return true
	})
}

// Close kills every instance's process group, waits (boundedly) for them
// to be reaped, and removes the work directory if it was a temp dir of
// its own. Invocations in flight end with Runtime.ExitError.
func (r *Runtime) Close() error {
	if r.closed.Swap(true) {
		return nil
	}
	var stopped []*instance
	r.pools.Range(func(k, v any) bool {
		r.pools.Delete(k)
		stopped = append(stopped, v.(*pool).kill(true)...)
		return true
	})
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	var err error
	for _, in := range stopped {
		select {
		case <-in.exited:
		case <-deadline.C:
			err = newError(CodeService, nil, "function processes were not reaped within 5 s")
		}
		if err != nil {
			break
		}
	}
	if r.ownWorkDir {
		if rerr := os.RemoveAll(r.workDir); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}
