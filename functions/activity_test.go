package functions

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func unqualifiedARN(fn Function) string { return strings.TrimSuffix(fn.ARN, ":"+fn.version()) }

func TestActivityRecordsSuccess(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := pythonFunction(t, "pyact", "app.prints")
	arn := unqualifiedARN(fn)
	before := time.Now()
	res := invoke(t, r, fn, `{}`)
	mustOK(t, res)

	recs := r.Recent(arn)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	rec := recs[0]
	if rec.RequestID != res.RequestID || rec.ARN != fn.ARN || rec.Version != "$LATEST" ||
		rec.ErrorType != "" || rec.FunctionError != "" || rec.Duration != res.Duration ||
		rec.InitDuration != res.InitDuration || rec.InitDuration <= 0 {
		t.Errorf("record %+v, result %+v", rec, res)
	}
	if rec.Started.Before(before) || rec.Started.After(time.Now()) {
		t.Errorf("started %v, invoked at %v", rec.Started, before)
	}
	if rec.Log != string(res.LogTail) {
		t.Errorf("log %q, tail %q", rec.Log, res.LogTail)
	}
	for _, want := range []string{"START RequestId: " + res.RequestID, "hello from python\n", "END RequestId: " + res.RequestID, "REPORT RequestId: " + res.RequestID} {
		if !strings.Contains(rec.Log, want) {
			t.Errorf("log lacks %q:\n%s", want, rec.Log)
		}
	}
	// A qualified ARN names the same function.
	if got := r.Recent(fn.ARN); len(got) != 1 || got[0].RequestID != res.RequestID {
		t.Errorf("Recent(qualified) = %+v", got)
	}
	if idle, busy := r.Instances(arn); idle != 1 || busy != 0 {
		t.Errorf("instances idle %d busy %d", idle, busy)
	}

	// Newest first; the warm one has no init.
	res2 := invoke(t, r, fn, `{}`)
	recs = r.Recent(arn)
	if len(recs) != 2 || recs[0].RequestID != res2.RequestID || recs[1].RequestID != res.RequestID || recs[0].InitDuration != 0 {
		t.Errorf("records %+v", recs)
	}
	// Copies: the caller may change them.
	recs[0].RequestID = "changed"
	if r.Recent(arn)[0].RequestID != res2.RequestID {
		t.Errorf("Recent returned the runtime's own records")
	}

	act := r.Active()
	if len(act) != 1 || act[0].ARN != arn || act[0].Idle != 1 || act[0].Busy != 0 || act[0].Invocations != 2 ||
		act[0].Last.Before(rec.Started) {
		t.Errorf("Active %+v", act)
	}
	b, err := json.Marshal(rec)
	if err != nil || !strings.Contains(string(b), `"requestId":"`+res.RequestID+`"`) || !strings.Contains(string(b), `"initDuration":`) {
		t.Errorf("JSON %s %v", b, err)
	}
	if r.Recent("arn:aws:lambda:us-east-1:123456789012:function:other") != nil {
		t.Errorf("records for a function never invoked")
	}
}

