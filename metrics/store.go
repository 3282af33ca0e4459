package metrics

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/puzpuzpuz/xsync/v3"
)

// Defaults of Config, as CloudWatch keeps data: 1-second points for three
// hours, 1-minute points for fifteen days.
const (
	DefaultHighResRetention = 3 * time.Hour
	DefaultLowResRetention  = 15 * 24 * time.Hour
)

// Config configures a Store. Zero values take the defaults.
type Config struct {
	HighResRetention time.Duration    // 1-second data is kept this long
	LowResRetention  time.Duration    // 1-minute data is kept this long
	Now              func() time.Time // the clock; time.Now when nil
}

// Store holds every series. It is safe for concurrent use: recording is
// lock-free; a series' ring buffers have their own mutex, taken once per
// second per recording shard and by reads, never shared by all requests.
type Store struct {
	hiSlots, loSlots int64 // ring sizes
	now              func() time.Time
	shards           int

	groups  *xsync.MapOf[string, *group]      // request series of routes, by dimension key
	parents *xsync.MapOf[string, *parent]     // the coarser sets, by dimension key
	series  *xsync.MapOf[string, *series]     // PutMetricData series, by series key
	routes  *xsync.MapOf[routeKey, *group]    // the request path's cache
	keys    *xsync.MapOf[planKey, *KeyCounts] // usage plans' API keys
}

// New returns an empty store.
func New(c Config) *Store {
	if c.HighResRetention <= 0 {
		c.HighResRetention = DefaultHighResRetention
	}
	if c.LowResRetention <= 0 {
		c.LowResRetention = DefaultLowResRetention
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	// Twice as many shards as cores: each P keeps a shard token (see
	// shardToken), and spare shards keep the tokens made after a GC emptied
	// the pool from landing on a shard another core uses.
	shards := 1
	for shards < 2*runtime.GOMAXPROCS(0) && shards < 64 {
		shards <<= 1
	}
	return &Store{
		hiSlots: max(int64(c.HighResRetention/time.Second), 1),
		loSlots: max(int64(c.LowResRetention/time.Minute), 1),
		now:     c.Now,
		shards:  shards,
		groups:  xsync.NewMapOf[string, *group](),
		parents: xsync.NewMapOf[string, *parent](),
		series:  xsync.NewMapOf[string, *series](),
		routes:  xsync.NewMapOfWithHasher[routeKey, *group](hashRoute),
		keys:    newKeys(),
	}
}

// Dimension is one name=value pair of a series.
type Dimension struct {
	Name, Value string
}

// sortDims returns a sorted copy: a series is named by its set of
// dimensions, in whatever order a client sends them.
func sortDims(d []Dimension) []Dimension {
	out := slices.Clone(d)
	slices.SortFunc(out, func(a, b Dimension) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// dimKey encodes sorted dimensions; NUL cannot occur in names or values.
func dimKey(d []Dimension) string {
	var b strings.Builder
	for _, x := range d {
		b.WriteString(x.Name)
		b.WriteByte(0)
		b.WriteString(x.Value)
		b.WriteByte(0)
	}
	return b.String()
}

func seriesKey(ns, name string, sorted []Dimension) string {
	return ns + "\x00" + name + "\x00" + dimKey(sorted)
}

// Error is a request CloudWatch would refuse; Code is CloudWatch's error
// code (InvalidParameterValue, InvalidParameterCombination,
// MissingParameter, InvalidNextToken), for the caller to put on the wire.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return "metrics: " + e.Code + ": " + e.Message }

func errorf(code, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
