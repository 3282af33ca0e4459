package functions

import (
	"fmt"
	"net/http"
)

// Lambda's error codes for what goes wrong before or around a function's
// own code. A function's failure (a raised error, a timeout, a crash) is not
// one of these: it is a Result with FunctionError "Unhandled".
const (
	CodeInvalidParameterValue = "InvalidParameterValueException"
	CodeInvalidRuntime        = "InvalidRuntimeException"
	CodeInvalidZipFile        = "InvalidZipFileException"
	CodeRequestTooLarge       = "RequestTooLargeException"
	CodeTooManyRequests       = "TooManyRequestsException"
	CodeService               = "ServiceException"
)

// The Reason Lambda gives with a TooManyRequestsException when a function
// has used all its concurrency.
const ReasonConcurrencyLimit = "ReservedFunctionConcurrentInvocationLimitExceeded"

// The Reason Lambda gives when the account's concurrency is used up
// (every function together).
const ReasonAccountConcurrencyLimit = "ConcurrentInvocationLimitExceeded"

// Error is a failure the control plane puts on the wire as Lambda would:
// Code is the error's type (x-amzn-ErrorType), Status its HTTP status.
type Error struct {
	Code    string
	Message string
	Status  int
	Reason  string // TooManyRequestsException's Reason member; "" otherwise
	Err     error  // the cause, if any (for errors.Is/As and the emulator's log)
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// statusOf is the status Lambda's Invoke answers each code with.
var statusOf = map[string]int{
	CodeInvalidParameterValue: http.StatusBadRequest,
	CodeInvalidRuntime:        http.StatusBadGateway,
	CodeInvalidZipFile:        http.StatusBadGateway,
	CodeRequestTooLarge:       http.StatusRequestEntityTooLarge,
	CodeTooManyRequests:       http.StatusTooManyRequests,
	CodeService:               http.StatusInternalServerError,
}

func newError(code string, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Status: statusOf[code], Err: cause}
}

func errAccountConcurrency() *Error {
	e := newError(CodeTooManyRequests, nil, "Rate Exceeded.")
	e.Reason = ReasonAccountConcurrencyLimit
	return e
}

func errTooManyRequests() *Error {
	e := newError(CodeTooManyRequests, nil, "Rate Exceeded.")
	e.Reason = ReasonConcurrencyLimit
	return e
}
