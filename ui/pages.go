package ui

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/functions"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/inithook"
)

// overviewData is the overview page.
type overviewData struct {
	Version  string
	Uptime   time.Duration
	Started  time.Time
	Storage  string
	Services []Service
	Counts   []Count
	Kinds    []string
	Init     *inithook.Report
	Stages   []initStage
	// Reset: the page follows a reset made from the dashboard.
	Reset bool
}

type initStage struct {
	Name      string
	Completed bool
	Scripts   []inithook.Script
}

func (ds *Dashboard) overview(ctx *fasthttp.RequestCtx) {
	if redirected(ctx) {
		return
	}
	d := overviewData{Version: ds.d.Version, Started: ds.d.Started, Uptime: time.Since(ds.d.Started).Round(time.Second),
		Storage: ds.d.Storage, Services: ds.d.Services, Reset: query(ctx, "reset") == "done"}
	if ds.d.Counts != nil {
		d.Counts = ds.d.Counts()
		slices.SortFunc(d.Counts, func(a, b Count) int {
			return cmp.Or(strings.Compare(a.Account, b.Account), strings.Compare(a.Region, b.Region),
				strings.Compare(a.Service, b.Service))
		})
	}
	if ds.d.Init != nil {
		if r := ds.d.Init.Status(); r != nil {
			d.Init = r
			for i, st := range inithook.Stages {
				d.Stages = append(d.Stages, initStage{Name: st.String(), Completed: r.Completed[i], Scripts: r.StageScripts(st)})
			}
		}
	}
	ds.render(ctx, http.StatusOK, "overview", "Overview", d)
}

// apiRow is one API in the list.
type apiRow struct {
	Account, Region, ID, Name, Kind, Description string
	Created                                      time.Time
	Stages                                       []string
}

