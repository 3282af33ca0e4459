// Package httpfront is the emulator's HTTP front and its assembly: the
// fasthttp server that stamps every request with an x-amzn-RequestId,
// recovers panics, bounds bodies, recognises CloudWatch, routes every
// operation of the AWS models (implemented or answering
// NotImplementedException) and the emulator's own endpoints, reads the
// SigV4 scope, and hands each request to its service's handlers. Open
// builds a whole emulator from a Config. It does no service work itself:
// handlers live in its sub-packages, state in actors.
package httpfront
