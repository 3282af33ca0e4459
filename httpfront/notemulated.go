package httpfront

import (
	"bytes"
	"html"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// A call to a service the emulator does not serve (aws s3 ls, an SQS client
// before SQS exists) is recognised by the service it names: the SigV4
// credential scope of a signed request, else an X-Amz-Target header or a
// Smithy RPC v2 CBOR path. It is answered 501 NotImplemented, with a message
// naming the service, in the error shape of the protocol that service's
// clients parse, as CloudWatch's answers are (cloudwatch.go). 501 because
// no SDK retries it (botocore and aws-sdk-go-v2 retry 500, 502, 503, 504
// and throttling codes), so the client shows the message at once.

// codeNotImplemented is the code of every answer to a service not emulated:
// S3's own code for what it does not implement, and CloudWatch's here.
const codeNotImplemented = "NotImplemented"

// foreignProtocol is the error shape a service's clients parse.
type foreignProtocol uint8

const (
	protoRESTJSON foreignProtocol = iota // {"message"} with x-amzn-ErrorType
	protoJSON                            // awsJson1_0/1_1: {"__type","message"}
	protoCBOR                            // Smithy RPC v2 CBOR
	protoQuery                           // <ErrorResponse><Error>
	protoEC2                             // <Response><Errors><Error>
	protoS3                              // <Error>
	protoRESTXML                         // <ErrorResponse><Error> (Route 53, CloudFront)
)

// foreignCall is a request to a service the emulator does not serve.
type foreignCall struct {
	service string // signing name, else the X-Amz-Target or CBOR service
	op      string // the operation, when the request names one
	proto   foreignProtocol
}

var (
	headerSmithyProtocol = []byte("Smithy-Protocol")
	rpcV2CBOR            = []byte("rpc-v2-cbor")
	cborServicePrefix    = []byte("/service/")
	cborOperation        = []byte("/operation/")
	jsonContentType      = []byte("application/x-amz-json-")
	paramAction          = []byte("Action")
)

// restXMLServices are the signing names of the rest-xml services besides
// S3; every other REST service speaks rest-json.
var restXMLServices = map[string]bool{"route53": true, "cloudfront": true}

// s3Services are the signing names whose errors take S3's <Error> shape.
var s3Services = map[string]bool{"s3": true, "s3-object-lambda": true, "s3express": true, "s3-outposts": true}

// signingName is the SigV4 service name of an emulated service (ses for
// SES v1 and v2, as their SDKs sign).
func signingName(svc awswire.Service) string {
	if m := svc.Model(); m != nil {
		return m.SigningName
	}
	return svc.String()
}

// servedWithoutHandlers reports whether svc is served even when no handler
// was registered for it (every operation then answers NotImplemented): the
// REST services the emulator was built around. SQS, SNS and SES are served
// once they have handlers, so that until then their clients hear they are
// not emulated.
func servedWithoutHandlers(svc awswire.Service) bool {
	switch svc {
	case awswire.Backup, awswire.APIGateway, awswire.APIGatewayV2, awswire.Lambda:
		return true
	}
	return false
}

// servedNames lists the signing names the emulator serves, in the order of
// the services, execute-api last, and reads them as a phrase for messages
// ("backup, apigateway and execute-api"). handled reports whether a
// service has handlers.
func servedNames(ops []awswire.Operation, handled func(awswire.Service) bool, execute bool) (names []string, phrase string) {
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for i := range ops {
		if svc := ops[i].Service; servedWithoutHandlers(svc) || handled(svc) {
			add(signingName(svc))
		}
	}
	if execute {
		add("execute-api")
	}
	switch len(names) {
	case 0:
		return names, "nothing"
	case 1:
		return names, names[0]
	}
	return names, strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// serves reports whether the emulator serves the service of signing name
// name. A routed request asks it, so it is a short loop: a map would hash.
func (s *Server) serves(name []byte) bool {
	for _, n := range s.served {
		if string(name) == n {
			return true
		}
	}
	return false
}

// foreign recognises a request to a service the emulator does not serve.
// A signed request names its service in the credential scope; an unsigned
// one only through X-Amz-Target or a CBOR path, else it is not recognised.
func (s *Server) foreign(ctx *fasthttp.RequestCtx, path []byte) (foreignCall, bool) {
	var f foreignCall
	cred, signed := s.credential(ctx)
	if signed {
		if !validName(cred.Service, 64, false) || s.serves(cred.Service) {
			return f, false
		}
		f.service = string(cred.Service)
	}
	h := &ctx.Request.Header
	if bytes.HasPrefix(path, cborServicePrefix) && bytes.EqualFold(h.PeekBytes(headerSmithyProtocol), rpcV2CBOR) {
		// /service/{service}/operation/{operation}
		svc, op, ok := bytes.Cut(path[len(cborServicePrefix):], cborOperation)
		if ok {
			f.proto = protoCBOR
			if validName(op, 128, false) {
				f.op = string(op)
			}
			if !signed {
				if !validName(svc, 128, true) {
					return f, false
				}
				f.service = string(svc)
			}
			return f, true
		}
	}
	if t := h.PeekBytes(headerAmzTarget); len(t) > 0 || bytes.HasPrefix(h.ContentType(), jsonContentType) {
		f.proto = protoJSON
		// Prefix.Operation; the prefix may hold dots itself
		// (com.amazonaws.cloudtrail.v20131101.CloudTrail_20131101).
		prefix, op := t, []byte(nil)
		if i := bytes.LastIndexByte(t, '.'); i >= 0 {
			prefix, op = t[:i], t[i+1:]
		}
		if validName(op, 128, false) {
			f.op = string(op)
		}
		if !signed {
			if !validName(prefix, 128, true) {
				return f, false
			}
			f.service = string(prefix)
		}
		return f, true
	}
	if !signed {
		return f, false
	}
	switch {
	case f.service == "ec2":
		f.proto = protoEC2
		f.op = action(ctx)
	case s3Services[f.service]:
		f.proto = protoS3
	default:
		if op := action(ctx); op != "" {
			f.proto, f.op = protoQuery, op
		} else if restXMLServices[f.service] {
			f.proto = protoRESTXML
		}
	}
	return f, true
}

// action is the query protocol's Action, from a form body or the query
// string, when it has an operation's form.
func action(ctx *fasthttp.RequestCtx) string {
	a := ctx.QueryArgs().PeekBytes(paramAction)
	if a == nil && bytes.HasPrefix(ctx.Request.Header.ContentType(), formContentType) {
		a = ctx.PostArgs().PeekBytes(paramAction)
	}
	if !validName(a, 128, false) {
		return ""
	}
	return string(a)
}

// validName reports whether b is 1 to max letters, digits, '-' or '_'
// (and '.' when dots is set): the form of signing names, target prefixes
// and operations. Anything else is the client's text and is not repeated.
func validName(b []byte, max int, dots bool) bool {
	if len(b) == 0 || len(b) > max {
		return false
	}
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		case c == '.' && dots:
		default:
			return false
		}
	}
	return true
}

