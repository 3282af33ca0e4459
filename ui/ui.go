package ui

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/actors/lambda"
	"github.com/cloudemu/emulator/actors/sqs"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/functions"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/inithook"
	"github.com/cloudemu/emulator/metrics"
)

// Root is where the dashboard is served.
const Root = "/_emulator/ui"

// Service is one emulated service and its emulation tier, for the overview.
type Service struct{ Name, Tier string }

// Count is how many resources of each kind one service holds in one
// account and region.
type Count struct {
	Service, Account, Region string
	Resources                map[string]int
}

// Deps is what the dashboard reads. Every member may be nil (zero): its
// page then shows nothing of that kind.
type Deps struct {
	Version string
	Started time.Time
	// Storage says where state lives ("memory", "persistent: bbolt in …").
	Storage  string
	Services []Service
	Counts   func() []Count
	Init     *inithook.Runner
	// ExternalHostname and Port make the invoke URLs a stage shows.
	ExternalHostname string
	Port             func() int

	REST   *apigateway.Service
	HTTP   *apigatewayv2.Service
	Lambda *lambda.Service
	// Functions is the functions runtime once it started (nil before).
	Functions func() *functions.Runtime
	Queues    *sqs.Service
	Metrics   *metrics.Regions
	// Usage is every API key's usage in its plans' current quota periods.
	Usage     func() []metrics.KeyUsage
	Inspector *execute.Inspector
	Inbox     *inbox.Inbox
	// Reset wipes every resource (the emulator's reset).
	Reset func() error
	Log   *slog.Logger
}

// Route is one of the dashboard's endpoints.
type Route struct {
	Method, Path string
	Handler      fasthttp.RequestHandler
}

// Dashboard serves the pages and feeds.
type Dashboard struct {
	d     Deps
	pages *template.Template
	// closing ends the live feeds at shutdown, so that an open page does
	// not hold the server's drain.
	closing   chan struct{}
	closeOnce sync.Once
}

//go:embed assets
var assets embed.FS

// New builds the dashboard.
func New(d Deps) *Dashboard {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	t := template.Must(template.New("").Funcs(funcs).ParseFS(assets, "assets/*.html"))
	return &Dashboard{d: d, pages: t, closing: make(chan struct{})}
}

// Close ends the live feeds; the pages keep answering.
func (ds *Dashboard) Close() { ds.closeOnce.Do(func() { close(ds.closing) }) }

// Routes are the dashboard's endpoints.
func (ds *Dashboard) Routes() []Route {
	get := func(p string, h fasthttp.RequestHandler) Route { return Route{http.MethodGet, Root + p, ds.guard(h)} }
	post := func(p string, h fasthttp.RequestHandler) Route {
		return Route{http.MethodPost, Root + p, ds.guard(sameOrigin(h))}
	}
	return []Route{
		get("", ds.overview),
		get("/apis", ds.apis),
		get("/apis/{account}/{region}/{id}", ds.api),
		get("/plans", ds.plans),
		get("/traffic", ds.traffic),
		get("/feed/traffic", ds.trafficFeed),
		get("/requests", ds.requests),
		get("/requests/{id}", ds.request),
		get("/functions", ds.functions),
		get("/inbox", ds.inbox),
		get("/inbox/{id}", ds.message),
		get("/inbox/{id}/html", ds.messageHTML),
		post("/inbox/clear", ds.clearInbox),
		get("/queues", ds.queues),
		get("/queues/{account}/{region}/{name}", ds.queue),
		get("/reset", ds.resetPage),
		post("/reset", ds.reset),
		get("/static/{file:*}", ds.static),
	}
}

// redirected sends /_emulator/ui/ to /_emulator/ui (the front serves
// both paths with one route).
func redirected(ctx *fasthttp.RequestCtx) bool {
	p := ctx.Request.URI().PathOriginal()
	if len(p) == 0 || p[len(p)-1] != '/' {
		return false
	}
	ctx.Response.Header.Set("Location", Root)
	ctx.SetStatusCode(http.StatusMovedPermanently)
	return true
}

// contentPolicy allows nothing from elsewhere and no inline script, so a
// value that escaped escaping still could not run.
const contentPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'"

