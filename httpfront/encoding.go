package httpfront

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
)

var headerContentEncoding = []byte("Content-Encoding")

// decodeBody replaces a compressed request body (Content-Encoding gzip or
// deflate, as AWS SDKs send some requests) with its decoded bytes, bounded
// by the body limit after decompression, and drops the header; handlers
// then read a plain body. A request without the header costs one header
// lookup.
func (s *Server) decodeBody(ctx *fasthttp.RequestCtx, svc awswire.Service) error {
	enc := ctx.Request.Header.PeekBytes(headerContentEncoding)
	if len(enc) == 0 {
		return nil
	}
	enc = bytes.TrimSpace(enc)
	var r io.Reader
	var err error
	body := bytes.NewReader(ctx.PostBody())
	switch {
	case bytes.EqualFold(enc, []byte("identity")):
	case bytes.EqualFold(enc, []byte("gzip")), bytes.EqualFold(enc, []byte("x-gzip")):
		r, err = gzip.NewReader(body)
	case bytes.EqualFold(enc, []byte("deflate")):
		r, err = zlib.NewReader(body)
	default:
		return awswire.Errorf(svc, awswire.CodeUnsupportedMediaType,
			"Unsupported Content-Encoding: %s", truncate(enc, 64))
	}
	if err != nil {
		return corruptBody(svc, enc)
	}
	if r != nil {
		limit := int64(s.maxBody)
		if limit <= 0 {
			limit = fasthttp.DefaultMaxRequestBodySize
		}
		var out bytes.Buffer
		n, err := io.Copy(&out, io.LimitReader(r, limit+1))
		if err != nil {
			return corruptBody(svc, enc)
		}
		if n > limit {
			ctx.SetConnectionClose()
			return awswire.Errorf(svc, awswire.CodeRequestEntityTooLarge,
				"The request body is larger than the limit of %d bytes", limit)
		}
		ctx.Request.SetBodyRaw(out.Bytes())
	}
	ctx.Request.Header.DelBytes(headerContentEncoding)
	return nil
}

// corruptBody is the service's bad-request error for a body that does not
// decode.
func corruptBody(svc awswire.Service, enc []byte) *awswire.Error {
	code := awswire.CodeBadRequest
	if svc == awswire.Backup {
		code = awswire.CodeInvalidRequest
	}
	return awswire.Errorf(svc, code, "The request body is not valid %s data", truncate(enc, 64))
}
