package httpfront_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/server/servertest"
)

const benchAuth = "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/backup/aws4_request, SignedHeaders=host;x-amz-date, Signature=0f0f"

// BenchmarkHandler drives the front's handler in process, without sockets,
// to show what each operation costs the server itself.
func BenchmarkHandler(b *testing.B) {
	srv := servertest.Start(b)
	h := srv.Emulator.Handler()
	setup := func(method, uri, body string) {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(method)
		ctx.Request.SetRequestURI(uri)
		ctx.Request.SetBodyString(body)
		h(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("%s %s: %d %s", method, uri, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
	setup("PUT", "/backup-vaults/bench-vault", "")
	body := `{"BackupVaultTags":{"team":"platform","env":"bench"},"CreatorRequestId":"bench-0001"}`

	b.Run("op=DescribeBackupVault", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			var ctx fasthttp.RequestCtx
			for pb.Next() {
				ctx.Request.Reset()
				ctx.Response.Reset()
				ctx.Request.Header.SetMethod("GET")
				ctx.Request.SetRequestURI("/backup-vaults/bench-vault")
				ctx.Request.Header.Set("Authorization", benchAuth)
				h(&ctx)
				if ctx.Response.StatusCode() != 200 {
					b.Fatalf("%d %s", ctx.Response.StatusCode(), ctx.Response.Body())
				}
			}
		})
	})
	var seq atomic.Uint64
	b.Run("op=CreateBackupVault", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			var ctx fasthttp.RequestCtx
			for pb.Next() {
				ctx.Request.Reset()
				ctx.Response.Reset()
				ctx.Request.Header.SetMethod("PUT")
				ctx.Request.SetRequestURI("/backup-vaults/v" + strconv.FormatUint(seq.Add(1), 36))
				ctx.Request.Header.Set("Authorization", benchAuth)
				ctx.Request.SetBodyString(body)
				h(&ctx)
				if ctx.Response.StatusCode() != 200 {
					b.Fatalf("%d %s", ctx.Response.StatusCode(), ctx.Response.Body())
				}
			}
		})
	})
}

// BenchmarkCreatePersistent creates vaults from 32 goroutines in
// persistent mode, in process.
func BenchmarkCreatePersistent(b *testing.B) {
	srv := servertest.Start(b, servertest.WithPersistence(b.TempDir()))
	h := srv.Emulator.Handler()
	body := `{"BackupVaultTags":{"team":"platform","env":"bench"},"CreatorRequestId":"bench-0001"}`
	var seq atomic.Uint64
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		var ctx fasthttp.RequestCtx
		for pb.Next() {
			ctx.Request.Reset()
			ctx.Response.Reset()
			ctx.Request.Header.SetMethod("PUT")
			ctx.Request.SetRequestURI("/backup-vaults/v" + strconv.FormatUint(seq.Add(1), 36))
			ctx.Request.Header.Set("Authorization", benchAuth)
			ctx.Request.SetBodyString(body)
			h(&ctx)
			if ctx.Response.StatusCode() != 200 {
				b.Fatalf("%d %s", ctx.Response.StatusCode(), ctx.Response.Body())
			}
		}
	})
}

const benchAuthAPIGateway = "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/apigateway/aws4_request, SignedHeaders=host;x-amz-date, Signature=0f0f"

// BenchmarkGetRestApi drives GetRestApi through the front's handler in
// process, one request at a time, at the default log level and at debug
// level (request logging on, output discarded), next to a bare handler that
// writes a body of the same size: what request logging costs the server.
func BenchmarkGetRestApi(b *testing.B) {
	for _, lvl := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		b.Run("level="+strings.ToLower(lvl.String()), func(b *testing.B) {
			log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: lvl}))
			srv := servertest.StartWithLog(b, log)
			h := srv.Emulator.Handler()
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.SetMethod("POST")
			ctx.Request.SetRequestURI("/restapis")
			ctx.Request.Header.Set("Authorization", benchAuthAPIGateway)
			ctx.Request.SetBodyString(`{"name":"bench","description":"GetRestApi benchmark"}`)
			h(&ctx)
			var api struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(ctx.Response.Body(), &api); err != nil || api.ID == "" {
				b.Fatalf("create: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
			}
			uri := "/restapis/" + api.ID
			b.ReportAllocs()
			for b.Loop() {
				ctx.Request.Reset()
				ctx.Response.Reset()
				ctx.Request.Header.SetMethod("GET")
				ctx.Request.SetRequestURI(uri)
				ctx.Request.Header.Set("Authorization", benchAuthAPIGateway)
				h(&ctx)
				if ctx.Response.StatusCode() != 200 {
					b.Fatalf("%d %s", ctx.Response.StatusCode(), ctx.Response.Body())
				}
			}
		})
	}
	b.Run("handler=bare", func(b *testing.B) {
		body := []byte(`{"id":"abcdef1234","name":"bench","description":"GetRestApi benchmark","createdDate":1767225600,` +
			`"apiKeySource":"HEADER","endpointConfiguration":{"types":["EDGE"]},"disableExecuteApiEndpoint":false,"rootResourceId":"0123456789"}`)
		h := func(ctx *fasthttp.RequestCtx) {
			ctx.Response.Header.Set("x-amzn-RequestId", "00000000-0000-0000-0000-000000000000")
			ctx.Response.Header.SetContentType("application/json")
			ctx.Response.SetBodyRaw(body)
		}
		var ctx fasthttp.RequestCtx
		b.ReportAllocs()
		for b.Loop() {
			ctx.Request.Reset()
			ctx.Response.Reset()
			ctx.Request.Header.SetMethod("GET")
			ctx.Request.SetRequestURI("/restapis/abcdef1234")
			ctx.Request.Header.Set("Authorization", benchAuthAPIGateway)
			h(&ctx)
		}
	})
}
