package functions

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestGoEcho(t *testing.T) {
	r, logs := newRuntime(t, Config{})
	fn := goFunction(t, "echo")
	res := invoke(t, r, fn, `{"hello":"world"}`)
	mustOK(t, res)
	if string(res.Payload) != `{"hello":"world"}` {
		t.Fatalf("payload %s", res.Payload)
	}
	if res.InitDuration <= 0 {
		t.Errorf("cold start without InitDuration")
	}
	tail := string(res.LogTail)
	for _, want := range []string{
		"START RequestId: " + res.RequestID + " Version: $LATEST\n",
		"END RequestId: " + res.RequestID + "\n",
		"REPORT RequestId: " + res.RequestID + "\tDuration: ",
		"\tBilled Duration: ", "\tMemory Size: 128 MB\tMax Memory Used: ", "\tInit Duration: ",
	} {
		if !strings.Contains(tail, want) {
			t.Errorf("tail lacks %q:\n%s", want, tail)
		}
	}
	if res.MaxMemoryUsedMB <= 0 {
		t.Errorf("MaxMemoryUsedMB %d", res.MaxMemoryUsedMB)
	}
	// Warm: same instance, no init.
	res2 := invoke(t, r, fn, `{"n":2}`)
	mustOK(t, res2)
	if res2.InitDuration != 0 || strings.Contains(string(res2.LogTail), "Init Duration") {
		t.Errorf("warm invoke reports an init: %v\n%s", res2.InitDuration, res2.LogTail)
	}
	if all, idle := poolSize(r, fn); all != 1 || idle != 1 {
		t.Errorf("pool: %d instances, %d idle; want 1, 1", all, idle)
	}
	if len(logs.find("REPORT RequestId: "+res2.RequestID)) != 1 {
		t.Errorf("REPORT not logged")
	}
}

func TestGoLogs(t *testing.T) {
	r, logs := newRuntime(t, Config{})
	fn := goFunction(t, "logs")
	res := invoke(t, r, fn, `{"action":"log","lines":3}`)
	mustOK(t, res)
	tail := string(res.LogTail)
	for i := 0; i < 3; i++ {
		for _, want := range []string{fmt.Sprintf("stdout line %d\n", i), fmt.Sprintf("stderr line %d\n", i)} {
			if !strings.Contains(tail, want) {
				t.Errorf("tail lacks %q:\n%s", want, tail)
			}
		}
	}
	// Lines come between START and END.
	if s, l, e := strings.Index(tail, "START"), strings.Index(tail, "stdout line 0"), strings.Index(tail, "END"); !(s < l && l < e) {
		t.Errorf("lines out of order:\n%s", tail)
	}
	recs := logs.find("stderr line 2")
	if len(recs) != 1 || recs[0]["function"] != "logs" || recs[0]["requestId"] != res.RequestID {
		t.Errorf("log record %v; want function=logs requestId=%s", recs, res.RequestID)
	}
	// The tail is the last 4 KB.
	res = invoke(t, r, fn, `{"action":"log","lines":400}`)
	if len(res.LogTail) > TailSize || !strings.Contains(string(res.LogTail), "stderr line 399\n") ||
		!strings.Contains(string(res.LogTail), "REPORT RequestId") {
		t.Errorf("tail of %d bytes:\n%s", len(res.LogTail), res.LogTail)
	}
}

func TestGoErrorAndPanic(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := goFunction(t, "errors")
	res := invoke(t, r, fn, `{"action":"error"}`)
	if res.FunctionError != "Unhandled" {
		t.Fatalf("FunctionError %q", res.FunctionError)
	}
	m := decode(t, res.Payload)
	if m["errorMessage"] != "something went wrong" || m["errorType"] != "errorString" {
		t.Errorf("error payload %s", res.Payload)
	}
	// An error leaves the instance warm.
	mustOK(t, invoke(t, r, fn, `{}`))
	if all, _ := poolSize(r, fn); all != 1 {
		t.Errorf("%d instances after a handled error", all)
	}

	res = invoke(t, r, fn, `{"action":"panic"}`)
	m = decode(t, res.Payload)
	if res.FunctionError != "Unhandled" || m["errorMessage"] != "the function panicked" || m["stackTrace"] == nil {
		t.Errorf("panic: %q %s", res.FunctionError, res.Payload)
	}
	// aws-lambda-go exits after a panic; the next invoke gets a new instance.
	res = invoke(t, r, fn, `{"action":"pid"}`)
	mustOK(t, res)
}

