package compat

import (
	"bytes"
	"io"
	"net/http"

	"github.com/cloudemu/emulator/httpfront/restjson"
)

// prometheusContentType is the text exposition format's.
const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

// metricsRoutes serve /_emulator/metrics and /_compat/usage, which it
// replaces: the request metrics, throttle counts and per-key usage in
// Prometheus text format.
func (h *endpoints) metricsRoutes() []Route {
	var rs []Route
	for _, p := range append([]string{"/_emulator/metrics"}, Spellings("/_compat/usage")...) {
		rs = append(rs, Route{http.MethodGet, p, h.metrics})
	}
	return rs
}

func (h *endpoints) metrics(c *restjson.Call) error {
	var buf bytes.Buffer
	if h.d.Metrics != nil {
		if err := h.d.Metrics(&buf); err != nil {
			return err
		}
	}
	c.Ctx.SetStatusCode(http.StatusOK)
	c.Ctx.SetContentType(prometheusContentType)
	c.Ctx.SetBody(buf.Bytes())
	return nil
}

// MetricsWriter writes the Prometheus exposition.
type MetricsWriter func(io.Writer) error
