package restjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
)

// Handler serves one operation. It returns an error (a *awswire.Error, or
// anything else, which becomes the service's internal error) or writes its
// reply through the Call.
type Handler func(c *Call) error

// Call is one request being served: the operation it was routed to, where it
// came from, and its labels. A Call is valid only until its Handler returns.
type Call struct {
	Ctx   *fasthttp.RequestCtx
	Op    *awswire.Operation
	Scope awswire.Scope
	// Labels are the path labels' raw (percent-encoded) values, by the
	// model's label names; they alias the request buffer.
	labelNames  []string
	labelValues []string
}

var callPool = sync.Pool{New: func() any { return &Call{} }}

// Acquire returns an empty Call from the pool.
func Acquire() *Call { return callPool.Get().(*Call) }

// Release returns c to the pool.
func Release(c *Call) {
	*c = Call{labelNames: c.labelNames[:0], labelValues: c.labelValues[:0]}
	callPool.Put(c)
}

// SetLabel records a path label's raw value.
func (c *Call) SetLabel(name, raw string) {
	c.labelNames = append(c.labelNames, name)
	c.labelValues = append(c.labelValues, raw)
}

// Service is the service the call was routed to.
func (c *Call) Service() awswire.Service {
	if c.Op == nil {
		return awswire.ServiceNone
	}
	return c.Op.Service
}

// Label returns the percent-decoded value of the path label called name (the
// model's spelling). The result is a copy the caller may keep.
func (c *Call) Label(name string) (string, error) {
	for i, n := range c.labelNames {
		if n != name {
			continue
		}
		raw := c.labelValues[i]
		if strings.IndexByte(raw, '%') < 0 {
			return strings.Clone(raw), nil
		}
		v, err := url.PathUnescape(raw)
		if err != nil {
			return "", c.Invalid("Invalid percent-encoding in path label %s", name)
		}
		return v, nil
	}
	return "", nil
}

// Query returns the query parameter called name (a copy), and whether it was
// present.
func (c *Call) Query(name string) (string, bool) {
	v := c.Ctx.QueryArgs().Peek(name)
	if v == nil {
		return "", false
	}
	return string(v), true
}

// QueryInt returns an integer query parameter within [lo, hi].
func (c *Call) QueryInt(name string, lo, hi int) (n int, present bool, err error) {
	v, ok := c.Query(name)
	if !ok {
		return 0, false, nil
	}
	n, perr := strconv.Atoi(v)
	if perr != nil {
		return 0, true, c.Invalid("Invalid value for %s: %q is not an integer", name, v)
	}
	if n < lo || n > hi {
		return 0, true, c.Invalid("Invalid value for %s: %d must be between %d and %d", name, n, lo, hi)
	}
	return n, true, nil
}

// QueryBool returns a boolean query parameter.
func (c *Call) QueryBool(name string) (b bool, present bool, err error) {
	v, ok := c.Query(name)
	if !ok {
		return false, false, nil
	}
	switch v {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, true, c.Invalid("Invalid value for %s: %q is not a boolean", name, v)
}

// Invalid is the service's error for a malformed or out-of-range input.
func (c *Call) Invalid(format string, args ...any) *awswire.Error {
	switch c.Service() {
	case awswire.Backup:
		return awswire.Errorf(awswire.Backup, awswire.CodeInvalidParameterValue, format, args...)
	case awswire.APIGateway, awswire.APIGatewayV2:
		return awswire.Errorf(c.Service(), awswire.CodeBadRequest, format, args...)
	}
	return awswire.Errorf(awswire.ServiceNone, awswire.CodeBadRequest, format, args...)
}

// Missing is the service's error for a required input that is absent.
func (c *Call) Missing(member string) *awswire.Error {
	switch c.Service() {
	case awswire.Backup:
		return awswire.Errorf(awswire.Backup, awswire.CodeMissingParameterValue, "Missing required parameter: %s", member).
			With("Context", member)
	case awswire.APIGateway, awswire.APIGatewayV2:
		return awswire.Errorf(c.Service(), awswire.CodeBadRequest, "Missing required parameter: %s", member)
	}
	return awswire.Errorf(awswire.ServiceNone, awswire.CodeBadRequest, "Missing required parameter: %s", member)
}

// v1Semantics make the JSON v2 decoder decode as encoding/json does (names
// matched without case, duplicates allowed, invalid UTF-8 replaced, …):
// the same values in about half the time and a third of the allocations
// (bench/README.md, "Writes").
var v1Semantics = jsonv1.DefaultOptionsV1()

// decodeJSON decodes body into v (a pointer) exactly as json.Unmarshal
// does, error included: the fast decoder first, into a copy, so that a
// failure leaves v as it was; then, on any failure, encoding/json decides,
// and its error words the answer.
func decodeJSON(body []byte, v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		tmp := reflect.New(rv.Elem().Type())
		tmp.Elem().Set(rv.Elem())
		if jsonv2.Unmarshal(body, tmp.Interface(), v1Semantics) == nil {
			rv.Elem().Set(tmp.Elem())
			return nil
		}
	}
	return json.Unmarshal(body, v)
}

