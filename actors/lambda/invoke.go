package lambda

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/functions"
)

// Invocation limits Lambda documents.
const (
	// MaxSyncPayload bounds a RequestResponse request and response (6 MB),
	// as the runtime does.
	MaxSyncPayload = functions.MaxPayloadSize
	// maxSyncResponse is what a function may answer synchronously
	// (Lambda's message names 6291556 bytes).
	maxSyncResponse = 6291556
	// MaxAsyncPayload bounds an Event request (1 MB).
	MaxAsyncPayload = 1048576
	// slack is how long past a function's timeout an invocation may take
	// (cold start, environment set-up) before the service stops waiting.
	slack = time.Minute
)

// Invocation types.
const (
	RequestResponse = "RequestResponse"
	Event           = "Event"
	DryRun          = "DryRun"
)

// InvokeInput is an Invoke request.
type InvokeInput struct {
	FunctionName, Qualifier string
	// InvocationType and LogType are "" when absent.
	InvocationType, LogType string
	// ClientContext is X-Amz-Client-Context: base64 of a JSON object.
	ClientContext string
	// RequestID is the request's id, which the invocation takes (its
	// logs' START RequestId), as Lambda's does; "" makes a new one.
	RequestID string
	Payload   []byte
}

// InvokeOutput is an Invoke answer.
type InvokeOutput struct {
	// Status is 200 (RequestResponse), 202 (Event) or 204 (DryRun).
	Status          int
	Payload         []byte
	FunctionError   string
	LogResult       string
	ExecutedVersion string
}

// tooLarge is Invoke's refusal of a payload over its limit.
func tooLarge(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.Lambda, functions.CodeRequestTooLarge, format, args...)
}

// Invoke runs a function: RequestResponse waits for its answer, Event
// queues it (202), DryRun only checks that it could run (204).
func (s *Service) Invoke(ctx context.Context, sc awswire.Scope, in InvokeInput) (InvokeOutput, error) {
	typ := in.InvocationType
	if typ == "" {
		typ = RequestResponse
	}
	if p := enum(typ, "invocationType", Event, RequestResponse, DryRun); p != "" {
		return InvokeOutput{}, Validation(p)
	}
	if in.LogType != "" {
		if p := enum(in.LogType, "logType", "None", "Tail"); p != "" {
			return InvokeOutput{}, Validation(p)
		}
	}
	inv, err := s.resolveInvocation(sc, in.FunctionName, in.Qualifier)
	if err != nil {
		return InvokeOutput{}, err
	}
	payload := in.Payload
	switch {
	case typ == RequestResponse && len(payload) > MaxSyncPayload:
		return InvokeOutput{}, tooLarge("Request must be smaller than %d bytes for the InvokeFunction operation", MaxSyncPayload)
	case typ == Event && len(payload) > MaxAsyncPayload:
		return InvokeOutput{}, tooLarge("%d byte payload is too large for the Event invocation type (limit %d bytes)", len(payload), MaxAsyncPayload)
	}
	if len(payload) == 0 {
		payload = []byte("{}")
	} else if err := checkPayload(payload); err != nil {
		return InvokeOutput{}, err
	}
	call := functions.Invocation{Payload: payload, RequestID: in.RequestID}
	if in.ClientContext != "" {
		cc, err := base64.StdEncoding.DecodeString(in.ClientContext)
		if err != nil || !json.Valid(cc) {
			return InvokeOutput{}, awswire.New(awswire.Lambda, codeInvalidRequestContent,
				"Client context must be a valid Base64-encoded JSON object.")
		}
		call.ClientContext = string(cc)
	}
	if s.runtime == nil {
		return InvokeOutput{}, awswire.New(awswire.Lambda, awswire.CodeNotImplemented,
			"Invoking functions needs the functions runtime, which this emulator was built without.")
	}
	switch typ {
	case DryRun:
		return InvokeOutput{Status: 204}, nil
	case Event:
		if !s.enqueue(inv, call) {
			return InvokeOutput{}, awswire.New(awswire.Lambda, awswire.CodeTooManyRequests, "Rate Exceeded.").
				With("Reason", "ConcurrentInvocationLimitExceeded")
		}
		return InvokeOutput{Status: 202}, nil
	}
	out, err := s.run(ctx, inv, call)
	if err != nil {
		return InvokeOutput{}, err
	}
	res := InvokeOutput{Status: 200, Payload: out.Payload, FunctionError: out.FunctionError, ExecutedVersion: inv.Version}
	if in.LogType == "Tail" {
		tail := out.LogTail
		if len(tail) > functions.TailSize {
			tail = tail[len(tail)-functions.TailSize:]
		}
		res.LogResult = base64.StdEncoding.EncodeToString(tail)
	}
	return res, nil
}

// checkPayload refuses a payload that is not JSON, as Lambda does.
func checkPayload(p []byte) error {
	// json.Valid builds nothing; decoding the payload (an API Gateway
	// event on every proxy call) was a tenth of a warm invocation's CPU.
	if json.Valid(p) {
		return nil
	}
	var v any
	if err := json.Unmarshal(p, &v); err != nil {
		return awswire.New(awswire.Lambda, codeInvalidRequestContent,
			"Could not parse request body into json: Could not parse payload into json: "+jsonReason(err))
	}
	return nil
}

func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at offset %d", se.Error(), se.Offset)
	}
	return err.Error()
}

