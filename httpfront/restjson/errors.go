package restjson

import (
	"errors"
	"log/slog"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/store"
)

// Headers every response or error carries.
const (
	HeaderRequestID = "x-amzn-RequestId"
	HeaderErrorType = "x-amzn-ErrorType"
)

// WriteError writes err onto the response as svc shapes it: the status of
// its shape, x-amzn-ErrorType and the JSON members the shape declares. It is
// the only place that writes an error. An error that is not a *awswire.Error
// becomes svc's internal error and is logged once with the request id; its
// text never reaches the client. A write the store refused
// (store.ErrUnavailable) is svc's StoreUnavailable.
func WriteError(ctx *fasthttp.RequestCtx, svc awswire.Service, err error, log *slog.Logger) {
	var we *awswire.Error
	switch {
	case errors.As(err, &we):
	case errors.Is(err, store.ErrUnavailable):
		we = awswire.StoreUnavailable(svc) // the store has logged the cause
	default:
		log.Error("internal failure", "requestId", string(ctx.Response.Header.Peek(HeaderRequestID)),
			"path", string(ctx.Request.URI().PathOriginal()), "error", err)
		we = awswire.Internal(svc)
	}
	if we.Service == awswire.ServiceNone && svc != awswire.ServiceNone {
		c := *we
		c.Service = svc
		we = &c
	}
	RecordError(ctx, we)
	ctx.Response.ResetBody()
	ctx.SetStatusCode(we.Status)
	ctx.Response.Header.Set(HeaderErrorType, we.Code)
	ctx.Response.Header.SetContentTypeBytes(contentTypeJSON)
	ctx.Response.SetBodyRaw(awswire.AppendBody(make([]byte, 0, 128), we))
}

// errorKey is the RequestCtx user value under which the error written onto
// the response is recorded.
type errorKey struct{}

// RecordError notes on ctx the error written onto its response, so that the
// request log can name its code without reading the body. WriteError
// records what it writes; a writer of another protocol's shape records its
// error itself. It costs no allocation.
func RecordError(ctx *fasthttp.RequestCtx, we *awswire.Error) {
	ctx.SetUserValue(errorKey{}, we)
}

// WrittenError returns the error recorded for ctx's response, or nil.
func WrittenError(ctx *fasthttp.RequestCtx) *awswire.Error {
	we, _ := ctx.UserValue(errorKey{}).(*awswire.Error)
	return we
}
