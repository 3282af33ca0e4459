package httpevent

import (
	"bytes"
	"encoding/base64"
	"math"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/jsonread"
)

// ReadResponse reads a function's answer to a function-proxy event of
// payload format version ("1.0", else 2.0) into resp: its status, headers
// (appended, names as the function spelled them) and body (appended). An
// error is ErrFunction or ErrInvalidResponse; the caller then answers 500
// InternalErrorBody instead (resp may be partly written: reset it).
//
// 2.0 (docs: http-api-develop-integrations-lambda, "Lambda function
// response for format 2.0"): valid JSON that is not an object with a
// statusCode is the body, with status 200 and Content-Type
// application/json: a JSON string's value ("Hello from Lambda!" → Hello
// from Lambda!), any other value its JSON text as the function wrote it.
// An object with a statusCode is {statusCode, headers, body,
// isBase64Encoded, cookies}: each cookie becomes a Set-Cookie header, ahead
// of a Set-Cookie in headers (checked against AWS, ministackorg/ministack
// apigateway.py); a base64 body is decoded; Content-Type defaults to
// "text/plain; charset=utf-8" (recorded on AWS: aasisodiya.github.io
// nodejs-aws-apigw, and powertools-lambda-python#2464, whose 1.0-style
// multiValueHeaders went unread); other members, multiValueHeaders
// included, are ignored.
//
// 1.0: REST's proxy answer (statusCode, headers, multiValueHeaders, body,
// isBase64Encoded, nothing else; execute/rest's parseProxyAnswer and
// docs/apigateway-execution.md §4 "Response parsing"), except that
// statusCode is required (AWS "doesn't make assumptions", repost
// knowledge-center api-gateway-status-codes-http-api) and a base64 body
// is always decoded (HTTP APIs have no binaryMediaTypes).
//
// Everywhere: scalars are read as text where text is wanted (true →
// "true", 1 → "1"), null is absence, a statusCode may be a number or a
// numeric string of an HTTP status (100-599).
func ReadResponse(version string, reply execute.FunctionReply, resp *execute.Response) error {
	if reply.Error != "" {
		return ErrFunction
	}
	payload, ok := jsonread.Check(reply.Payload)
	if !ok {
		return ErrInvalidResponse
	}
	if version == "1.0" {
		return readV1(payload, resp)
	}
	if payload[0] == '{' && hasMember(payload, "statusCode") {
		return readV2(payload, resp)
	}
	resp.Status = 200
	resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"})
	if payload[0] == '"' {
		resp.Body = jsonread.AppendUnquoted(resp.Body, payload)
	} else {
		resp.Body = append(resp.Body, payload...)
	}
	return nil
}

// hasMember reports whether the checked object v has a member name.
func hasMember(v []byte, name string) bool {
	it := jsonread.NewIter(v)
	for {
		k, _, ok := it.Next()
		if !ok {
			return false
		}
		if jsonread.KeyIs(k, name) {
			return true
		}
	}
}

// arena gathers a response's header names and values as text, turned
// into strings at once (one allocation for all of them).
type arena struct {
	buf   []byte
	spans []span
}

// span is a header's name and value in arena.buf.
type span struct{ n0, n1, v0, v1 int32 }

// add appends a header: its quoted JSON name (or, nameText, raw text) and
// its scalar value. ok is false when the value is not a scalar. A null
// value adds nothing.
//
// The arena is passed and returned by value: stored through a pointer,
// its slices (the callers' stack arrays) would move to the heap.
func (a arena) add(name []byte, nameText bool, value []byte) (arena, bool) {
	switch jsonread.KindOf(value) {
	case jsonread.Null:
		return a, true
	case jsonread.Object, jsonread.Array:
		return a, false
	}
	var s span
	s.n0 = int32(len(a.buf))
	if nameText {
		a.buf = append(a.buf, name...)
	} else {
		a.buf = jsonread.AppendUnquoted(a.buf, name)
	}
	s.n1 = int32(len(a.buf))
	s.v0 = s.n1
	a.buf, _, _ = jsonread.AppendScalar(a.buf, value)
	s.v1 = int32(len(a.buf))
	a.spans = append(a.spans, s)
	return a, true
}

