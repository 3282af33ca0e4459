package functions

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The Runtime API, one server per instance on 127.0.0.1. It is stdlib
// net/http rather than fasthttp: GET /next is a long poll that blocks until
// an invocation arrives, and net/http gives each request its own goroutine
// and a context that ends when the runtime hangs up, where fasthttp would
// tie up a worker and never tell. One runtime makes one request at a time,
// so fasthttp's throughput buys nothing here; a warm round trip stays well
// under a millisecond (see BenchmarkWarmInvoke).

const (
	apiPrefix = "/2018-06-01/runtime/"
	// MaxPayloadSize is the largest synchronous Invoke request Lambda takes.
	MaxPayloadSize = 6 * 1024 * 1024
	// maxResponseSize is the largest answer the Runtime API takes from a
	// function (6 MiB + 100 bytes, as Lambda's).
	maxResponseSize = 6*1024*1024 + 100
	// oversizeCount bounds how much of an oversized answer is read to
	// report its size.
	oversizeCount = 64 << 20
)

// answer is what a runtime posted for an invocation.
type answer struct {
	payload   []byte
	errorType string // "" for a response; the error's type otherwise
}

func (in *instance) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, apiPrefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch {
	case rest == "invocation/next":
		if r.Method != http.MethodGet {
			methodNotAllowed(w, http.MethodGet)
			return
		}
		in.serveNext(w, r)
	case rest == "init/error":
		if r.Method != http.MethodPost {
			methodNotAllowed(w, http.MethodPost)
			return
		}
		in.serveInitError(w, r)
	case strings.HasPrefix(rest, "invocation/"):
		id, verb, ok := strings.Cut(rest[len("invocation/"):], "/")
		if !ok || (verb != "response" && verb != "error") {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost {
			methodNotAllowed(w, http.MethodPost)
			return
		}
		in.serveAnswer(w, r, id, verb == "error")
	default:
		http.NotFound(w, r)
	}
}

// serveNext hands the runtime the next invocation, waiting for one as long
// as the runtime waits (or until the instance stops).
func (in *instance) serveNext(w http.ResponseWriter, r *http.Request) {
	in.mu.Lock()
	if in.initFailed {
		in.mu.Unlock()
		stateError(w, "InitError", "Ready")
		return
	}
	if !in.isReady {
		in.isReady = true
		close(in.ready)
	}
	in.mu.Unlock()

	var inv *invocation
	select {
	case inv = <-in.invocations:
	case <-r.Context().Done():
		return
	case <-in.stopping:
		return
	}
	in.mu.Lock()
	in.current = inv
	in.mu.Unlock()

	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Lambda-Runtime-Aws-Request-Id"] = []string{inv.id}
	h["Lambda-Runtime-Deadline-Ms"] = []string{strconv.FormatInt(inv.deadline.UnixMilli(), 10)}
	h["Lambda-Runtime-Invoked-Function-Arn"] = []string{inv.arn}
	h["Lambda-Runtime-Trace-Id"] = []string{inv.traceID}
	if inv.clientContext != "" {
		h["Lambda-Runtime-Client-Context"] = []string{inv.clientContext}
	}
	if inv.cognitoIdentity != "" {
		h["Lambda-Runtime-Cognito-Identity"] = []string{inv.cognitoIdentity}
	}
	h["Content-Length"] = []string{strconv.Itoa(len(inv.payload))}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(inv.payload)
}

