package compat_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudemu/emulator/compat"
	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

var client = &http.Client{Timeout: 10 * time.Second}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, srv *servertest.Server, method, path, auth, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// object decodes a JSON object body.
func (a answer) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("body %q is no JSON object: %v", a.body, err)
	}
	return m
}

func debugOn(c *config.Config) { c.Debug = true }

// concrete fills a row path's labels with sample values.
func concrete(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		switch {
		case strings.HasSuffix(s, "...}"):
			segs[i] = "a/b"
		case strings.HasPrefix(s, "{"):
			segs[i] = "x1"
		}
	}
	p := strings.Join(segs, "/")
	if strings.Contains(p, "/init/") {
		p = strings.TrimSuffix(p, "x1") + "ready"
	}
	return p
}

var writes = []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// notServedMembers are the members of every 404 the fallback writes.
var notServedMembers = []string{"availability", "code", "message", "path", "replacement"}

func checkNotServed(t *testing.T, a answer, status int, availability, replacement string, extra ...string) map[string]any {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	if got := a.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	m := a.object(t)
	keys := make([]string, 0, len(m))
	for k, v := range m {
		keys = append(keys, k)
		if _, ok := v.(string); !ok {
			t.Errorf("member %s is %T, want a string", k, v)
		}
	}
	slices.Sort(keys)
	want := slices.Sorted(slices.Values(append(slices.Clone(notServedMembers), extra...)))
	if !slices.Equal(keys, want) {
		t.Errorf("members %v, want %v: %s", keys, want, a.body)
	}
	if m["availability"] != availability {
		t.Errorf("availability %q, want %q", m["availability"], availability)
	}
	if m["replacement"] != replacement {
		t.Errorf("replacement %q, want %q", m["replacement"], replacement)
	}
	if replacement != "" && !strings.Contains(m["message"].(string), strings.Split(replacement, ", ")[0]) &&
		availability != "debug" {
		t.Errorf("message %q does not name the replacement %q", m["message"], replacement)
	}
	return m
}

// TestRows drives every row of the table, under every spelling, with each
// of its methods, with EMULATOR_DEBUG off and on, through a real server.
func TestRows(t *testing.T) {
	servers := map[bool]*servertest.Server{
		false: servertest.Start(t),
		true:  servertest.Start(t, servertest.WithConfig(debugOn)),
	}
	for _, row := range compat.Rows {
		for _, spelling := range compat.Spellings(row.Path) {
			path := concrete(spelling)
			methods := row.Methods
			if slices.Equal(methods, []string{"any"}) {
				methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}
			}
			for _, debug := range []bool{false, true} {
				srv := servers[debug]
				for _, m := range methods {
					t.Run("debug="+map[bool]string{false: "off", true: "on"}[debug]+",req="+m+"_"+path, func(t *testing.T) {
						checkRow(t, srv, row, m, path, debug)
					})
				}
				// A method the row does not list.
				if !slices.Contains(row.Methods, "any") && !slices.Contains(row.Methods, http.MethodPut) {
					t.Run("debug="+map[bool]string{false: "off", true: "on"}[debug]+",req=PUT_"+path, func(t *testing.T) {
						a := do(t, srv, http.MethodPut, path, "", "")
						switch row.Availability {
						case compat.ReadOnly:
							checkNotServed(t, a, 400, "read-only", strings.Join(row.Replacement, ", "))
						case compat.Served, compat.Debug:
							checkNotServed(t, a, 404, "method-not-served", strings.Join(row.Replacement, ", "))
						case compat.NoReplacement:
							checkNotServed(t, a, 404, string(row.Availability), "", "reason")
						default:
							checkNotServed(t, a, 404, string(row.Availability), strings.Join(row.Replacement, ", "))
						}
					})
				}
			}
			if row.Query != "" {
				for _, debug := range []bool{false, true} {
					t.Run("debug="+map[bool]string{false: "off", true: "on"}[debug]+",query="+row.Query, func(t *testing.T) {
						base := strings.TrimSuffix(path, "/detailed")
						checkRow(t, servers[debug], row, http.MethodGet, base+"?"+row.Query, debug)
					})
				}
			}
		}
	}
}

