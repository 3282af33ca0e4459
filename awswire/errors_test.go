package awswire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudemu/emulator/awswire"
)

func TestNewStatus(t *testing.T) {
	for _, tc := range []struct {
		svc        awswire.Service
		code       string
		wantCode   string
		wantStatus int
	}{
		// Backup: the model has no httpStatusCode; client shapes are 400,
		// fault shapes 500.
		{awswire.Backup, awswire.CodeAlreadyExists, awswire.CodeAlreadyExists, 400},
		{awswire.Backup, "ConflictException", "ConflictException", 400},
		{awswire.Backup, "DependencyFailureException", "DependencyFailureException", 500},
		{awswire.Backup, awswire.CodeInvalidParameterValue, awswire.CodeInvalidParameterValue, 400},
		{awswire.Backup, awswire.CodeInvalidRequest, awswire.CodeInvalidRequest, 400},
		{awswire.Backup, "InvalidResourceStateException", "InvalidResourceStateException", 400},
		{awswire.Backup, awswire.CodeLimitExceeded, awswire.CodeLimitExceeded, 400},
		{awswire.Backup, awswire.CodeMissingParameterValue, awswire.CodeMissingParameterValue, 400},
		{awswire.Backup, awswire.CodeResourceNotFound, awswire.CodeResourceNotFound, 400},
		{awswire.Backup, awswire.CodeServiceUnavailable, awswire.CodeServiceUnavailable, 500},
		// API Gateway v1.
		{awswire.APIGateway, awswire.CodeBadRequest, awswire.CodeBadRequest, 400},
		{awswire.APIGateway, awswire.CodeUnauthorized, awswire.CodeUnauthorized, 401},
		{awswire.APIGateway, awswire.CodeNotFound, awswire.CodeNotFound, 404},
		{awswire.APIGateway, awswire.CodeConflict, awswire.CodeConflict, 409},
		{awswire.APIGateway, awswire.CodeLimitExceeded, awswire.CodeLimitExceeded, 429},
		{awswire.APIGateway, awswire.CodeTooManyRequests, awswire.CodeTooManyRequests, 429},
		{awswire.APIGateway, awswire.CodeServiceUnavailable, awswire.CodeServiceUnavailable, 503},
		// API Gateway v2.
		{awswire.APIGatewayV2, awswire.CodeBadRequest, awswire.CodeBadRequest, 400},
		{awswire.APIGatewayV2, "AccessDeniedException", "AccessDeniedException", 403},
		{awswire.APIGatewayV2, awswire.CodeNotFound, awswire.CodeNotFound, 404},
		{awswire.APIGatewayV2, awswire.CodeConflict, awswire.CodeConflict, 409},
		{awswire.APIGatewayV2, awswire.CodeTooManyRequests, awswire.CodeTooManyRequests, 429},
		// The emulator's own codes, for every service.
		{awswire.Backup, awswire.CodeNotImplemented, awswire.CodeNotImplemented, 501},
		{awswire.APIGateway, awswire.CodeNotImplemented, awswire.CodeNotImplemented, 501},
		{awswire.APIGatewayV2, awswire.CodeNotImplemented, awswire.CodeNotImplemented, 501},
		{awswire.ServiceNone, awswire.CodeNotImplemented, awswire.CodeNotImplemented, 501},
		{awswire.Backup, awswire.CodeUnknownOperation, awswire.CodeUnknownOperation, 404},
		{awswire.APIGateway, awswire.CodeUnknownOperation, awswire.CodeUnknownOperation, 404},
		{awswire.ServiceNone, awswire.CodeUnknownOperation, awswire.CodeUnknownOperation, 404},
		{awswire.Backup, awswire.CodeRequestEntityTooLarge, awswire.CodeRequestEntityTooLarge, 413},
		{awswire.APIGatewayV2, awswire.CodeRequestEntityTooLarge, awswire.CodeRequestEntityTooLarge, 413},
		{awswire.ServiceNone, awswire.CodeRequestEntityTooLarge, awswire.CodeRequestEntityTooLarge, 413},
		{awswire.Backup, awswire.CodeInternalFailure, awswire.CodeInternalFailure, 500},
		{awswire.APIGateway, awswire.CodeInternalFailure, awswire.CodeInternalFailure, 500},
		{awswire.ServiceNone, awswire.CodeInternalFailure, awswire.CodeInternalFailure, 500},
		// Undeclared codes, and codes of another service, become
		// InternalFailure.
		{awswire.Backup, "NoSuchCodeException", awswire.CodeInternalFailure, 500},
		{awswire.Backup, "", awswire.CodeInternalFailure, 500},
		{awswire.Backup, awswire.CodeNotFound, awswire.CodeInternalFailure, 500},
		{awswire.Backup, awswire.CodeBadRequest, awswire.CodeInternalFailure, 500},
		{awswire.APIGateway, awswire.CodeResourceNotFound, awswire.CodeInternalFailure, 500},
		{awswire.APIGateway, "AccessDeniedException", awswire.CodeInternalFailure, 500},
		{awswire.APIGatewayV2, awswire.CodeUnauthorized, awswire.CodeInternalFailure, 500},
		{awswire.ServiceNone, awswire.CodeNotFound, awswire.CodeInternalFailure, 500},
		{awswire.ServiceNone, "BadRequest", awswire.CodeInternalFailure, 500},
		{awswire.Backup, "resourcenotfoundexception", awswire.CodeInternalFailure, 500},
	} {
		t.Run(fmt.Sprintf("service=%s/code=%s", tc.svc, tc.code), func(t *testing.T) {
			e := awswire.New(tc.svc, tc.code, "msg")
			if e.Code != tc.wantCode || e.Status != tc.wantStatus {
				t.Errorf("New = %s %d, want %s %d", e.Code, e.Status, tc.wantCode, tc.wantStatus)
			}
			if e.Service != tc.svc {
				t.Errorf("Service = %s, want %s", e.Service, tc.svc)
			}
			if e.Fields != nil {
				t.Errorf("Fields = %v, want none", e.Fields)
			}
			var target *awswire.Error
			if !errors.As(error(e), &target) || target != e {
				t.Errorf("errors.As did not find the *awswire.Error")
			}
		})
	}
}

