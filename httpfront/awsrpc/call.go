package awsrpc

import (
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// Handler serves one operation. It returns an error (a *awswire.Error whose
// Code is the model's error shape name, or one of the service's common
// query codes, or anything else, which becomes the service's internal
// error) or replies through the Call.
type Handler func(c *Call) error

// Protocol is how a request travels.
type Protocol uint8

// The protocols.
const (
	// Query is the query protocol: a form (POST body or GET query) with
	// Action and Version, answered in XML.
	Query Protocol = iota + 1
	// JSON is the JSON 1.0 protocol: X-Amz-Target names the operation,
	// the body is the input's JSON, the answer is JSON.
	JSON
)

// Call is one request being served. It is valid only until its Handler
// returns.
type Call struct {
	Ctx      *fasthttp.RequestCtx
	Service  awswire.Service
	Op       string // the model's operation name (SendMessage)
	Scope    awswire.Scope
	Protocol Protocol
	// Path is the request's path ("/" or, for SQS's query clients, the
	// queue URL's path "/{account}/{queue}").
	Path string
	// Form is the query protocol's parameters: the POST body's form, or
	// the query string of a GET (nil for JSON).
	Form *fasthttp.Args
}

var callPool = sync.Pool{New: func() any { return &Call{} }}

// Acquire returns an empty Call from the pool.
func Acquire() *Call { return callPool.Get().(*Call) }

// Release returns c to the pool.
func Release(c *Call) {
	*c = Call{}
	callPool.Put(c)
}

// Decode fills v, a pointer to the operation's input structure (json tags
// are the model's member names, as the JSON protocol sends them). A JSON
// body is decoded as is; a query form is read as the model's input shape
// says (Name.member.N lists, flattened Name.N lists, Name.entry.N.key/value
// and flattened maps, nested Name.Member structures, location names) and
// decoded into v as the same JSON would be. Input that does not fit the
// shape is the service's validation error, already shaped: return it.
func (c *Call) Decode(v any) error {
	if c.Protocol == Query {
		return c.decodeQuery(v)
	}
	return c.decodeJSON(v)
}

// Reply writes the operation's output: v (nil for an operation without
// output) marshals with encoding/json to the output shape's members. JSON:
// 200, application/x-amz-json-1.0, the JSON. Query: 200, text/xml,
// <OpResponse xmlns="..."><OpResult>members as the model lays them out
// (wrapped or flattened lists, maps, location names, ISO 8601
// timestamps)</OpResult><ResponseMetadata><RequestId>..</RequestId>
// </ResponseMetadata></OpResponse>.
func (c *Call) Reply(v any) error {
	if c.Protocol == Query {
		return c.replyQuery(v)
	}
	return c.replyJSON(v)
}

// requestID is the id the front stamped on the response.
func (c *Call) requestID() []byte {
	return c.Ctx.Response.Header.Peek(restjson.HeaderRequestID)
}
