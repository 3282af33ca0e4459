package ui

import (
	"net/http"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/execute"
)

// requestsData is the inspector's list page.
type requestsData struct {
	Enabled            bool
	Capacity, Held     int
	API, Stage, Status string
	Traces             []*execute.Trace
	PerSecond          int
}

// requests lists the newest traced requests, filtered by API, stage and
// status class.
func (ds *Dashboard) requests(ctx *fasthttp.RequestCtx) {
	in := ds.d.Inspector
	d := requestsData{Enabled: in != nil, Capacity: in.Cap(), Held: in.Len(), PerSecond: execute.MaxTracesPerSecond,
		API: query(ctx, "api"), Stage: query(ctx, "stage"), Status: query(ctx, "status")}
	f := execute.TraceFilter{APIID: d.API, Stage: d.Stage, Limit: 500}
	if n, err := strconv.Atoi(d.Status); err == nil && (n == 2 || n == 4 || n == 5) {
		f.Status = n
	}
	d.Traces = in.List(f)
	ds.render(ctx, http.StatusOK, "requests", "Requests", d)
}

// request shows one traced request's whole pipeline.
func (ds *Dashboard) request(ctx *fasthttp.RequestCtx) {
	t, ok := ds.d.Inspector.Get(label(ctx, "id"))
	if !ok {
		ds.notFound(ctx, "No traced request "+label(ctx, "id")+": the inspector keeps only the newest ones.")
		return
	}
	ds.render(ctx, http.StatusOK, "request", t.Method+" "+t.Path, t)
}
