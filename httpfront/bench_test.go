package httpfront_test

import (
	"strconv"
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
