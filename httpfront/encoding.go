package httpfront

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
)

// maxCodings bounds the codings one request may stack (the Go SDK sends
// "gzip", or "<its own>, gzip"), so that a header cannot ask for unbounded
// work.
const maxCodings = 4

// maxDeflateRatio is the most deflate can expand (258-byte matches coded
// in about two bits).
const maxDeflateRatio = 1032

var errDecodedTooLarge = errors.New("httpfront: decoded body over the limit")

// decodeBody replaces a compressed request body (Content-Encoding gzip or
// deflate, as AWS SDKs send some requests) with its decoded bytes, bounded
// by the body limit after decompression, and drops the header; handlers
// then read a plain body. A request without the header costs one header
// lookup and no allocation.
func (s *Server) decodeBody(ctx *fasthttp.RequestCtx, svc awswire.Service) error {
	enc := ctx.Request.Header.ContentEncoding()
	if len(enc) == 0 {
		return nil
	}
	// Refuse a list we cannot undo before decoding any of it.
	n := 0
	for rest := enc; len(rest) > 0; {
		var c coding
		c, rest = lastCoding(rest)
		switch {
		case c == codingUnknown:
			return awswire.Errorf(svc, awswire.CodeUnsupportedMediaType,
				"Unsupported Content-Encoding: %s", truncate(enc, 64))
		case c != codingIdentity:
			n++
		}
	}
	if n > maxCodings {
		return awswire.Errorf(svc, awswire.CodeUnsupportedMediaType,
			"Unsupported Content-Encoding: more than %d codings", maxCodings)
	}
	limit := s.maxBody
	if limit <= 0 {
		limit = fasthttp.DefaultMaxRequestBodySize
	}
	body := ctx.PostBody()
	if len(body) == 0 {
		// Nothing was sent to decode (a GET that carries the header).
		ctx.Request.Header.DelBytes(strContentEncoding)
		return nil
	}
	// Codings are listed in the order they were applied: undo the last
	// first.
	for rest := enc; len(rest) > 0; {
		var c coding
		c, rest = lastCoding(rest)
		var err error
		switch c {
		case codingGzip:
			body, err = gunzip(body, limit)
		case codingDeflate:
			body, err = inflate(body, limit)
		default:
			continue
		}
		if errors.Is(err, errDecodedTooLarge) {
			return awswire.Errorf(svc, awswire.CodeRequestEntityTooLarge,
				"The request body is larger than the limit of %d bytes", limit)
		}
		if err != nil {
			return corruptBody(svc, c)
		}
	}
	if n > 0 {
		ctx.Request.SetBodyRaw(body)
		// Whoever reads the headers next sees the body it gets.
		ctx.Request.Header.SetContentLength(len(body))
	}
	ctx.Request.Header.DelBytes(strContentEncoding)
	return nil
}

type coding int

const (
	codingUnknown coding = iota
	codingIdentity
	codingGzip
	codingDeflate
)

func (c coding) String() string {
	switch c {
	case codingIdentity:
		return "identity"
	case codingGzip:
		return "gzip"
	case codingDeflate:
		return "deflate"
	}
	return "unknown"
}

// lastCoding splits the last coding off a Content-Encoding list.
func lastCoding(list []byte) (c coding, rest []byte) {
	name := list
	if i := bytes.LastIndexByte(list, ','); i >= 0 {
		name, rest = list[i+1:], list[:i]
	}
	name = bytes.TrimSpace(name)
	switch {
	case len(name) == 0, bytes.EqualFold(name, strIdentity):
		return codingIdentity, rest
	case bytes.EqualFold(name, strGzip), bytes.EqualFold(name, strXGzip):
		return codingGzip, rest
	case bytes.EqualFold(name, strDeflate):
		return codingDeflate, rest
	}
	return codingUnknown, rest
}

var (
	strContentEncoding = []byte(fasthttp.HeaderContentEncoding)
	strIdentity        = []byte("identity")
	strGzip            = []byte("gzip")
	strXGzip           = []byte("x-gzip")
	strDeflate         = []byte("deflate")
)

// decoder is a pooled set of decompressors: each keeps a 32 KB window and
// its tables, which are worth reusing rather than allocating per request.
type decoder struct {
	src bytes.Reader
	gz  gzip.Reader
	zl  io.ReadCloser // a zlib.Resetter once made
	fl  io.ReadCloser // a flate.Resetter once made
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// release returns d to the pool without the request's bytes, which the
// decompressors still reference.
func (d *decoder) release() {
	d.src.Reset(nil)
	decoders.Put(d)
}

func gunzip(in []byte, limit int) ([]byte, error) {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.src.Reset(in)
	if err := d.gz.Reset(&d.src); err != nil {
		return nil, err
	}
	// The trailer's ISIZE (the last member's size mod 2^32) is a hint
	// only: capped by deflate's best ratio and by the limit, and
	// readBounded grows the buffer if it lies low.
	hint := 0
	if len(in) >= 18 {
		hint = min(int(binary.LittleEndian.Uint32(in[len(in)-4:])), maxDeflateRatio*len(in))
	}
	return readBounded(&d.gz, hint, limit)
}

// inflate decodes HTTP's "deflate", which RFC 9110 defines as the zlib
// format; some clients send a raw deflate stream instead, which is
// accepted too.
func inflate(in []byte, limit int) ([]byte, error) {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.src.Reset(in)
	// Rough ratio for JSON; readBounded grows from there.
	hint := 4 * len(in)
	if len(in) >= 2 && in[0]&0x0f == 8 && binary.BigEndian.Uint16(in)%31 == 0 {
		var err error
		if d.zl == nil {
			d.zl, err = zlib.NewReader(&d.src)
		} else {
			err = d.zl.(zlib.Resetter).Reset(&d.src, nil)
		}
		if err != nil {
			return nil, err
		}
		return readBounded(d.zl, hint, limit)
	}
	if d.fl == nil {
		d.fl = flate.NewReader(&d.src)
	} else if err := d.fl.(flate.Resetter).Reset(&d.src, nil); err != nil {
		return nil, err
	}
	return readBounded(d.fl, hint, limit)
}

// readBounded reads r to its end into one buffer sized by hint, growing it
// by doubling but never past limit+1 bytes: a stream that decodes to more
// than limit fails with errDecodedTooLarge once limit+1 bytes are held,
// whatever it claims or would expand to.
func readBounded(r io.Reader, hint, limit int) ([]byte, error) {
	// One spare byte lets a right hint see EOF without growing.
	buf := make([]byte, 0, min(max(hint+1, 512), limit+1))
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return nil, errDecodedTooLarge
			}
			buf = slices.Grow(buf, min(len(buf), limit+1-len(buf)))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if len(buf) > limit {
				return nil, errDecodedTooLarge
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// corruptBody is the service's bad-request error for a body that does not
// decode.
func corruptBody(svc awswire.Service, c coding) *awswire.Error {
	code := awswire.CodeBadRequest
	if svc == awswire.Backup {
		code = awswire.CodeInvalidRequest
	}
	return awswire.Errorf(svc, code, "The request body is not valid %s data", c)
}
