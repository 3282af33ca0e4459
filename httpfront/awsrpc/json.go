package awsrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/cloudemu/emulator/awswire"
)

// contentTypeJSON is the JSON 1.0 protocol's content type.
const contentTypeJSON = "application/x-amz-json-1.0"

// bufPool holds the buffers replies are encoded into.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuf keeps one huge reply from pinning its buffer in the pool.
const maxPooledBuf = 1 << 20

func getBuf() *bytes.Buffer { return bufPool.Get().(*bytes.Buffer) }

func putBuf(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuf {
		return
	}
	b.Reset()
	bufPool.Put(b)
}

// decodeJSON decodes the JSON body into v. An empty body is {}. A body that
// is not a JSON object, or whose members do not fit v, is the framework's
// SerializationException, as the JSON services answer it.
func (c *Call) decodeJSON(v any) error {
	body := bytes.TrimSpace(c.Ctx.PostBody())
	if len(body) == 0 {
		return nil
	}
	if body[0] != '{' {
		return awswire.New(c.Service, awswire.CodeSerialization, "The request body must be a JSON object.")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			member := te.Field
			if member == "" {
				member = "the request body"
			}
			return awswire.Errorf(c.Service, awswire.CodeSerialization,
				"Invalid type for %s: a JSON %s cannot be read as %s.", clip(member, 128), te.Value, typeName(te.Type))
		}
		return awswire.New(c.Service, awswire.CodeSerialization, "The request body is not valid JSON.")
	}
	return nil
}

// replyJSON writes v as the JSON 1.0 answer ({} for no output).
func (c *Call) replyJSON(v any) error {
	h := &c.Ctx.Response.Header
	c.Ctx.SetStatusCode(200)
	h.SetContentType(contentTypeJSON)
	if v == nil {
		c.Ctx.SetBodyString("{}")
		return nil
	}
	buf := getBuf()
	defer putBuf(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("awsrpc: encode %s output: %w", c.Op, err)
	}
	b := buf.Bytes()
	c.Ctx.SetBody(b[:len(b)-1]) // Encode ends with a newline
	return nil
}

// clip cuts s to n bytes, marked with "..." when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