// writeNotEmulated answers a request to a service the emulator does not
// serve: 501 NotImplemented, naming the service, in its protocol's shape.
func (s *Server) writeNotEmulated(ctx *fasthttp.RequestCtx, f foreignCall) {
	msg := `The service "` + f.service + `" is not emulated by this emulator; it serves ` + s.servedPhrase +
		` (see README "What is not emulated").`
	we := &awswire.Error{Code: codeNotImplemented, Status: fasthttp.StatusNotImplemented, Message: msg}
	restjson.RecordError(ctx, we)
	s.noteOperation(ctx, f.service, f.op)

	id := string(ctx.Response.Header.Peek(restjson.HeaderRequestID))
	h := &ctx.Response.Header
	ctx.Response.ResetBody()
	ctx.SetStatusCode(we.Status)
	switch f.proto {
	case protoJSON:
		ct := ctx.Request.Header.ContentType()
		if !bytes.HasPrefix(ct, jsonContentType) {
			ct = []byte(contentTypeAmzJSON)
		}
		h.SetContentTypeBytes(ct)
		h.Set(restjson.HeaderErrorType, codeNotImplemented)
		// awsQueryCompatible services (SQS) take the code from here.
		h.SetBytesK(headerQueryError, codeNotImplemented+";Sender")
		ctx.SetBody(jsonErrorBody(codeNotImplemented, msg))
	case protoCBOR:
		h.SetBytesKV(headerSmithyProtocol, rpcV2CBOR)
		h.SetContentType(contentTypeCBOR)
		h.SetBytesK(headerQueryError, codeNotImplemented+";Sender")
		ctx.SetBody(cborErrorBody(codeNotImplemented, msg))
	case protoQuery, protoRESTXML:
		h.SetContentType("text/xml")
		ctx.SetBodyString(`<ErrorResponse><Error><Type>Sender</Type><Code>` + codeNotImplemented + `</Code><Message>` +
			html.EscapeString(msg) + `</Message></Error><RequestId>` + id + `</RequestId></ErrorResponse>`)
	case protoEC2:
		h.SetContentType("text/xml;charset=UTF-8")
		ctx.SetBodyString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<Response><Errors><Error><Code>` +
			codeNotImplemented + `</Code><Message>` + html.EscapeString(msg) + `</Message></Error></Errors><RequestID>` +
			id + `</RequestID></Response>`)
	case protoS3:
		h.SetContentType("application/xml")
		h.Set("x-amz-request-id", id)
		ctx.SetBodyString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<Error><Code>` + codeNotImplemented +
			`</Code><Message>` + html.EscapeString(msg) + `</Message><RequestId>` + id + `</RequestId></Error>`)
	default:
		h.SetContentType("application/json")
		h.Set(restjson.HeaderErrorType, codeNotImplemented)
		b := []byte(`{"message":`)
		b = awswire.AppendString(b, msg)
		ctx.SetBody(append(b, '}'))
	}
}
