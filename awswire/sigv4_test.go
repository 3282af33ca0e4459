package awswire_test

import (
	"bytes"
	"testing"

	"github.com/cloudemu/emulator/awswire"
)

type scopeWant struct {
	key, region, service string
}

func checkScope(t *testing.T, in string, got awswire.Credential, ok bool, want scopeWant) {
	t.Helper()
	if !ok {
		t.Fatalf("%q refused", in)
	}
	if string(got.AccessKey) != want.key || string(got.Region) != want.region || string(got.Service) != want.service {
		t.Errorf("%q = {%s %s %s}, want {%s %s %s}", in, got.AccessKey, got.Region, got.Service,
			want.key, want.region, want.service)
	}
}

func TestParseAuthorization(t *testing.T) {
	const sig = "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"
	for _, tc := range []struct {
		name string
		in   string
		want scopeWant
	}{
		// aws-sdk-go-v2 (v4.Signer): ", " between the parts.
		{"go-sdk-v2",
			"AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260102/us-east-1/backup/aws4_request, " +
				"SignedHeaders=amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date, Signature=" + sig,
			scopeWant{"AKIAIOSFODNN7EXAMPLE", "us-east-1", "backup"}},
		// botocore: the same form.
		{"botocore",
			"AWS4-HMAC-SHA256 Credential=123456789012/20260102/eu-west-2/apigateway/aws4_request, " +
				"SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=" + sig,
			scopeWant{"123456789012", "eu-west-2", "apigateway"}},
		// Java SDK v1 / hand-written: no space after the commas.
		{"no-spaces",
			"AWS4-HMAC-SHA256 Credential=test/20260102/us-west-2/backup/aws4_request,SignedHeaders=host;x-amz-date,Signature=" + sig,
			scopeWant{"test", "us-west-2", "backup"}},
		{"several-spaces",
			"AWS4-HMAC-SHA256   Credential=test/20260102/ap-southeast-2/apigateway/aws4_request ,  SignedHeaders=host, Signature=" + sig,
			scopeWant{"test", "ap-southeast-2", "apigateway"}},
		{"credential-last",
			"AWS4-HMAC-SHA256 SignedHeaders=host, Signature=" + sig + ", Credential=AKID/20260102/us-east-2/backup/aws4_request",
			scopeWant{"AKID", "us-east-2", "backup"}},
		{"session-key",
			"AWS4-HMAC-SHA256 Credential=ASIAY34FZKBOKMUTVV7A/20260102/us-gov-west-1/backup/aws4_request, SignedHeaders=host, Signature=" + sig,
			scopeWant{"ASIAY34FZKBOKMUTVV7A", "us-gov-west-1", "backup"}},
		{"apigatewayv2-scope",
			"AWS4-HMAC-SHA256 Credential=000000000000/20260102/us-east-1/apigateway/aws4_request, SignedHeaders=host, Signature=" + sig,
			scopeWant{"000000000000", "us-east-1", "apigateway"}},
		{"empty-date",
			"AWS4-HMAC-SHA256 Credential=AKID//us-east-1/backup/aws4_request, SignedHeaders=host, Signature=" + sig,
			scopeWant{"AKID", "us-east-1", "backup"}},
	} {
		t.Run("header="+tc.name, func(t *testing.T) {
			got, ok := awswire.ParseAuthorization([]byte(tc.in))
			checkScope(t, tc.in, got, ok, tc.want)
		})
	}
}

func TestParseAuthorizationRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"algorithm-only", "AWS4-HMAC-SHA256"},
		{"sigv2", "AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg="},
		{"bearer", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x"},
		{"credential-empty", "AWS4-HMAC-SHA256 Credential=, SignedHeaders=host, Signature=abc"},
		{"credential-key-only", "AWS4-HMAC-SHA256 Credential=AKID, SignedHeaders=host"},
		{"credential-three-parts", "AWS4-HMAC-SHA256 Credential=AKID/20260102/us-east-1, SignedHeaders=host"},
		{"credential-four-parts", "AWS4-HMAC-SHA256 Credential=AKID/20260102/us-east-1/backup, SignedHeaders=host"},
		{"empty-key", "AWS4-HMAC-SHA256 Credential=/20260102/us-east-1/backup/aws4_request, SignedHeaders=host"},
		{"empty-region", "AWS4-HMAC-SHA256 Credential=AKID/20260102//backup/aws4_request, SignedHeaders=host"},
		{"empty-service", "AWS4-HMAC-SHA256 Credential=AKID/20260102/us-east-1//aws4_request, SignedHeaders=host"},
		{"space-inside", "AWS4-HMAC-SHA256 Credential=AKID/20260102/us east-1/backup/aws4_request"},
		{"lowercase-key", "AWS4-HMAC-SHA256 credential=AKID/20260102/us-east-1/backup/aws4_request"},
		{"truncated", "AWS4-HMAC-SHA256 Credential=AKID/2026"},
	} {
		t.Run("header="+tc.name, func(t *testing.T) {
			if got, ok := awswire.ParseAuthorization([]byte(tc.in)); ok {
				t.Errorf("ParseAuthorization(%q) = {%s %s %s}; want refused", tc.in, got.AccessKey, got.Region, got.Service)
			}
		})
	}
}