// addText appends a header given as text.
func (a arena) addText(name, value []byte) arena {
	s := span{n0: int32(len(a.buf))}
	a.buf = append(a.buf, name...)
	s.n1, s.v0 = int32(len(a.buf)), int32(len(a.buf))
	a.buf = append(a.buf, value...)
	s.v1 = int32(len(a.buf))
	a.spans = append(a.spans, s)
	return a
}

func (a arena) name(i int) []byte  { return a.buf[a.spans[i].n0:a.spans[i].n1] }
func (a arena) value(i int) []byte { return a.buf[a.spans[i].v0:a.spans[i].v1] }

// flush appends the gathered headers to h.
func (a arena) flush(h execute.Headers) execute.Headers {
	if len(a.spans) == 0 {
		return h
	}
	text := string(a.buf)
	for _, s := range a.spans {
		h = append(h, execute.Header{Name: text[s.n0:s.n1], Value: text[s.v0:s.v1]})
	}
	return h
}

// hasHeader reports whether one of the gathered headers is called name.
func (a arena) hasHeader(name string) bool {
	for i := range a.spans {
		if strings.EqualFold(string(a.name(i)), name) {
			return true
		}
	}
	return false
}

var setCookie = []byte("Set-Cookie")

// readV2 reads 2.0's structured answer.
func readV2(payload []byte, resp *execute.Response) error {
	var status, headers, body, b64, cookies []byte
	it := jsonread.NewIter(payload)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		switch {
		case jsonread.KeyIs(k, "statusCode"):
			status = v
		case jsonread.KeyIs(k, "headers"):
			headers = v
		case jsonread.KeyIs(k, "body"):
			body = v
		case jsonread.KeyIs(k, "isBase64Encoded"):
			b64 = v
		case jsonread.KeyIs(k, "cookies"):
			cookies = v
		}
	}
	code, ok := statusOf(status)
	if !ok {
		return ErrInvalidResponse
	}
	isB64, ok := boolOf(b64)
	if !ok {
		return ErrInvalidResponse
	}
	var bufArr [512]byte
	var spanArr [16]span
	a := arena{buf: bufArr[:0], spans: spanArr[:0]}
	switch jsonread.KindOf(cookies) {
	case jsonread.Null:
	case jsonread.Array:
		it := jsonread.NewIter(cookies)
		for {
			_, c, ok := it.Next()
			if !ok {
				break
			}
			if a, ok = a.add(setCookie, true, c); !ok {
				return ErrInvalidResponse
			}
		}
	default:
		return ErrInvalidResponse
	}
	switch jsonread.KindOf(headers) {
	case jsonread.Null:
	case jsonread.Object:
		it := jsonread.NewIter(headers)
		for {
			k, v, ok := it.Next()
			if !ok {
				break
			}
			if a, ok = a.add(k, false, v); !ok {
				return ErrInvalidResponse
			}
		}
	default:
		return ErrInvalidResponse
	}
	defaultType := !a.hasHeader("Content-Type")
	if err := readBody(resp, body, isB64); err != nil {
		return err
	}
	resp.Status = code
	resp.Headers = a.flush(resp.Headers)
	if defaultType {
		resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "text/plain; charset=utf-8"})
	}
	return nil
}

// readBody appends the answer's body (a scalar) to resp.Body, decoded
// from base64 when isB64.
func readBody(resp *execute.Response, body []byte, isB64 bool) error {
	if !isB64 {
		var ok bool
		if resp.Body, _, ok = jsonread.AppendScalar(resp.Body, body); !ok {
			return ErrInvalidResponse
		}
		return nil
	}
	var text []byte
	switch jsonread.KindOf(body) {
	case jsonread.Null:
		return nil
	case jsonread.String:
		text = body[1 : len(body)-1]
		if bytes.IndexByte(text, '\\') >= 0 {
			text = jsonread.AppendUnquoted(nil, body)
		}
	case jsonread.Object, jsonread.Array:
		return ErrInvalidResponse
	default:
		text = body
	}
	// Padding is optional, as for Java's base64 decoder.
	for len(text) > 0 && text[len(text)-1] == '=' {
		text = text[:len(text)-1]
	}
	out, err := base64.RawStdEncoding.AppendDecode(resp.Body, text)
	if err != nil {
		return ErrInvalidResponse
	}
	resp.Body = out
	return nil
}

