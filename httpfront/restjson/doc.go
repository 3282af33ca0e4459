// Package restjson is the rest-json protocol as the three AWS services use
// it: the per-request Call a handler reads its input from and writes its
// output to, and WriteError, the one place where an error becomes a status,
// an x-amzn-ErrorType header and a JSON body. It knows the wire (package
// wire) and fasthttp, and nothing of any service's rules.
package restjson
