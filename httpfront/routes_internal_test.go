package httpfront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func TestRouterTemplate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		path   string
		want   string
		labels []string
	}{
		{"root", "/", "/", nil},
		{"empty", "", "/", nil},
		{"no-label", "/backup-vaults", "/backup-vaults", nil},
		{"deep-no-label", "/backup/template/json/toPlan", "/backup/template/json/toPlan", nil},
		{"one-label", "/backup-vaults/{backupVaultName}", "/backup-vaults/{L0}", []string{"backupVaultName"}},
		{"label-then-literal", "/backup-vaults/{backupVaultName}/access-policy", "/backup-vaults/{L0}/access-policy",
			[]string{"backupVaultName"}},
		{"two-labels", "/backup/plans/{backupPlanId}/selections/{selectionId}", "/backup/plans/{L0}/selections/{L1}",
			[]string{"backupPlanId", "selectionId"}},
		{"three-labels", "/restapis/{restapi_id}/resources/{resource_id}/methods/{http_method}",
			"/restapis/{L0}/resources/{L1}/methods/{L2}", []string{"restapi_id", "resource_id", "http_method"}},
		{"arn-last", "/backup-access-point/{AccessPointArn}", "/backup-access-point/{L0:*}", []string{"AccessPointArn"}},
		{"arn-last-after-label", "/backup-vaults/{backupVaultName}/recovery-points/{recoveryPointArn}",
			"/backup-vaults/{L0}/recovery-points/{L1:*}", []string{"backupVaultName", "recoveryPointArn"}},
		{"arn-not-last", "/backup-vaults/{backupVaultName}/recovery-points/{recoveryPointArn}/index",
			"/backup-vaults/{L0}/recovery-points/{L1}/index", []string{"backupVaultName", "recoveryPointArn"}},
		{"arn-snake-case", "/tags/{resource_arn}", "/tags/{L0:*}", []string{"resource_arn"}},
		{"arn-kebab-case", "/v2/tags/{resource-arn}", "/v2/tags/{L0:*}", []string{"resource-arn"}},
		{"arn-uppercase", "/x/{ResourceARN}", "/x/{L0:*}", []string{"ResourceARN"}},
		{"arn-not-last-middle", "/resources/{resourceArn}/recovery-points", "/resources/{L0}/recovery-points",
			[]string{"resourceArn"}},
		{"greedy-last", "/files/{key+}", "/files/{L0:*}", []string{"key"}},
		{"greedy-after-label", "/buckets/{Bucket}/{Key+}", "/buckets/{L0}/{L1:*}", []string{"Bucket", "Key"}},
		{"sixteen-labels", "/" + strings.Repeat("{a}/", 15) + "{a}",
			"/{L0}/{L1}/{L2}/{L3}/{L4}/{L5}/{L6}/{L7}/{L8}/{L9}/{L10}/{L11}/{L12}/{L13}/{L14}/{L15}",
			slices.Repeat([]string{"a"}, 16)},
	} {
		t.Run("path="+tc.name, func(t *testing.T) {
			got, labels, err := routerTemplate(tc.path)
			if err != nil {
				t.Fatalf("routerTemplate(%q) = %v", tc.path, err)
			}
			if got != tc.want {
				t.Errorf("template = %q, want %q", got, tc.want)
			}
			if !slices.Equal(labels, tc.labels) {
				t.Errorf("labels = %q, want %q", labels, tc.labels)
			}
		})
	}
}

func TestRouterTemplateRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		path string
	}{
		{"label-after-text", "/restapis/x{id}"},
		{"label-inside-text", "/restapis/x{id}y"},
		{"closing-brace-only", "/restapis/id}"},
		{"opening-brace-inside", "/restapis/a{"},
		{"seventeen-labels", "/" + strings.Repeat("{a}/", 16) + "{a}"},
	} {
		t.Run("path="+tc.name, func(t *testing.T) {
			if got, labels, err := routerTemplate(tc.path); err == nil {
				t.Errorf("routerTemplate(%q) = %q %q, want an error", tc.path, got, labels)
			}
		})
	}
}