func TestGoCrash(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := goFunction(t, "crash")
	first := decode(t, invoke(t, r, fn, `{"action":"pid"}`).Payload)
	res := invoke(t, r, fn, `{"action":"exit","code":1}`)
	m := decode(t, res.Payload)
	want := "RequestId: " + res.RequestID + " Error: Runtime exited with error: exit status 1"
	if res.FunctionError != "Unhandled" || m["errorType"] != "Runtime.ExitError" || m["errorMessage"] != want {
		t.Fatalf("crash: %q %s; want %q", res.FunctionError, res.Payload, want)
	}
	if !strings.Contains(string(res.LogTail), "about to exit\n") || !strings.Contains(string(res.LogTail), want+"\nRuntime.ExitError\n") {
		t.Errorf("tail:\n%s", res.LogTail)
	}
	// Replaced on the next invoke.
	res = invoke(t, r, fn, `{"action":"pid"}`)
	mustOK(t, res)
	if decode(t, res.Payload)["pid"] == first["pid"] || res.InitDuration == 0 {
		t.Errorf("not a fresh instance: %s", res.Payload)
	}
}

func TestGoTimeout(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := goFunction(t, "timeout")
	fn.Timeout = time.Second
	pids := decode(t, invoke(t, r, fn, `{"action":"spawn"}`).Payload)
	pgid := int(pids["pgid"].(float64))
	child := int(pids["child"].(float64))
	if pgid != int(pids["pid"].(float64)) {
		t.Errorf("the bootstrap is not its group's leader: %v", pids)
	}
	begin := time.Now()
	res := invoke(t, r, fn, `{"action":"sleep","ms":5000}`)
	took := time.Since(begin)
	if took < time.Second || took > 5*time.Second {
		t.Errorf("timeout after %v", took)
	}
	m := decode(t, res.Payload)
	msg, _ := m["errorMessage"].(string)
	if res.FunctionError != "Unhandled" || !strings.HasSuffix(msg, " "+res.RequestID+" Task timed out after 1.00 seconds") || len(m) != 1 {
		t.Errorf("timeout payload %s", res.Payload)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", strings.Fields(msg)[0]); err != nil {
		t.Errorf("timeout message does not start with a time: %q", msg)
	}
	if !strings.Contains(string(res.LogTail), "Task timed out after 1.00 seconds") || !strings.Contains(string(res.LogTail), "Status: timeout") {
		t.Errorf("tail:\n%s", res.LogTail)
	}
	// The whole group is gone, the child it spawned included.
	if !eventually(2*time.Second, func() bool { return !groupAlive(pgid) && !alive(child) }) {
		t.Errorf("process group %d (child %d) survived the timeout", pgid, child)
	}
	// The next invoke gets a fresh instance.
	res = invoke(t, r, fn, `{"action":"pid"}`)
	mustOK(t, res)
	if int(decode(t, res.Payload)["pid"].(float64)) == pgid || res.InitDuration == 0 {
		t.Errorf("not a fresh instance after a timeout: %s", res.Payload)
	}
}

func TestGoConcurrency(t *testing.T) {
	const max = 3
	r, _ := newRuntime(t, Config{MaxConcurrency: max})
	fn := goFunction(t, "concurrent")
	mustOK(t, invoke(t, r, fn, `{}`)) // unpack once

	var wg sync.WaitGroup
	var mu sync.Mutex
	pids := map[float64]bool{}
	throttled := 0
	for i := 0; i < max+2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Invoke(context.Background(), fn, []byte(`{"action":"sleep","ms":1500}`))
			mu.Lock()
			defer mu.Unlock()
			var fe *Error
			switch {
			case errors.As(err, &fe) && fe.Code == CodeTooManyRequests:
				if fe.Status != 429 || fe.Message != "Rate Exceeded." || fe.Reason != ReasonConcurrencyLimit {
					t.Errorf("throttle error %+v", fe)
				}
				throttled++
			case err != nil:
				t.Errorf("Invoke: %v", err)
			default:
				if res.FunctionError != "" {
					t.Errorf("%s", res.Payload)
					return
				}
				pids[decode(t, res.Payload)["pid"].(float64)] = true
			}
		}()
	}
	// The two past the cap wait for an instance instead of failing.
	wg.Wait()
	if len(pids) != max || throttled != 0 {
		t.Errorf("%d instances served, %d throttled; want %d and none", len(pids), throttled, max)
	}
	if all, idle := poolSize(r, fn); all != max || idle != max {
		t.Errorf("pool: %d instances, %d idle", all, idle)
	}
	// A free instance is reused rather than another started.
	mustOK(t, invoke(t, r, fn, `{}`))
	if all, _ := poolSize(r, fn); all != max {
		t.Errorf("pool grew to %d", all)
	}

	// While every instance is busy, a caller that cannot wait for one is
	// throttled as Lambda throttles.
	for i := 0; i < max; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = r.Invoke(context.Background(), fn, []byte(`{"action":"sleep","ms":800}`))
		}()
	}
	if !eventually(2*time.Second, func() bool { all, idle := poolSize(r, fn); return all == max && idle == 0 }) {
		t.Fatal("the pool never got busy")
	}
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := r.Invoke(short, fn, []byte(`{}`))
	var fe *Error
	if !errors.As(err, &fe) || fe.Code != CodeTooManyRequests || fe.Status != 429 || fe.Message != "Rate Exceeded." || fe.Reason != ReasonConcurrencyLimit {
		t.Errorf("a full pool's refusal: %v", err)
	}
	wg.Wait()
}

