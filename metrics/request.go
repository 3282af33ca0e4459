package metrics

import (
	"hash/maphash"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Namespaces request metrics are answered under: the spec's and the one real
// dashboards and SDK code query. The data is stored once.
var Namespaces = [2]string{"AWS/ApiGateway", "CLOUD/ApiGateway"}

// kind names the metrics and dimension sets of one kind of API.
type kind struct {
	names [5]string   // count, client errors, server errors, latency, integration latency
	units [5]string   // CloudWatch units
	sets  [3][]string // the dimension names of each set, sorted
}

const (
	mCount = iota
	m4xx
	m5xx
	mLatency
	mIntegration
)

var units = [5]string{"Count", "Count", "Count", "Milliseconds", "Milliseconds"}

// The REST and HTTP API metrics of docs/apigateway.md (docs/apigateway-execution.md §9).
var (
	restKind = &kind{
		names: [5]string{"Count", "4XXError", "5XXError", "Latency", "IntegrationLatency"},
		units: units,
		sets:  [3][]string{{"ApiName"}, {"ApiName", "Stage"}, {"ApiName", "Method", "Resource", "Stage"}},
	}
	httpKind = &kind{
		names: [5]string{"Count", "4xx", "5xx", "Latency", "IntegrationLatency"},
		units: units,
		sets:  [3][]string{{"ApiId"}, {"ApiId", "Stage"}, {"ApiId", "HttpMethod", "RouteKey", "Stage"}},
	}
)

// RESTRequest is one dispatched REST API request.
type RESTRequest struct {
	APIName  string // as published: see APIName
	Stage    string
	Method   string // the method's HTTP verb (ANY for an ANY method)
	Resource string // the resource path, e.g. /pets/{id}
	Status   int
	// Latency is from receipt to response; IntegrationLatency is the
	// backend's part of it.
	Latency, IntegrationLatency time.Duration
	At                          time.Time // when it was received; zero: the store's clock
}

// HTTPRequest is one dispatched HTTP API (v2) request.
type HTTPRequest struct {
	APIID, Stage, Method, RouteKey string
	Status                         int
	Latency, IntegrationLatency    time.Duration
	At                             time.Time
}

// RecordREST records one request into the series of its three dimension
// sets: Count, 4XXError and 5XXError (0/1 samples, so that Average is the
// error rate and SampleCount the request count), Latency and
// IntegrationLatency in milliseconds. After a route's first request it
// allocates nothing and takes no lock.
func (s *Store) RecordREST(r RESTRequest) {
	s.record(routeKey{restKind, r.APIName, r.Stage, r.Method, r.Resource}, r.Status, r.Latency, r.IntegrationLatency, r.At)
}

// RecordHTTP is RecordREST for HTTP APIs (4xx, 5xx; ApiId, Stage,
// HttpMethod, RouteKey).
func (s *Store) RecordHTTP(r HTTPRequest) {
	s.record(routeKey{httpKind, r.APIID, r.Stage, r.Method, r.RouteKey}, r.Status, r.Latency, r.IntegrationLatency, r.At)
}

// APIName is the ApiName dimension AWS publishes: the name without its
// non-ASCII characters, or the API's id when nothing remains.
func APIName(name, id string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		b := make([]byte, 0, len(name))
		for i := 0; i < len(name); i++ {
			if name[i] < 0x80 {
				b = append(b, name[i])
			}
		}
		name = string(b)
	}
	if name == "" {
		return id
	}
	return name
}

// routeKey identifies a route's series; the cache keyed by it spares the
// request path any string building.
type routeKey struct {
	kind                  *kind
	api, stage, verb, res string
}

var routeSeed = maphash.MakeSeed()

// hashRoute hashes the four names with maphash directly: the map's default
// hasher walks the struct's type and costs twice as much.
func hashRoute(k routeKey, seed uint64) uint64 {
	h := seed
	if k.kind == httpKind {
		h = ^h
	}
	for _, s := range [4]string{k.api, k.stage, k.verb, k.res} {
		h = (h ^ maphash.String(routeSeed, s)) * 0x9e3779b97f4a7c15
	}
	return h
}

// Route is a handle on one route's series, for a caller that keeps it (a
// compiled deployment keeps one per method): recording through it skips the
// route lookup.
type Route struct{ g *group }

// RESTRoute returns the handle of a REST route (see RESTRequest).
func (s *Store) RESTRoute(apiName, stage, method, resource string) Route {
	return Route{s.route(routeKey{restKind, apiName, stage, method, resource})}
}

