package lambda_test

import (
	"archive/zip"
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/actors/lambda"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
	"github.com/cloudemu/emulator/functions"
	"github.com/cloudemu/emulator/store"
)

// fakeRuntime records what it is asked and answers from answer.
type fakeRuntime struct {
	mu      sync.Mutex
	calls   []functions.Function
	payload [][]byte
	evicted []string
	answer  func(fn functions.Function, in functions.Invocation) (functions.Result, error)
	block   chan struct{} // when set, invocations wait for it
}

func (f *fakeRuntime) InvokeWith(ctx context.Context, fn functions.Function, in functions.Invocation) (functions.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, fn)
	f.payload = append(f.payload, in.Payload)
	answer, block := f.answer, f.block
	f.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return functions.Result{}, ctx.Err()
		}
	}
	if answer != nil {
		return answer(fn, in)
	}
	return functions.Result{Payload: []byte(`"ok"`), LogTail: []byte("START\nEND\n")}, nil
}

func (f *fakeRuntime) Evict(prefix string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.evicted = append(f.evicted, prefix)
}

func (f *fakeRuntime) snapshot() ([]functions.Function, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls), slices.Clone(f.evicted)
}

var sc = actorstest.Scope

const role = "arn:aws:iam::000000000000:role/r"

func zipOf(t testing.TB, body string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	f, err := w.Create("index.py")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(body))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func newService(t *testing.T, rt lambda.Runtime, opts ...actorstest.Option) (*lambda.Service, actorstest.Env) {
	t.Helper()
	env := actorstest.New(t, opts...)
	var r lambda.Runtime
	if rt != nil {
		r = rt
	}
	svc := lambda.New(env.Sys, env.Store, env.Now, env.Log, lambda.Options{Runtime: r, AsyncQueue: 2, AsyncWorkers: 1})
	t.Cleanup(svc.Detach)
	return svc, env
}