func checkRow(t *testing.T, srv *servertest.Server, row compat.Row, method, path string, debug bool) {
	t.Helper()
	a := do(t, srv, method, path, "", "")
	replacement := strings.Join(row.Replacement, ", ")
	if row.ServedBy == compat.ServedByDataPlane {
		// The data plane answers: no API has the id.
		if a.status != 404 || a.header.Get("x-amzn-ErrorType") != "NotFoundException" {
			t.Errorf("status %d %s, want the data plane's 404", a.status, a.header.Get("x-amzn-ErrorType"))
		}
		return
	}
	if method == http.MethodHead && row.Availability != compat.Served {
		// No body to read: the status says it.
		if a.status != 404 || a.header.Get("x-amzn-ErrorType") != "UnknownOperationException" {
			t.Errorf("status %d %s, want 404", a.status, a.header.Get("x-amzn-ErrorType"))
		}
		return
	}
	switch row.Availability {
	case compat.Served:
		if strings.Contains(row.Path, "/sqs/messages") {
			// No queue exists: SQS's own error, in the query protocol.
			if a.status != 400 || !strings.Contains(string(a.body), "<Code>AWS.SimpleQueueService.NonExistentQueue</Code>") {
				t.Errorf("status %d %s, want SQS's NonExistentQueue", a.status, a.body)
			}
			return
		}
		// Clearing an inbox answers 204, as other emulators' endpoints do.
		if a.status != 200 && (method != http.MethodDelete || a.status != 204) {
			t.Fatalf("status %d: %s", a.status, a.body)
		}
		if method == http.MethodHead {
			return
		}
		if row.Path == "/_compat/usage" {
			if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
				t.Errorf("Content-Type %q, want Prometheus text", ct)
			}
			if !strings.Contains(string(a.body), "emulator_apigateway_throttle_enforced 0") {
				t.Errorf("body %q lacks the Prometheus exposition", a.body)
			}
			return
		}
		if a.status == 204 {
			if len(a.body) != 0 {
				t.Errorf("204 with a body %q", a.body)
			}
			return
		}
		m := a.object(t)
		for _, k := range map[string][]string{
			"/_compat/health":                        {"services", "edition", "version"},
			"/_compat/init":                          {"completed", "scripts"},
			"/_compat/init/{stage}":                  {"completed", "scripts"},
			"/_compat/state/reset":                   {"status"},
			"/_cloud/lambda/runtimes":                {"Runtimes", "details"},
			"/_cloud/ses":                            {"messages"},
			"/_compat/ses":                           {"messages"},
			"/_cloud/sns/sms-messages":               {"sms_messages", "region"},
			"/_cloud/sns/platform-endpoint-messages": {"platform_endpoint_messages", "region"},
		}[row.Path] {
			if _, ok := m[k]; !ok {
				t.Errorf("no member %s: %s", k, a.body)
			}
		}
	case compat.Debug, compat.ReadOnly:
		if !debug {
			m := checkNotServed(t, a, 404, "debug", replacement, "enable")
			if m["enable"] != "set EMULATOR_DEBUG=true" || !strings.Contains(m["message"].(string), "EMULATOR_DEBUG=true") {
				t.Errorf("the 404 does not say how to enable it: %s", a.body)
			}
			return
		}
		if a.status != 200 {
			t.Fatalf("status %d: %s", a.status, a.body)
		}
		m := a.object(t)
		var want []string
		switch row.Replacement[0] {
		case "/_emulator/debug/health":
			want = []string{"status", "services", "storage", "runtime", "config"}
		case "/_emulator/debug/config":
			want = []string{"version", "settings", "unrecognized"}
		case "/_emulator/debug/state":
			want = []string{"scopes", "totals"}
		}
		if len(row.Replacement) > 1 {
			want = []string{"config", "state"}
		}
		for _, k := range want {
			if _, ok := m[k]; !ok {
				t.Errorf("no member %s: %s", k, a.body)
			}
		}
	case compat.NotServedYet, compat.Replaced:
		checkNotServed(t, a, 404, string(row.Availability), replacement)
	case compat.NoReplacement:
		m := checkNotServed(t, a, 404, string(row.Availability), "", "reason")
		if m["reason"] != strings.ReplaceAll(row.Note, "`", "") {
			t.Errorf("reason %q, want the row's note", m["reason"])
		}
		if !strings.Contains(m["message"].(string), "no replacement") {
			t.Errorf("message %q does not say there is no replacement", m["message"])
		}
	default:
		t.Fatalf("availability %q", row.Availability)
	}
}

