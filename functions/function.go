package functions

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"
	"strconv"
	"time"

	"github.com/cloudemu/emulator/awswire"
)

// Function is what an invocation needs to know about a function version.
type Function struct {
	Name, Version, ARN string // ARN qualified with the version
	Account, Region    string
	Runtime, Handler   string                 // e.g. "provided.al2023","python3.12","nodejs20.x"; handler "index.handler"
	CodeSHA256         string                 // identity of the code (base64 of the zip's SHA-256, as Lambda's CodeSha256)
	Code               func() ([]byte, error) // the zip, fetched only when the code is not unpacked yet
	Environment        map[string]string
	Timeout            time.Duration // 0: Lambda's default, 3 s
	MemoryMB           int           // 0: Lambda's default, 128
}

// Lambda's defaults for a function that does not say.
const (
	DefaultTimeout  = 3 * time.Second
	DefaultMemoryMB = 128
)

func (fn *Function) version() string {
	if fn.Version == "" {
		return "$LATEST"
	}
	return fn.Version
}

func (fn *Function) timeout() time.Duration {
	if fn.Timeout <= 0 {
		return DefaultTimeout
	}
	return fn.Timeout
}

func (fn *Function) memoryMB() int {
	if fn.MemoryMB <= 0 {
		return DefaultMemoryMB
	}
	return fn.MemoryMB
}

func (fn *Function) check() error {
	switch {
	case fn.Name == "":
		return newError(CodeInvalidParameterValue, nil, "the function has no name")
	case fn.ARN == "":
		return newError(CodeInvalidParameterValue, nil, "function %s has no ARN", fn.Name)
	case fn.CodeSHA256 == "":
		return newError(CodeInvalidParameterValue, nil, "function %s has no CodeSHA256", fn.ARN)
	}
	return nil
}

// poolKey names the warm pool fn's invocations share: the qualified ARN,
// the code and everything in the configuration an instance is started
// with. A changed configuration gets new instances.
func (fn *Function) poolKey() string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(fn.Name)
	field(fn.version())
	field(fn.Account)
	field(fn.Region)
	field(fn.Runtime)
	field(fn.Handler)
	field(strconv.Itoa(fn.memoryMB()))
	field(fn.timeout().String())
	keys := make([]string, 0, len(fn.Environment))
	for k := range fn.Environment {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		field(k)
		field(fn.Environment[k])
	}
	var sum [sha256.Size]byte
	return fn.ARN + "\x00" + fn.CodeSHA256 + "\x00" + hex.EncodeToString(h.Sum(sum[:0])[:12])
}

// Result is how an invocation ended, when it reached the function. A
// function's own failure is a Result with FunctionError "Unhandled".
type Result struct {
	Payload       []byte // the function's response, or the error object {"errorMessage","errorType","stackTrace"} / {"errorMessage":"... Task timed out after 3.00 seconds"}
	FunctionError string // "" or "Unhandled"
	LogTail       []byte // the invocation's log, last 4 KB (for LogType=Tail), START/END/REPORT lines as Lambda writes them
	Duration      time.Duration
	InitDuration  time.Duration // a cold start's init phase; 0 when warm

	RequestID       string // the invocation's id (Lambda answers it as x-amzn-RequestId)
	ErrorType       string // a failure's type ("Runtime.ExitError", "Sandbox.Timedout", the handler's …); "" on success
	MaxMemoryUsedMB int    // the process's peak resident memory, as REPORT says it
}

// Invocation is one invocation's input beyond the function.
type Invocation struct {
	Payload         []byte
	RequestID       string // "" makes a new one
	TraceID         string // X-Amzn-Trace-Id; "" makes a new one
	ClientContext   string // the client context's JSON (decoded from X-Amz-Client-Context's base64)
	CognitoIdentity string // the Cognito identity's JSON, when there is one
}

// invocation is one invocation in flight.
type invocation struct {
	id, arn, traceID               string
	clientContext, cognitoIdentity string
	payload                        []byte
	version                        string
	deadline                       time.Time // set before it is handed to the runtime
	initDuration                   time.Duration
	done                           chan answer
	answered                       bool // under instance.mu: one answer per invocation
	tail                           tail // under output.mu while attached
}

func newInvocation(fn *Function, in Invocation) *invocation {
	inv := &invocation{
		id: in.RequestID, arn: fn.ARN, traceID: in.TraceID, version: fn.version(),
		clientContext: in.ClientContext, cognitoIdentity: in.CognitoIdentity,
		// A copy: the runtime may still be writing it to the function
		// after a caller that stopped waiting reused its buffer.
		payload: bytes.Clone(in.Payload), done: make(chan answer, 1),
	}
	if inv.id == "" {
		inv.id = awswire.UUID() // random (version 4), as Lambda's request ids are
	}
	if inv.traceID == "" {
		inv.traceID = newTraceID()
	}
	return inv
}

// newTraceID is an X-Ray trace header for an unsampled request:
// Root=1-<epoch hex>-<24 hex>;Parent=<16 hex>;Sampled=0.
func newTraceID() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return "Root=1-" + strconv.FormatInt(time.Now().Unix(), 16) + "-" + hex.EncodeToString(b[:12]) +
		";Parent=" + hex.EncodeToString(b[12:]) + ";Sampled=0"
}