func TestRouterTemplateRefusesTextAfterLabel(t *testing.T) {
	// A segment that starts with a label but goes on ("{id}.json",
	// "{a}{b}") or never closes ("{id") is a label inside a segment too,
	// but is accepted: the label's name keeps the rest ("id}.json") and the
	// literal text is dropped from the route.
	for _, tc := range []struct {
		name string
		path string
	}{
		{"text-after-label", "/a/{id}.json"},
		{"two-labels-one-segment", "/a/{a}{b}"},
		{"unclosed", "/a/{id"},
		{"unclosed-last", "/a/{id/b"},
		{"empty-name", "/a/{}"},
	} {
		t.Run("path="+tc.name, func(t *testing.T) {
			if got, labels, err := routerTemplate(tc.path); err == nil {
				t.Errorf("routerTemplate(%q) = %q %q, want an error", tc.path, got, labels)
			}
		})
	}
}

// TestRouterTemplateModels converts every model path: each label is named,
// in order, and the only catch-all ends the route.
func TestRouterTemplateModels(t *testing.T) {
	for _, op := range awswire.Operations {
		tmpl, labels, err := routerTemplate(op.Path)
		if err != nil {
			t.Errorf("%s %s: %v", op.Service, op.Name, err)
			continue
		}
		checkTemplate(t, op.Path, tmpl, labels)
		if n := strings.Count(op.Path, "{"); n != len(labels) {
			t.Errorf("%s %s: %d labels, want %d", op.Service, op.Name, len(labels), n)
		}
	}
}

// checkTemplate checks the invariants of a template routerTemplate made.
func checkTemplate(t *testing.T, path, tmpl string, labels []string) {
	t.Helper()
	if !strings.HasPrefix(tmpl, "/") {
		t.Fatalf("routerTemplate(%q) = %q: not rooted", path, tmpl)
	}
	if len(labels) > len(labelKeys) {
		t.Fatalf("routerTemplate(%q): %d labels", path, len(labels))
	}
	if n := strings.Count(tmpl, "{"); n != len(labels) {
		t.Fatalf("routerTemplate(%q) = %q: %d router labels for %d labels", path, tmpl, n, len(labels))
	}
	segs := strings.Split(tmpl, "/")
	k := 0
	for i, seg := range segs {
		if !strings.HasPrefix(seg, "{") {
			continue
		}
		key := "{" + labelKeys[k]
		switch seg {
		case key + "}":
		case key + ":*}":
			if i != len(segs)-1 {
				t.Fatalf("routerTemplate(%q) = %q: catch-all before the end", path, tmpl)
			}
		default:
			t.Fatalf("routerTemplate(%q) = %q: segment %q, want %s}", path, tmpl, seg, key)
		}
		k++
	}
}

func FuzzRouterTemplate(f *testing.F) {
	for _, op := range awswire.Operations {
		f.Add(op.Path)
	}
	for _, s := range []string{"", "/", "{", "}", "/{}", "/{+}", "/{a+}/b", "/x{a}", "/{a}x", "/{a", "//", "/{arn}/{arn}",
		"/" + strings.Repeat("{a}/", 16) + "{a}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		tmpl, labels, err := routerTemplate(path)
		if err != nil {
			if tmpl != "" || labels != nil {
				t.Fatalf("routerTemplate(%q) failed but returned %q %q", path, tmpl, labels)
			}
			return
		}
		checkTemplate(t, path, tmpl, labels)
		for _, l := range labels {
			if l == "" || strings.ContainsAny(l, "{}") {
				t.Fatalf("routerTemplate(%q) accepted label %q", path, l)
			}
		}
	})
}

// TestBuildRoutesShared checks the routes several operations share, and the
// catch-alls kept to one segment where their parent path is a route.
func TestBuildRoutesShared(t *testing.T) {
	routes, err := buildRoutes(awswire.Operations, nil)
	if err != nil {
		t.Fatal(err)
	}
	find := func(method, tmpl string) *route {
		for _, r := range routes {
			if r.method == method && r.template == tmpl {
				return r
			}
		}
		return nil
	}
	for _, tc := range []struct {
		method, template string
		ops              []string
	}{
		{"GET", "/tags/{L0:*}", []string{"backup.ListTags", "apigateway.GetTags"}},
		{"POST", "/tags/{L0:*}", []string{"backup.TagResource"}},
		{"PUT", "/tags/{L0:*}", []string{"apigateway.TagResource"}},
		{"GET", "/backup-access-point/{L0}", []string{"backup.DescribeBackupAccessPoint"}},
		{"POST", "/restapis", []string{"apigateway.CreateRestApi", "apigateway.ImportRestApi"}},
		{"GET", "/backup-vaults/{L0}", []string{"backup.DescribeBackupVault"}},
	} {
		t.Run(fmt.Sprintf("route=%s_%s", tc.method, tc.template), func(t *testing.T) {
			r := find(tc.method, tc.template)
			if r == nil {
				t.Fatalf("no route %s %s", tc.method, tc.template)
			}
			var got []string
			for _, b := range r.bindings {
				got = append(got, b.op.Service.String()+"."+b.op.Name)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.ops))
			if !slices.Equal(got, want) {
				t.Errorf("bindings = %v, want %v", got, want)
			}
		})
	}
}

