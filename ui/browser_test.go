//go:build browser

package ui_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cloudemu/emulator/server/servertest"
)

// chromium finds a Chromium or Chrome to drive.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	servertest.MissingTool(t, "Chromium (apt-get install chromium)")
	return ""
}

// TestBrowser drives the dashboard in headless Chromium: the pages list
// what the SDK created, the live chart's numbers move while traffic runs,
// a throttled request shows in the inspector with its trace, a hostile API
// name is shown as text, and the main pages are saved as screenshots
// (UI_SCREENSHOTS names the directory; .ci/run keeps them as artifacts).
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromium(t)
	w := setUp(t)
	w.drive(t, 8)
	shots := os.Getenv("UI_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1366, 900),
		chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()

	ui := w.srv.URL + "/_emulator/ui"
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(expr string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	visible := func(sel string) chromedp.Action[chromedp.Void] { return chromedp.WaitVisible(chromedp.CSS(sel)) }

	// The overview, keyboard first: Tab reaches the skip link.
	do("overview", chromedp.Navigate(ui), visible("main h1"), chromedp.KeyEvent(kb.Tab))
	if f := eval(`document.activeElement.textContent`); f != "Skip to content" {
		t.Errorf("the first Tab focuses %q, want the skip link", f)
	}
	shot("overview")

	// The API list shows the hostile name as text, and no script of it ran.
	do("apis", chromedp.Navigate(ui+"/apis"), visible("table"))
	names := eval(`[...document.querySelectorAll("tbody td:first-child a")].map(a => a.textContent)`)
	if l, ok := names.([]any); !ok || len(l) != 1 || l[0] != hostile {
		t.Errorf("the API list shows %q, want the name %q as text", names, hostile)
	}
	if eval(`window.pwned !== undefined`) != false {
		t.Errorf("a script from the API's name ran")
	}
	shot("apis")

	// The API's page: its stage, invoke URLs and plan.
	do("api", chromedp.Navigate(ui+"/apis/"+account+"/"+region+"/"+w.apiID), visible("#stage-dev"))
	stage := text("#stage-dev")
	for _, want := range []string{"/_aws/execute-api/" + w.apiID + "/dev", "Copy"} {
		if !strings.Contains(stage, want) {
			t.Errorf("the stage shows %q, lacking %q", stage, want)
		}
	}
	shot("api")
	do("plans", chromedp.Navigate(ui+"/plans"), visible("#plan-"+w.planID))
	shot("plans")

	// Live traffic: the stage's request count moves while requests run.
	total := func() int {
		t.Helper()
		a, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`.chart-card .num.total`), "data-value"))
		if err != nil {
			t.Fatalf("the chart's total: %v", err)
		}
		n, _ := strconv.Atoi(a.Value)
		return n
	}
	do("traffic", chromedp.Navigate(ui+"/traffic?window=60"), visible(`.chart-card .num.total`), visible(`#keys tbody tr`))
	before := total()
	if before != w.ok+w.throttled {
		t.Errorf("the chart counts %d requests, want %d", before, w.ok+w.throttled)
	}
	w.drive(t, 8)
	moved := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if total() > before {
			moved = true
			break
		}
	}
	if !moved {
		t.Errorf("the live chart's total stayed at %d while 8 more requests ran", before)
	}
	row := eval(`[...document.querySelectorAll("#keys tbody tr:first-child td")].map(td => td.textContent)`)
	if l, ok := row.([]any); !ok || len(l) != 9 || l[1] != "load-tester" || l[6] == "0" {
		t.Errorf("the key's row: %q, want load-tester with throttled requests", row)
	}
	shot("traffic")

	// The inspector: a throttled request with its pipeline trace.
	do("requests", chromedp.Navigate(ui+"/requests?status=4"), visible("#traces"))
	statuses := eval(`[...document.querySelectorAll("#traces tbody tr td:nth-child(2)")].map(td => td.textContent)`)
	if l, ok := statuses.([]any); !ok || len(l) == 0 || l[0] != "429" {
		t.Fatalf("the 4xx requests' statuses: %q", statuses)
	}
	shot("requests")
	do("request", chromedp.Click(chromedp.CSS(`#traces tbody tr:first-child td:first-child a`)), visible("ol.steps"))
	if facts := text("dl.facts"); !strings.Contains(facts, "throttled") || !strings.Contains(facts, w.keyID) {
		t.Errorf("the request's facts: %q", facts)
	}
	if steps := text("ol.steps"); !strings.Contains(steps, "route") || !strings.Contains(steps, "throttle") {
		t.Errorf("the request's pipeline: %q", steps)
	}
	shot("request")

	do("queues", chromedp.Navigate(ui+"/queues"), visible("table"))
	shot("queues")
	do("inbox", chromedp.Navigate(ui+"/inbox"), visible("table"))
	shot("inbox")
	// The mail's HTML runs no script in its sandboxed frame.
	do("message", chromedp.Click(chromedp.CSS(`tbody tr:first-child a`)), visible("iframe.mail"), chromedp.Sleep(300*time.Millisecond))
	if eval(`window.x !== undefined`) != false {
		t.Errorf("the captured mail's script ran")
	}
	shot("message")

	// A narrow window (half a laptop's screen) in dark mode still renders.
	do("narrow dark", chromedp.EmulateViewport(800, 900),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
			return err
		}),
		chromedp.Navigate(ui+"/apis/"+account+"/"+region+"/"+w.apiID), visible("#stage-dev"))
	if bg := eval(`getComputedStyle(document.documentElement).backgroundColor`); bg != "rgb(13, 17, 23)" {
		t.Errorf("dark mode's background is %v", bg)
	}
	shot("api-dark-narrow")
}