// TestNewAgreesWithShapes checks New against every shape of the table, so a
// regenerated model cannot drift from the lookup.
func TestNewAgreesWithShapes(t *testing.T) {
	for _, s := range awswire.ErrorShapes {
		t.Run(fmt.Sprintf("service=%s/code=%s", s.Service, s.Code), func(t *testing.T) {
			e := awswire.New(s.Service, s.Code, "m")
			if e.Code != s.Code || e.Status != s.Status {
				t.Errorf("New = %s %d, want %s %d", e.Code, e.Status, s.Code, s.Status)
			}
			got, ok := awswire.Shape(s.Service, s.Code)
			if !ok || got.Code != s.Code || got.Status != s.Status {
				t.Errorf("Shape = %v %v", got, ok)
			}
			if s.Fault != (s.Status >= 500) {
				t.Errorf("Fault = %v with status %d", s.Fault, s.Status)
			}
		})
	}
}

func TestShapeUnknown(t *testing.T) {
	for _, tc := range []struct {
		svc  awswire.Service
		code string
	}{
		{awswire.ServiceNone, awswire.CodeInternalFailure},
		{awswire.Backup, awswire.CodeNotImplemented},
		{awswire.Backup, awswire.CodeNotFound},
		{awswire.APIGateway, ""},
	} {
		t.Run(fmt.Sprintf("service=%s/code=%s", tc.svc, tc.code), func(t *testing.T) {
			if s, ok := awswire.Shape(tc.svc, tc.code); ok {
				t.Errorf("Shape = %v, want none", s)
			}
		})
	}
}

func TestErrorf(t *testing.T) {
	e := awswire.Errorf(awswire.APIGateway, awswire.CodeNotFound, "Invalid API identifier specified %s:%s", "123456789012", "abc")
	if e.Code != awswire.CodeNotFound || e.Status != 404 {
		t.Fatalf("Errorf = %s %d", e.Code, e.Status)
	}
	if want := "Invalid API identifier specified 123456789012:abc"; e.Message != want {
		t.Errorf("Message = %q, want %q", e.Message, want)
	}
	if want := awswire.CodeNotFound + ": " + e.Message; e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}

func TestInternalAndUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name       string
		fn         func(awswire.Service) *awswire.Error
		svc        awswire.Service
		wantCode   string
		wantStatus int
	}{
		{"Internal", awswire.Internal, awswire.Backup, awswire.CodeServiceUnavailable, 500},
		{"Internal", awswire.Internal, awswire.APIGateway, awswire.CodeInternalFailure, 500},
		{"Internal", awswire.Internal, awswire.APIGatewayV2, awswire.CodeInternalFailure, 500},
		{"Internal", awswire.Internal, awswire.ServiceNone, awswire.CodeInternalFailure, 500},
		{"Unavailable", awswire.Unavailable, awswire.Backup, awswire.CodeServiceUnavailable, 500},
		{"Unavailable", awswire.Unavailable, awswire.APIGateway, awswire.CodeTooManyRequests, 429},
		{"Unavailable", awswire.Unavailable, awswire.APIGatewayV2, awswire.CodeTooManyRequests, 429},
		{"Unavailable", awswire.Unavailable, awswire.ServiceNone, awswire.CodeInternalFailure, 500},
	} {
		t.Run(fmt.Sprintf("func=%s/service=%s", tc.name, tc.svc), func(t *testing.T) {
			e := tc.fn(tc.svc)
			if e.Code != tc.wantCode || e.Status != tc.wantStatus || e.Service != tc.svc {
				t.Errorf("got %s %s %d, want %s %s %d", e.Service, e.Code, e.Status, tc.svc, tc.wantCode, tc.wantStatus)
			}
			if strings.Contains(e.Message, "undeclared") {
				t.Errorf("Message %q reveals an undeclared code", e.Message)
			}
		})
	}
}

func TestWithCopies(t *testing.T) {
	base := awswire.New(awswire.Backup, awswire.CodeAlreadyExists, "exists")
	a := base.With("Arn", "arn:aws:backup:us-east-1:123456789012:backup-vault:v")
	b := a.With("CreatorRequestId", "r1")
	c := a.With("Context", "c")
	if len(base.Fields) != 0 {
		t.Errorf("base.Fields = %v, want none", base.Fields)
	}
	if len(a.Fields) != 1 {
		t.Errorf("a.Fields = %v, want 1", a.Fields)
	}
	// b and c were both derived from a: neither may see the other's field.
	if want := []awswire.Field{{Name: "Arn", Value: a.Fields[0].Value}, {Name: "CreatorRequestId", Value: "r1"}}; !slices.Equal(b.Fields, want) {
		t.Errorf("b.Fields = %v, want %v", b.Fields, want)
	}
	if want := []awswire.Field{{Name: "Arn", Value: a.Fields[0].Value}, {Name: "Context", Value: "c"}}; !slices.Equal(c.Fields, want) {
		t.Errorf("c.Fields = %v, want %v", c.Fields, want)
	}
	if b.Code != base.Code || b.Status != base.Status || b.Message != base.Message || b.Service != base.Service {
		t.Errorf("With changed the error: %+v", b)
	}
}

// decodeBody checks that body is one valid JSON object of strings and
// returns it.
func decodeBody(t *testing.T, body []byte) map[string]string {
	t.Helper()
	if !json.Valid(body) {
		t.Fatalf("body is not valid JSON: %q", body)
	}
	var m map[string]string
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return m
}

// bodyKeys returns the member names of the JSON object body, in order and
// with duplicates.
func bodyKeys(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("body %q does not start an object: %v %v", body, tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("body %q: %v", body, err)
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("body %q: %v", body, err)
		}
	}
	return keys
}