// panicRecorder is a slog handler that keeps the Error records a request
// logs, so that a panic the server recovers from still fails the fuzz test.
type panicRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (h *panicRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }

func (h *panicRecorder) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "panic" || a.Key == "error" {
			msg += " " + a.Key + "=" + a.Value.String()
		}
		return true
	})
	h.mu.Lock()
	h.msgs = append(h.msgs, msg)
	h.mu.Unlock()
	return nil
}

func (h *panicRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *panicRecorder) WithGroup(string) slog.Handler      { return h }

func (h *panicRecorder) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.msgs
	h.msgs = nil
	return m
}

// serveFuzz runs one request through s.Handle and checks the response.
func serveFuzz(t *testing.T, s *Server, rec *panicRecorder, method, uri, auth string, body []byte) {
	t.Helper()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethodBytes([]byte(method))
	ctx.Request.SetRequestURIBytes([]byte(uri))
	if auth != "" {
		ctx.Request.Header.Set("Authorization", auth)
	}
	ctx.Request.SetBody(body)
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s %q: panic escaped Handle: %v", method, uri, r)
			}
		}()
		s.Handle(&ctx)
	}()
	if logged := rec.take(); len(logged) > 0 {
		t.Fatalf("%s %q (auth %q): logged errors: %q", method, uri, auth, logged)
	}
	status := ctx.Response.StatusCode()
	if status == 0 {
		t.Fatalf("%s %q: status 0", method, uri)
	}
	if len(ctx.Response.Header.Peek(restjson.HeaderRequestID)) != 36 {
		t.Fatalf("%s %q: request id %q", method, uri, ctx.Response.Header.Peek(restjson.HeaderRequestID))
	}
	if status >= 400 {
		if len(ctx.Response.Header.Peek(restjson.HeaderErrorType)) == 0 {
			t.Fatalf("%s %q: status %d without %s", method, uri, status, restjson.HeaderErrorType)
		}
		if !json.Valid(ctx.Response.Body()) {
			t.Fatalf("%s %q: status %d with body %q: not JSON", method, uri, status, ctx.Response.Body())
		}
	}
}

func newFuzzServer(tb testing.TB) (*Server, *panicRecorder) {
	tb.Helper()
	rec := &panicRecorder{}
	s, err := NewServer(slog.New(rec), ServerOptions{DefaultRegion: "us-east-1", MaxBodyBytes: 1 << 20})
	if err != nil {
		tb.Fatal(err)
	}
	return s, rec
}

const fuzzAuth = "AWS4-HMAC-SHA256 Credential=123456789012/20260102/us-east-1/backup/aws4_request, " +
	"SignedHeaders=host;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"