// TestReadOnlyConfig checks that every write to the configuration is
// refused, whether or not debug is on.
func TestReadOnlyConfig(t *testing.T) {
	for _, debug := range []bool{false, true} {
		srv := servertest.Start(t, servertest.WithConfig(func(c *config.Config) { c.Debug = debug }))
		for _, p := range []string{"/_compat/config", "/_localstack/config"} {
			for _, m := range writes {
				a := do(t, srv, m, p, "", `{"variable":"EMULATOR_DEBUG","value":"false"}`)
				got := checkNotServed(t, a, 400, "read-only", "/_emulator/debug/config")
				if a.header.Get("x-amzn-ErrorType") != "BadRequestException" || !strings.Contains(got["message"].(string), "fixed for the process") {
					t.Errorf("%s %s: %s %s", m, p, a.header.Get("x-amzn-ErrorType"), a.body)
				}
			}
		}
	}
}

// TestFallback checks paths no row names, and that AWS routes and the
// emulator's own endpoints are not shadowed.
func TestFallback(t *testing.T) {
	srv := servertest.Start(t)
	for _, tc := range []struct {
		method, path string
		availability string
		replacement  string
	}{
		{"GET", "/_aws/cloudwatch/metrics/raw", "no-alias", ""},
		{"POST", "/_localstack/plugins", "no-alias", ""},
		{"GET", "/_localstack/pods", "no-alias", ""},
		{"GET", "/_compat", "no-alias", ""},
		{"GET", "/_cloud/", "no-alias", ""},
		{"OPTIONS", "/_aws/ses/x", "no-alias", ""},
		{"BREW", "/_localstack/plugins", "no-alias", ""},
		{"GET", "/_aws/" + strings.Repeat("x/", 500), "no-alias", ""},
		{"GET", "/_emulator/nope", "no-such-endpoint", ""},
		{"DELETE", "/_emulator/health", "no-such-endpoint", ""},
		{"DELETE", "/_aws/dynamodb/expired/", "no-replacement", ""},
	} {
		t.Run("req="+tc.method+"_"+tc.path, func(t *testing.T) {
			a := do(t, srv, tc.method, tc.path, "", "")
			var extra []string
			if tc.availability == "no-replacement" {
				extra = []string{"reason"}
			}
			if a.header.Get("x-amzn-ErrorType") != "UnknownOperationException" {
				t.Errorf("x-amzn-ErrorType %q", a.header.Get("x-amzn-ErrorType"))
			}
			checkNotServed(t, a, 404, tc.availability, tc.replacement, extra...)
		})
	}
	// AWS routes and the emulator's own endpoints still answer.
	for _, tc := range []struct{ method, path string }{
		{"GET", "/backup-vaults"},
		{"GET", "/restapis"},
		{"GET", "/v2/apis"},
		{"GET", "/_emulator/health"},
		{"HEAD", "/_emulator/health"},
		{"GET", "/_emulator/init"},
		{"GET", "/_emulator/init/ready"},
		{"GET", "/_localstack/init/ready"},
		{"POST", "/_emulator/reset"},
	} {
		if a := do(t, srv, tc.method, tc.path, "", ""); a.status != 200 {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, a.status, a.body)
		}
	}
	// Unknown AWS paths keep the server's own 404.
	if a := do(t, srv, "GET", "/backup-vaults/v/nope", "", ""); a.status != 404 || strings.Contains(string(a.body), "availability") {
		t.Errorf("unknown AWS path: %d %s", a.status, a.body)
	}
}