func TestActivityRecordsErrors(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := pythonFunction(t, "pyacterr", "app.fails")
	res := invoke(t, r, fn, `{"x":1}`)
	recs := r.Recent(fn.ARN)
	if len(recs) != 1 || recs[0].ErrorType != "ValueError" || recs[0].FunctionError != "Unhandled" ||
		recs[0].RequestID != res.RequestID || !strings.Contains(recs[0].Log, "[ERROR] ValueError: bad value 1") {
		t.Errorf("function error: %+v", recs)
	}

	// A timeout.
	fn = pythonFunction(t, "pyactslow", "app.sleeps")
	fn.Timeout = time.Second
	res = invoke(t, r, fn, `{"s":10}`)
	recs = r.Recent(fn.ARN)
	if len(recs) != 1 || recs[0].ErrorType != "Sandbox.Timedout" || recs[0].RequestID != res.RequestID ||
		recs[0].Duration < time.Second || !strings.Contains(recs[0].Log, "Status: timeout") {
		t.Errorf("timeout: %+v", recs)
	}
	if idle, busy := r.Instances(fn.ARN); idle+busy != 0 {
		t.Errorf("a timed out instance is still counted: idle %d busy %d", idle, busy)
	}

	// A failed init.
	fn = pythonFunction(t, "pyactinit", "broken.handler")
	res = invoke(t, r, fn, `{}`)
	recs = r.Recent(fn.ARN)
	if len(recs) != 1 || recs[0].ErrorType != "Runtime.ImportModuleError" || recs[0].Duration != 0 ||
		recs[0].InitDuration <= 0 || !strings.Contains(recs[0].Log, "INIT_REPORT") {
		t.Errorf("init error: %+v", recs)
	}

	// A bootstrap that cannot start.
	fn = function("actnoboot", "provided.al2023", "bootstrap", makeZip(t, zipEntry{name: "main.sh", body: "#!/bin/sh\n", mode: 0o755}))
	res = invoke(t, r, fn, `{}`)
	recs = r.Recent(fn.ARN)
	if len(recs) != 1 || recs[0].ErrorType != "Runtime.InvalidEntrypoint" || recs[0].RequestID != res.RequestID ||
		!strings.Contains(recs[0].Log, "REPORT RequestId: "+res.RequestID) {
		t.Errorf("entrypoint failure: %+v", recs)
	}
	if n := len(r.Active()); n != 4 {
		t.Errorf("%d functions active, want 4: %+v", n, r.Active())
	}
}

func TestActivityKeepsTheNewest(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := pythonFunction(t, "pyactring", "app.handler")
	const n = RecentPerFunction + 5
	var ids []string
	for range n {
		res := invoke(t, r, fn, `{}`)
		mustOK(t, res)
		ids = append(ids, res.RequestID)
	}
	recs := r.Recent(fn.ARN)
	if len(recs) != RecentPerFunction {
		t.Fatalf("%d records", len(recs))
	}
	for i, rec := range recs {
		if want := ids[n-1-i]; rec.RequestID != want {
			t.Errorf("record %d is %s, want %s", i, rec.RequestID, want)
		}
	}
	if act := r.Active(); len(act) != 1 || act[0].Invocations != n {
		t.Errorf("Active %+v", act)
	}
}

func TestActivityEvictAndForget(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := pythonFunction(t, "pyactevict", "app.handler")
	other := pythonFunction(t, "pyactevict2", "app.handler")
	arn := unqualifiedARN(fn)
	mustOK(t, invoke(t, r, fn, `{}`))
	mustOK(t, invoke(t, r, other, `{}`))
	if idle, busy := r.Instances(arn); idle != 1 || busy != 0 {
		t.Errorf("instances idle %d busy %d", idle, busy)
	}

	// Evicting a version (an update) ends its instances, not its history.
	r.Evict(fn.ARN)
	if idle, busy := r.Instances(arn); idle+busy != 0 {
		t.Errorf("after Evict(version): idle %d busy %d", idle, busy)
	}
	if len(r.Recent(arn)) != 1 {
		t.Errorf("Evict(version) dropped the records")
	}
	// Evicting the function (a delete) ends both; "…:pyactevict" is not
	// "…:pyactevict2".
	mustOK(t, invoke(t, r, fn, `{}`))
	r.Evict(arn)
	if idle, busy := r.Instances(arn); idle+busy != 0 {
		t.Errorf("after Evict: idle %d busy %d", idle, busy)
	}
	if recs := r.Recent(arn); recs != nil {
		t.Errorf("after Evict: %+v", recs)
	}
	act := r.Active()
	if len(act) != 1 || act[0].ARN != unqualifiedARN(other) || act[0].Idle != 1 || act[0].Invocations != 1 {
		t.Errorf("Active after Evict %+v", act)
	}

	// ForgetActivity forgets invocations; warm instances stay the pools'.
	r.ForgetActivity()
	if recs := r.Recent(other.ARN); recs != nil {
		t.Errorf("after ForgetActivity: %+v", recs)
	}
	act = r.Active()
	if len(act) != 1 || act[0].Idle != 1 || act[0].Invocations != 0 || !act[0].Last.IsZero() {
		t.Errorf("Active after ForgetActivity %+v", act)
	}
	r.Evict("arn:")
	if act := r.Active(); len(act) != 0 {
		t.Errorf("Active after ForgetActivity and Evict: %+v", act)
	}
	// Recording starts again.
	mustOK(t, invoke(t, r, fn, `{}`))
	if len(r.Recent(arn)) != 1 {
		t.Errorf("nothing recorded after ForgetActivity")
	}
}