// HTTPRoute returns the handle of an HTTP API route (see HTTPRequest).
func (s *Store) HTTPRoute(apiID, stage, method, key string) Route {
	return Route{s.route(routeKey{httpKind, apiID, stage, method, key})}
}

// Record is RecordREST or RecordHTTP for the route; at MUST NOT be zero
// (the caller has the request's received time).
func (r Route) Record(status int, latency, integrationLatency time.Duration, at time.Time) {
	sm := newSample(status, latency, integrationLatency, at)
	r.g.record(&sm)
}

// RESTStage returns the handle of a stage's requests that matched no
// method: they count in the {ApiName} and {ApiName, Stage} sets only.
func (s *Store) RESTStage(apiName, stage string) Route {
	return s.RESTRoute(apiName, stage, "", "")
}

// Reject counts a request that throttling (quota: a usage plan's quota)
// refused, or would have refused when throttling only counts. The request
// is recorded as well, with the status it was answered.
func (r Route) Reject(quota bool) {
	if r.g == nil {
		return
	}
	i := 0
	if quota {
		i = 1
	}
	r.g.rejected[i].Add(1)
}

// Valid reports whether r is a handle (the zero Route is not).
func (r Route) Valid() bool { return r.g != nil }

func (s *Store) route(k routeKey) *group {
	if g, ok := s.routes.Load(k); ok {
		return g
	}
	return s.newRoute(k)
}

// sample is one request, reduced to what the windows count.
type sample struct {
	sec        int64
	class      int   // status / 100, 0 when out of 1..5
	lat, integ int64 // nanoseconds, >= 0
	lk, ik     uint16
}

func (s *Store) record(k routeKey, status int, lat, integ time.Duration, at time.Time) {
	g := s.route(k)
	if at.IsZero() {
		at = s.now()
	}
	sm := newSample(status, lat, integ, at)
	g.record(&sm)
}

func newSample(status int, lat, integ time.Duration, at time.Time) sample {
	sm := sample{sec: at.Unix(), lat: max(int64(lat), 0), integ: max(int64(integ), 0)}
	if c := status / 100; c >= 1 && c <= 5 {
		sm.class = c
	}
	sm.lk, sm.ik = denseIndex(sm.lat), denseIndex(sm.integ)
	return sm
}

// newRoute creates the route's series. Only the most detailed set is
// recorded: the two coarser sets ({ApiName}, {ApiName, Stage}) are the sums
// of their routes, merged when read, so a request costs one series' counts
// instead of three and the coarse series' counters are not shared by every
// core serving the API.
func (s *Store) newRoute(k routeKey) *group {
	g, _ := s.routes.LoadOrCompute(k, func() *group {
		vals := map[string]string{}
		for _, n := range k.kind.sets[0] {
			vals[n] = k.api
		}
		vals["Stage"] = k.stage
		for _, n := range k.kind.sets[2] {
			switch n {
			case "Method", "HttpMethod":
				vals[n] = k.verb
			case "Resource", "RouteKey":
				vals[n] = k.res
			}
		}
		var sets [3][]Dimension
		for i, set := range k.kind.sets {
			sets[i] = make([]Dimension, len(set))
			for j, n := range set {
				sets[i][j] = Dimension{n, vals[n]}
			}
		}
		key := dimKey(sets[2])
		g, _ := s.groups.LoadOrCompute(key, func() *group {
			g := s.newGroup(k.kind, sets[2], key)
			for _, dims := range sets[:2] {
				pk := dimKey(dims)
				p, _ := s.parents.LoadOrCompute(pk, func() *parent { return &parent{kind: k.kind, dims: dims} })
				p.mu.Lock()
				p.groups = append(p.groups, g)
				p.mu.Unlock()
			}
			return g
		})
		return g
	})
	return g
}

// parent is a coarser dimension set: the routes it sums.
type parent struct {
	kind   *kind
	dims   []Dimension
	mu     sync.Mutex
	groups []*group // append-only
}

func (p *parent) members() []*group {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.groups)
}

