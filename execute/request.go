package execute

import (
	"strings"
	"time"
)

// Request is one execute-api request as the front read it. Its strings and
// slices alias the front's buffers: they are valid only until the
// executor returns, and an executor that keeps any of it copies it.
type Request struct {
	// APIID and Stage name the deployed stage; Path is the rest of the
	// path after the stage, raw (not decoded), "" or starting with "/".
	APIID, Stage, Path string
	// Region is the region the host names ({id}.execute-api.{region}...),
	// when it names one: it decides between APIs that share a custom id.
	Region string
	Method string
	// RawQuery is the query string without the "?".
	RawQuery string
	Headers  Headers
	Body     []byte
	// Host is the Host header; SourceIP the client's address.
	Host, SourceIP string
	Protocol       string // "HTTP/1.1"
	// RequestID is the id the front stamped on the response.
	RequestID string
	// Received is when the request arrived.
	Received time.Time
	// Signed reports a SigV4 Authorization header or presigned query
	// (AWS_IAM methods accept any signature: credentials are not
	// checked).
	Signed bool
}

// Response is what an executor answers. The front writes it as it is:
// status, headers in order (names as spelled), body.
type Response struct {
	Status  int
	Headers Headers
	Body    []byte
}

// Reset empties r for reuse.
func (r *Response) Reset() {
	r.Status = 0
	r.Headers = r.Headers[:0]
	r.Body = r.Body[:0]
}

// Handler executes requests: the REST executor, later the HTTP and
// WebSocket ones. Serve MUST write a complete response (its errors are
// responses too) and MUST NOT keep req or resp after it returns.
type Handler interface {
	Serve(req *Request, resp *Response)
}

// HostName is a Host header without its port.
func HostName(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}

// HostPort is a Host header's port, "" when it names none.
func HostPort(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[i+1:]
	}
	return ""
}
