package httpfront_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/backup"
	"github.com/aws/smithy-go/middleware"
	"github.com/aws/smithy-go/private/requestcompression"
	smithyhttp "github.com/aws/smithy-go/transport/http"

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

func rawDeflated(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestCompression)
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
		// A body-less request that carries the header has nothing to decode.
		{"empty", "PUT", "/backup-vaults/empty-body", "", "gzip", 200, ""},
		{"x-gzip", "POST", "/restapis", gzipped(t, []byte(`{"name":"x-zipped"}`)), "x-gzip", 201, ""},
		{"raw-deflate", "POST", "/restapis", rawDeflated(t, []byte(`{"name":"raw"}`)), "deflate", 201, ""},
		// The Go SDK appends gzip to an encoding already set.
		{"list", "POST", "/restapis", gzipped(t, []byte(`{"name":"listed"}`)), "identity, gzip", 201, ""},
		{"stacked", "POST", "/restapis", gzipped(t, []byte(gzipped(t, []byte(`{"name":"twice"}`)))), "gzip,gzip", 201, ""},
		{"stacked-unknown", "POST", "/restapis", gzipped(t, []byte(`{"name":"no"}`)), "br, gzip", 415, "UnsupportedMediaTypeException"},
		{"too-many", "POST", "/restapis", "x", "gzip, gzip, gzip, gzip, gzip", 415, "UnsupportedMediaTypeException"},
		{"bomb-deflate", "POST", "/restapis", deflated(t, make([]byte, 1<<20)), "deflate", 413, "RequestEntityTooLargeException"},
		{"backup-bomb", "PUT", "/backup-vaults/v3", gzipped(t, make([]byte, 1<<20)), "gzip", 413, "RequestEntityTooLargeException"},
		// Exactly the limit decodes; one byte more does not.
		{"at-limit", "POST", "/restapis", gzipped(t, padded(`{"name":"full"}`, 64<<10)), "gzip", 201, ""},
		{"over-limit", "POST", "/restapis", gzipped(t, padded(`{"name":"over"}`, 64<<10+1)), "gzip", 413, "RequestEntityTooLargeException"},
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

// padded is the JSON object s padded with spaces to n bytes.
func padded(s string, n int) []byte {
	return append([]byte(s), bytes.Repeat([]byte{' '}, n-len(s))...)
}

// TestCompressedBodiesSDK drives the front with the SDK's own request
// compression middleware (the one CloudWatch PutMetricData uses).
func TestCompressedBodiesSDK(t *testing.T) {
	srv := servertest.Start(t, servertest.WithMaxBody(64<<10))
	ctx := context.Background()
	compressed := 0
	compress := func(stack *middleware.Stack) error {
		if err := requestcompression.AddRequestCompression(stack, false, 0, []string{requestcompression.GZIP}); err != nil {
			return err
		}
		// Count what went out compressed, so the test cannot pass on
		// plain bodies.
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("countGzip",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if r, ok := in.Request.(*smithyhttp.Request); ok && r.Header.Get("Content-Encoding") == "gzip" {
					compressed++
				}
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	}
	t.Run("op=CreateBackupVault", func(t *testing.T) {
		c := backup.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *backup.Options) {
			o.BaseEndpoint = aws.String(srv.URL)
			o.APIOptions = append(o.APIOptions, compress)
		})
		before := compressed
		out, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("zipped"),
			BackupVaultTags: map[string]string{"team": "gzip"}})
		if err != nil {
			t.Fatal(err)
		}
		if compressed == before {
			t.Fatal("the request was not compressed")
		}
		tags, err := c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: out.BackupVaultArn})
		if err != nil {
			t.Fatal(err)
		}
		if tags.Tags["team"] != "gzip" {
			t.Fatalf("tags %v", tags.Tags)
		}
	})
	t.Run("op=CreateRestApi", func(t *testing.T) {
		c := apigateway.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *apigateway.Options) {
			o.BaseEndpoint = aws.String(srv.URL)
			o.APIOptions = append(o.APIOptions, compress)
		})
		before := compressed
		out, err := c.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String("zipped-api"),
			Description: aws.String("sent gzip'ed")})
		if err != nil {
			t.Fatal(err)
		}
		if compressed == before {
			t.Fatal("the request was not compressed")
		}
		if aws.ToString(out.Name) != "zipped-api" || aws.ToString(out.Description) != "sent gzip'ed" {
			t.Fatalf("created %q %q", aws.ToString(out.Name), aws.ToString(out.Description))
		}
	})
}
