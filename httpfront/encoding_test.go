package httpfront_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"testing"

	"github.com/cloudemu/emulator/server/servertest"
)

func gzipped(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func deflated(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	w := zlib.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestCompressedBodies: bodies sent with Content-Encoding are decoded
// before the handler reads them, within the body limit.
func TestCompressedBodies(t *testing.T) {
	srv := servertest.Start(t, servertest.WithMaxBody(64<<10))
	apigw := sign("apigateway", "us-east-1", "test")
	for _, tc := range []struct {
		name, method, path, body, encoding string
		status                             int
		code                               string
	}{
		{"gzip", "POST", "/restapis", gzipped(t, []byte(`{"name":"zipped"}`)), "gzip", 201, ""},
		{"deflate", "POST", "/restapis", deflated(t, []byte(`{"name":"deflated"}`)), "deflate", 201, ""},
		{"identity", "POST", "/restapis", `{"name":"plain"}`, "identity", 201, ""},
		{"backup-gzip", "PUT", "/backup-vaults/zipped-vault", gzipped(t, []byte(`{"BackupVaultTags":{"k":"v"}}`)), "gzip", 200, ""},
		{"bomb", "POST", "/restapis", gzipped(t, bytes.Repeat([]byte{' '}, 1<<20)), "gzip", 413, "RequestEntityTooLargeException"},
		{"corrupt", "POST", "/restapis", "not gzip at all", "gzip", 400, "BadRequestException"},
		{"truncated", "POST", "/restapis", gzipped(t, []byte(`{"name":"cut"}`))[:20], "gzip", 400, "BadRequestException"},
		{"backup-corrupt", "PUT", "/backup-vaults/v2", "junk", "gzip", 400, "InvalidRequestException"},
		{"unknown-encoding", "POST", "/restapis", "x", "br", 415, "UnsupportedMediaTypeException"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			hdr := append([]string{"Content-Encoding", tc.encoding, "Content-Type", "application/json"}, apigw...)
			r := do(t, srv, tc.method, tc.path, tc.body, hdr...)
			if r.status != tc.status || r.header.Get("x-amzn-ErrorType") != tc.code {
				t.Fatalf("got %d %q %s, want %d %q", r.status, r.header.Get("x-amzn-ErrorType"), r.body, tc.status, tc.code)
			}
			if tc.status == 201 && r.json["name"] == nil {
				t.Fatalf("created API has no name: %s", r.body)
			}
		})
	}
}