// statusOf reads statusCode: a number, or a string holding one (a fraction
// is dropped, as Jackson reads a number into an int), of an HTTP status.
func statusOf(v []byte) (int, bool) {
	switch jsonread.KindOf(v) {
	case jsonread.String:
		n, err := strconv.Atoi(string(jsonread.AppendUnquoted(nil, v)))
		return n, err == nil && n >= 100 && n <= 599
	case jsonread.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsNaN(f) {
			return 0, false
		}
		n := int(f)
		return n, n >= 100 && n <= 599
	}
	return 0, false
}

// boolOf reads isBase64Encoded: a boolean, or "true"/"false" (Jackson's
// scalar coercion); null is false.
func boolOf(v []byte) (bool, bool) {
	switch {
	case jsonread.KindOf(v) == jsonread.Null:
		return false, true
	case string(v) == "true", string(v) == `"true"`:
		return true, true
	case string(v) == "false", string(v) == `"false"`:
		return false, true
	}
	return false, false
}

// readV1 reads 1.0's answer.
func readV1(payload []byte, resp *execute.Response) error {
	if payload[0] != '{' {
		return ErrInvalidResponse
	}
	var status, single, multi, body, b64 []byte
	it := jsonread.NewIter(payload)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		switch {
		case jsonread.KeyIs(k, "statusCode"):
			status = v
		case jsonread.KeyIs(k, "headers"):
			single = v
		case jsonread.KeyIs(k, "multiValueHeaders"):
			multi = v
		case jsonread.KeyIs(k, "body"):
			body = v
		case jsonread.KeyIs(k, "isBase64Encoded"):
			b64 = v
		default:
			return ErrInvalidResponse
		}
	}
	code, ok := statusOf(status)
	if !ok {
		return ErrInvalidResponse
	}
	isB64, ok := boolOf(b64)
	if !ok {
		return ErrInvalidResponse
	}
	var bufArr [512]byte
	var spanArr [16]span
	singles := arena{buf: bufArr[:0], spans: spanArr[:0]}
	switch jsonread.KindOf(single) {
	case jsonread.Null:
	case jsonread.Object:
		it := jsonread.NewIter(single)
		for {
			k, v, ok := it.Next()
			if !ok {
				break
			}
			if singles, ok = singles.add(k, false, v); !ok {
				return ErrInvalidResponse
			}
		}
	default:
		return ErrInvalidResponse
	}
	// REST's merge rule: each multiValueHeaders name with its values, then
	// headers' value of that name (the multiValueHeaders spelling kept),
	// then the other headers in order.
	var mBufArr [512]byte
	var mSpanArr [16]span
	out := arena{buf: mBufArr[:0], spans: mSpanArr[:0]}
	var usedArr [16]bool
	var used []bool
	if n := len(singles.spans); n <= len(usedArr) {
		used = usedArr[:n]
	} else {
		used = make([]bool, n)
	}
	switch jsonread.KindOf(multi) {
	case jsonread.Null:
	case jsonread.Object:
		it := jsonread.NewIter(multi)
		var nameArr [64]byte
		for {
			k, v, ok := it.Next()
			if !ok {
				break
			}
			switch jsonread.KindOf(v) {
			case jsonread.Null:
				continue
			case jsonread.Array:
			default:
				return ErrInvalidResponse
			}
			name := jsonread.AppendUnquoted(nameArr[:0], k)
			vs := jsonread.NewIter(v)
			for {
				_, e, ok := vs.Next()
				if !ok {
					break
				}
				if out, ok = out.add(name, true, e); !ok {
					return ErrInvalidResponse
				}
			}
			for i := range singles.spans {
				if !used[i] && bytes.EqualFold(singles.name(i), name) {
					used[i] = true
					out = out.addText(name, singles.value(i))
				}
			}
		}
	default:
		return ErrInvalidResponse
	}
	for i := range singles.spans {
		if !used[i] {
			out = out.addText(singles.name(i), singles.value(i))
		}
	}
	defaultType := !out.hasHeader("Content-Type")
	if err := readBody(resp, body, isB64); err != nil {
		return err
	}
	resp.Status = code
	resp.Headers = out.flush(resp.Headers)
	if defaultType {
		resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"})
	}
	return nil
}