// TestDebugEndpoints checks the /_emulator/debug family both ways.
func TestDebugEndpoints(t *testing.T) {
	off := servertest.Start(t)
	for _, p := range []string{"/_emulator/debug/health", "/_emulator/debug/config", "/_emulator/debug/state"} {
		a := do(t, off, "GET", p, "", "")
		m := checkNotServed(t, a, 404, "debug", "", "enable")
		if !strings.Contains(m["message"].(string), "set EMULATOR_DEBUG=true") {
			t.Errorf("%s: %s", p, a.body)
		}
	}
	t.Setenv("EMULATOR_TEST_API_KEY", "hunter2")
	t.Setenv("EMULATOR_DEBUG", "true")
	t.Setenv("EMULATOR_DEFAULT_REGION", "eu-west-1")
	on := servertest.Start(t, servertest.WithConfig(func(c *config.Config) {
		c.Debug = true
		c.DefaultRegion = "eu-west-1"
	}))

	a := do(t, on, "GET", "/_emulator/debug/health", "", "")
	var h struct {
		Status   string
		Services map[string]any
		Runtime  struct {
			GoVersion     string
			Goroutines    int
			UptimeSeconds *int64
			Memory        struct {
				HeapAllocBytes uint64
				HeapLiveBytes  *uint64
			}
		}
		Config map[string]string
	}
	if err := json.Unmarshal(a.body, &h); err != nil || a.status != 200 {
		t.Fatalf("%d %s: %v", a.status, a.body, err)
	}
	if h.Status != "running" || len(h.Services) < 4 || !strings.HasPrefix(h.Runtime.GoVersion, "go") ||
		h.Runtime.Goroutines < 1 || h.Runtime.UptimeSeconds == nil || h.Runtime.Memory.HeapAllocBytes == 0 ||
		h.Runtime.Memory.HeapLiveBytes == nil || *h.Runtime.Memory.HeapLiveBytes > h.Runtime.Memory.HeapAllocBytes ||
		h.Config["EMULATOR_DEBUG"] != "true" || h.Config["EMULATOR_DEFAULT_REGION"] != "eu-west-1" {
		t.Errorf("detailed health: %s", a.body)
	}

	a = do(t, on, "GET", "/_emulator/debug/config", "", "")
	var cfg struct {
		Version      string
		Settings     []compat.Setting
		Unrecognized []compat.Unrecognized
		Redaction    string
	}
	if err := json.Unmarshal(a.body, &cfg); err != nil || a.status != 200 {
		t.Fatalf("%d %s: %v", a.status, a.body, err)
	}
	if strings.Contains(string(a.body), "hunter2") {
		t.Errorf("a secret is shown: %s", a.body)
	}
	if !slices.Contains(cfg.Unrecognized, compat.Unrecognized{Name: "EMULATOR_TEST_API_KEY", Value: "<redacted>"}) {
		t.Errorf("unrecognized %v", cfg.Unrecognized)
	}
	sources := map[string]string{}
	for _, s := range cfg.Settings {
		sources[s.Name] = s.Source
	}
	for name, want := range map[string]string{
		"EMULATOR_DEBUG":          "environment",
		"EMULATOR_DEFAULT_REGION": "environment",
		"EMULATOR_PORT":           "override", // servertest listens on port 0
		"EMULATOR_STATE":          "default",
		"EMULATOR_INIT_TIMEOUT":   "default",
	} {
		if sources[name] != want {
			t.Errorf("%s source %q, want %q", name, sources[name], want)
		}
	}
}

