package functions

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzRuntimeAPI sends the Runtime API what a function process might:
// any method, path, error-type header and body, framed with a length or
// chunked, to an instance in each of its states (starting, serving an
// invocation, with the invocation answered, after an init error). The
// Runtime API answers within a bound, never 5xx, takes at most one answer
// per invocation and only for the current invocation's id, and hands the
// caller the body as posted.
func FuzzRuntimeAPI(f *testing.F) {
	for _, s := range []struct {
		state        uint8
		method, path string
		errorType    string
		body         []byte
		chunked      bool
	}{
		{0, "GET", "/2018-06-01/runtime/invocation/next", "", nil, false},
		{1, "GET", "/2018-06-01/runtime/invocation/next", "", nil, false},
		{1, "POST", "/2018-06-01/runtime/invocation/~ID~/response", "", []byte(`{"statusCode": 200, "body": "ok"}`), false},
		{1, "POST", "/2018-06-01/runtime/invocation/~ID~/response", "", []byte(`chunked answer`), true},
		{1, "POST", "/2018-06-01/runtime/invocation/~ID~/error", "Runtime.HandlerError", []byte(`{"errorMessage": "x", "errorType": "E", "stackTrace": []}`), false},
		{1, "POST", "/2018-06-01/runtime/invocation/~ID~/error", "", nil, false},
		{1, "POST", "/2018-06-01/runtime/invocation/other-id/response", "", []byte(`{}`), false},
		{2, "POST", "/2018-06-01/runtime/invocation/~ID~/response", "", []byte(`{}`), false},
		{0, "POST", "/2018-06-01/runtime/init/error", "Runtime.ImportModuleError", []byte(`{"errorMessage": "no module"}`), false},
		{1, "POST", "/2018-06-01/runtime/init/error", "", nil, false},
		{3, "GET", "/2018-06-01/runtime/invocation/next", "", nil, false},
		{3, "POST", "/2018-06-01/runtime/init/error", "", nil, true},
		{1, "PUT", "/2018-06-01/runtime/invocation/~ID~/response", "", nil, false},
		{1, "POST", "/2018-06-01/runtime/invocation/~ID~", "", nil, false},
		{1, "GET", "/2018-06-01/runtime/", "", nil, false},
		{1, "POST", "/2020-01-01/extension/register", "", nil, false},
	} {
		f.Add(s.state, s.method, s.path, s.errorType, s.body, s.chunked)
	}
	f.Fuzz(func(t *testing.T, state uint8, method, path, errorType string, body []byte, chunked bool) {
		if len(body) > 1<<16 || len(path) > 4096 {
			return
		}
		in := newInstance(nil)
		inv := &invocation{id: "0f3c6c7e-8f7a-4a8e-9d2c-0123456789ab", arn: "arn:aws:lambda:us-east-1:000000000000:function:f",
			traceID: "Root=1-00000000-000000000000000000000000", payload: []byte(`{"n": 1}`),
			deadline: time.Now().Add(time.Minute), done: make(chan answer, 1)}
		switch state % 4 {
		case 1:
			in.isReady, in.current = true, inv
			close(in.ready)
		case 2:
			in.isReady, in.current, inv.answered = true, inv, true
			close(in.ready)
		case 3:
			in.initFailed = true
			close(in.initFailedCh)
		}
		path = strings.ReplaceAll(path, "~ID~", inv.id)
		u, err := url.Parse(path)
		if err != nil || u.Path == "" {
			return
		}
		r := &http.Request{Method: method, URL: u, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body))}
		if chunked {
			r.ContentLength = -1
		}
		if errorType != "" {
			r.Header.Set("Lambda-Runtime-Function-Error-Type", errorType)
		}
		r = r.WithContext(t.Context())

		// A runtime's GET /next takes the next invocation; one is offered
		// until the request is answered.
		next := &invocation{id: "next", arn: inv.arn, traceID: inv.traceID, payload: []byte(`{}`),
			deadline: time.Now().Add(time.Minute), done: make(chan answer, 1)}
		quit := make(chan struct{})
		defer close(quit)
		go func() {
			select {
			case in.invocations <- next:
			case <-quit:
			}
		}()
		w := httptest.NewRecorder()
		served := make(chan struct{})
		go func() {
			defer close(served)
			in.ServeHTTP(w, r)
		}()
		select {
		case <-served:
		case <-time.After(5 * time.Second):
			t.Fatalf("state %d %s %s: no answer within 5 s", state%4, method, path)
		}

		st := w.Code
		if st >= 500 {
			t.Fatalf("state %d %s %s: %d %s", state%4, method, path, st, w.Body)
		}
		var got *answer
		select {
		case a := <-inv.done:
			got = &a
		default:
		}
		isAnswer := method == http.MethodPost && (path == apiPrefix+"invocation/"+inv.id+"/response" || path == apiPrefix+"invocation/"+inv.id+"/error")
		switch {
		case got == nil && st == http.StatusAccepted && isAnswer:
			t.Fatalf("state %d %s %s: accepted but the caller got nothing", state%4, method, path)
		case got != nil && (!isAnswer || state%4 != 1):
			t.Fatalf("state %d %s %s: an answer the invocation could not take: %+v (%d %s)", state%4, method, path, got, st, w.Body)
		case got != nil && st == http.StatusAccepted && strings.HasSuffix(path, "/response") && (got.errorType != "" || !bytes.Equal(got.payload, body)):
			t.Fatalf("state %d %s %s: answer %+v, posted %q", state%4, method, path, got, body)
		case got != nil && st == http.StatusAccepted && strings.HasSuffix(path, "/error") && got.errorType == "":
			t.Fatalf("state %d %s %s: an error without a type: %+v", state%4, method, path, got)
		case got != nil && st != http.StatusAccepted && st != http.StatusRequestEntityTooLarge && st != http.StatusBadRequest:
			t.Fatalf("state %d %s %s: answered %d yet the caller got %+v", state%4, method, path, st, got)
		}
		if st == http.StatusOK && w.Header().Get("Lambda-Runtime-Aws-Request-Id") != next.id {
			t.Fatalf("state %d %s %s: 200 without the next invocation: %v", state%4, method, path, w.Header())
		}
	})
}