// group is the series of one dimension set of request metrics: its five
// metrics share their counters, since one request feeds all five.
//
// Recording: each shard has a current window, a set of atomic counters for
// one second. A request adds to its shard's window when the window is for
// its second; the first request of a later second installs a fresh window
// (CAS) and retires the old one into the rings, so the rings' mutex is
// taken once per second per shard, never per request. The protocol that
// keeps every count: a writer announces itself (inflight), then checks that
// the window is still its shard's current one and of the generation it read
// its second under; a retirer first bumps the generation (odd: sealed), then
// waits for announced writers. Either the writer sees the bump and retries,
// or the retirer sees the writer and waits for it.
type group struct {
	kind *kind
	dims []Dimension // sorted
	key  string
	cur  []shardSlot
	mask uint32
	last atomic.Int64 // the last second a window was installed for
	// moving counts windows taken out of cur and not yet in the rings.
	moving atomic.Int32

	// hidden: the set is not published (a stage's requests that matched
	// no method have no Method and Resource); it only feeds the coarser
	// sets and Prometheus.
	hidden bool

	mu     sync.Mutex // hi, lo, totals
	hi, lo ring[rslot]
	totals totals

	// rejected counts the throttled and the over-quota requests, on a line
	// of their own: under overload most requests add to them.
	_        [64]byte
	rejected [2]atomic.Uint64
}

func (s *Store) newGroup(k *kind, dims []Dimension, key string) *group {
	g := &group{kind: k, dims: dims, key: key, cur: make([]shardSlot, s.shards), mask: uint32(s.shards - 1)}
	g.hidden = slices.ContainsFunc(dims, func(d Dimension) bool { return d.Value == "" })
	g.hi = newRing[rslot](1, s.hiSlots)
	g.lo = newRing[rslot](60, s.loSlots)
	g.last.Store(math.MinInt64)
	return g
}

// shardSlot holds a shard's current window on a cache line of its own:
// every request reads it, so a neighbour written often (another shard's
// slot, or any small object the allocator put beside it) would make the
// line bounce between cores.
type shardSlot struct {
	w atomic.Pointer[window]
	_ [56]byte
}

// window counts one second of one shard.
type window struct {
	gen      atomic.Uint64 // odd while sealed; changes on every use
	sec      atomic.Int64
	inflight atomic.Int64
	class    [6]atomic.Uint64
	lat      dstat
	integ    dstat
	h        [2][denseLen]atomic.Uint32
}

type dstat struct{ sum, min, max atomic.Int64 }

func (d *dstat) add(v int64) {
	d.sum.Add(v)
	// Loads first: the extremes rarely move, and a load does not take the
	// cache line exclusively.
	for m := d.min.Load(); v < m && !d.min.CompareAndSwap(m, v); m = d.min.Load() {
	}
	for m := d.max.Load(); v > m && !d.max.CompareAndSwap(m, v); m = d.max.Load() {
	}
}

// Windows are reused through a pool shared by all groups; a window's
// generation tells a writer holding a stale pointer that it moved on.
var windows = sync.Pool{New: func() any {
	w := new(window)
	w.sec.Store(math.MinInt64)
	w.lat.min.Store(math.MaxInt64)
	w.integ.min.Store(math.MaxInt64)
	return w
}}

func getWindow(sec int64) *window {
	w := windows.Get().(*window)
	w.gen.Add(2)
	w.sec.Store(sec)
	return w
}

func putWindow(w *window) {
	w.sec.Store(math.MinInt64)
	windows.Put(w)
}

// shardToken picks a request's shard. sync.Pool keeps one per P (its
// private slot), so the requests one core runs keep counting on the same
// window, whose cache lines then stay in that core; tokens are numbered in
// turn, so the first Ps get distinct shards (the trick of xsync's Counter).
type shardToken struct{ idx uint32 }

var (
	shardTokens sync.Pool
	tokenSeq    atomic.Uint32
)

func (g *group) record(sm *sample) {
	t, ok := shardTokens.Get().(*shardToken)
	if !ok {
		t = &shardToken{idx: tokenSeq.Add(1)}
	}
	g.recordOn(sm, t.idx)
	shardTokens.Put(t)
}

func (g *group) recordOn(sm *sample, shard uint32) {
	sh := &g.cur[shard&g.mask].w
	for {
		w := sh.Load()
		if w == nil {
			g.install(sh, nil, sm.sec)
			continue
		}
		gen := w.gen.Load()
		if gen&1 != 0 {
			runtime.Gosched() // being retired; its successor is installed
			continue
		}
		switch ws := w.sec.Load(); {
		case ws == sm.sec:
			w.inflight.Add(1)
			if sh.Load() == w && w.gen.Load() == gen {
				w.add(sm)
				w.inflight.Add(-1)
				return
			}
			w.inflight.Add(-1)
		case ws < sm.sec:
			g.install(sh, w, sm.sec)
		default:
			// A request of a second already retired (its writer was slow,
			// or it was stamped earlier): straight into the rings.
			var r rslot
			r.addSample(sm)
			g.mu.Lock()
			g.absorb(sm.sec, &r)
			g.mu.Unlock()
			return
		}
	}
}