func TestGoIdleReap(t *testing.T) {
	r, _ := newRuntime(t, Config{IdleTimeout: 600 * time.Millisecond})
	fn := goFunction(t, "reap")
	res := invoke(t, r, fn, `{"action":"pid"}`)
	mustOK(t, res)
	pid := int(decode(t, res.Payload)["pid"].(float64))
	// Used again before the timeout: kept.
	time.Sleep(300 * time.Millisecond)
	mustOK(t, invoke(t, r, fn, `{}`))
	time.Sleep(300 * time.Millisecond)
	if !alive(pid) {
		t.Fatalf("reaped while in use")
	}
	if !eventually(2*time.Second, func() bool { return !alive(pid) }) {
		t.Fatalf("idle instance %d not reaped", pid)
	}
	if all, _ := poolSize(r, fn); all != 0 {
		t.Errorf("%d instances left", all)
	}
	res = invoke(t, r, fn, `{}`)
	mustOK(t, res)
	if res.InitDuration == 0 {
		t.Errorf("no cold start after reaping")
	}
}

func TestGoEvict(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := goFunction(t, "evict")
	other := goFunction(t, "evict2") // shares the prefix "…:evict" but is another function
	pid := int(decode(t, invoke(t, r, fn, `{"action":"pid"}`).Payload)["pid"].(float64))
	otherPid := int(decode(t, invoke(t, r, other, `{"action":"pid"}`).Payload)["pid"].(float64))
	r.Evict("arn:aws:lambda:us-east-1:123456789012:function:evict")
	if !eventually(2*time.Second, func() bool { return !alive(pid) }) {
		t.Errorf("evicted instance still running")
	}
	if !alive(otherPid) {
		t.Errorf("Evict reached another function")
	}
	res := invoke(t, r, fn, `{}`)
	mustOK(t, res)
	if res.InitDuration == 0 {
		t.Errorf("no cold start after Evict")
	}
}

func TestGoEvictBusy(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := goFunction(t, "evictbusy")
	mustOK(t, invoke(t, r, fn, `{}`))
	done := make(chan Result)
	go func() { done <- invoke(t, r, fn, `{"action":"sleep","ms":1000}`) }()
	time.Sleep(300 * time.Millisecond)
	r.Evict(fn.ARN)
	res := <-done
	mustOK(t, res) // the busy instance finished its invocation
	pid := int(decode(t, res.Payload)["pid"].(float64))
	if !eventually(2*time.Second, func() bool { return !alive(pid) }) {
		t.Errorf("evicted busy instance kept after it finished")
	}
}

func TestGoCloseLeavesNoProcess(t *testing.T) {
	r := New(Config{WorkDir: t.TempDir()})
	fn := goFunction(t, "close")
	var groups []int
	for i := 0; i < 3; i++ {
		f := fn
		f.Name = fmt.Sprintf("close%d", i)
		f.ARN += fmt.Sprint(i)
		res := invoke(t, r, f, `{"action":"spawn"}`)
		mustOK(t, res)
		groups = append(groups, int(decode(t, res.Payload)["pgid"].(float64)))
	}
	// One busy in an invocation while Close runs.
	busy := make(chan Result, 1)
	go func() {
		res, _ := r.Invoke(context.Background(), fn, []byte(`{"action":"spawn-sleep","ms":10000}`))
		busy <- res
	}()
	time.Sleep(300 * time.Millisecond)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-busy:
		if res.FunctionError != "Unhandled" {
			t.Errorf("in-flight invoke after Close: %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight invoke hangs after Close")
	}
	for _, g := range groups {
		if groupAlive(g) {
			t.Errorf("process group %d survived Close", g)
		}
	}
	if _, err := r.Invoke(context.Background(), fn, nil); err == nil {
		t.Errorf("Invoke after Close succeeded")
	}
}

