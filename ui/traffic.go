package ui

import (
	"bufio"
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/metrics"
)

// Feed bounds.
const (
	// feedLifetime ends a feed before the server's write deadline (60 s);
	// the browser's EventSource reconnects by itself.
	feedLifetime = 45 * time.Second
	// maxWindow is the longest window the live view shows, in seconds.
	maxWindow = 900
	// maxStages is how many stages one update carries: the busiest.
	maxStages = 12
)

// windows are the live view's choices, in seconds.
var windows = []int{60, 300, 900}

func (ds *Dashboard) traffic(ctx *fasthttp.RequestCtx) {
	ds.render(ctx, http.StatusOK, "traffic", "Live traffic", struct {
		Windows []int
		Window  int
	}{windows, feedWindow(ctx)})
}

func feedWindow(ctx *fasthttp.RequestCtx) int {
	w, err := strconv.Atoi(query(ctx, "window"))
	if err != nil || w <= 0 {
		return windows[0]
	}
	return min(w, maxWindow)
}

// liveStage is a stage's series as the feed sends it.
type liveStage struct {
	Account string `json:"account"`
	Region  string `json:"region"`
	APIID   string `json:"apiId,omitempty"`
	metrics.LiveStage
}

// liveKey is an API key's counters as the feed sends them.
type liveKey struct {
	Account  string `json:"account"`
	Region   string `json:"region"`
	Name     string `json:"name,omitempty"`
	PlanName string `json:"planName,omitempty"`
	metrics.KeyTotal
	Used      int64 `json:"used"`
	Remaining int64 `json:"remaining"` // < 0: no quota
}

// update is one message of the traffic feed.
type update struct {
	Now    int64       `json:"now"`
	Window int         `json:"window"`
	Stages []liveStage `json:"stages"`
	Keys   []liveKey   `json:"keys"`
}

// snapshot reads the metrics for one update.
func (ds *Dashboard) snapshot(window int) update {
	u := update{Now: time.Now().Unix(), Window: window, Stages: []liveStage{}, Keys: []liveKey{}}
	if ds.d.Metrics == nil {
		return u
	}
	usage := ds.usageMap()
	ds.d.Metrics.Each(func(ms metrics.Scope, st *metrics.Store) {
		sc := awswire.Scope{Account: ms.Account, Region: ms.Region}
		var restIDs map[string]string // ApiName → id, made at the first REST stage
		for _, l := range st.Live(window) {
			s := liveStage{Account: sc.Account, Region: sc.Region, LiveStage: l}
			if l.Kind == "HTTP" {
				s.APIID = l.API
			} else {
				if restIDs == nil {
					restIDs = ds.restIDs(sc)
				}
				s.APIID = restIDs[l.API]
			}
			u.Stages = append(u.Stages, s)
		}
		for _, k := range st.KeyTotals() {
			lk := liveKey{Account: sc.Account, Region: sc.Region, KeyTotal: k, Remaining: -1}
			if ds.d.REST != nil {
				if ks, ok := ds.d.REST.APIKey(sc, k.KeyID); ok {
					lk.Name = ks.Key.Name
				}
				if p, ok := ds.d.REST.UsagePlan(sc, k.PlanID); ok {
					lk.PlanName = p.Plan.Name
				}
			}
			if x, ok := usage[usageKey{sc, k.PlanID, k.KeyID}]; ok {
				lk.Used, lk.Remaining = x.Used, x.Remaining
			}
			u.Keys = append(u.Keys, lk)
		}
	})
	if len(u.Stages) > maxStages {
		total := func(s liveStage) (n uint64) {
			for _, c := range s.Count {
				n += c
			}
			return n
		}
		slices.SortStableFunc(u.Stages, func(a, b liveStage) int { return cmp.Compare(total(b), total(a)) })
		u.Stages = u.Stages[:maxStages]
	}
	return u
}

// restIDs maps the metrics' ApiName of each REST API of the scope (its
// name, or its id when the name has nothing ASCII) to its id; of two APIs
// of one name, the metrics cannot tell which, and neither can this.
func (ds *Dashboard) restIDs(sc awswire.Scope) map[string]string {
	ids := map[string]string{}
	if ds.d.REST != nil {
		for _, a := range ds.d.REST.APIs(sc) {
			ids[metrics.APIName(a.API.Name, a.API.ID)] = a.API.ID
		}
	}
	return ids
}

type usageKey struct {
	sc        awswire.Scope
	plan, key string
}

// usageMap is every key's usage in its plans' current quota periods.
func (ds *Dashboard) usageMap() map[usageKey]metrics.KeyUsage {
	m := map[usageKey]metrics.KeyUsage{}
	if ds.d.Usage == nil {
		return m
	}
	for _, u := range ds.d.Usage() {
		m[usageKey{awswire.Scope{Account: u.Account, Region: u.Region}, u.PlanID, u.KeyID}] = u
	}
	return m
}

// trafficFeed streams an update a second as Server-Sent Events, for at
// most feedLifetime; it reads the metrics only while someone listens.
func (ds *Dashboard) trafficFeed(ctx *fasthttp.RequestCtx) {
	window := feedWindow(ctx)
	ctx.SetContentType("text/event-stream")
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		end := time.NewTimer(feedLifetime)
		defer end.Stop()
		if _, err := w.WriteString("retry: 1000\n\n"); err != nil {
			return
		}
		for {
			b, err := json.Marshal(ds.snapshot(window))
			if err != nil {
				return
			}
			_, _ = w.WriteString("event: traffic\ndata: ")
			_, _ = w.Write(b)
			_, _ = w.WriteString("\n\n")
			if w.Flush() != nil {
				return // the page went away
			}
			select {
			case <-tick.C:
			case <-end.C:
				return
			case <-ds.closing:
				return
			}
		}
	})
}
