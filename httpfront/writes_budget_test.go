package httpfront_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/server/servertest"
)

// A write's allocation budget: what one create or mutation may allocate
// through the whole front (routing, decoding, the owner's change, the
// encoded answer), in memory mode. The budgets sit a little above what
// each costs today, so that a change that adds allocations to the write
// path fails here instead of quietly costing throughput (bench/README.md,
// "Writes").
type writeBudget struct {
	op      string
	allocs  float64
	request func(i int, req *fasthttp.Request)
}

var writeBudgets = []writeBudget{
	{"CreateBackupVault", 32, func(i int, req *fasthttp.Request) {
		req.Header.SetMethod("PUT")
		req.SetRequestURI("/backup-vaults/budget-" + strconv.Itoa(i))
		req.Header.Set("Authorization", benchAuth)
		req.SetBodyString(`{"BackupVaultTags":{"team":"platform"},"CreatorRequestId":"budget"}`)
	}},
	{"CreateRestApi", 40, func(i int, req *fasthttp.Request) {
		req.Header.SetMethod("POST")
		req.SetRequestURI("/restapis")
		req.Header.Set("Authorization", benchAuthAPIGateway)
		req.SetBodyString(fmt.Sprintf(`{"name":"budget-%d","description":"allocation budget"}`, i))
	}},
	{"CreateApiKey", 26, func(i int, req *fasthttp.Request) {
		req.Header.SetMethod("POST")
		req.SetRequestURI("/apikeys")
		req.Header.Set("Authorization", benchAuthAPIGateway)
		req.SetBodyString(fmt.Sprintf(`{"name":"budget-%d","enabled":true}`, i))
	}},
}

// TestWriteAllocationBudgets fails when a create allocates more than its
// budget (the average over many, each on a new resource).
func TestWriteAllocationBudgets(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures allocations (the race detector adds its own)")
	}
	srv := servertest.Start(t)
	h := srv.Emulator.Handler()
	// A mutation: PutMethod and DeleteMethod in turn on one resource.
	var api struct {
		ID             string `json:"id"`
		RootResourceID string `json:"rootResourceId"`
	}
	{
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod("POST")
		ctx.Request.SetRequestURI("/restapis")
		ctx.Request.Header.Set("Authorization", benchAuthAPIGateway)
		ctx.Request.SetBodyString(`{"name":"budget-methods"}`)
		h(&ctx)
		if err := json.Unmarshal(ctx.Response.Body(), &api); err != nil || api.RootResourceID == "" {
			t.Fatalf("create: %v %s", err, ctx.Response.Body())
		}
	}
	budgets := append(writeBudgets, writeBudget{"PutMethod+DeleteMethod", 38, func(i int, req *fasthttp.Request) {
		req.SetRequestURI("/restapis/" + api.ID + "/resources/" + api.RootResourceID + "/methods/GET")
		req.Header.Set("Authorization", benchAuthAPIGateway)
		if i%2 == 0 {
			req.Header.SetMethod("PUT")
			req.SetBodyString(`{"authorizationType":"NONE"}`)
		} else {
			req.Header.SetMethod("DELETE")
		}
	}})
	for _, w := range budgets {
		t.Run(w.op, func(t *testing.T) {
			var ctx fasthttp.RequestCtx
			i := 0
			call := func() {
				ctx.Request.Reset()
				ctx.Response.Reset()
				w.request(i, &ctx.Request)
				i++
				h(&ctx)
				if s := ctx.Response.StatusCode(); s != 200 && s != 201 && s != 204 {
					t.Fatalf("%s: %d %s", w.op, s, ctx.Response.Body())
				}
			}
			call() // first of its kind: lazily built tables
			call()
			got := testing.AllocsPerRun(500, call)
			t.Logf("%s: %.1f allocations (budget %.0f)", w.op, got, w.allocs)
			if got > w.allocs {
				t.Errorf("%s allocates %.1f times per request, over its budget of %.0f", w.op, got, w.allocs)
			}
		})
	}
}