func (ds *Dashboard) apiRows() []apiRow {
	var rows []apiRow
	for _, sc := range ds.scopes() {
		if ds.d.REST != nil {
			for _, a := range ds.d.REST.APIs(sc) {
				r := apiRow{Account: sc.Account, Region: sc.Region, ID: a.API.ID, Name: a.API.Name, Kind: "REST",
					Description: a.API.Description, Created: time.UnixMilli(int64(a.API.CreatedDate))}
				for name := range a.Stages.All() {
					r.Stages = append(r.Stages, name)
				}
				rows = append(rows, r)
			}
		}
		if ds.d.HTTP != nil {
			for _, a := range ds.d.HTTP.APIs(sc) {
				r := apiRow{Account: sc.Account, Region: sc.Region, ID: a.API.APIID, Name: a.API.Name, Kind: a.API.ProtocolType,
					Description: a.API.Description, Created: time.UnixMilli(int64(a.API.CreatedDate))}
				for name := range a.Stages.All() {
					r.Stages = append(r.Stages, name)
				}
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// maxRows bounds a list page: a load test's hundred thousand APIs would
// make a page no browser wants.
const maxRows = 2000

func (ds *Dashboard) apis(ctx *fasthttp.RequestCtx) {
	rows := ds.apiRows()
	more := max(len(rows)-maxRows, 0)
	ds.render(ctx, http.StatusOK, "apis", "APIs", struct {
		Rows []apiRow
		More int
	}{rows[:len(rows)-more], more})
}

// restView is one REST API's page.
type restView struct {
	Scope       awswire.Scope
	API         apigateway.API
	Resources   []restResource
	Deployments []deploymentRow
	Stages      []stageRow
	Plans       []planRow
}

type restResource struct {
	Path    string
	ID      string
	Methods []restMethod
}

type restMethod struct {
	Verb, Authorization, Integration, URI string
	KeyRequired                           bool
	Responses                             []string
}

type deploymentRow struct {
	ID, Description string
	Created         time.Time
	Stages          []string
}

type stageRow struct {
	Name, DeploymentID, Description string
	Variables                       map[string]string
	CanaryPercent                   float64
	CanaryDeployment                string
	HasCanary                       bool
	URLs                            []invokeURL
	Updated                         time.Time
}

type invokeURL struct{ Form, URL string }

// invokeURLs are the ways to call a stage: AWS's own host, the emulator's
// host names and its path forms.
func (ds *Dashboard) invokeURLs(sc awswire.Scope, id, stage string) []invokeURL {
	port := 4566
	if ds.d.Port != nil {
		port = ds.d.Port()
	}
	host := cmp.Or(ds.d.ExternalHostname, "localhost.localstack.cloud")
	p := strconv.Itoa(port)
	return []invokeURL{
		{"Host name", "http://" + id + ".execute-api." + host + ":" + p + "/" + stage},
		{"Path", "http://localhost:" + p + "/_aws/execute-api/" + id + "/" + stage},
		{"LocalStack path", "http://localhost:" + p + "/restapis/" + id + "/" + stage + "/_user_request_"},
		{"AWS", "https://" + id + ".execute-api." + sc.Region + ".amazonaws.com/" + stage},
	}
}

func (ds *Dashboard) api(ctx *fasthttp.RequestCtx) {
	sc := awswire.Scope{Account: label(ctx, "account"), Region: label(ctx, "region")}
	id := label(ctx, "id")
	if ds.d.REST != nil {
		if a, ok := ds.d.REST.API(sc, id); ok {
			ds.render(ctx, http.StatusOK, "restapi", a.API.Name, ds.restView(sc, a))
			return
		}
	}
	if ds.d.HTTP != nil {
		if a, ok := ds.d.HTTP.API(sc, id); ok {
			ds.render(ctx, http.StatusOK, "httpapi", a.API.Name, ds.httpView(sc, a))
			return
		}
	}
	ds.notFound(ctx, "No API "+id+" in account "+sc.Account+", region "+sc.Region+".")
}

func (ds *Dashboard) restView(sc awswire.Scope, a *apigateway.RestAPI) restView {
	v := restView{Scope: sc, API: a.API}
	for _, r := range a.Resources.All() {
		rr := restResource{Path: r.Path, ID: r.ID}
		for _, verb := range slices.Sorted(maps.Keys(r.Methods)) {
			m := r.Methods[verb]
			rm := restMethod{Verb: verb, Authorization: m.AuthorizationType, KeyRequired: m.APIKeyRequired}
			if m.AuthorizerID != "" {
				rm.Authorization += " (" + m.AuthorizerID + ")"
			}
			if in := m.Integration; in != nil {
				rm.Integration, rm.URI = in.Type, in.URI
				rm.Responses = slices.Sorted(maps.Keys(in.IntegrationResponses))
			}
			rr.Methods = append(rr.Methods, rm)
		}
		v.Resources = append(v.Resources, rr)
	}
	slices.SortFunc(v.Resources, func(x, y restResource) int { return strings.Compare(x.Path, y.Path) })
	byDep := map[string][]string{}
	for name, st := range a.Stages.All() {
		row := stageRow{Name: name, DeploymentID: st.DeploymentID, Description: st.Description, Variables: st.Variables,
			URLs: ds.invokeURLs(sc, a.API.ID, name), Updated: time.UnixMilli(int64(st.LastUpdatedDate))}
		if c := st.CanarySettings; c != nil {
			row.HasCanary, row.CanaryPercent, row.CanaryDeployment = true, c.PercentTraffic, c.DeploymentID
		}
		v.Stages = append(v.Stages, row)
		byDep[st.DeploymentID] = append(byDep[st.DeploymentID], name)
	}
	for _, d := range a.Deployments.All() {
		v.Deployments = append(v.Deployments, deploymentRow{ID: d.ID, Description: d.Description,
			Created: time.UnixMilli(int64(d.CreatedDate)), Stages: byDep[d.ID]})
	}
	slices.SortFunc(v.Deployments, func(x, y deploymentRow) int { return y.Created.Compare(x.Created) })
	for _, p := range ds.planRows(sc) {
		for _, s := range p.Stages {
			if strings.HasPrefix(s, a.API.ID+"/") {
				v.Plans = append(v.Plans, p)
				break
			}
		}
	}
	return v
}

// httpView is one HTTP or WebSocket API's page.
type httpView struct {
	Scope       awswire.Scope
	API         apigatewayv2.API
	Routes      []httpRoute
	Deployments []deploymentRow
	Stages      []stageRow
}

type httpRoute struct {
	Key, Authorization, Target, Integration, URI string
}

func (ds *Dashboard) httpView(sc awswire.Scope, a *apigatewayv2.HTTPAPI) httpView {
	v := httpView{Scope: sc, API: a.API}
	integrations := map[string]*apigatewayv2.Integration{}
	if list, err := ds.d.HTTP.Integrations(sc, a.API.APIID); err == nil {
		for _, in := range list {
			integrations[in.IntegrationID] = in
		}
	}
	if routes, err := ds.d.HTTP.Routes(sc, a.API.APIID); err == nil {
		for _, r := range routes {
			row := httpRoute{Key: r.RouteKey, Authorization: r.AuthorizationType, Target: r.Target}
			if id, ok := strings.CutPrefix(r.Target, "integrations/"); ok {
				if in := integrations[id]; in != nil {
					row.Integration, row.URI = in.IntegrationType, in.IntegrationURI
				}
			}
			v.Routes = append(v.Routes, row)
		}
	}
	slices.SortFunc(v.Routes, func(x, y httpRoute) int { return strings.Compare(x.Key, y.Key) })
	byDep := map[string][]string{}
	for name, st := range a.Stages.All() {
		v.Stages = append(v.Stages, stageRow{Name: name, DeploymentID: st.DeploymentID, Description: st.Description,
			Variables: st.StageVariables, URLs: ds.httpURLs(sc, a, name), Updated: time.UnixMilli(int64(st.LastUpdatedDate))})
		byDep[st.DeploymentID] = append(byDep[st.DeploymentID], name)
	}
	for _, d := range a.Deployments.All() {
		v.Deployments = append(v.Deployments, deploymentRow{ID: d.DeploymentID, Description: d.Description,
			Created: time.UnixMilli(int64(d.CreatedDate)), Stages: byDep[d.DeploymentID]})
	}
	slices.SortFunc(v.Deployments, func(x, y deploymentRow) int { return y.Created.Compare(x.Created) })
	return v
}

// httpURLs are a v2 stage's URLs: $default is served at the root.
func (ds *Dashboard) httpURLs(sc awswire.Scope, a *apigatewayv2.HTTPAPI, stage string) []invokeURL {
	all := ds.invokeURLs(sc, a.API.APIID, stage)
	urls := []invokeURL{all[0], all[1], all[3]} // no _user_request_ form for HTTP APIs
	if a.API.ProtocolType == "WEBSOCKET" {
		for i := range urls {
			urls[i].URL = strings.Replace(strings.Replace(urls[i].URL, "https://", "wss://", 1), "http://", "ws://", 1)
		}
	}
	if stage == "$default" {
		for i := range urls {
			urls[i].URL = strings.TrimSuffix(urls[i].URL, "/$default")
		}
	}
	return urls
}

// planRow is one usage plan with its keys.
type planRow struct {
	Account, Region, ID, Name, Description string
	Stages                                 []string
	Rate                                   float64
	Burst                                  int64
	HasThrottle                            bool
	QuotaLimit                             int64
	QuotaPeriod                            string
	Keys                                   []keyRow
}

type keyRow struct {
	ID, Name string
	Enabled  bool
	Used     int64
	Remains  int64 // < 0: no quota
}

func (ds *Dashboard) planRows(sc awswire.Scope) []planRow {
	if ds.d.REST == nil {
		return nil
	}
	var rows []planRow
	usage := ds.usageMap()
	for _, p := range ds.d.REST.UsagePlans(sc) {
		r := planRow{Account: sc.Account, Region: sc.Region, ID: p.Plan.ID, Name: p.Plan.Name, Description: p.Plan.Description}
		for _, s := range p.Plan.APIStages {
			r.Stages = append(r.Stages, s.APIID+"/"+s.Stage)
		}
		if t := p.Plan.Throttle; t != nil {
			r.HasThrottle, r.Rate, r.Burst = true, float64(t.RateLimit), t.BurstLimit
		}
		if q := p.Plan.Quota; q != nil {
			r.QuotaLimit, r.QuotaPeriod = q.Limit, q.Period
		}
		for _, id := range p.KeyIDs {
			k := keyRow{ID: id, Remains: -1}
			if ks, ok := ds.d.REST.APIKey(sc, id); ok {
				k.Name, k.Enabled = ks.Key.Name, ks.Key.Enabled
			}
			if u, ok := usage[usageKey{sc, p.Plan.ID, id}]; ok {
				k.Used, k.Remains = u.Used, u.Remaining
			}
			r.Keys = append(r.Keys, k)
		}
		rows = append(rows, r)
	}
	return rows
}

func (ds *Dashboard) plans(ctx *fasthttp.RequestCtx) {
	var rows []planRow
	for _, sc := range ds.scopes() {
		rows = append(rows, ds.planRows(sc)...)
	}
	ds.render(ctx, http.StatusOK, "plans", "Usage plans", rows)
}

// functionRow is one function with its activity.
type functionRow struct {
	Account, Region, Name, ARN, Runtime, Handler string
	Memory, Timeout                              int
	Idle, Busy                                   int
	Recent                                       []invocationRow
}

type invocationRow struct {
	RequestID, Outcome, Log string
	Started                 time.Time
	Duration, Init          time.Duration
	Failed                  bool
}

func (ds *Dashboard) functions(ctx *fasthttp.RequestCtx) {
	var rows []functionRow
	if ds.d.Lambda != nil {
		for _, sc := range ds.scopes() {
			marker := ""
			for range 100 { // at most 5,000 functions a scope
				page, err := ds.d.Lambda.ListFunctions(sc, false, marker, 50)
				if err != nil {
					break
				}
				for _, f := range page.Items {
					rows = append(rows, ds.functionRow(sc, f.ARN, f.Config.Runtime, f.Config.Handler, f.Config.MemorySize, f.Config.Timeout))
				}
				if marker = page.Next; marker == "" {
					break
				}
			}
		}
	}
	ds.render(ctx, http.StatusOK, "functions", "Functions", rows)
}

func (ds *Dashboard) functionRow(sc awswire.Scope, arn, runtime, handler string, memory, timeout int) functionRow {
	arn = unqualified(arn)
	r := functionRow{Account: sc.Account, Region: sc.Region, ARN: arn, Name: arn[strings.LastIndexByte(arn, ':')+1:],
		Runtime: runtime, Handler: handler, Memory: memory, Timeout: timeout}
	var rt *functions.Runtime
	if ds.d.Functions != nil {
		rt = ds.d.Functions()
	}
	if rt != nil {
		r.Idle, r.Busy = rt.Instances(arn)
		for _, inv := range rt.Recent(arn) {
			row := invocationRow{RequestID: inv.RequestID, Started: inv.Started, Duration: inv.Duration,
				Init: inv.InitDuration, Log: inv.Log, Outcome: "success"}
			if inv.ErrorType != "" || inv.FunctionError != "" {
				row.Failed, row.Outcome = true, cmp.Or(inv.ErrorType, inv.FunctionError)
			}
			r.Recent = append(r.Recent, row)
		}
	}
	return r
}

// unqualified drops a version or alias from a function ARN
// (arn:aws:lambda:region:account:function:name[:qualifier]).
func unqualified(arn string) string {
	parts := strings.SplitN(arn, ":", 8)
	if len(parts) == 8 {
		return strings.Join(parts[:7], ":")
	}
	return arn
}

func (ds *Dashboard) inbox(ctx *fasthttp.RequestCtx) {
	var entries []*inbox.Entry
	kind := inbox.Kind(query(ctx, "kind"))
	if ds.d.Inbox != nil {
		entries = ds.d.Inbox.List(inbox.Filter{Kind: kind})
		slices.Reverse(entries) // newest first
		if len(entries) > 500 {
			entries = entries[:500]
		}
	}
	ds.render(ctx, http.StatusOK, "inbox", "Inbox", struct {
		Kind    string
		Entries []*inbox.Entry
	}{string(kind), entries})
}

func (ds *Dashboard) entry(ctx *fasthttp.RequestCtx) (*inbox.Entry, bool) {
	if ds.d.Inbox != nil {
		if l := ds.d.Inbox.List(inbox.Filter{ID: label(ctx, "id")}); len(l) == 1 {
			return l[0], true
		}
	}
	ds.notFound(ctx, "No captured message "+label(ctx, "id")+".")
	return nil, false
}

func (ds *Dashboard) message(ctx *fasthttp.RequestCtx) {
	e, ok := ds.entry(ctx)
	if !ok {
		return
	}
	ds.render(ctx, http.StatusOK, "message", cmp.Or(e.Subject, e.ID), e)
}

// messageHTML serves a captured mail's HTML for the message page's
// sandboxed frame. The CSP sandbox makes it an opaque origin without
// scripts even if opened on its own.
func (ds *Dashboard) messageHTML(ctx *fasthttp.RequestCtx) {
	e, ok := ds.entry(ctx)
	if !ok {
		return
	}
	ctx.Response.Header.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'")
	ctx.SetContentType("text/html; charset=utf-8")
	ctx.SetBodyString(e.HTML)
}

func (ds *Dashboard) clearInbox(ctx *fasthttp.RequestCtx) {
	if ds.d.Inbox != nil {
		ds.d.Inbox.Delete(inbox.Filter{})
	}
	ctx.Response.Header.Set("Location", Root+"/inbox")
	ctx.SetStatusCode(http.StatusSeeOther)
}

// queueRow is one queue with its counts.
type queueRow struct {
	Account, Region, Name, URL               string
	Visible, InFlight, Delayed, FIFO, Errors string
}

func (ds *Dashboard) queues(ctx *fasthttp.RequestCtx) {
	var rows []queueRow
	if ds.d.Queues != nil {
		for _, sc := range ds.scopes() {
			urls, _, err := ds.d.Queues.ListQueues(sc, "", "", nil)
			if err != nil {
				continue
			}
			for _, u := range urls {
				r := queueRow{Account: sc.Account, Region: sc.Region, URL: u, Name: u[strings.LastIndexByte(u, '/')+1:]}
				if at, err := ds.d.Queues.GetQueueAttributes(sc, u, []string{"All"}); err == nil {
					r.Visible, r.InFlight, r.Delayed = at["ApproximateNumberOfMessages"],
						at["ApproximateNumberOfMessagesNotVisible"], at["ApproximateNumberOfMessagesDelayed"]
					r.FIFO = at["FifoQueue"]
				}
				rows = append(rows, r)
			}
		}
	}
	ds.render(ctx, http.StatusOK, "queues", "Queues", rows)
}

func (ds *Dashboard) queue(ctx *fasthttp.RequestCtx) {
	sc := awswire.Scope{Account: label(ctx, "account"), Region: label(ctx, "region")}
	name := label(ctx, "name")
	if ds.d.Queues == nil {
		ds.notFound(ctx, "No queue "+name+".")
		return
	}
	p, ok := ds.d.Queues.Peek(sc, name)
	if !ok {
		ds.notFound(ctx, "No queue "+name+" in account "+sc.Account+", region "+sc.Region+".")
		return
	}
	if len(p.Messages) > 200 {
		p.Messages = p.Messages[:200]
	}
	ds.render(ctx, http.StatusOK, "queue", name, struct {
		Scope awswire.Scope
		Name  string
		Queue any
	}{sc, name, p})
}

func (ds *Dashboard) resetPage(ctx *fasthttp.RequestCtx) {
	ds.render(ctx, http.StatusOK, "reset", "Reset", nil)
}

// reset wipes everything once the form's confirmation is ticked.
func (ds *Dashboard) reset(ctx *fasthttp.RequestCtx) {
	if string(ctx.PostArgs().Peek("confirm")) != "reset" {
		ds.render(ctx, http.StatusBadRequest, "reset", "Reset", "Type reset to confirm.")
		return
	}
	if ds.d.Reset == nil {
		ds.render(ctx, http.StatusServiceUnavailable, "reset", "Reset", "This emulator cannot be reset from here.")
		return
	}
	if err := ds.d.Reset(); err != nil {
		ds.render(ctx, http.StatusServiceUnavailable, "reset", "Reset", "The reset failed: "+err.Error())
		return
	}
	ctx.Response.Header.Set("Location", Root+"?reset=done")
	ctx.SetStatusCode(http.StatusSeeOther)
}