// DecodeBody decodes the JSON body into v. An empty body decodes as {}.
// Malformed JSON and members of the wrong type are the service's
// invalid-input error, naming the member.
func (c *Call) DecodeBody(v any) error {
	body := bytes.TrimSpace(c.Ctx.PostBody())
	if len(body) == 0 {
		return nil
	}
	if body[0] != '{' {
		return c.Invalid("The request body must be a JSON object")
	}
	if err := decodeJSON(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && (c.Service() == awswire.APIGateway || c.Service() == awswire.APIGatewayV2) {
			// API Gateway's Java front end words it in Java's terms.
			return awswire.Errorf(c.Service(), awswire.CodeSerialization, "class %s can not be converted to an %s",
				javaClass(te.Value), javaTarget(te.Type))
		}
		if errors.As(err, &te) {
			member := te.Field
			if member == "" {
				member = "request body"
			}
			return c.Invalid("Invalid type for parameter %s, value: %s, valid types: %s", member, te.Value, TypeName(te.Type))
		}
		return c.Invalid("The request body is not valid JSON")
	}
	return nil
}

// javaClass names the Java class API Gateway's parser gives a JSON value.
func javaClass(jsonType string) string {
	switch {
	case jsonType == "bool":
		return "java.lang.Boolean"
	case jsonType == "string":
		return "java.lang.String"
	case strings.HasPrefix(jsonType, "number"):
		return "com.amazon.coral.value.json.numbers.TruncatingBigNumber"
	case jsonType == "array":
		return "java.util.ArrayList"
	case jsonType == "object":
		return "java.util.LinkedHashMap"
	}
	return "java.lang.Object"
}

// javaTarget names the Java type a member of Go type t has.
func javaTarget(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "String"
	case reflect.Bool:
		return "Boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		return "Integer"
	case reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "Long"
	case reflect.Float32, reflect.Float64:
		return "Double"
	case reflect.Map, reflect.Struct:
		return "Map"
	case reflect.Slice, reflect.Array:
		return "List"
	}
	return t.String()
}

// TypeName names the JSON type a Go member takes (string, boolean,
// integer, number, object, list).
func TypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Slice, reflect.Array:
		return "list"
	}
	return t.String()
}

// JSON writes v as the JSON body with the given status, copied into the
// response's own (pooled) body.
func (c *Call) JSON(status int, v any) error {
	err := encode(v, func(b []byte) {
		c.Ctx.SetStatusCode(status)
		c.Ctx.Response.Header.SetContentTypeBytes(contentTypeJSON)
		c.Ctx.Response.SetBody(b)
	})
	if err != nil {
		return fmt.Errorf("restjson: encode %s: %w", c.opName(), err)
	}
	return nil
}

// Marshal encodes v as compact JSON without HTML escaping, as AWS does.
func Marshal(v any) (out []byte, err error) {
	err = encode(v, func(b []byte) { out = bytes.Clone(b) })
	return out, err
}

// encode encodes v as compact JSON without HTML escaping into a pooled
// buffer and hands the bytes to use, which must copy what it keeps: a
// fresh buffer per answer grew by doubling each time.
func encode(v any, use func(b []byte)) error {
	e := encoders.Get().(*jsonEncoder)
	if err := e.enc.Encode(v); err != nil {
		return err // e is dropped
	}
	b := e.buf.Bytes()
	use(b[:len(b)-1]) // Encode appends a newline
	if e.buf.Cap() <= maxPooledEncoder {
		e.buf.Reset()
		encoders.Put(e)
	}
	return nil
}

// jsonEncoder is an encoder and the buffer it writes into.
type jsonEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// maxPooledEncoder: an encoder whose buffer grew past it (a large answer)
// is not kept.
const maxPooledEncoder = 64 << 10

var encoders = sync.Pool{New: func() any {
	e := &jsonEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

var contentTypeJSON = []byte("application/json")

// Raw writes body, already JSON, with the given status.
func (c *Call) Raw(status int, body []byte) {
	c.Ctx.SetStatusCode(status)
	c.Ctx.Response.Header.SetContentTypeBytes(contentTypeJSON)
	c.Ctx.Response.SetBodyRaw(body)
}

// Empty writes an empty body with the given status.
func (c *Call) Empty(status int) {
	c.Ctx.SetStatusCode(status)
	c.Ctx.Response.ResetBody()
}

func (c *Call) opName() string {
	if c.Op == nil {
		return "request"
	}
	return c.Op.Name
}