// fuzzSeeds are real requests, and hostile variants of them.
var fuzzSeeds = []struct {
	method, path, query, auth string
	body                      []byte
}{
	{"PUT", "/backup-vaults/my-vault", "", fuzzAuth, []byte(`{"BackupVaultTags":{"k":"v"}}`)},
	{"GET", "/backup-vaults/my-vault", "", fuzzAuth, nil},
	{"GET", "/backup-vaults/", "", "", nil},
	{"GET", "/backup-vaults", "maxResults=10&nextToken=dDE6bXktdmF1bHQ", fuzzAuth, nil},
	{"DELETE", "/backup-vaults/my-vault", "", fuzzAuth, nil},
	{"GET", "/backup-access-point/arn%3Aaws%3Abackup%3Aus-east-1%3A123456789012%3Aaccesspoint%2Fap1", "", fuzzAuth, nil},
	{"GET", "/backup-access-point/arn:aws:backup:us-east-1:123456789012:accesspoint/ap1", "", fuzzAuth, nil},
	{"DELETE", "/backup-access-point/delete/arn:aws:backup:us-east-1:123456789012:accesspoint/ap1", "", "", nil},
	{"GET", "/backup-vaults/v/recovery-points/arn%3Aaws%3Aec2%3Aus-east-1%3A%3Aimage%2Fami-1", "", fuzzAuth, nil},
	{"GET", "/tags/arn%3Aaws%3Abackup%3Aus-east-1%3A123456789012%3Abackup-vault%3Amy-vault", "", fuzzAuth, nil},
	{"GET", "/tags/arn:aws:apigateway:us-east-1::/restapis/abc/stages/prod", "", "", nil},
	{"GET", "/tags/arn%3Aaws%3Aapigateway%3Aus-east-1%3A%3A%2Frestapis%2Fabc", "", "", nil},
	{"POST", "/tags/arn:aws:backup:us-east-1:123456789012:backup-vault:v", "", fuzzAuth, []byte(`{"Tags":{"a":"b"}}`)},
	{"POST", "/untag/arn:aws:backup:us-east-1:123456789012:backup-vault:v", "", fuzzAuth, []byte(`{"TagKeyList":["a"]}`)},
	{"PUT", "/backup/plans", "", fuzzAuth, []byte(`{"BackupPlan":{"BackupPlanName":"p","Rules":[]}}`)},
	{"POST", "/restapis", "mode=import", "", []byte(`{}`)},
	{"POST", "/restapis", "", "AWS4-HMAC-SHA256 Credential=AKID/20260102/eu-west-1/apigateway/aws4_request, SignedHeaders=host, Signature=x", []byte(`{"name":"api"}`)},
	{"GET", "/restapis/abc/resources/def/methods/GET", "", "", nil},
	{"GET", "/v2/apis", "", "", nil},
	{"GET", "/v2/apis/a1b2c3", "maxResults=5", "", nil},
	{"GET", "/v2/nothing", "", "", nil},
	{"GET", "/_emulator/health", "", "", nil},
	{"POST", "/_emulator/reset", "", "", nil},
	{"GET", "/backup-jobs", "X-Amz-Credential=123456789012%2F20260102%2Fus-west-2%2Fbackup%2Faws4_request&X-Amz-Signature=x", "", nil},
	{"GET", "/backup-vaults/../../etc/passwd", "", "", nil},
	{"GET", "/backup-vaults/%2e%2e/%2e%2e", "", "", nil},
	{"GET", "/backup-vaults/%00", "", "", nil},
	{"GET", "/backup-vaults/%zz", "", "", nil},
	{"GET", "/tags/%zz%", "", "", nil},
	{"GET", "/backup-vaults/" + strings.Repeat("a", 10000), "", "", nil},
	{"GET", "/" + strings.Repeat("x/", 2000), "", "", nil},
	{"GET", "/", "", "", nil},
	{"GET", "//", "", "", nil},
	{"GET", "*", "", "", nil},
	{"GET", "http://localhost:4566/backup-jobs", "", "", nil},
	{"", "/backup-jobs", "", "", nil},
	{"BREW", "/backup-jobs", "", "", nil},
	{"GET", "/backup-jobs", "", "Credential=////", nil},
	{"GET", "/backup-jobs", "", "AWS4-HMAC-SHA256 Credential=AKID/d/../../backup/aws4_request", nil},
	{"GET", "/backup-jobs", "", "AWS4-HMAC-SHA256 Credential=AKID/d/US-EAST-1\x00/backup/aws4_request", nil},
	{"GET", "/backup-vaults/\xff\xfe", "", "", nil},
	{"GET", "/tags/\u2028", "", "", nil},
}

func FuzzHandle(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s.method, s.path, s.query, s.auth, s.body)
	}
	s, rec := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, method, path, query, auth string, body []byte) {
		uri := path
		if query != "" {
			uri += "?" + query
		}
		serveFuzz(t, s, rec, method, uri, auth, body)
	})
}

// TestHandleSeeds runs the fuzz seeds as a plain test, with the status each
// gets without handlers.
func TestHandleSeeds(t *testing.T) {
	s, rec := newFuzzServer(t)
	for i, sd := range fuzzSeeds {
		t.Run("seed="+strconv.Itoa(i), func(t *testing.T) {
			uri := sd.path
			if sd.query != "" {
				uri += "?" + sd.query
			}
			serveFuzz(t, s, rec, sd.method, uri, sd.auth, sd.body)
		})
	}
}