func TestAppendBody(t *testing.T) {
	hostile := "a\"b\\c\n\x00\xff\u2028</script>"
	for _, tc := range []struct {
		name string
		err  *awswire.Error
		want map[string]string
	}{
		{
			name: "service=backup/code=ResourceNotFoundException",
			err:  awswire.New(awswire.Backup, awswire.CodeResourceNotFound, "Backup vault v not found"),
			want: map[string]string{"Code": awswire.CodeResourceNotFound, "Message": "Backup vault v not found", "Type": "Client"},
		},
		{
			name: "service=backup/code=ServiceUnavailableException",
			err:  awswire.Internal(awswire.Backup),
			want: map[string]string{"Code": awswire.CodeServiceUnavailable, "Message": awswire.Internal(awswire.Backup).Message, "Type": "Server"},
		},
		{
			name: "service=backup/code=NotImplementedException",
			err:  awswire.New(awswire.Backup, awswire.CodeNotImplemented, "no"),
			want: map[string]string{"Code": awswire.CodeNotImplemented, "Message": "no", "Type": "Server"},
		},
		{
			name: "service=backup/code=AlreadyExistsException/fields=2",
			err: awswire.New(awswire.Backup, awswire.CodeAlreadyExists, "exists").
				With("Arn", "arn:aws:backup:us-east-1:123456789012:backup-vault:v").
				With("CreatorRequestId", "req-1"),
			want: map[string]string{
				"Code": awswire.CodeAlreadyExists, "Message": "exists", "Type": "Client",
				"Arn": "arn:aws:backup:us-east-1:123456789012:backup-vault:v", "CreatorRequestId": "req-1",
			},
		},
		{
			name: "service=backup/code=InvalidParameterValueException/hostile",
			err:  awswire.New(awswire.Backup, awswire.CodeInvalidParameterValue, hostile).With("Context", hostile),
			want: map[string]string{
				"Code": awswire.CodeInvalidParameterValue, "Message": strings.ToValidUTF8(hostile, "\uFFFD"),
				"Type": "Client", "Context": strings.ToValidUTF8(hostile, "\uFFFD"),
			},
		},
		{
			name: "service=apigateway/code=NotFoundException",
			err:  awswire.New(awswire.APIGateway, awswire.CodeNotFound, "Invalid API identifier specified"),
			want: map[string]string{"message": "Invalid API identifier specified"},
		},
		{
			name: "service=apigateway/code=TooManyRequestsException",
			err:  awswire.Unavailable(awswire.APIGateway),
			want: map[string]string{"message": "Too Many Requests"},
		},
		{
			name: "service=apigatewayv2/code=NotFoundException/fields=1",
			err:  awswire.New(awswire.APIGatewayV2, awswire.CodeNotFound, "Unable to find Api").With("resourceType", "Api"),
			want: map[string]string{"message": "Unable to find Api", "resourceType": "Api"},
		},
		{
			name: "service=apigatewayv2/code=TooManyRequestsException/fields=1",
			err:  awswire.New(awswire.APIGatewayV2, awswire.CodeTooManyRequests, "slow down").With("limitType", "rate"),
			want: map[string]string{"message": "slow down", "limitType": "rate"},
		},
		{
			name: "service=lambda/code=ResourceNotFoundException",
			err:  awswire.New(awswire.Lambda, awswire.CodeResourceNotFound, "Function not found: arn:aws:lambda:us-east-1:000000000000:function:nope"),
			want: map[string]string{"Type": "User", "Message": "Function not found: arn:aws:lambda:us-east-1:000000000000:function:nope"},
		},
		{
			name: "service=lambda/code=InvalidParameterValueException",
			err:  awswire.New(awswire.Lambda, awswire.CodeInvalidParameterValue, "Could not unzip uploaded file."),
			want: map[string]string{"Type": "User", "message": "Could not unzip uploaded file."},
		},
		{
			name: "service=lambda/code=ServiceException",
			err:  awswire.Internal(awswire.Lambda),
			want: map[string]string{"Type": "Service", "Message": "An internal error occurred."},
		},
		{
			name: "service=lambda/code=TooManyRequestsException/fields=1",
			err:  awswire.Unavailable(awswire.Lambda),
			want: map[string]string{"Type": "User", "message": "Rate exceeded", "Reason": "CallerRateLimitExceeded"},
		},
		{
			name: "service=lambda/code=ValidationException",
			err:  awswire.New(awswire.Lambda, awswire.CodeValidation, "1 validation error detected"),
			want: map[string]string{"message": "1 validation error detected"},
		},
		{
			name: "service=none/code=UnknownOperationException",
			err:  awswire.New(awswire.ServiceNone, awswire.CodeUnknownOperation, "No operation matches GET /x"),
			want: map[string]string{"code": awswire.CodeUnknownOperation, "message": "No operation matches GET /x"},
		},
		{
			name: "service=none/code=InternalFailure/hostile",
			err:  awswire.New(awswire.ServiceNone, awswire.CodeInternalFailure, hostile),
			want: map[string]string{"code": awswire.CodeInternalFailure, "message": strings.ToValidUTF8(hostile, "\uFFFD")},
		},
		{
			name: "service=none/code=undeclared",
			err:  awswire.New(awswire.ServiceNone, "Nope", ""),
			want: map[string]string{"code": awswire.CodeInternalFailure, "message": "undeclared error code Nope: "},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := awswire.AppendBody(nil, tc.err)
			got := decodeBody(t, body)
			if !maps.Equal(got, tc.want) {
				t.Errorf("body %s\n got %v\nwant %v", body, got, tc.want)
			}
			// Each member appears once: no duplicate keys hide behind the map.
			if keys := bodyKeys(t, body); len(keys) != len(tc.want) {
				t.Errorf("body %s has members %q, want %d", body, keys, len(tc.want))
			}
			// AppendBody appends.
			prefixed := awswire.AppendBody([]byte("xyz"), tc.err)
			if string(prefixed) != "xyz"+string(body) {
				t.Errorf("AppendBody with a prefix = %q", prefixed)
			}
		})
	}
}