// InvokeFunction runs a function synchronously for another service (API
// Gateway's Lambda integrations): functionName takes every form Invoke
// takes, a qualifier suffix included. Its errors are *awswire.Error values
// with Lambda's codes.
func (s *Service) InvokeFunction(ctx context.Context, sc awswire.Scope, functionName string, payload []byte) (out []byte, functionError string, err error) {
	res, err := s.Invoke(ctx, sc, InvokeInput{FunctionName: functionName, Payload: payload})
	if err != nil {
		return nil, "", err
	}
	return res.Payload, res.FunctionError, nil
}

// resolveInvocation finds the version a name (and qualifier) invoke: an
// alias resolves to its version, or by its routing weight to the other.
func (s *Service) resolveInvocation(sc awswire.Scope, name, qualifier string) (functions.Function, error) {
	t, err := resolveName(sc, name, qualifier, kindRead)
	if err != nil {
		return functions.Function{}, err
	}
	invoked := t.qualifiedARN()
	if t.qualifier == "" {
		invoked += ":$LATEST"
	}
	d, f, ok := s.lookup(t)
	if !ok {
		return functions.Function{}, functionNotFound(invoked)
	}
	cfg, alias, ok := resolveQualifier(f, t.qualifier)
	if !ok {
		return functions.Function{}, functionNotFound(invoked)
	}
	if alias != "" {
		for v, w := range f.Aliases[alias].Weights {
			if rand.Float64() < w {
				if c, ok := f.version(v); ok {
					cfg = c
				}
			}
		}
	}
	code, _ := d.code(cfg.CodeHash)
	hash := cfg.CodeHash
	// The ARN is the version's: the runtime keeps environments by it, and
	// an update evicts $LATEST's by it.
	return functions.Function{
		Name: f.Name, Version: cfg.Version, ARN: f.ARN + ":" + cfg.Version,
		Account: t.scope.Account, Region: t.scope.Region,
		Runtime: cfg.Runtime, Handler: cfg.Handler, CodeSHA256: cfg.CodeSHA256,
		Code: func() ([]byte, error) {
			if code == nil {
				return nil, fmt.Errorf("lambda: the code package %s of %s is missing", hash, f.ARN)
			}
			return code.Zip, nil
		},
		Environment: cfg.Environment,
		Timeout:     time.Duration(cfg.Timeout) * time.Second,
		MemoryMB:    cfg.MemorySize,
	}, nil
}

// run invokes inv synchronously and maps the runtime's failures to
// Lambda's errors.
func (s *Service) run(ctx context.Context, inv functions.Function, call functions.Invocation) (functions.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, inv.Timeout+slack)
	defer cancel()
	life := s.context()
	stop := context.AfterFunc(life, cancel)
	defer stop()
	out, err := s.runtime.InvokeWith(ctx, inv, call)
	if err != nil {
		return functions.Result{}, runtimeError(err)
	}
	if len(out.Payload) > maxSyncResponse {
		out.Payload = []byte(fmt.Sprintf(`{"errorMessage":"Response payload size exceeded maximum allowed payload size (%d bytes).","errorType":"Function.ResponseSizeTooLarge"}`, maxSyncResponse))
		out.FunctionError = "Unhandled"
	}
	return out, nil
}

// runtimeError is the client's error for a runtime failure: the runtime's
// Lambda code when the model declares it, else ServiceException.
func runtimeError(err error) error {
	var fe *functions.Error
	if errors.As(err, &fe) {
		code := fe.Code
		if _, ok := awswire.Shape(awswire.Lambda, code); !ok {
			code = awswire.CodeServiceException
		}
		we := awswire.New(awswire.Lambda, code, fe.Message)
		if fe.Reason != "" {
			we = we.With("Reason", fe.Reason)
		}
		return we
	}
	var we *awswire.Error
	if errors.As(err, &we) {
		return we
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return awswire.New(awswire.Lambda, awswire.CodeServiceException, "The invocation did not complete in time.")
	}
	return awswire.New(awswire.Lambda, awswire.CodeServiceException, "Internal error while executing the function: "+err.Error())
}

// ---- Event invocations ----

// asyncQueue holds Event invocations waiting to run, up to limit, and runs
// them on at most workers goroutines, started when there is work and ended
// when there is none.
type asyncQueue struct {
	mu      sync.Mutex
	jobs    []func()
	running int
	limit   int
	workers int
}

func (q *asyncQueue) push(job func()) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.jobs) >= q.limit {
		return false
	}
	q.jobs = append(q.jobs, job)
	if q.running < q.workers {
		q.running++
		go q.work()
	}
	return true
}

func (q *asyncQueue) work() {
	for {
		q.mu.Lock()
		if len(q.jobs) == 0 {
			q.running--
			q.mu.Unlock()
			return
		}
		job := q.jobs[0]
		q.jobs[0] = nil
		q.jobs = q.jobs[1:]
		q.mu.Unlock()
		job()
	}
}

// drop forgets the jobs not started.
func (q *asyncQueue) drop() {
	q.mu.Lock()
	q.jobs = nil
	q.mu.Unlock()
}

// pending is how many jobs wait.
func (q *asyncQueue) pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.jobs)
}

func (s *Service) enqueue(inv functions.Function, call functions.Invocation) bool {
	return s.async.push(func() {
		out, err := s.run(s.context(), inv, call)
		switch {
		case err != nil:
			s.log.Warn("event invocation failed", "function", inv.ARN, "error", err)
		case out.FunctionError != "":
			s.log.Info("event invocation returned an error", "function", inv.ARN, "functionError", out.FunctionError,
				"payload", string(truncate(out.Payload, 512)))
		default:
			s.log.Debug("event invocation done", "function", inv.ARN, "duration", out.Duration.String())
		}
	})
}

// QueuedEvents is how many Event invocations wait to run.
func (s *Service) QueuedEvents() int { return s.async.pending() }

func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[:n]
}