// guard sets the headers every answer carries and turns a panic in a page
// into a 500 page (the front recovers too, but answers JSON).
func (ds *Dashboard) guard(h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		hd := &ctx.Response.Header
		hd.Set("Content-Security-Policy", contentPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		h(ctx)
	}
}

// sameOrigin refuses a write that another site's page could have sent:
// the browser says where a form came from (Sec-Fetch-Site, else Origin).
func sameOrigin(h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		site := string(ctx.Request.Header.Peek("Sec-Fetch-Site"))
		origin := string(ctx.Request.Header.Peek("Origin"))
		ok := site == "same-origin" || site == "none"
		if site == "" {
			host := string(ctx.Host())
			ok = origin == "" || origin == "http://"+host || origin == "https://"+host
		}
		if !ok {
			ctx.Error("cross-site request refused", http.StatusForbidden)
			return
		}
		h(ctx)
	}
}

// page is what every page template receives.
type page struct {
	Title   string
	Nav     string
	Version string
	Data    any
}

// render writes the named page, or a 500 page when rendering fails.
func (ds *Dashboard) render(ctx *fasthttp.RequestCtx, status int, name, title string, data any) {
	var buf bytes.Buffer
	err := ds.pages.ExecuteTemplate(&buf, name, page{Title: title, Nav: name, Version: ds.d.Version, Data: data})
	if err != nil {
		ds.d.Log.Error("dashboard page", "page", name, "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		_ = ds.pages.ExecuteTemplate(&buf, "error", page{Title: "Error", Version: ds.d.Version, Data: "The page could not be rendered: " + err.Error()})
	}
	ctx.SetStatusCode(status)
	ctx.SetContentType("text/html; charset=utf-8")
	ctx.SetBody(buf.Bytes())
}

// notFound answers a page for something that does not exist (any more).
func (ds *Dashboard) notFound(ctx *fasthttp.RequestCtx, what string) {
	ds.render(ctx, http.StatusNotFound, "error", "Not found", what)
}

// static serves the embedded styles, scripts and vendored libraries.
func (ds *Dashboard) static(ctx *fasthttp.RequestCtx) {
	name, _ := ctx.UserValue("file").(string)
	name = path.Clean("/" + name)[1:]
	b, err := fs.ReadFile(assets, "assets/"+name)
	if err != nil || strings.HasSuffix(name, ".html") {
		ctx.Error("not found", http.StatusNotFound)
		return
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	ctx.SetContentType(ct)
	// The files change only with the binary.
	ctx.Response.Header.Set("Cache-Control", "public, max-age=3600")
	ctx.SetBody(b)
}

// label is a path parameter.
func label(ctx *fasthttp.RequestCtx, name string) string {
	v, _ := ctx.UserValue(name).(string)
	return v
}

// query is a query-string parameter.
func query(ctx *fasthttp.RequestCtx, name string) string {
	return string(ctx.QueryArgs().Peek(name))
}

// scopes are the accounts and regions any service holds something in,
// sorted.
func (ds *Dashboard) scopes() []awswire.Scope {
	seen := map[awswire.Scope]bool{}
	add := func(m map[awswire.Scope]map[string]int) {
		for sc, c := range m {
			for _, n := range c {
				if n > 0 {
					seen[sc] = true
					break
				}
			}
		}
	}
	if ds.d.REST != nil {
		add(ds.d.REST.Counts())
	}
	if ds.d.HTTP != nil {
		add(ds.d.HTTP.Counts())
	}
	if ds.d.Lambda != nil {
		add(ds.d.Lambda.Counts())
	}
	if ds.d.Queues != nil {
		add(ds.d.Queues.Counts())
	}
	out := make([]awswire.Scope, 0, len(seen))
	for sc := range seen {
		out = append(out, sc)
	}
	slices.SortFunc(out, func(a, b awswire.Scope) int {
		if c := strings.Compare(a.Account, b.Account); c != 0 {
			return c
		}
		return strings.Compare(a.Region, b.Region)
	})
	return out
}

var funcs = template.FuncMap{
	"ms": func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
	},
	"ago": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return time.Since(t).Round(time.Second).String() + " ago"
	},
	"when": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05.000Z")
	},
	"statusClass": func(s int) string {
		switch {
		case s >= 500:
			return "s5"
		case s >= 400:
			return "s4"
		case s >= 200 && s < 300:
			return "s2"
		}
		return "s0"
	},
	"join": strings.Join,
}