func TestGoContextAndEnvironment(t *testing.T) {
	r, _ := newRuntime(t, Config{EndpointURL: "http://127.0.0.1:4566"})
	fn := goFunction(t, "ctx")
	fn.Environment = map[string]string{"MY_VAR": "mine", "AWS_REGION": "eu-west-9", "LANG": "C.UTF-8"}
	res, err := r.InvokeWith(context.Background(), fn, Invocation{
		Payload: []byte(`{"action":"context"}`), RequestID: "11111111-2222-3333-4444-555555555555",
		ClientContext: `{"custom":{"k":"v"}}`, CognitoIdentity: `{"cognitoIdentityId":"id-1"}`,
		TraceID: "Root=1-65a1b2c3-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, res)
	m := decode(t, res.Payload)
	want := map[string]any{
		"requestId": "11111111-2222-3333-4444-555555555555", "arn": fn.ARN, "functionName": "ctx",
		"version": "$LATEST", "memory": float64(128), "logGroup": "/aws/lambda/ctx", "identity": "id-1",
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("context %s = %v, want %v", k, m[k], v)
		}
	}
	if rem := m["remainingMs"].(float64); rem <= 0 || rem > 5000 {
		t.Errorf("remaining %v ms", rem)
	}
	if m["traceId"] != "Root=1-65a1b2c3-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1" {
		t.Errorf("trace id %v", m["traceId"])
	}
	if cc, _ := m["clientCtx"].(map[string]any); cc["k"] != "v" {
		t.Errorf("client context %v", m["clientCtx"])
	}
	if res.RequestID != "11111111-2222-3333-4444-555555555555" {
		t.Errorf("RequestID %s", res.RequestID)
	}

	env := decode(t, invoke(t, r, fn, `{"action":"env"}`).Payload)
	for k, v := range map[string]string{
		"MY_VAR": "mine", "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1", "LANG": "C.UTF-8",
		"AWS_LAMBDA_FUNCTION_NAME": "ctx", "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "128",
		"AWS_LAMBDA_LOG_GROUP_NAME": "/aws/lambda/ctx", "_HANDLER": "bootstrap", "TZ": ":UTC",
		"AWS_ACCESS_KEY_ID": "123456789012", "AWS_SECRET_ACCESS_KEY": "test", "AWS_SESSION_TOKEN": "test",
		"AWS_ENDPOINT_URL": "http://127.0.0.1:4566", "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
	} {
		if env[k] != v {
			t.Errorf("env %s = %v, want %q", k, env[k], v)
		}
	}
	for _, k := range []string{"AWS_LAMBDA_RUNTIME_API", "LAMBDA_TASK_ROOT", "LAMBDA_RUNTIME_DIR", "PATH", "AWS_LAMBDA_LOG_STREAM_NAME"} {
		if env[k] == "" || env[k] == nil {
			t.Errorf("env %s unset", k)
		}
	}
	if env["cwd"] != env["LAMBDA_TASK_ROOT"] || !strings.HasPrefix(env["AWS_LAMBDA_RUNTIME_API"].(string), "127.0.0.1:") {
		t.Errorf("cwd %v, task root %v, API %v", env["cwd"], env["LAMBDA_TASK_ROOT"], env["AWS_LAMBDA_RUNTIME_API"])
	}
	if _, ok := env["AWS_EXECUTION_ENV"]; ok {
		t.Errorf("AWS_EXECUTION_ENV set for an OS-only runtime")
	}
	if _, ok := env["HOME"]; ok {
		t.Errorf("the emulator's environment leaked: HOME")
	}
}

func TestGoConfigChangeGetsNewInstances(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := goFunction(t, "cfg")
	a := decode(t, invoke(t, r, fn, `{"action":"pid"}`).Payload)["pid"]
	fn.Environment = map[string]string{"X": "1"}
	b := decode(t, invoke(t, r, fn, `{"action":"pid"}`).Payload)["pid"]
	if a == b {
		t.Errorf("a changed configuration reused the old instance")
	}
}

func TestGoCanceledInvocationFinishesInBackground(t *testing.T) {
	r, _ := newRuntime(t, Config{MaxConcurrency: 1})
	fn := goFunction(t, "cancel")
	mustOK(t, invoke(t, r, fn, `{}`))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := r.Invoke(ctx, fn, []byte(`{"action":"sleep","ms":1000}`))
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("canceled invoke: %v", err)
	}
	// The instance is busy until the function answers, then free again: a
	// caller that cannot wait that long gets TooManyRequests.
	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	if _, err := r.Invoke(short, fn, []byte(`{}`)); !errors.As(err, &fe) || fe.Code != CodeTooManyRequests {
		t.Errorf("the busy instance was handed out again: %v", err)
	}
	if !eventually(2*time.Second, func() bool { _, idle := poolSize(r, fn); return idle == 1 }) {
		t.Fatal("instance not returned after its invocation finished")
	}
	mustOK(t, invoke(t, r, fn, `{}`))
}

