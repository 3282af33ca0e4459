package metrics

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/puzpuzpuz/xsync/v3"
)

// LiveStage is one stage's last seconds of requests, for a live view.
type LiveStage struct {
	Kind  string `json:"kind"` // REST or HTTP
	API   string `json:"api"`  // the ApiName (REST) or ApiId (HTTP) dimension
	Stage string `json:"stage"`
	// Start is the unix second of the first point; one point a second
	// follows, up to the current second.
	Start int64 `json:"start"`
	// Requests by status class; latency percentiles in milliseconds (0
	// for a second without requests).
	Count []uint64  `json:"count"`
	S2xx  []uint64  `json:"s2xx"`
	S4xx  []uint64  `json:"s4xx"`
	S5xx  []uint64  `json:"s5xx"`
	P50   []float64 `json:"p50"`
	P99   []float64 `json:"p99"`
	// Throttled and Quota count the requests throttling and quotas
	// refused (or would have), since the store began.
	Throttled uint64 `json:"throttled"`
	Quota     uint64 `json:"quota"`
}

// Live returns every stage that served a request in the last seconds
// seconds (1-second data only), ordered by kind, API and stage. A read
// takes each series' lock once a second, as a request of a new second does.
func (s *Store) Live(seconds int) []LiveStage {
	seconds = max(1, min(seconds, int(s.hiSlots)))
	now := s.now().Unix()
	from := now - int64(seconds) + 1
	var out []LiveStage
	s.parents.Range(func(_ string, p *parent) bool {
		if len(p.dims) != 2 {
			return true // the {ApiName} / {ApiId} sets
		}
		gs := p.members()
		if !slices.ContainsFunc(gs, func(g *group) bool { return g.last.Load() >= from }) {
			return true
		}
		ls := LiveStage{Kind: "REST", Start: from}
		if p.kind == httpKind {
			ls.Kind = "HTTP"
		}
		for _, d := range p.dims {
			if d.Name == "Stage" {
				ls.Stage = d.Value
			} else {
				ls.API = d.Value
			}
		}
		ls.Count, ls.S2xx, ls.S4xx, ls.S5xx = make([]uint64, seconds), make([]uint64, seconds), make([]uint64, seconds), make([]uint64, seconds)
		ls.P50, ls.P99 = make([]float64, seconds), make([]float64, seconds)
		lat := make([]agg, seconds)
		for i := range lat {
			lat[i].wantH = true
			lat[i].reset()
		}
		for _, g := range gs {
			g.flush()
			ls.Throttled += g.rejected[0].Load()
			ls.Quota += g.rejected[1].Load()
			g.mu.Lock()
			for i := range seconds {
				if x := g.hi.get(from + int64(i)); x != nil {
					ls.Count[i] += x.count()
					ls.S2xx[i] += uint64(x.class[2])
					ls.S4xx[i] += uint64(x.class[4])
					ls.S5xx[i] += uint64(x.class[5])
					lat[i].addGroup(x, mLatency)
				}
			}
			g.mu.Unlock()
		}
		for i := range lat {
			ls.P50[i] = finite(lat[i].value(stat{name: "p50", p: 50}))
			ls.P99[i] = finite(lat[i].value(stat{name: "p99", p: 99}))
		}
		out = append(out, ls)
		return true
	})
	slices.SortFunc(out, func(a, b LiveStage) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.API, b.API), strings.Compare(a.Stage, b.Stage))
	})
	return out
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// KeyCounts are one API key's requests under one usage plan: admitted,
// refused by the plan's throttle, refused by its quota (or that would
// have been, when throttling only counts).
type KeyCounts struct {
	Admitted, Throttled, Quota atomic.Uint64
}

// KeyTotal is a KeyCounts read.
type KeyTotal struct {
	PlanID    string `json:"plan"`
	KeyID     string `json:"key"`
	Admitted  uint64 `json:"admitted"`
	Throttled uint64 `json:"throttled"`
	Quota     uint64 `json:"quota"`
}

type planKey struct{ plan, key string }

// Key returns the counters of an API key under a usage plan, made on first
// use.
func (s *Store) Key(planID, keyID string) *KeyCounts {
	k := planKey{planID, keyID}
	if c, ok := s.keys.Load(k); ok {
		return c
	}
	c, _ := s.keys.LoadOrCompute(k, func() *KeyCounts { return new(KeyCounts) })
	return c
}

// KeyTotals reads every key's counters, ordered by plan and key.
func (s *Store) KeyTotals() []KeyTotal {
	var out []KeyTotal
	s.keys.Range(func(k planKey, c *KeyCounts) bool {
		out = append(out, KeyTotal{PlanID: k.plan, KeyID: k.key, Admitted: c.Admitted.Load(),
			Throttled: c.Throttled.Load(), Quota: c.Quota.Load()})
		return true
	})
	slices.SortFunc(out, func(a, b KeyTotal) int {
		return cmp.Or(strings.Compare(a.PlanID, b.PlanID), strings.Compare(a.KeyID, b.KeyID))
	})
	return out
}

func newKeys() *xsync.MapOf[planKey, *KeyCounts] { return xsync.NewMapOf[planKey, *KeyCounts]() }

// Each calls fn for every account and region's store, ordered by account
// and region.
func (r *Regions) Each(fn func(Scope, *Store)) { r.each(fn) }
