package metrics

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/puzpuzpuz/xsync/v3"
)

// Regions keeps one Store per account and region, as CloudWatch keeps
// metrics: a client reads the metrics of the region it signs for.
type Regions struct {
	cfg    Config
	stores *xsync.MapOf[Scope, *Store]
	gen    atomic.Uint64
}

// Scope is an account and a region.
type Scope struct{ Account, Region string }

// NewRegions returns an empty set of stores, each made with c.
func NewRegions(c Config) *Regions {
	return &Regions{cfg: c, stores: xsync.NewMapOf[Scope, *Store]()}
}

// Of returns the scope's store, made on first use.
func (r *Regions) Of(account, region string) *Store {
	sc := Scope{account, region}
	if s, ok := r.stores.Load(sc); ok {
		return s
	}
	s, _ := r.stores.LoadOrCompute(sc, func() *Store { return New(r.cfg) })
	return s
}

// Reset forgets every store (the emulator's reset). A handle kept from
// before keeps recording into a store no read finds.
func (r *Regions) Reset() {
	r.stores.Clear()
	r.gen.Add(1)
}

// Generation changes on every Reset: a caller that keeps Route handles
// keeps them with the generation they were taken in.
func (r *Regions) Generation() uint64 { return r.gen.Load() }

// each calls fn for every store, ordered by account and region.
func (r *Regions) each(fn func(Scope, *Store)) {
	var scopes []Scope
	r.stores.Range(func(sc Scope, _ *Store) bool { scopes = append(scopes, sc); return true })
	slices.SortFunc(scopes, func(a, b Scope) int {
		if c := strings.Compare(a.Account, b.Account); c != 0 {
			return c
		}
		return strings.Compare(a.Region, b.Region)
	})
	for _, sc := range scopes {
		if s, ok := r.stores.Load(sc); ok {
			fn(sc, s)
		}
	}
}
