package httpevent

import "errors"

var (
	// ErrFunction is a function that failed (a function error, "Unhandled").
	ErrFunction = errors.New("httpevent: the function failed")
	// ErrInvalidResponse is an answer that is not one of the payload
	// format's.
	ErrInvalidResponse = errors.New("httpevent: the function's answer is not a valid response")
)

// InternalErrorBody is what an HTTP API answers, with status 500, for a
// function integration that failed or answered what it cannot read (docs:
// http-api-troubleshooting-lambda; "Internal Server Error", capital S).
const InternalErrorBody = `{"message":"Internal Server Error"}`
