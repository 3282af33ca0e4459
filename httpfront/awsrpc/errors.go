package awsrpc

import (
	"errors"
	"log/slog"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/store"
)

// headerQueryError carries the query protocol's code and fault to the JSON
// clients of an awsQueryCompatible service (SQS).
const headerQueryError = "x-amzn-query-error"

// maxMessage bounds an error message: messages may quote the client's text.
const maxMessage = 1024

// WriteError writes err onto c's response in c's protocol: a *awswire.Error
// as it is, a write the store refused as the service's StoreUnavailable,
// anything else logged and answered as the service's internal error.
func WriteError(c *Call, err error, log *slog.Logger) {
	var we *awswire.Error
	switch {
	case errors.As(err, &we):
	case errors.Is(err, store.ErrUnavailable):
		we = awswire.StoreUnavailable(c.Service) // the store has logged the cause
	default:
		log.Error("internal failure", "requestId", string(c.requestID()),
			"operation", c.Service.String()+"."+c.Op, "error", err)
		we = awswire.Internal(c.Service)
	}
	if we.Service != c.Service {
		cp := *we
		cp.Service = c.Service
		we = &cp
	}
	writeError(c.Ctx, c.Protocol, we)
}

// WriteErrorTo writes e in protocol p's shape on a request no Call was
// built for (an unknown Action, an unreadable body).
func WriteErrorTo(ctx *fasthttp.RequestCtx, p Protocol, e *awswire.Error) {
	writeError(ctx, p, e)
}

func writeError(ctx *fasthttp.RequestCtx, p Protocol, e *awswire.Error) {
	restjson.RecordError(ctx, e)
	msg := strings.ToValidUTF8(clip(e.Message, maxMessage), "\uFFFD")
	fault := "Sender"
	if !e.Sender() {
		fault = "Receiver"
	}
	h := &ctx.Response.Header
	ctx.Response.ResetBody()
	ctx.SetStatusCode(e.Status)
	if p == Query {
		h.SetContentType(contentTypeXML)
		w := getBuf()
		defer putBuf(w)
		w.WriteString(`<ErrorResponse`)
		if m := e.Service.Model(); m != nil && m.XMLNamespace != "" {
			w.WriteString(` xmlns="` + m.XMLNamespace + `"`)
		}
		w.WriteString(`><Error><Type>` + fault + `</Type><Code>`)
		appendText(w, e.QueryCode())
		w.WriteString(`</Code><Message>`)
		appendText(w, msg)
		w.WriteString(`</Message>`)
		if e.Service == awswire.SQS {
			w.WriteString(`<Detail/>`) // SQS's answers carry an empty Detail
		}
		w.WriteString(`</Error><RequestId>`)
		w.Write(ctx.Response.Header.Peek(restjson.HeaderRequestID))
		w.WriteString(`</RequestId></ErrorResponse>`)
		ctx.SetBody(w.Bytes())
		return
	}
	h.SetContentType(contentTypeJSON)
	if m := e.Service.Model(); m != nil && m.QueryCompatible {
		h.Set(headerQueryError, e.QueryCode()+";"+fault)
	}
	b := append(make([]byte, 0, 64+len(msg)), `{"__type":`...)
	b = awswire.AppendString(b, e.JSONType())
	b = append(b, `,"message":`...)
	b = awswire.AppendString(b, msg)
	ctx.SetBody(append(b, '}'))
}
