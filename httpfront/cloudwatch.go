package httpfront

import (
	"bytes"
	"html"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// CloudWatch (signing name monitoring) is recognised before any path
// routing, as OPERATIONS.md's dispatching says, in each of the three
// protocols its clients speak. No CloudWatch operation is served yet: each
// answers NotImplemented in the shape that protocol's clients parse.

const cloudWatchTarget = "GraniteServiceVersion20100801"

var (
	cborPathPrefix  = []byte("/service/" + cloudWatchTarget + "/operation/")
	jsonTargetPfx   = []byte(cloudWatchTarget + ".")
	headerAmzTarget = []byte("X-Amz-Target")
	formContentType = []byte("application/x-www-form-urlencoded")
	queryVersion    = []byte("2010-08-01")
)

// cloudWatchProtocol is how a CloudWatch request travels.
type cloudWatchProtocol uint8

const (
	notCloudWatch cloudWatchProtocol = iota
	cloudWatchCBOR
	cloudWatchJSON
	cloudWatchQuery
)

// classifyCloudWatch tells whether ctx is a CloudWatch request, and names
// its operation.
func classifyCloudWatch(ctx *fasthttp.RequestCtx, path []byte) (cloudWatchProtocol, string) {
	if !ctx.IsPost() {
		return notCloudWatch, ""
	}
	if bytes.HasPrefix(path, cborPathPrefix) {
		return cloudWatchCBOR, string(path[len(cborPathPrefix):])
	}
	if len(path) != 1 { // POST /
		return notCloudWatch, ""
	}
	if t := ctx.Request.Header.PeekBytes(headerAmzTarget); bytes.HasPrefix(t, jsonTargetPfx) {
		return cloudWatchJSON, string(t[len(jsonTargetPfx):])
	}
	if bytes.HasPrefix(ctx.Request.Header.ContentType(), formContentType) {
		args := ctx.PostArgs()
		if bytes.Equal(args.Peek("Version"), queryVersion) {
			return cloudWatchQuery, string(args.Peek("Action"))
		}
	}
	return notCloudWatch, ""
}

// writeCloudWatchError answers a CloudWatch request with NotImplemented in
// its protocol's error shape; it is the one place CloudWatch errors are
// written.
func writeCloudWatchError(ctx *fasthttp.RequestCtx, p cloudWatchProtocol, op string) {
	const code = "NotImplemented"
	// op is the client's text: keep it short and valid UTF-8.
	if len(op) > 128 {
		op = op[:128]
	}
	op = strings.ToValidUTF8(op, "\uFFFD")
	msg := "The operation " + op + " of service monitoring (CloudWatch) is not implemented by this emulator."
	ctx.Response.ResetBody()
	ctx.SetStatusCode(fasthttp.StatusNotImplemented)
	// awsQueryCompatible: clients take the error code from this header.
	ctx.Response.Header.Set("x-amzn-query-error", code+";Sender")
	switch p {
	case cloudWatchCBOR:
		ctx.Response.Header.Set("Smithy-Protocol", "rpc-v2-cbor")
		ctx.Response.Header.SetContentType("application/cbor")
		b := []byte{0xa2} // map of two pairs
		b = appendCBORText(b, "__type")
		b = appendCBORText(b, "com.amazonaws.cloudwatch#"+code)
		b = appendCBORText(b, "message")
		b = appendCBORText(b, msg)
		ctx.SetBody(b)
	case cloudWatchJSON:
		ctx.Response.Header.SetContentType("application/x-amz-json-1.0")
		ctx.Response.Header.Set(restjson.HeaderErrorType, code)
		b := []byte(`{"__type":`)
		b = awswire.AppendString(b, code)
		b = append(b, `,"message":`...)
		b = awswire.AppendString(b, msg)
		ctx.SetBody(append(b, '}'))
	default:
		ctx.Response.Header.SetContentType("text/xml")
		ctx.SetBodyString(`<ErrorResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/"><Error><Type>Sender</Type><Code>` +
			code + `</Code><Message>` + html.EscapeString(msg) + `</Message></Error><RequestId>` +
			string(ctx.Response.Header.Peek(restjson.HeaderRequestID)) + `</RequestId></ErrorResponse>`)
	}
}

// appendCBORText appends s as a CBOR text string (major type 3).
func appendCBORText(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 24:
		b = append(b, 0x60|byte(n))
	case n < 1<<8:
		b = append(b, 0x78, byte(n))
	case n < 1<<16:
		b = append(b, 0x79, byte(n>>8), byte(n))
	default:
		b = append(b, 0x7a, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, s...)
}
