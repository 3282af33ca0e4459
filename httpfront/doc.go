// Package httpfront is the emulator's HTTP front: the fasthttp server that
// stamps every request with an x-amzn-RequestId, recovers panics, bounds and
// decompresses bodies, logs requests, serves the CloudWatch API over the metric stores it is
// given, answers calls
// to services it does not emulate in their own protocol, routes every operation of the
// AWS models (implemented or answering NotImplementedException) and the
// emulator's own endpoints, reads the SigV4 scope, and hands each request to
// the handler it was given. It does no service work and knows no service:
// the emulator package assembles it with each service's handlers (its
// <service>http sub-packages), and state lives in actors.
package httpfront
