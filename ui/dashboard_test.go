package ui_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

// escaped is the hostile API name as a page must show it: text.
const escaped = `&lt;img src=x onerror=&#34;window.pwned=1&#34;&gt;&lt;script&gt;window.pwned=2&lt;/script&gt;`

func wantPage(t *testing.T, base, path string, status int, contains ...string) string {
	t.Helper()
	code, h, body := get(t, base, path)
	if code != status {
		t.Fatalf("GET %s: %d, want %d\n%s", path, code, status, body)
	}
	if ct := h.Get("Content-Type"); status != http.StatusMovedPermanently && !strings.HasPrefix(ct, "text/html") {
		t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
	}
	for _, c := range contains {
		if !strings.Contains(body, c) {
			t.Errorf("GET %s: the page lacks %q", path, c)
		}
	}
	if strings.Contains(body, hostile) || strings.Contains(body, "<script>parent") || strings.Contains(body, "<b>bold</b>") {
		t.Errorf("GET %s: a value from a user is in the page unescaped", path)
	}
	return body
}

func TestPages(t *testing.T) {
	w := setUp(t)
	w.drive(t, 12)
	base := w.srv.URL

	wantPage(t, base, "/_emulator/ui", 200, "apigateway", "sqs", "memory (memory)", "Init hooks", "restApis <b>1</b>", "usagePlans <b>1</b>")
	if code, h, _ := get(t, base, "/_emulator/ui/"); code != http.StatusMovedPermanently || h.Get("Location") != "/_emulator/ui" {
		t.Errorf("GET /_emulator/ui/: %d %q", code, h.Get("Location"))
	}
	wantPage(t, base, "/_emulator/ui/apis", 200, escaped, w.apiID, "REST", "dev")
	wantPage(t, base, "/_emulator/ui/apis/"+account+"/"+region+"/"+w.apiID, 200,
		escaped, "&lt;b&gt;bold&lt;/b&gt;", "MOCK", "dev", "backend = a&amp;b=c",
		"http://"+w.apiID+".execute-api.localhost.localstack.cloud:", "/_aws/execute-api/"+w.apiID+"/dev",
		"/restapis/"+w.apiID+"/dev/_user_request_", "https://"+w.apiID+".execute-api.us-east-1.amazonaws.com/dev",
		"gold", w.keyID, `data-copy="`)
	wantPage(t, base, "/_emulator/ui/apis/"+account+"/"+region+"/nosuchapi", 404, "No API nosuchapi")
	wantPage(t, base, "/_emulator/ui/plans", 200, "gold", w.planID, w.keyID, "load-tester", "1 requests/s, burst 1", "1000 a DAY")

	// The inspector: the throttled requests are there with their trace.
	list := wantPage(t, base, "/_emulator/ui/requests?status=4", 200, "429", "throttled")
	if strings.Contains(list, `status s2">200`) {
		t.Errorf("the 4xx filter lists a 200")
	}
	ids := regexp.MustCompile(`/_emulator/ui/requests/([^"?]+)"`).FindStringSubmatch(list)
	if ids == nil {
		t.Fatalf("no traced request linked:\n%s", list)
	}
	wantPage(t, base, "/_emulator/ui/requests/"+ids[1], 200, "429", "throttled", w.keyID, w.planID, "Pipeline", "route")
	wantPage(t, base, "/_emulator/ui/requests?status=2", 200, "200", "admitted")
	wantPage(t, base, "/_emulator/ui/requests/no-such-id", 404, "No traced request")

	wantPage(t, base, "/_emulator/ui/queues", 200, "orders", account)
	wantPage(t, base, "/_emulator/ui/queues/"+account+"/"+region+"/orders", 200, "{&#34;order&#34;:&#34;&lt;42&gt;&#34;}", "visible")
	wantPage(t, base, "/_emulator/ui/queues/"+account+"/"+region+"/nope", 404)
	wantPage(t, base, "/_emulator/ui/functions", 200, "No function exists yet.")
	inbox := wantPage(t, base, "/_emulator/ui/inbox", 200, "Your order &lt;42&gt;", "buyer@example.com")
	mid := regexp.MustCompile(`href="/_emulator/ui/inbox/([^"/]+)"`).FindStringSubmatch(inbox)
	if mid == nil {
		t.Fatalf("no message linked:\n%s", inbox)
	}
	wantPage(t, base, "/_emulator/ui/inbox/"+mid[1], 200, `<iframe class="mail" sandbox=""`, "Thanks")
	code, h, html := get(t, base, "/_emulator/ui/inbox/"+mid[1]+"/html")
	if code != 200 || !strings.HasPrefix(h.Get("Content-Security-Policy"), "sandbox") || !strings.Contains(html, "<h1>Thanks</h1>") {
		t.Errorf("the mail's HTML: %d %q %q", code, h.Get("Content-Security-Policy"), html)
	}
	wantPage(t, base, "/_emulator/ui/traffic", 200, `id="live"`, "traffic.js", "uPlot.iife.min.js")
	wantPage(t, base, "/_emulator/ui/reset", 200, "Type <code>reset</code>")

	for path, ct := range map[string]string{
		"/_emulator/ui/static/app.css":                        "text/css",
		"/_emulator/ui/static/app.js":                         "text/javascript",
		"/_emulator/ui/static/vendor/uplot/uPlot.iife.min.js": "text/javascript",
	} {
		code, h, body := get(t, base, path)
		if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), ct) || len(body) == 0 {
			t.Errorf("GET %s: %d %q", path, code, h.Get("Content-Type"))
		}
	}
	for _, path := range []string{"/_emulator/ui/static/../ui.go", "/_emulator/ui/static/layout.html", "/_emulator/ui/static/nope.js",
		"/_emulator/ui/static/%2e%2e/%2e%2e/go.mod"} {
		if code, _, _ := get(t, base, path); code != 404 {
			t.Errorf("GET %s: %d, want 404", path, code)
		}
	}
}

