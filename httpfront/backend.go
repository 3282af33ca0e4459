package httpfront

import (
	"errors"
	"net"
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
		ReadBufferSize:      16 << 10,
		MaxResponseBodySize: 0,
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

func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, fasthttp.ErrConnectionClosed) ||
		errors.Is(err, fasthttp.ErrNoFreeConns)
}