// serveAnswer takes the response or the error of the current invocation.
// Each invocation takes one answer: another, or one for an id that is not
// the current invocation's, is an InvalidRequestID.
func (in *instance) serveAnswer(w http.ResponseWriter, r *http.Request, id string, isError bool) {
	in.mu.Lock()
	inv := in.current
	if inv == nil || inv.id != id || inv.answered {
		in.mu.Unlock()
		writeAPIError(w, http.StatusBadRequest, "InvalidRequestID", "Invalid request ID")
		return
	}
	inv.answered = true
	in.mu.Unlock()

	body, size, err := readBounded(r)
	switch {
	case size > maxResponseSize:
		inv.done <- answer{errorType: "Function.ResponseSizeTooLarge", payload: errorPayload(
			fmt.Sprintf("Response payload size (%d bytes) exceeded maximum allowed payload size (%d bytes).", size, maxResponseSize),
			"Function.ResponseSizeTooLarge")}
		writeAPIError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
			fmt.Sprintf("Exceeded maximum allowed payload size (%d bytes).", maxResponseSize))
	case err != nil:
		inv.done <- answer{errorType: "Runtime.TruncatedResponse", payload: errorPayload(
			"RequestId: "+id+" Error: the runtime's answer was cut short: "+err.Error(), "Runtime.TruncatedResponse")}
		writeAPIError(w, http.StatusBadRequest, "TruncatedHTTPRequest", "HTTP request detected as truncated")
	case isError:
		inv.done <- answer{errorType: errorTypeOf(r, body), payload: errorBody(r, body)}
		writeAccepted(w)
	default:
		inv.done <- answer{payload: body}
		writeAccepted(w)
	}
}

// serveInitError takes the runtime's report that it could not start. Only
// a runtime that has not yet asked for an invocation may make it.
func (in *instance) serveInitError(w http.ResponseWriter, r *http.Request) {
	in.mu.Lock()
	if in.isReady || in.initFailed {
		from := "Ready"
		if in.initFailed {
			from = "InitError"
		}
		in.mu.Unlock()
		stateError(w, from, "InitError")
		return
	}
	in.initFailed = true
	in.mu.Unlock()

	body, size, err := readBounded(r)
	if size > maxResponseSize || err != nil {
		body = nil
	}
	in.initErr = answer{errorType: errorTypeOf(r, body), payload: errorBody(r, body)}
	close(in.initFailedCh)
	writeAccepted(w)
}

// readBounded reads a body of at most maxResponseSize bytes. A longer one
// is read no further than needed to tell its size (up to oversizeCount).
func readBounded(r *http.Request) ([]byte, int64, error) {
	if r.ContentLength > maxResponseSize {
		return nil, r.ContentLength, nil
	}
	capacity := 512
	if r.ContentLength > 0 {
		capacity = int(r.ContentLength)
	}
	buf := make([]byte, 0, capacity)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > maxResponseSize {
			rest, _ := io.Copy(io.Discard, io.LimitReader(r.Body, oversizeCount))
			return nil, int64(len(buf)) + rest, nil
		}
		if err == io.EOF {
			return buf, int64(len(buf)), nil
		}
		if err != nil {
			return nil, int64(len(buf)), err
		}
	}
}

// errorTypeOf is the error's type: the Lambda-Runtime-Function-Error-Type
// header, else the errorType member of the body.
func errorTypeOf(r *http.Request, body []byte) string {
	if t := r.Header.Get("Lambda-Runtime-Function-Error-Type"); t != "" {
		return t
	}
	var e struct {
		ErrorType string `json:"errorType"`
	}
	if json.Unmarshal(body, &e) == nil && e.ErrorType != "" {
		return e.ErrorType
	}
	return "Runtime.Unknown"
}

// errorBody is the payload the caller gets for a posted error: the body as
// posted, or, for an empty one, Lambda's words for an unknown error.
func errorBody(r *http.Request, body []byte) []byte {
	if len(body) > 0 {
		return body
	}
	return errorPayload("Unknown application error occurred", errorTypeOf(r, body))
}

func errorPayload(message, errorType string) []byte {
	b, _ := json.Marshal(struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType,omitempty"`
	}{message, errorType})
	return b
}

var acceptedBody = []byte(`{"status":"OK"}` + "\n")

func writeAccepted(w http.ResponseWriter) {
	w.Header()["Content-Type"] = []string{"application/json"}
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write(acceptedBody)
}

func writeAPIError(w http.ResponseWriter, status int, errorType, message string) {
	w.Header()["Content-Type"] = []string{"application/json"}
	w.WriteHeader(status)
	_, _ = w.Write(append(errorPayload(message, errorType), '\n'))
}

func stateError(w http.ResponseWriter, from, to string) {
	writeAPIError(w, http.StatusForbidden, "InvalidStateTransition",
		fmt.Sprintf("State transition from %s to %s failed for runtime. Error: State transition is not allowed", from, to))
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeAPIError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "Method not allowed")
}
