package httpfront

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/execute"
)

// Backend is the data plane's HTTP client for integrations: one pooled
// fasthttp client with keep-alive and a bound on connections per host, so
// that a flood of executions cannot open unbounded sockets to a backend.
type Backend struct{ client *fasthttp.Client }

// NewBackend returns a backend client holding at most maxConnsPerHost
// connections to each host.
func NewBackend(maxConnsPerHost int) *Backend {
	return &Backend{client: &fasthttp.Client{
		Name:                          "",
		NoDefaultUserAgentHeader:      true,
		MaxConnsPerHost:               maxConnsPerHost,
		MaxIdleConnDuration:           30 * time.Second,
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
		// A backend's 3xx reaches the client as it is.
		ReadBufferSize: 16 << 10,
		// API Gateway's payload limit: a backend cannot make the
		// emulator hold an unbounded answer.
		MaxResponseBodySize: MaxBackendResponseBytes,
		// Past MaxConnsPerHost a request waits for a free connection,
		// within its own timeout (DoTimeout's, which is shorter), rather
		// than failing at once.
		MaxConnWaitTimeout: time.Minute,
	}}
}

// Do implements execute.Backend.
func (b *Backend) Do(in *execute.BackendRequest, out *execute.BackendResponse) error {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.DisableNormalizing()
	req.SetRequestURI(in.URL)
	req.Header.SetMethod(in.Method)
	for _, h := range in.Headers {
		req.Header.Add(h.Name, h.Value)
	}
	if len(in.Body) > 0 {
		req.SetBodyRaw(in.Body)
	}
	resp.Header.DisableNormalizing()
	err := b.client.DoTimeout(req, resp, in.Timeout)
	switch {
	case err == nil:
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, fasthttp.ErrDialTimeout):
		return execute.ErrBackendTimeout
	case isNetError(err):
		return execute.ErrBackendUnreachable
	case isMalformed(err):
		return fmt.Errorf("%w: %w", execute.ErrBackendMalformed, err)
	default:
		return err
	}
	out.Status = resp.StatusCode()
	out.Headers = out.Headers[:0]
	for k, v := range resp.Header.All() {
		out.Headers = append(out.Headers, execute.Header{Name: string(k), Value: string(v)})
	}
	out.Body = append(out.Body[:0], resp.Body()...)
	return nil
}

// MaxBackendResponseBytes bounds an integration backend's answer (API
// Gateway's 10 MB payload limit).
const MaxBackendResponseBytes = 10 << 20

// isMalformed reports whether err is fasthttp's verdict on an answer that
// is not HTTP, cut short, or too large.
func isMalformed(err error) bool {
	var small *fasthttp.ErrSmallBuffer
	return errors.As(err, &small) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, fasthttp.ErrBodyTooLarge) ||
		errors.Is(err, fasthttp.ErrSmallReadBuffer) || errors.Is(err, fasthttp.ErrReadingResponseHeaders) ||
		strings.Contains(err.Error(), "error when reading response")
}

func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, fasthttp.ErrConnectionClosed) ||
		errors.Is(err, fasthttp.ErrNoFreeConns)
}
