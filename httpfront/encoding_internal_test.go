package httpfront

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
)

func compress(t testing.TB, enc string, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	switch enc {
	case "gzip":
		w = gzip.NewWriter(&out)
	case "deflate":
		w = zlib.NewWriter(&out)
	default:
		t.Fatalf("no writer for %s", enc)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// allocated is how many bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDecodeBounded: a stream that expands past the limit is refused
// having allocated about the limit, never what it expands to or claims.
func TestDecodeBounded(t *testing.T) {
	const limit = 64 << 10
	// The decompressor's window and tables, the output's size-class
	// rounding and the runtime's own noise, generously.
	const slack = 256 << 10
	bomb := make([]byte, 16<<20) // 16 MB of zeros: about 16 KB compressed
	lowHint := compress(t, "gzip", bomb)
	binary.LittleEndian.PutUint32(lowHint[len(lowHint)-4:], 10) // ISIZE claims 10 bytes
	highHint := compress(t, "gzip", []byte(`{}`))
	binary.LittleEndian.PutUint32(highHint[len(highHint)-4:], 1<<31) // ISIZE claims 2 GB
	for _, tc := range []struct {
		name   string
		decode func([]byte, int) ([]byte, error)
		in     []byte
		limit  int
		want   error // nil: any error
		bound  uint64
	}{
		{"enc=gzip", gunzip, compress(t, "gzip", bomb), limit, errDecodedTooLarge, limit + slack},
		{"enc=deflate", inflate, compress(t, "deflate", bomb), limit, errDecodedTooLarge, limit + slack},
		// Growing by doubling from a hint that lies low holds at most
		// the limit twice over.
		{"enc=gzip/isize=low", gunzip, lowHint, limit, errDecodedTooLarge, 2*limit + slack},
		// A hint that lies high is capped by what deflate can expand to,
		// well below a large limit.
		{"enc=gzip/isize=high", gunzip, highHint, 4 << 20, nil, slack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = tc.decode(tc.in, tc.limit) })
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if n > tc.bound {
				t.Fatalf("allocated %d bytes, want at most %d", n, tc.bound)
			}
		})
	}
}

// TestDecodeExact: a body that decodes to exactly the limit is accepted,
// in a buffer of its size.
func TestDecodeExact(t *testing.T) {
	const limit = 64 << 10
	body := bytes.Repeat([]byte("0123456789abcdef"), limit/16)
	for _, tc := range []struct {
		name   string
		decode func([]byte, int) ([]byte, error)
		enc    string
	}{
		{"enc=gzip", gunzip, "gzip"},
		{"enc=deflate", inflate, "deflate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.decode(compress(t, tc.enc, body), limit)
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("decoded %d bytes, err %v", len(got), err)
			}
			if _, err := tc.decode(compress(t, tc.enc, append(body, '!')), limit); !errors.Is(err, errDecodedTooLarge) {
				t.Fatalf("one byte over the limit: err = %v", err)
			}
		})
	}
	t.Run("isize=exact", func(t *testing.T) {
		// A true ISIZE sizes the buffer once: no doubling to see EOF.
		got, err := gunzip(compress(t, "gzip", body[:1500]), limit)
		if err != nil || cap(got) > len(got)+64 {
			t.Fatalf("len %d cap %d err %v", len(got), cap(got), err)
		}
	})
}

// TestDecodeBodyPlain: a request without Content-Encoding is left as it
// is, at no allocation.
func TestDecodeBodyPlain(t *testing.T) {
	s := &Server{maxBody: 1 << 20}
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/restapis")
	ctx.Request.SetBodyString(`{"name":"plain"}`)
	allocs := testing.AllocsPerRun(100, func() {
		if err := s.decodeBody(&ctx, awswire.APIGateway); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per plain request", allocs)
	}
	if string(ctx.PostBody()) != `{"name":"plain"}` {
		t.Fatalf("body %q", ctx.PostBody())
	}
}

// TestDecodeBodyHeaders: after decoding, the request reads as if it had
// been sent plain.
func TestDecodeBodyHeaders(t *testing.T) {
	s := &Server{maxBody: 1 << 20}
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/restapis")
	ctx.Request.Header.Set("Content-Encoding", "gzip")
	ctx.Request.SetBody(compress(t, "gzip", []byte(`{"name":"zipped"}`)))
	if err := s.decodeBody(&ctx, awswire.APIGateway); err != nil {
		t.Fatal(err)
	}
	if got := string(ctx.PostBody()); got != `{"name":"zipped"}` {
		t.Fatalf("body %q", got)
	}
	if got := ctx.Request.Header.ContentEncoding(); len(got) != 0 {
		t.Fatalf("Content-Encoding %q left", got)
	}
	if got := ctx.Request.Header.ContentLength(); got != len(`{"name":"zipped"}`) {
		t.Fatalf("Content-Length %d", got)
	}
}

func BenchmarkDecodeBody(b *testing.B) {
	s := &Server{maxBody: 1 << 20}
	body := []byte(`{"BackupVaultTags":{"team":"platform","env":"bench"},"CreatorRequestId":"bench-0001"}`)
	for _, enc := range []string{"none", "gzip", "deflate"} {
		b.Run("enc="+enc, func(b *testing.B) {
			in := body
			if enc != "none" {
				in = compress(b, enc, body)
			}
			var ctx fasthttp.RequestCtx
			b.ReportAllocs()
			for b.Loop() {
				ctx.Request.Reset()
				if enc != "none" {
					ctx.Request.Header.Set("Content-Encoding", enc)
				}
				ctx.Request.SetBodyRaw(in)
				if err := s.decodeBody(&ctx, awswire.Backup); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