func TestAppendString(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"ascii", "Backup vault my-vault_01 not found."},
		{"all-ascii", func() string {
			var b []byte
			for c := 0; c < 0x80; c++ {
				b = append(b, byte(c))
			}
			return string(b)
		}()},
		{"control", "\x00\x01\x07\x08\x0b\x0c\x1f\x7f"},
		{"newline-tab-cr", "a\nb\tc\rd"},
		{"quote", `say "hi"`},
		{"backslash", `C:\path\to\file`},
		{"quote-backslash-end", `\"`},
		{"html", "<script>alert('&')</script>"},
		{"invalid-utf8-lone", "\xff"},
		{"invalid-utf8-mid", "ab\xc3(cd"},
		{"invalid-utf8-truncated", "\xe2\x82"},
		{"invalid-utf8-surrogate", "\xed\xa0\x80"},
		{"invalid-utf8-overlong", "\xc0\xaf"},
		{"invalid-utf8-after-multibyte", "é\x80"},
		{"replacement-char", "\uFFFD"},
		{"u2028-u2029", "line\u2028para\u2029end"},
		{"u2028-only", "\u2028"},
		{"emoji", "vault 🔒🗄️ 👨‍👩‍👧"},
		{"cjk", "日本語のボールト"},
		{"max-rune", "\U0010FFFF"},
		{"mixed", "a\"\\\n\x00é\xff\u2028😀z"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			checkAppendString(t, tc.in)
		})
	}
}