// TestStateCounts creates resources through the real server in two
// accounts and regions and reads the counts back.
func TestStateCounts(t *testing.T) {
	srv := servertest.Start(t, servertest.WithConfig(debugOn))
	sign := func(account, region, service string) string {
		return "AWS4-HMAC-SHA256 Credential=" + account + "/20260102/" + region + "/" + service +
			"/aws4_request, SignedHeaders=host, Signature=x"
	}
	a1 := sign("111111111111", "eu-west-1", "backup")
	a2 := sign("222222222222", "us-west-2", "backup")
	for _, req := range []struct{ method, path, auth, body string }{
		{"PUT", "/backup-vaults/v1", a1, `{}`},
		{"PUT", "/backup-vaults/v2", a1, `{}`},
		{"PUT", "/backup-vaults/v1", a2, `{}`},
		{"PUT", "/backup/plans", a2, `{"BackupPlan":{"BackupPlanName":"p","Rules":[{"RuleName":"r","TargetBackupVaultName":"v1"}]}}`},
		{"POST", "/restapis", sign("111111111111", "eu-west-1", "apigateway"), `{"name":"api"}`},
		{"POST", "/apikeys", sign("111111111111", "eu-west-1", "apigateway"), `{"name":"k"}`},
		{"POST", "/v2/apis", "", `{"name":"h","protocolType":"HTTP"}`},
	} {
		if a := do(t, srv, req.method, req.path, req.auth, req.body); a.status/100 != 2 {
			t.Fatalf("%s %s: %d %s", req.method, req.path, a.status, a.body)
		}
	}
	type scope struct{ service, account, region string }
	read := func(path string) (map[scope]map[string]int, map[string]map[string]int) {
		t.Helper()
		a := do(t, srv, "GET", path, "", "")
		var doc struct {
			Scopes []compat.ResourceCount
			Totals map[string]map[string]int
		}
		if err := json.Unmarshal(a.body, &doc); err != nil || a.status != 200 {
			t.Fatalf("%s: %d %s: %v", path, a.status, a.body, err)
		}
		out := map[scope]map[string]int{}
		for _, s := range doc.Scopes {
			out[scope{s.Service, s.Account, s.Region}] = s.Resources
		}
		return out, doc.Totals
	}
	for _, p := range []string{"/_emulator/debug/state", "/_compat/state", "/_localstack/state"} {
		got, totals := read(p)
		for sc, want := range map[scope]map[string]int{
			{"backup", "111111111111", "eu-west-1"}:       {"vaults": 2, "plans": 0, "accessPoints": 0},
			{"backup", "222222222222", "us-west-2"}:       {"vaults": 1, "plans": 1, "accessPoints": 0},
			{"apigateway", "111111111111", "eu-west-1"}:   {"restApis": 1, "resources": 1, "apiKeys": 1, "usagePlans": 0},
			{"apigatewayv2", "000000000000", "us-east-1"}: {"apis": 1, "routes": 0, "stages": 0},
		} {
			for k, n := range want {
				if got[sc][k] != n {
					t.Errorf("%s: %v %s = %d, want %d (%v)", p, sc, k, got[sc][k], n, got[sc])
				}
			}
		}
		if len(got) != 4 {
			t.Errorf("%s: %d scopes, want 4: %v", p, len(got), got)
		}
		if totals["backup"]["vaults"] != 3 || totals["apigateway"]["restApis"] != 1 {
			t.Errorf("%s: totals %v", p, totals)
		}
	}
	// Diagnose is both documents in one.
	a := do(t, srv, "GET", "/_localstack/diagnose", "", "")
	var d struct {
		Config struct{ Settings []compat.Setting }
		State  struct{ Scopes []compat.ResourceCount }
	}
	if err := json.Unmarshal(a.body, &d); err != nil || len(d.Config.Settings) == 0 || len(d.State.Scopes) != 4 {
		t.Errorf("diagnose: %s: %v", a.body, err)
	}
	// A reset empties the counts.
	if a := do(t, srv, "POST", "/_localstack/state/reset", "", ""); a.status != 200 {
		t.Fatalf("reset: %d %s", a.status, a.body)
	}
	if got, _ := read("/_emulator/debug/state"); len(got) != 0 {
		t.Errorf("after reset: %v", got)
	}
}