func TestHandleShapes(t *testing.T) {
	// Without handlers every operation is NotImplementedException (501) in
	// its service's shape; unknown paths are UnknownOperationException
	// (404) in the shape of the service their first segment names.
	s, _ := newFuzzServer(t)
	for _, tc := range []struct {
		method, uri string
		status      int
		code        string
		members     []string
	}{
		{"GET", "/backup-vaults/v", 501, awswire.CodeNotImplemented, []string{"Code", "Message", "Type"}},
		{"GET", "/backup-vaults/v/", 501, awswire.CodeNotImplemented, []string{"Code", "Message", "Type"}},
		{"GET", "/restapis", 501, awswire.CodeNotImplemented, []string{"message"}},
		{"GET", "/v2/apis", 501, awswire.CodeNotImplemented, []string{"message"}},
		{"GET", "/backup-vaults/v/nope", 404, awswire.CodeUnknownOperation, []string{"Code", "Message", "Type"}},
		{"PATCH", "/backup-vaults/v", 404, awswire.CodeUnknownOperation, []string{"Code", "Message", "Type"}},
		{"GET", "/v2/nope", 404, awswire.CodeUnknownOperation, []string{"message"}},
		{"GET", "/_emulator/health", 404, awswire.CodeUnknownOperation, []string{"code", "message"}},
		{"GET", "/", 404, awswire.CodeUnknownOperation, []string{"code", "message"}},
	} {
		t.Run(fmt.Sprintf("req=%s_%s", tc.method, tc.uri), func(t *testing.T) {
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.SetMethod(tc.method)
			ctx.Request.SetRequestURI(tc.uri)
			s.Handle(&ctx)
			if got := ctx.Response.StatusCode(); got != tc.status {
				t.Errorf("status = %d, want %d", got, tc.status)
			}
			if got := string(ctx.Response.Header.Peek(restjson.HeaderErrorType)); got != tc.code {
				t.Errorf("%s = %q, want %q", restjson.HeaderErrorType, got, tc.code)
			}
			var m map[string]string
			if err := json.Unmarshal(ctx.Response.Body(), &m); err != nil {
				t.Fatalf("body %q: %v", ctx.Response.Body(), err)
			}
			var keys []string
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if want := slices.Sorted(slices.Values(tc.members)); !slices.Equal(keys, want) {
				t.Errorf("body members %v, want %v (%s)", keys, want, ctx.Response.Body())
			}
		})
	}
}

func TestParseErrorShapes(t *testing.T) {
	// A request fasthttp cannot read is answered in the shape of the service
	// its path names, with a declared 400 code.
	s, _ := newFuzzServer(t)
	for _, tc := range []struct {
		uri    string
		status int
		code   string
	}{
		{"/backup-vaults/v", 400, awswire.CodeInvalidRequest},
		{"/restapis", 400, awswire.CodeBadRequest},
		{"/v2/apis", 400, awswire.CodeBadRequest},
		{"/_emulator/health", 400, ""}, // "": any declared code
		{"/", 400, ""},
	} {
		t.Run("uri="+tc.uri, func(t *testing.T) {
			var ctx fasthttp.RequestCtx
			ctx.Request.SetRequestURI(tc.uri)
			s.handleParseError(&ctx, errors.New("malformed"))
			if got := ctx.Response.StatusCode(); got != tc.status {
				t.Errorf("status = %d, want %d (%s)", got, tc.status, ctx.Response.Body())
			}
			got := string(ctx.Response.Header.Peek(restjson.HeaderErrorType))
			if tc.code != "" && got != tc.code || got == "" || got == awswire.CodeInternalFailure {
				t.Errorf("%s = %q, want %q", restjson.HeaderErrorType, got, tc.code)
			}
			if !ctx.Response.ConnectionClose() {
				t.Errorf("connection not closed after a malformed request")
			}
		})
	}
	t.Run("uri=too-large", func(t *testing.T) {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/backup-vaults/v")
		s.handleParseError(&ctx, fmt.Errorf("read: %w", fasthttp.ErrBodyTooLarge))
		if got := ctx.Response.StatusCode(); got != 413 {
			t.Errorf("status = %d, want 413", got)
		}
		if got := string(ctx.Response.Header.Peek(restjson.HeaderErrorType)); got != awswire.CodeRequestEntityTooLarge {
			t.Errorf("%s = %q", restjson.HeaderErrorType, got)
		}
	})
}