// TestTrafficFeed reads the live feed's first update: the stage's
// requests by class and the key's admitted and throttled counts.
func TestTrafficFeed(t *testing.T) {
	w := setUp(t)
	w.drive(t, 12)
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(w.srv.URL + "/_emulator/ui/feed/traffic?window=60")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var u struct {
		Window int `json:"window"`
		Stages []struct {
			Kind, API, Stage, APIID string
			Count, S2xx, S4xx       []uint64
			Throttled               uint64
		} `json:"stages"`
		Keys []struct {
			Plan, Key, Name     string
			Admitted, Throttled uint64
			Used                int64
		} `json:"keys"`
	}
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if err := json.Unmarshal([]byte(data), &u); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if u.Window != 60 || len(u.Stages) != 1 || len(u.Keys) != 1 {
		t.Fatalf("update: %+v", u)
	}
	s := u.Stages[0]
	sum := func(a []uint64) (n uint64) {
		for _, v := range a {
			n += v
		}
		return n
	}
	if s.Kind != "REST" || s.Stage != "dev" || s.APIID != w.apiID || len(s.Count) != 60 ||
		sum(s.Count) != uint64(w.ok+w.throttled) || sum(s.S2xx) != uint64(w.ok) || sum(s.S4xx) != uint64(w.throttled) ||
		s.Throttled != uint64(w.throttled) {
		t.Errorf("stage: %+v (ok %d, throttled %d)", s, w.ok, w.throttled)
	}
	k := u.Keys[0]
	if k.Plan != w.planID || k.Key != w.keyID || k.Name != "load-tester" || k.Admitted != uint64(w.ok) ||
		k.Throttled != uint64(w.throttled) || k.Used != int64(w.ok) {
		t.Errorf("key: %+v (ok %d, throttled %d)", k, w.ok, w.throttled)
	}
}

// TestWrites: the reset needs its confirmation and a same-origin form;
// clearing the inbox empties it.
func TestWrites(t *testing.T) {
	w := setUp(t)
	base := w.srv.URL
	if code, _, _ := post(t, base, "/_emulator/ui/reset", "http://evil.example", url.Values{"confirm": {"reset"}}); code != 403 {
		t.Errorf("a cross-site reset: %d, want 403", code)
	}
	if code, _, body := post(t, base, "/_emulator/ui/reset", base, url.Values{}); code != 400 || !strings.Contains(body, "Type reset to confirm") {
		t.Errorf("an unconfirmed reset: %d", code)
	}
	wantPage(t, base, "/_emulator/ui/apis", 200, w.apiID)
	if code, h, _ := post(t, base, "/_emulator/ui/reset", base, url.Values{"confirm": {"reset"}}); code != 303 || h.Get("Location") != "/_emulator/ui?reset=done" {
		t.Fatalf("reset: %d %q", code, h.Get("Location"))
	}
	wantPage(t, base, "/_emulator/ui?reset=done", 200, "The emulator was reset")
	if body := wantPage(t, base, "/_emulator/ui/apis", 200); strings.Contains(body, w.apiID) {
		t.Errorf("the API outlived the reset")
	}

	w = setUp(t)
	base = w.srv.URL
	wantPage(t, base, "/_emulator/ui/inbox", 200, "Your order")
	if code, _, _ := post(t, base, "/_emulator/ui/inbox/clear", "http://evil.example", nil); code != 403 {
		t.Errorf("a cross-site clear: %d", code)
	}
	if code, h, _ := post(t, base, "/_emulator/ui/inbox/clear", base, nil); code != 303 || h.Get("Location") != "/_emulator/ui/inbox" {
		t.Errorf("clear: %d", code)
	}
	wantPage(t, base, "/_emulator/ui/inbox", 200, "Nothing captured.")
}

// TestOff: EMULATOR_UI=false serves no dashboard, and EMULATOR_UI_TRACES=0
// keeps no trace.
func TestOff(t *testing.T) {
	srv := servertest.Start(t, servertest.WithConfig(func(c *config.Config) { c.UI = false }))
	if code, _, _ := get(t, srv.URL, "/_emulator/ui"); code != 404 {
		t.Errorf("EMULATOR_UI=false: %d", code)
	}
	w := setUp(t, servertest.WithConfig(func(c *config.Config) { c.UITraces = 0 }))
	w.drive(t, 3)
	wantPage(t, w.srv.URL, "/_emulator/ui/requests", 200, "The inspector is off")
}