// An invocation that began before ForgetActivity is not recorded when it
// ends after it: it belongs to the state a reset forgot.
func TestActivityForgetDuringAnInvocation(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := pythonFunction(t, "pyactforget", "app.sleeps")
	mustOK(t, invoke(t, r, fn, `{"s":0}`)) // warm, so the next one starts at once
	done := make(chan Result)
	go func() {
		res, _ := r.Invoke(context.Background(), fn, []byte(`{"s":0.5}`))
		done <- res
	}()
	if !eventually(5*time.Second, func() bool { _, busy := r.Instances(fn.ARN); return busy == 1 }) {
		t.Fatal("the invocation did not start")
	}
	time.Sleep(20 * time.Millisecond) // past its start on the instance
	r.ForgetActivity()
	mustOK(t, <-done)
	if recs := r.Recent(fn.ARN); recs != nil {
		t.Errorf("recorded after ForgetActivity: %+v", recs)
	}
}

// The bound on functions remembered keeps the most recently invoked.
func TestActivityRemembersBoundedFunctions(t *testing.T) {
	var l activityLog
	arn := func(i int) string { return fmt.Sprintf("arn:aws:lambda:us-east-1:123456789012:function:f%d", i) }
	now := time.Now()
	for i := range MaxRememberedFunctions + 10 {
		l.add(arn(i), InvocationRecord{RequestID: fmt.Sprint(i), ARN: arn(i) + ":$LATEST", Started: now}, now)
		if i == MaxRememberedFunctions-1 {
			// f0 invoked again before the bound is reached: f1…f10 are
			// now the least recently invoked.
			l.add(arn(0), InvocationRecord{RequestID: "again", Started: now}, now)
		}
	}
	if len(l.byARN) != MaxRememberedFunctions || l.order.Len() != MaxRememberedFunctions {
		t.Fatalf("%d functions remembered (%d in order)", len(l.byARN), l.order.Len())
	}
	for _, i := range []int{0, 11, MaxRememberedFunctions + 9} {
		if l.byARN[arn(i)] == nil {
			t.Errorf("%s forgotten", arn(i))
		}
	}
	for i := 1; i <= 10; i++ {
		if l.byARN[arn(i)] != nil {
			t.Errorf("%s remembered", arn(i))
		}
	}
	if a := l.byARN[arn(0)]; a.count != 2 || len(a.recs) != 2 {
		t.Errorf("f0: %d invocations, %d records", a.count, len(a.recs))
	}
}

func TestFunctionARN(t *testing.T) {
	for in, want := range map[string]string{
		"arn:aws:lambda:us-east-1:123456789012:function:f":         "arn:aws:lambda:us-east-1:123456789012:function:f",
		"arn:aws:lambda:us-east-1:123456789012:function:f:$LATEST": "arn:aws:lambda:us-east-1:123456789012:function:f",
		"arn:aws:lambda:us-east-1:123456789012:function:f:prod":    "arn:aws:lambda:us-east-1:123456789012:function:f",
		"f": "f",
	} {
		if got := functionARN(in); got != want {
			t.Errorf("functionARN(%q) = %q, want %q", in, got, want)
		}
	}
}

// Readers run while invocations settle (for -race).
func TestActivityConcurrentUse(t *testing.T) {
	r, _ := newRuntime(t, Config{MaxConcurrency: 3})
	fns := []Function{pythonFunction(t, "pyactc1", "app.handler"), pythonFunction(t, "pyactc2", "app.handler")}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, fn := range fns {
				r.Recent(fn.ARN)
				r.Instances(fn.ARN)
			}
			r.Active()
			time.Sleep(time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				// Not invoke's t.Fatal: this is not the test's goroutine.
				res, err := r.Invoke(context.Background(), fns[i%2], []byte(`{}`))
				if err != nil || res.FunctionError != "" {
					t.Errorf("%v %s", err, res.Payload)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	var total int64
	for _, a := range r.Active() {
		total += a.Invocations
	}
	if total != 30 {
		t.Errorf("%d invocations counted, want 30", total)
	}
}