func TestGoBigResponse(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := goFunction(t, "big")
	res := invoke(t, r, fn, `{"action":"big","size":7000000}`)
	m := decode(t, res.Payload)
	if res.FunctionError != "Unhandled" || m["errorType"] != "Function.ResponseSizeTooLarge" ||
		!strings.Contains(m["errorMessage"].(string), "exceeded maximum allowed payload size (6291556 bytes)") {
		t.Errorf("oversized response: %q %s", res.FunctionError, res.Payload)
	}
	// Just under the limit passes (a JSON string: two quotes).
	res = invoke(t, r, fn, `{"action":"big","size":6291000}`)
	mustOK(t, res)
	if len(res.Payload) != 6291002 {
		t.Errorf("payload of %d bytes", len(res.Payload))
	}
}

func TestGoEndlessOutput(t *testing.T) {
	r, _ := newRuntime(t, Config{Log: quietLog()})
	fn := goFunction(t, "spew")
	for i := 0; i < 3; i++ {
		begin := time.Now()
		res := invoke(t, r, fn, `{"action":"spew"}`)
		mustOK(t, res)
		if took := time.Since(begin); took > 5*time.Second {
			t.Errorf("invoke %d took %v under endless output", i, took)
		}
		if len(res.LogTail) > TailSize {
			t.Errorf("tail of %d bytes", len(res.LogTail))
		}
	}
}

// TestGoWaitersServedInOrder: past the cap, invocations are served in the
// order they came, and the place of an instance that dies goes to the
// first waiter, as a new instance.
func TestGoWaitersServedInOrder(t *testing.T) {
	r, _ := newRuntime(t, Config{MaxConcurrency: 1})
	fn := goFunction(t, "fifo")
	mustOK(t, invoke(t, r, fn, `{}`))

	busy := make(chan Result, 1)
	go func() { busy <- invoke(t, r, fn, `{"action":"sleep","ms":400}`) }()
	if !eventually(2*time.Second, func() bool { _, idle := poolSize(r, fn); return idle == 0 }) {
		t.Fatal("the instance never got busy")
	}
	const waiters = 4
	order := make(chan int, waiters)
	var wg sync.WaitGroup
	for i := 0; i < waiters; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mustOK(t, invoke(t, r, fn, `{}`))
			order <- i
		}()
		time.Sleep(30 * time.Millisecond) // each waits before the next comes
	}
	wg.Wait()
	close(order)
	want := 0
	for got := range order {
		if got != want {
			t.Errorf("waiter %d served in place %d", got, want)
		}
		want++
	}
	mustOK(t, <-busy)

	// The busy instance exits; the waiter behind it gets a new one.
	crash := make(chan Result, 1)
	go func() { crash <- invoke(t, r, fn, `{"action":"exit"}`) }()
	if !eventually(2*time.Second, func() bool { _, idle := poolSize(r, fn); return idle == 0 }) {
		t.Fatal("the instance never got busy")
	}
	res := invoke(t, r, fn, `{"action":"pid"}`)
	mustOK(t, res)
	if res.InitDuration == 0 {
		t.Errorf("the waiter did not get a new instance: %+v", res)
	}
	if c := <-crash; c.FunctionError == "" {
		t.Errorf("exit was not an error: %s", c.Payload)
	}
}
