package httpfront

import (
	"bytes"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// The query- and JSON-protocol services (SQS, SNS, SES v1) are recognised
// before any path routing, as CloudWatch is: X-Amz-Target AmazonSQS.<Op> is
// SQS's JSON protocol; a form (a POST's urlencoded body, or a GET's query
// string) whose Version is a served service's API version is that service's
// query protocol. SQS's query clients post to "/" or to the queue URL's
// path /{account}/{queue}; a GET of that path without an Action is the
// emulator's queue peek. Only services with handlers are recognised.

// rpcService is one served query- or JSON-protocol service.
type rpcService struct {
	svc      awswire.Service
	model    *awswire.ServiceModel
	handlers map[string]awsrpc.Handler
	// ops holds the model's operation names, so that an operation without
	// a handler (501) is told from an unknown Action (400).
	ops map[string]bool
	// marks are recorded on a request being served, so that a panic is
	// answered in the request's protocol (by awsrpc.Protocol - 1).
	marks [2]rpcMark
}

// rpcMark says, on a RequestCtx, which service and protocol serve it.
type rpcMark struct {
	svc   awswire.Service
	proto awsrpc.Protocol
}

type rpcKey struct{}

// rpcServices builds the served services from the handler maps: a service
// without any handler is not served.
func rpcServices(handlers map[awswire.Service]map[string]awsrpc.Handler) map[awswire.Service]*rpcService {
	out := map[awswire.Service]*rpcService{}
	for svc, hs := range handlers {
		m := svc.Model()
		if len(hs) == 0 || m == nil || m.Protocol == awswire.RESTJSON {
			continue
		}
		r := &rpcService{svc: svc, model: m, handlers: hs, ops: map[string]bool{}}
		r.marks[awsrpc.Query-1] = rpcMark{svc, awsrpc.Query}
		r.marks[awsrpc.JSON-1] = rpcMark{svc, awsrpc.JSON}
		for _, op := range awswire.Operations {
			if op.Service == svc {
				r.ops[op.Name] = true
			}
		}
		out[svc] = r
	}
	return out
}

// rpcRequest is a recognised query- or JSON-protocol request.
type rpcRequest struct {
	service *rpcService
	proto   awsrpc.Protocol
	op      string
	form    *fasthttp.Args
	// err, when set, is the answer: the request is the service's but
	// cannot be served (no Action, a malformed form).
	err *awswire.Error
}

var (
	paramVersion    = []byte("Version")
	sqsTargetPrefix = []byte("AmazonSQS.")
)

// classifyRPC recognises a request to a served query- or JSON-protocol
// service, or to the queue peek endpoint (peek set).
func (s *Server) classifyRPC(ctx *fasthttp.RequestCtx, path []byte) (r rpcRequest, peek, ok bool) {
	h := &ctx.Request.Header
	if t := h.PeekBytes(headerAmzTarget); len(t) > 0 {
		sqs := s.rpc[awswire.SQS]
		if sqs == nil || !bytes.HasPrefix(t, sqsTargetPrefix) || !ctx.IsPost() {
			return r, false, false
		}
		r = rpcRequest{service: sqs, proto: awsrpc.JSON, op: string(t[len(sqsTargetPrefix):])}
		return r, false, true
	}
	queuePath := isQueuePath(path)
	if len(path) != 1 && !queuePath {
		return r, false, false
	}
	var form *fasthttp.Args
	switch {
	case ctx.IsPost() && bytes.HasPrefix(h.ContentType(), formContentType):
		// The form must be read to be recognised: a body that does not
		// decode is not, and routing answers it.
		if s.decodeBody(ctx, awswire.ServiceNone) != nil {
			return r, false, false
		}
		form = ctx.PostArgs()
	case ctx.IsGet():
		form = ctx.QueryArgs()
		if queuePath && form.PeekBytes(paramAction) == nil {
			return r, s.queuePeek != nil, s.queuePeek != nil
		}
	default:
		return r, false, false
	}
	svc := s.rpcByVersion(form.PeekBytes(paramVersion))
	if svc == nil {
		// A signed request names its service without a Version.
		cred, signed := s.credential(ctx)
		if !signed {
			return r, false, false
		}
		svc = s.rpcBySigningName(cred.Service)
		if svc == nil {
			return r, false, false
		}
		switch v := form.PeekBytes(paramVersion); {
		case form.PeekBytes(paramAction) == nil:
		case len(v) == 0:
			r.err = awswire.New(svc.svc, awswire.CodeMissingParameter, "The request must contain the parameter Version.")
		case validName(v, 32, false):
			r.err = awswire.New(svc.svc, awswire.CodeInvalidParameterValueQuery,
				"Version "+string(v)+" is not a version of this service; it is "+svc.model.APIVersion+".")
		default:
			r.err = awswire.New(svc.svc, awswire.CodeInvalidParameterValueQuery,
				"The Version is not a version of this service; it is "+svc.model.APIVersion+".")
		}
	}
	r.service, r.proto, r.form = svc, awsrpc.Query, form
	action := form.PeekBytes(paramAction)
	if r.err == nil && len(action) == 0 {
		r.err = awswire.New(svc.svc, awswire.CodeMissingParameter, "The request must contain the parameter Action.")
	}
	r.op = string(action)
	if r.err == nil && !validEncoding(ctx, form == ctx.QueryArgs()) {
		r.err = awswire.New(svc.svc, awswire.CodeMalformedQueryString, "The query string or form contains a malformed percent-encoding.")
	}
	return r, false, true
}

// rpcByVersion returns the served query service of API version v.
func (s *Server) rpcByVersion(v []byte) *rpcService {
	if len(v) == 0 {
		return nil
	}
	for _, r := range s.rpcList {
		if string(v) == r.model.APIVersion {
			return r
		}
	}
	return nil
}

// rpcBySigningName returns the served query service signed for as name.
func (s *Server) rpcBySigningName(name []byte) *rpcService {
	for _, r := range s.rpcList {
		if string(name) == r.model.SigningName {
			return r
		}
	}
	return nil
}

// isQueuePath reports whether path is a queue URL's: /{12-digit
// account}/{queue name}.
func isQueuePath(path []byte) bool {
	if len(path) < 15 || path[0] != '/' || path[13] != '/' {
		return false
	}
	for _, c := range path[1:13] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return bytes.IndexByte(path[14:], '/') < 0
}

// validEncoding reports whether the form's raw text has only well-formed
// percent-escapes (fasthttp keeps a malformed one as it is).
func validEncoding(ctx *fasthttp.RequestCtx, query bool) bool {
	raw := ctx.URI().QueryString()
	if !query {
		raw = ctx.PostBody()
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '%' {
			continue
		}
		if i+2 >= len(raw) || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
			return false
		}
		i += 2
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// serveRPC answers a recognised query- or JSON-protocol request.
func (s *Server) serveRPC(ctx *fasthttp.RequestCtx, r rpcRequest, path []byte) {
	svc := r.service
	ctx.SetUserValue(rpcKey{}, &svc.marks[r.proto-1])
	s.noteOperation(ctx, svc.svc.String(), r.op)
	if r.err != nil {
		awsrpc.WriteErrorTo(ctx, r.proto, r.err)
		return
	}
	if err := s.decodeBody(ctx, svc.svc); err != nil {
		awsrpc.WriteErrorTo(ctx, r.proto, asServiceError(svc.svc, err))
		return
	}
	h := svc.handlers[r.op]
	if h == nil {
		awsrpc.WriteErrorTo(ctx, r.proto, rpcUnknown(svc, r.op))
		return
	}
	c := awsrpc.Acquire()
	c.Ctx = ctx
	c.Service = svc.svc
	c.Op = r.op
	c.Scope = s.scope(ctx)
	c.Protocol = r.proto
	c.Path = string(path) // handlers keep it (a QueueUrl) past the request
	c.Form = r.form
	if err := h(c); err != nil {
		awsrpc.WriteError(c, err, s.log)
	}
	awsrpc.Release(c)
}

// rpcUnknown is the answer to an operation without a handler: 501 for an
// operation of the model, InvalidAction for anything else.
func rpcUnknown(svc *rpcService, op string) *awswire.Error {
	if svc.ops[op] {
		return awswire.New(svc.svc, awswire.CodeNotImplementedQuery,
			"The operation "+op+" of service "+svc.svc.String()+" is not implemented by this emulator.")
	}
	// op is the client's text: repeated only in an operation's form.
	if !validName([]byte(op), 128, false) {
		return awswire.New(svc.svc, awswire.CodeInvalidAction, "The action is not valid for this web service.")
	}
	return awswire.New(svc.svc, awswire.CodeInvalidAction, "The action "+op+" is not valid for this web service.")
}

// asServiceError gives a front error (a body that does not decode) the
// service's own shape.
func asServiceError(svc awswire.Service, err error) *awswire.Error {
	we, ok := err.(*awswire.Error)
	if !ok {
		return awswire.Internal(svc)
	}
	cp := *we
	cp.Service = svc
	return &cp
}

// serveQueuePeek hands GET /{account}/{queue} to the peek handler.
func (s *Server) serveQueuePeek(ctx *fasthttp.RequestCtx, path []byte) {
	s.noteOperation(ctx, "sqs", "QueuePeek")
	c := restjson.Acquire()
	c.Ctx = ctx
	c.Op = &queuePeekOp
	c.Scope = s.scope(ctx)
	p := b2s(path)
	c.SetLabel("account", p[1:13])
	c.SetLabel("queue", p[14:])
	if err := s.queuePeek(c); err != nil {
		restjson.WriteError(ctx, awswire.ServiceNone, err, s.log)
	}
	restjson.Release(c)
}

var queuePeekOp = awswire.Operation{Service: awswire.ServiceNone, Name: "QueuePeek", Method: "GET",
	Path: "/{account}/{queue}", Status: 200}

// rpcPanicked answers a panic in a query or JSON handler in its protocol;
// it reports false for any other request.
func rpcPanicked(ctx *fasthttp.RequestCtx) bool {
	m, ok := ctx.UserValue(rpcKey{}).(*rpcMark)
	if !ok {
		return false
	}
	awsrpc.WriteErrorTo(ctx, m.proto, awswire.Internal(m.svc))
	return true
}

// rpcOfUnread tells which served query or JSON service a request that
// could not be read was meant for, by what its headers say: SQS's target,
// else a signing name on "/" or a queue path.
func (s *Server) rpcOfUnread(ctx *fasthttp.RequestCtx) (awswire.Service, awsrpc.Protocol, bool) {
	if len(s.rpcList) == 0 {
		return awswire.ServiceNone, 0, false
	}
	if t := ctx.Request.Header.PeekBytes(headerAmzTarget); bytes.HasPrefix(t, sqsTargetPrefix) && s.rpc[awswire.SQS] != nil {
		return awswire.SQS, awsrpc.JSON, true
	}
	path := ctx.Request.URI().PathOriginal()
	if len(path) != 1 && !isQueuePath(path) {
		return awswire.ServiceNone, 0, false
	}
	cred, signed := s.credential(ctx)
	if !signed {
		return awswire.ServiceNone, 0, false
	}
	if r := s.rpcBySigningName(cred.Service); r != nil {
		return r.svc, awsrpc.Query, true
	}
	return awswire.ServiceNone, 0, false
}