func createFn(t *testing.T, svc *lambda.Service, name, code string, publish bool) lambda.Shown {
	t.Helper()
	s, err := svc.CreateFunction(sc, lambda.CreateInput{FunctionName: name, Publish: publish,
		ConfigInput: lambda.ConfigInput{Role: ptr(role), Runtime: ptr("python3.12"), Handler: ptr("index.handler")},
		Code:        lambda.CodeInput{ZipFile: zipOf(t, code)}})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func TestCodeStoredOncePerHash(t *testing.T) {
	rt := &fakeRuntime{}
	svc, _ := newService(t, rt)
	createFn(t, svc, "a", "same", false)
	createFn(t, svc, "b", "same", false)
	if n := svc.CodeRecords(sc); n != 1 {
		t.Fatalf("%d code records, want 1", n)
	}
	// a moves to new code: two packages; b still holds the first.
	if _, err := svc.UpdateFunctionCode(sc, "a", lambda.UpdateCodeInput{Code: lambda.CodeInput{ZipFile: zipOf(t, "new")}}); err != nil {
		t.Fatal(err)
	}
	if n := svc.CodeRecords(sc); n != 2 {
		t.Fatalf("%d code records, want 2", n)
	}
	if err := svc.DeleteFunction(sc, "b", ""); err != nil {
		t.Fatal(err)
	}
	if n := svc.CodeRecords(sc); n != 1 {
		t.Fatalf("after deleting b: %d code records, want 1", n)
	}
	// A published version keeps its code after $LATEST moves on.
	if _, err := svc.PublishVersion(sc, "a", lambda.PublishVersionInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateFunctionCode(sc, "a", lambda.UpdateCodeInput{Code: lambda.CodeInput{ZipFile: zipOf(t, "newer")}}); err != nil {
		t.Fatal(err)
	}
	if n := svc.CodeRecords(sc); n != 2 {
		t.Fatalf("with version 1: %d code records, want 2", n)
	}
	if err := svc.DeleteFunction(sc, "a", "1"); err != nil {
		t.Fatal(err)
	}
	if n := svc.CodeRecords(sc); n != 1 {
		t.Fatalf("version 1 deleted: %d code records, want 1", n)
	}
	if err := svc.DeleteFunction(sc, "a", ""); err != nil {
		t.Fatal(err)
	}
	if n := svc.CodeRecords(sc); n != 0 {
		t.Fatalf("all deleted: %d code records, want 0", n)
	}
	// A failed create leaves no package behind.
	createFn(t, svc, "c", "c", false)
	_, err := svc.CreateFunction(sc, lambda.CreateInput{FunctionName: "c",
		ConfigInput: lambda.ConfigInput{Role: ptr(role), Runtime: ptr("python3.12"), Handler: ptr("index.handler")},
		Code:        lambda.CodeInput{ZipFile: zipOf(t, "other")}})
	awswiretest.WantError(t, err, "ResourceConflictException", "")
	if n := svc.CodeRecords(sc); n != 1 {
		t.Fatalf("after a failed create: %d code records, want 1", n)
	}
	_, evicted := rt.snapshot()
	arn := lambda.FunctionARN(sc, "a")
	for _, want := range []string{arn + ":$LATEST", arn + ":1", arn} {
		if !slices.Contains(evicted, want) {
			t.Errorf("evicted %q, want %q among them", evicted, want)
		}
	}
}

func TestConcurrentCreatesShareCode(t *testing.T) {
	svc, _ := newService(t, &fakeRuntime{})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "f" + string(rune('a'+i))
			createFn(t, svc, name, "shared", false)
			if i%2 == 0 {
				if err := svc.DeleteFunction(sc, name, ""); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if n := svc.CodeRecords(sc); n != 1 {
		t.Fatalf("%d code records, want 1", n)
	}
	for i := range 20 {
		if i%2 == 1 {
			if err := svc.DeleteFunction(sc, "f"+string(rune('a'+i)), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := svc.CodeRecords(sc); n != 0 {
		t.Fatalf("%d code records, want 0", n)
	}
}

func TestInvokeFunctionForms(t *testing.T) {
	rt := &fakeRuntime{answer: func(fn functions.Function, in functions.Invocation) (functions.Result, error) {
		return functions.Result{Payload: []byte(`{"v":"` + fn.Version + `"}`)}, nil
	}}
	svc, _ := newService(t, rt)
	createFn(t, svc, "fn", "one", true)
	if _, err := svc.CreateAlias(sc, "fn", "live", lambda.AliasInput{FunctionVersion: ptr("1")}); err != nil {
		t.Fatal(err)
	}
	arn := lambda.FunctionARN(sc, "fn")
	ctx := context.Background()
	for _, tc := range []struct{ name, want string }{
		{"fn", "$LATEST"}, {"fn:1", "1"}, {"fn:live", "1"}, {"fn:$LATEST", "$LATEST"},
		{sc.Account + ":function:fn", "$LATEST"}, {sc.Account + ":function:fn:1", "1"},
		{arn, "$LATEST"}, {arn + ":live", "1"},
	} {
		out, fe, err := svc.InvokeFunction(ctx, sc, tc.name, []byte(`{}`))
		if err != nil || fe != "" || string(out) != `{"v":"`+tc.want+`"}` {
			t.Errorf("%s: %s %q %v", tc.name, out, fe, err)
		}
	}
	calls, _ := rt.snapshot()
	last := calls[len(calls)-1]
	if last.ARN != arn+":1" || last.Name != "fn" || last.Account != sc.Account || last.Region != sc.Region ||
		last.Runtime != "python3.12" || last.Handler != "index.handler" || last.Timeout != 3*time.Second || last.MemoryMB != 128 {
		t.Fatalf("function given to the runtime: %+v", last)
	}
	zipped, err := last.Code()
	if err != nil || !bytes.Equal(zipped, zipOf(t, "one")) {
		t.Fatalf("code: %v", err)
	}
	_, _, err = svc.InvokeFunction(ctx, sc, "fn:nope", nil)
	awswiretest.WantError(t, err, "ResourceNotFoundException", "")
	_, _, err = svc.InvokeFunction(ctx, sc, "missing", nil)
	awswiretest.WantError(t, err, "ResourceNotFoundException", "")
	_, _, err = svc.InvokeFunction(ctx, sc, "bad name!", nil)
	awswiretest.WantError(t, err, "ValidationException", "")

	// The runtime's own errors keep their Lambda code.
	rt.mu.Lock()
	rt.answer = func(functions.Function, functions.Invocation) (functions.Result, error) {
		return functions.Result{}, &functions.Error{Code: functions.CodeTooManyRequests, Message: "Rate Exceeded.", Reason: functions.ReasonConcurrencyLimit}
	}
	rt.mu.Unlock()
	_, _, err = svc.InvokeFunction(ctx, sc, "fn", nil)
	awswiretest.WantError(t, err, "TooManyRequestsException", "")
	var we *awswire.Error
	if e, ok := err.(*awswire.Error); ok {
		we = e
	}
	if we == nil || we.Status != 429 || len(we.Fields) != 1 || we.Fields[0].Value != functions.ReasonConcurrencyLimit {
		t.Fatalf("runtime error: %#v", err)
	}
}

func TestEventQueueBounded(t *testing.T) {
	rt := &fakeRuntime{block: make(chan struct{})}
	svc, _ := newService(t, rt)
	createFn(t, svc, "slow", "x", false)
	ctx := context.Background()
	ev := lambda.InvokeInput{FunctionName: "slow", InvocationType: lambda.Event, Payload: []byte(`{}`)}
	// One runs (blocked), two wait; the fourth is refused.
	for i := range 3 {
		out, err := svc.Invoke(ctx, sc, ev)
		if err != nil || out.Status != 202 {
			t.Fatalf("event %d: %v %+v", i, err, out)
		}
		if i == 0 {
			for deadline := time.Now().Add(5 * time.Second); svc.QueuedEvents() != 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the first event did not start")
				}
			}
		}
	}
	_, err := svc.Invoke(ctx, sc, ev)
	awswiretest.WantError(t, err, "TooManyRequestsException", "")
	close(rt.block)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if calls, _ := rt.snapshot(); len(calls) == 3 && svc.QueuedEvents() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("queued events did not run")
		}
	}
	big := lambda.InvokeInput{FunctionName: "slow", InvocationType: lambda.Event, Payload: []byte(`"` + strings.Repeat("a", lambda.MaxAsyncPayload) + `"`)}
	_, err = svc.Invoke(ctx, sc, big)
	awswiretest.WantError(t, err, "RequestTooLargeException", "")
}

func TestInvokeWithoutRuntime(t *testing.T) {
	svc, _ := newService(t, nil)
	createFn(t, svc, "fn", "x", false)
	_, err := svc.Invoke(context.Background(), sc, lambda.InvokeInput{FunctionName: "fn"})
	awswiretest.WantError(t, err, "NotImplementedException", "")
}

func TestInvokeResponseTooLarge(t *testing.T) {
	rt := &fakeRuntime{answer: func(functions.Function, functions.Invocation) (functions.Result, error) {
		return functions.Result{Payload: bytes.Repeat([]byte("a"), 6291557)}, nil
	}}
	svc, _ := newService(t, rt)
	createFn(t, svc, "fn", "x", false)
	out, err := svc.Invoke(context.Background(), sc, lambda.InvokeInput{FunctionName: "fn", LogType: "Tail"})
	if err != nil || out.FunctionError != "Unhandled" || !strings.Contains(string(out.Payload), "Function.ResponseSizeTooLarge") {
		t.Fatalf("%v %+v", err, out.FunctionError)
	}
}

// TestRestoreReconciles restores a store holding a code package no
// function holds (a crash between a delete and the package's check): the
// restore deletes it, durably.
func TestRestoreReconciles(t *testing.T) {
	dir := t.TempDir()
	st, err := store.OpenBolt(dir, store.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := newService(t, &fakeRuntime{}, actorstest.WithStore(st))
	createFn(t, svc, "kept", "kept", true)
	createFn(t, svc, "other", "other", false)
	// Forge the crash: the function's record goes, its code's stays.
	if err := st.Apply(st.Epoch(), store.Del(store.Key(sc.Account, sc.Region, "lambda", "function", "other"))); err != nil {
		t.Fatal(err)
	}
	svc.Detach()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := store.OpenBolt(dir, store.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	svc2, _ := newService(t, &fakeRuntime{}, actorstest.WithStore(st2))
	codes := 0
	if err := st2.Load(func(key string, value []byte) error {
		if err := svc2.Restore(key, value); err != nil {
			return err
		}
		if strings.Contains(key, "/lambda/code/") {
			codes++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if codes != 2 {
		t.Fatalf("%d code records in the store, want 2", codes)
	}
	if err := svc2.RestoreDone(); err != nil {
		t.Fatal(err)
	}
	if n := svc2.CodeRecords(sc); n != 1 {
		t.Fatalf("%d code records after reconcile, want 1", n)
	}
	left := 0
	if err := st2.Load(func(key string, _ []byte) error {
		if strings.Contains(key, "/lambda/code/") {
			left++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if left != 1 {
		t.Fatalf("%d code records left in the store, want 1", left)
	}
	s, err := svc2.GetFunction(sc, "kept", "1")
	if err != nil || s.Config.Version != "1" {
		t.Fatalf("restored: %v %+v", err, s)
	}
	counts := svc2.Counts()[sc]
	if counts["functions"] != 1 || counts["codePackages"] != 1 {
		t.Fatalf("counts %v", counts)
	}
}
