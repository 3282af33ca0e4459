package execute

import (
	"context"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute/jsonread"
)

// Function runs functions for the function integrations (AWS and AWS_PROXY
// with a Lambda URI, and the CLOUD names) and for Lambda authorizers. The
// functions service provides it; it only runs a payload: the events API
// Gateway sends and the answers it reads are built and parsed by each
// executor.
//
// Invoke MUST be safe for concurrent use. It MUST NOT keep payload after it
// returns (the buffer is reused), and it MUST return once ctx is done.
type Function interface {
	// Invoke runs the function named (a name or ARN, qualifier included,
	// as Lambda's Invoke takes it) in scope with payload, synchronously,
	// within timeout. A function error (it raised, timed out) is not a Go
	// error: it is FunctionReply.Error ("Unhandled") with the error
	// payload. A Go error is a call that could not be made (no such
	// function, the service failed); ctx's deadline is the timeout.
	Invoke(ctx context.Context, sc awswire.Scope, function string, payload []byte, timeout time.Duration) (FunctionReply, error)
}

// FunctionReply is what a function answered: its result, or with Error
// set (Lambda's X-Amz-Function-Error, "Unhandled") its error payload,
// {"errorMessage": ..., "errorType": ..., "stackTrace": [...]}.
type FunctionReply struct {
	Payload []byte
	Error   string
}

// FunctionErrorMessage is a function error's errorMessage ("" when the
// error payload has none): "Unauthorized" from an authorizer, and the
// selection value of a non-proxy function integration.
func FunctionErrorMessage(payload []byte) string {
	msg := ""
	jsonread.EachMember(payload, func(key, v []byte) bool {
		if string(key) == "errorMessage" {
			if s, k, ok := jsonread.ScalarText(v); ok && k != jsonread.Null {
				msg = s
			}
		}
		return true
	})
	return msg
}