func (w *window) add(sm *sample) {
	w.class[sm.class].Add(1)
	w.lat.add(sm.lat)
	w.integ.add(sm.integ)
	w.h[0][sm.lk].Add(1)
	w.h[1][sm.ik].Add(1)
}

// install replaces old (nil: none) with a fresh window for sec, and retires
// old when it won.
func (g *group) install(sh *atomic.Pointer[window], old *window, sec int64) {
	nw := getWindow(sec)
	g.moving.Add(1)
	defer g.moving.Add(-1)
	if !sh.CompareAndSwap(old, nw) {
		putWindow(nw)
		return
	}
	// last moves here, once per second per shard: a store per request
	// would make the group's header a line every core writes.
	for l := g.last.Load(); sec > l && !g.last.CompareAndSwap(l, sec); l = g.last.Load() {
	}
	if old != nil {
		g.retire(old)
	}
}

// retire seals w, which is no longer current, waits for its writers and
// moves its counts into the rings.
func (g *group) retire(w *window) {
	w.gen.Add(1)
	for w.inflight.Load() != 0 {
		runtime.Gosched()
	}
	var r rslot
	for i := range w.class {
		r.class[i] = uint32(w.class[i].Swap(0))
	}
	r.lat = dsum{w.lat.sum.Swap(0), w.lat.min.Swap(math.MaxInt64), w.lat.max.Swap(math.MinInt64)}
	r.integ = dsum{w.integ.sum.Swap(0), w.integ.min.Swap(math.MaxInt64), w.integ.max.Swap(math.MinInt64)}
	for m := range w.h {
		for i := range w.h[m] {
			if c := w.h[m][i].Load(); c != 0 {
				w.h[m][i].Store(0)
				r.h[m] = append(r.h[m], bin{denseKey(i), c})
			}
		}
	}
	sec := w.sec.Load()
	w.gen.Add(1)
	putWindow(w)
	if r.count() == 0 {
		return
	}
	g.mu.Lock()
	g.absorb(sec, &r)
	g.mu.Unlock()
}

// flush retires every current window, so that reads see every request
// recorded before they started.
func (g *group) flush() {
	g.moving.Add(1)
	for i := range g.cur {
		if w := g.cur[i].w.Load(); w != nil && g.cur[i].w.CompareAndSwap(w, nil) {
			g.retire(w)
		}
	}
	g.moving.Add(-1)
	// A window another goroutine took out before this flush is still on
	// its way to the rings: wait for it, so that a read sees every request
	// recorded before it began.
	for g.moving.Load() != 0 {
		runtime.Gosched()
	}
}

// absorb adds one second's counts to the rings and the totals. g.mu is held.
func (g *group) absorb(sec int64, r *rslot) {
	if hs := g.hi.put(sec); hs != nil {
		hs.merge(r)
	}
	if ls := g.lo.put(sec - mod(sec, 60)); ls != nil {
		ls.merge(r)
	}
	g.totals.add(r)
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// rslot is one second or minute of a group.
type rslot struct {
	class [6]uint32 // requests by status class (71 million a second fit a minute)
	lat   dsum
	integ dsum
	h     [2]hist // latency, integration latency (milliseconds)
}

// dsum is a duration's sum and extremes in nanoseconds.
type dsum struct{ sum, min, max int64 }

func (r *rslot) count() uint64 {
	var n uint64
	for _, c := range r.class {
		n += uint64(c)
	}
	return n
}

func (r *rslot) addSample(sm *sample) {
	r.class[sm.class]++
	r.lat = dsum{sm.lat, sm.lat, sm.lat}
	r.integ = dsum{sm.integ, sm.integ, sm.integ}
	r.h[0] = hist{{denseKey(int(sm.lk)), 1}}
	r.h[1] = hist{{denseKey(int(sm.ik)), 1}}
}

func (r *rslot) merge(o *rslot) {
	if r.count() == 0 {
		r.lat.min, r.integ.min = math.MaxInt64, math.MaxInt64
		r.lat.max, r.integ.max = math.MinInt64, math.MinInt64
	}
	for i := range r.class {
		r.class[i] += o.class[i]
	}
	r.lat.merge(o.lat)
	r.integ.merge(o.integ)
	r.h[0] = r.h[0].merge(o.h[0])
	r.h[1] = r.h[1].merge(o.h[1])
}

func (d *dsum) merge(o dsum) {
	d.sum += o.sum
	d.min = min(d.min, o.min)
	d.max = max(d.max, o.max)
}