func TestParseCredential(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want scopeWant
	}{
		// X-Amz-Credential of a presigned URL, after query unescaping.
		{"presigned", "AKIAIOSFODNN7EXAMPLE/20260102/us-east-1/backup/aws4_request",
			scopeWant{"AKIAIOSFODNN7EXAMPLE", "us-east-1", "backup"}},
		{"presigned-account", "123456789012/20260102/eu-central-1/apigateway/aws4_request",
			scopeWant{"123456789012", "eu-central-1", "apigateway"}},
		{"no-terminator", "AKID/20260102/us-east-1/backup/",
			scopeWant{"AKID", "us-east-1", "backup"}},
	} {
		t.Run("credential="+tc.name, func(t *testing.T) {
			got, ok := awswire.ParseCredential([]byte(tc.in))
			checkScope(t, tc.in, got, ok, tc.want)
		})
	}
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"escaped", "AKID%2F20260102%2Fus-east-1%2Fbackup%2Faws4_request"},
		{"four-parts", "AKID/20260102/us-east-1/backup"},
		{"empty-key", "/20260102/us-east-1/backup/aws4_request"},
		{"empty-region", "AKID/20260102//backup/aws4_request"},
		{"empty-service", "AKID/20260102/us-east-1//aws4_request"},
		{"slashes", "////"},
	} {
		t.Run("credential="+tc.name, func(t *testing.T) {
			if _, ok := awswire.ParseCredential([]byte(tc.in)); ok {
				t.Errorf("ParseCredential(%q) accepted", tc.in)
			}
		})
	}
}

func TestParseAuthorizationAliases(t *testing.T) {
	// The scope aliases the header: no copy on the hot path.
	h := []byte("AWS4-HMAC-SHA256 Credential=AKID/20260102/us-east-1/backup/aws4_request, SignedHeaders=host, Signature=x")
	sc, ok := awswire.ParseAuthorization(h)
	if !ok {
		t.Fatal("refused")
	}
	for _, part := range [][]byte{sc.AccessKey, sc.Region, sc.Service} {
		if !aliases(h, part) {
			t.Errorf("%q does not alias the header", part)
		}
	}
}

// aliases reports whether part is a subslice of whole.
func aliases(whole, part []byte) bool {
	if len(part) == 0 {
		return true
	}
	for i := 0; i+len(part) <= len(whole); i++ {
		if &whole[i] == &part[0] {
			return true
		}
	}
	return false
}

func TestAccountOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  string
		ok   bool
	}{
		{"12-digits", "123456789012", true},
		{"zeros", "000000000000", true},
		{"nines", "999999999999", true},
		{"access-key", "AKIAIOSFODNN7EXAMPLE", false},
		{"test", "test", false},
		{"empty", "", false},
		{"11-digits", "12345678901", false},
		{"13-digits", "1234567890123", false},
		{"letter", "12345678901a", false},
		{"space", "12345678901 ", false},
		{"sign", "+12345678901", false},
		{"arabic-indic-digits", "١٢٣٤٥٦", false}, // 12 bytes, not ASCII digits
		{"fullwidth-digits", "１２３４", false},      // 12 bytes, not ASCII digits
	} {
		t.Run("key="+tc.name, func(t *testing.T) {
			acct, ok := awswire.AccountOf([]byte(tc.key))
			if ok != tc.ok {
				t.Fatalf("AccountOf(%q) ok = %v, want %v", tc.key, ok, tc.ok)
			}
			if ok && string(acct) != tc.key {
				t.Errorf("AccountOf(%q) = %q", tc.key, acct)
			}
			if !ok && acct != nil {
				t.Errorf("AccountOf(%q) = %q with ok false", tc.key, acct)
			}
		})
	}
}

func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{
		"AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260102/us-east-1/backup/aws4_request, SignedHeaders=host;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
		"AWS4-HMAC-SHA256 Credential=123456789012/20260102/eu-west-2/apigateway/aws4_request,SignedHeaders=host,Signature=abc",
		"AWS4-HMAC-SHA256 Credential=", "Credential=////", "Credential=a/b/c/d/e/f", "Credential=Credential=a/b/c/d",
		"", "AWS AKID:sig", "Credential=a/b/c/d/e, Credential=x/y/z/w/v",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, h []byte) {
		orig := bytes.Clone(h)
		sc, ok := awswire.ParseAuthorization(h)
		if !bytes.Equal(h, orig) {
			t.Fatalf("ParseAuthorization modified its input")
		}
		if !ok {
			return
		}
		if len(sc.AccessKey) == 0 || len(sc.Region) == 0 || len(sc.Service) == 0 {
			t.Fatalf("ParseAuthorization(%q) = {%q %q %q}: an empty part", h, sc.AccessKey, sc.Region, sc.Service)
		}
		for _, part := range [][]byte{sc.AccessKey, sc.Region, sc.Service} {
			if bytes.ContainsAny(part, "/, ") {
				t.Fatalf("ParseAuthorization(%q): part %q holds a separator", h, part)
			}
			if !aliases(h, part) {
				t.Fatalf("ParseAuthorization(%q): part %q does not alias the input", h, part)
			}
		}
		if acct, ok := awswire.AccountOf(sc.AccessKey); ok && len(acct) != 12 {
			t.Fatalf("AccountOf(%q) = %q", sc.AccessKey, acct)
		}
	})
}