// checkAppendString compares AppendString with encoding/json on s: the
// output must be valid JSON decoding to the same string, and to s itself
// when s is valid UTF-8.
func checkAppendString(t *testing.T, s string) {
	t.Helper()
	out := awswire.AppendString(nil, s)
	if !json.Valid(out) {
		t.Fatalf("AppendString(%q) = %q: not valid JSON", s, out)
	}
	var got string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("AppendString(%q) = %q: %v", s, out, err)
	}
	ref, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var want string
	if err := json.Unmarshal(ref, &want); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("AppendString(%q) = %q decodes to %q; encoding/json gives %q", s, out, got, want)
	}
	if utf8.ValidString(s) && got != s {
		t.Fatalf("AppendString(%q) = %q decodes to %q", s, out, got)
	}
	// Raw U+2028/U+2029 break JavaScript string literals.
	if strings.ContainsAny(string(out), "\u2028\u2029") {
		t.Fatalf("AppendString(%q) = %q holds a raw U+2028/U+2029", s, out)
	}
	if prefixed := awswire.AppendString([]byte("{"), s); string(prefixed) != "{"+string(out) {
		t.Fatalf("AppendString with a prefix = %q", prefixed)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{
		"", "plain", "Backup vault my-vault not found", `q"b\`, "\x00\x1f\x7f", "\n\r\t\b\f",
		"\xff", "\xc3(", "\xed\xa0\x80", "\u2028\u2029", "😀", "\uFFFD", "<>&",
		"arn:aws:backup:us-east-1:123456789012:backup-vault:v",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkAppendString(t, s)
	})
}

func TestAppendEpochSeconds(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want string
	}{
		{0, "0"},
		{1, "0.001"},
		{10, "0.01"},
		{100, "0.1"},
		{999, "0.999"},
		{1000, "1"},
		{1001, "1.001"},
		{1010, "1.01"},
		{1100, "1.1"},
		{1500, "1.5"},
		{1999, "1.999"},
		{1767225600000, "1767225600"},
		{1767225600123, "1767225600.123"},
		{math.MaxInt64, "9223372036854775.807"},
		{-1000, "-1"},
		{-86400000, "-86400"},
	} {
		t.Run(fmt.Sprintf("ms=%d", tc.ms), func(t *testing.T) {
			got := string(awswire.AppendEpochSeconds(nil, tc.ms))
			if got != tc.want {
				t.Errorf("AppendEpochSeconds(%d) = %q, want %q", tc.ms, got, tc.want)
			}
			checkEpoch(t, tc.ms)
		})
	}
}

func TestAppendEpochSecondsNegative(t *testing.T) {
	// Pre-1970 timestamps with a millisecond part. Found by this test:
	// the integer part is floored but the fraction is written after a minus
	// sign, so -1 ms reads as -1.999 s.
	for _, tc := range []struct {
		ms   int64
		want string
	}{
		{-1, "-0.001"},
		{-500, "-0.5"},
		{-999, "-0.999"},
		{-1001, "-1.001"},
		{-1500, "-1.5"},
		{math.MinInt64, "-9223372036854775.808"},
	} {
		t.Run(fmt.Sprintf("ms=%d", tc.ms), func(t *testing.T) {
			if got := string(awswire.AppendEpochSeconds(nil, tc.ms)); got != tc.want {
				t.Errorf("AppendEpochSeconds(%d) = %q, want %q", tc.ms, got, tc.want)
			}
			checkEpoch(t, tc.ms)
		})
	}
	t.Run("range=-3000..0", func(t *testing.T) {
		for ms := int64(-3000); ms < 0; ms++ {
			checkEpoch(t, ms)
			if t.Failed() {
				return
			}
		}
	})
}

func TestAppendEpochSecondsRange(t *testing.T) {
	// Every millisecond fraction, just after the epoch and around a current
	// timestamp.
	for _, base := range []int64{0, 1767225600000} {
		t.Run(fmt.Sprintf("base=%d", base), func(t *testing.T) {
			for ms := base; ms < base+3000; ms++ {
				checkEpoch(t, ms)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// checkEpoch checks that AppendEpochSeconds(ms) is a JSON number whose
// exact value is ms/1000, and a float equal to ms/1000.
func checkEpoch(t *testing.T, ms int64) {
	t.Helper()
	out := awswire.AppendEpochSeconds(nil, ms)
	if !json.Valid(out) {
		t.Errorf("AppendEpochSeconds(%d) = %q: not a JSON number", ms, out)
		return
	}
	r, ok := new(big.Rat).SetString(string(out))
	if !ok {
		t.Errorf("AppendEpochSeconds(%d) = %q: not a decimal", ms, out)
		return
	}
	if want := big.NewRat(ms, 1000); r.Cmp(want) != 0 {
		t.Errorf("AppendEpochSeconds(%d) = %q = %s, want %s", ms, out, r.FloatString(3), want.FloatString(3))
		return
	}
	f, err := strconv.ParseFloat(string(out), 64)
	if err != nil {
		t.Errorf("AppendEpochSeconds(%d) = %q: %v", ms, out, err)
		return
	}
	if want, _ := big.NewRat(ms, 1000).Float64(); f != want {
		t.Errorf("AppendEpochSeconds(%d) = %q parses to %v, want %v", ms, out, f, want)
	}
	if s := string(out); strings.Contains(s, ".") && strings.HasSuffix(s, "0") {
		t.Errorf("AppendEpochSeconds(%d) = %q has a trailing zero", ms, out)
	}
}

// TestQueryServiceCodes checks the query and JSON services' codes: the
// model's shapes with their awsQueryError codes, and the common codes no
// model declares.
func TestQueryServiceCodes(t *testing.T) {
	for _, tc := range []struct {
		svc                       awswire.Service
		code                      string
		status                    int
		queryCode, jsonType, body string
		sender                    bool
	}{
		{awswire.SQS, "QueueDoesNotExist", 400, "AWS.SimpleQueueService.NonExistentQueue", "com.amazonaws.sqs#QueueDoesNotExist",
			`{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"m"}`, true},
		{awswire.SQS, "ReceiptHandleIsInvalid", 404, "ReceiptHandleIsInvalid", "com.amazonaws.sqs#ReceiptHandleIsInvalid",
			`{"__type":"com.amazonaws.sqs#ReceiptHandleIsInvalid","message":"m"}`, true},
		{awswire.SQS, awswire.CodeInvalidParameterValueQuery, 400, "InvalidParameterValue", "com.amazon.coral.service#InvalidParameterValueException",
			`{"__type":"com.amazon.coral.service#InvalidParameterValueException","message":"m"}`, true},
		{awswire.SQS, awswire.CodeMissingParameter, 400, "MissingParameter", "com.amazon.coral.service#MissingRequiredParameterException",
			`{"__type":"com.amazon.coral.service#MissingRequiredParameterException","message":"m"}`, true},
		{awswire.SQS, awswire.CodeInternalFailure, 500, "InternalFailure", "com.amazon.coral.service#InternalFailure",
			`{"__type":"com.amazon.coral.service#InternalFailure","message":"m"}`, false},
		{awswire.SQS, awswire.CodeServiceUnavailableQuery, 503, "ServiceUnavailable", "com.amazon.coral.service#ServiceUnavailableException",
			`{"__type":"com.amazon.coral.service#ServiceUnavailableException","message":"m"}`, false},
		{awswire.SQS, awswire.CodeNotImplementedQuery, 501, "NotImplemented", "NotImplemented",
			`{"__type":"NotImplemented","message":"m"}`, false},
		{awswire.SNS, "NotFoundException", 404, "NotFound", "com.amazonaws.sns#NotFoundException",
			`{"__type":"com.amazonaws.sns#NotFoundException","message":"m"}`, true},
		{awswire.SNS, "InternalErrorException", 500, "InternalError", "com.amazonaws.sns#InternalErrorException",
			`{"__type":"com.amazonaws.sns#InternalErrorException","message":"m"}`, false},
		{awswire.SNS, awswire.CodeInvalidAction, 400, "InvalidAction", "com.amazon.coral.service#UnknownOperationException",
			`{"__type":"com.amazon.coral.service#UnknownOperationException","message":"m"}`, true},
		{awswire.SES, "MessageRejected", 400, "MessageRejected", "com.amazonaws.ses#MessageRejected",
			`{"__type":"com.amazonaws.ses#MessageRejected","message":"m"}`, true},
		{awswire.SES, awswire.CodeValidationError, 400, "ValidationError", "com.amazon.coral.validate#ValidationException",
			`{"__type":"com.amazon.coral.validate#ValidationException","message":"m"}`, true},
		{awswire.SES, "AccessDenied", 403, "AccessDenied", "com.amazon.coral.service#AccessDeniedException",
			`{"__type":"com.amazon.coral.service#AccessDeniedException","message":"m"}`, true},
		// Common codes known by name only.
		{awswire.SQS, "Throttling", 400, "Throttling", "com.amazon.coral.availability#ThrottlingException",
			`{"__type":"com.amazon.coral.availability#ThrottlingException","message":"m"}`, true},
		{awswire.SNS, "OptInRequired", 403, "OptInRequired", "com.amazon.coral.service#OptInRequired",
			`{"__type":"com.amazon.coral.service#OptInRequired","message":"m"}`, true},
		{awswire.SNS, "InvalidParameterCombination", 400, "InvalidParameterCombination", "com.amazon.coral.service#InvalidParameterCombinationException",
			`{"__type":"com.amazon.coral.service#InvalidParameterCombinationException","message":"m"}`, true},
		{awswire.SESv2, "NotFoundException", 404, "NotFoundException", "com.amazonaws.sesv2#NotFoundException",
			`{"message":"m"}`, true},
	} {
		t.Run(fmt.Sprintf("service=%s/code=%s", tc.svc, tc.code), func(t *testing.T) {
			e := awswire.New(tc.svc, tc.code, "m")
			if e.Code != tc.code || e.Status != tc.status {
				t.Fatalf("New = %s %d, want %s %d", e.Code, e.Status, tc.code, tc.status)
			}
			if got := e.QueryCode(); got != tc.queryCode {
				t.Errorf("QueryCode = %q, want %q", got, tc.queryCode)
			}
			if got := e.JSONType(); got != tc.jsonType {
				t.Errorf("JSONType = %q, want %q", got, tc.jsonType)
			}
			if got := e.Sender(); got != tc.sender {
				t.Errorf("Sender = %t, want %t", got, tc.sender)
			}
			if got := string(awswire.AppendBody(nil, e)); got != tc.body {
				t.Errorf("AppendBody = %s, want %s", got, tc.body)
			}
		})
	}
	// The common codes are the query and JSON services' only: a REST
	// service keeps InternalFailure for them.
	if e := awswire.New(awswire.SESv2, awswire.CodeInvalidAction, "m"); e.Code != awswire.CodeInternalFailure {
		t.Errorf("SESv2 InvalidAction = %s, want InternalFailure", e.Code)
	}
	if e := awswire.New(awswire.Backup, awswire.CodeMissingParameter, "m"); e.Code != awswire.CodeInternalFailure {
		t.Errorf("Backup MissingParameter = %s, want InternalFailure", e.Code)
	}
	for _, svc := range []awswire.Service{awswire.SQS, awswire.SNS, awswire.SES, awswire.SESv2} {
		if e := awswire.Internal(svc); e.Status != 500 || e.Code == "" {
			t.Errorf("Internal(%s) = %s %d", svc, e.Code, e.Status)
		}
		if e := awswire.Unavailable(svc); e.Status != 503 && e.Status != 429 {
			t.Errorf("Unavailable(%s) = %s %d", svc, e.Code, e.Status)
		}
	}
}

// TestStoreUnavailable checks that a write the disk refused is a 5xx every
// service's clients read as "unavailable, retry": the model's
// ServiceUnavailableException, the query protocol's ServiceUnavailable,
// else a 503 of the same name.
func TestStoreUnavailable(t *testing.T) {
	for _, tc := range []struct {
		svc        awswire.Service
		wantCode   string
		wantStatus int
	}{
		{awswire.Backup, awswire.CodeServiceUnavailable, 500}, // as Backup's model declares it
		{awswire.APIGateway, awswire.CodeServiceUnavailable, 503},
		{awswire.APIGatewayV2, awswire.CodeServiceUnavailable, 503},
		{awswire.Lambda, awswire.CodeServiceUnavailable, 503},
		{awswire.SQS, awswire.CodeServiceUnavailableQuery, 503},
		{awswire.SNS, awswire.CodeServiceUnavailableQuery, 503},
		{awswire.SES, awswire.CodeServiceUnavailableQuery, 503},
		{awswire.SESv2, awswire.CodeServiceUnavailable, 503},
		{awswire.ServiceNone, awswire.CodeServiceUnavailable, 503},
	} {
		t.Run("service="+tc.svc.String(), func(t *testing.T) {
			e := awswire.StoreUnavailable(tc.svc)
			if e.Code != tc.wantCode || e.Status != tc.wantStatus || e.Service != tc.svc || e.Sender() {
				t.Errorf("got %s %s %d sender=%v, want %s %s %d receiver", e.Service, e.Code, e.Status, e.Sender(),
					tc.svc, tc.wantCode, tc.wantStatus)
			}
			if !strings.Contains(e.Message, "data directory") {
				t.Errorf("Message %q does not say what failed", e.Message)
			}
		})
	}
}
