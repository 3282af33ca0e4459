package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
)

// waitCeiling bounds WaitHTTP when ctx has no deadline of its own.
const waitCeiling = time.Minute

// WaitHTTP polls GET http://addr/path every `every` until it answers 200 and
// returns how long that took from the call. addr must be loopback. It gives
// up when ctx ends, or after a minute if ctx has no deadline.
func WaitHTTP(ctx context.Context, addr, path string, every time.Duration) (time.Duration, error) {
	start := time.Now()
	if every <= 0 {
		every = time.Millisecond
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, waitCeiling)
		defer cancel()
	}
	lit, err := loopbackAddr(ctx, addr)
	if err != nil {
		return 0, err
	}
	hc := &fasthttp.HostClient{
		Addr:                      lit,
		MaxConns:                  1,
		ReadTimeout:               time.Second,
		WriteTimeout:              time.Second,
		MaxIdemponentCallAttempts: 1,
		NoDefaultUserAgentHeader:  true,
	}
	defer hc.CloseIdleConnections()
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fasthttp.MethodGet)
	req.SetRequestURI(path)
	req.SetHost(addr)

	tick := time.NewTicker(every)
	defer tick.Stop()
	var last string
	for {
		err := hc.Do(req, resp)
		switch {
		case err == nil && resp.StatusCode() == fasthttp.StatusOK:
			return time.Since(start), nil
		case err != nil:
			last = err.Error()
		default:
			last = fmt.Sprintf("status %d", resp.StatusCode())
		}
		select {
		case <-ctx.Done():
			return time.Since(start), fmt.Errorf("bench: wait for %s%s: %w (last: %s)", addr, path, ctx.Err(), last)
		case <-tick.C:
		}
	}
}
