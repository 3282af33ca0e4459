package metrics

import (
	"encoding/base64"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Statistic names CloudWatch accepts in Statistics.
const (
	Sum         = "Sum"
	SampleCount = "SampleCount"
	Average     = "Average"
	Minimum     = "Minimum"
	Maximum     = "Maximum"
)

// Limits of CloudWatch's reads.
const (
	MaxStatisticsDatapoints = 1440   // GetMetricStatistics, per call
	MaxMetricDataDatapoints = 100800 // GetMetricData, per call
	ListMetricsPage         = 500
)

// stat is a parsed statistic: one of the five, or a percentile.
type stat struct {
	name string
	p    float64 // > 0 for a percentile
}

func parseStat(s string, extended bool) (stat, bool) {
	switch s {
	case Sum, SampleCount, Average, Minimum, Maximum:
		return stat{name: s}, !extended
	}
	if !extended || len(s) < 2 || s[0] != 'p' {
		return stat{}, false
	}
	num := s[1:]
	if i := strings.IndexByte(num, '.'); i >= 0 && (len(num)-i-1 > 2 || i == len(num)-1) {
		return stat{}, false // at most two decimals, as CloudWatch
	}
	p, err := strconv.ParseFloat(num, 64)
	if err != nil || num[0] == '+' || num[0] == '-' || p <= 0 || p > 100 {
		return stat{}, false
	}
	return stat{name: s, p: p}, true
}

// agg is one period's aggregate of a metric.
type agg struct {
	sum, count, min, max float64
	noPct, wantH         bool
	acc                  histAcc
}

func (a *agg) reset() {
	a.sum, a.count, a.min, a.max, a.noPct = 0, 0, math.Inf(1), math.Inf(-1), false
	a.acc.reset()
}

func (a *agg) value(st stat) float64 {
	switch {
	case st.p > 0:
		if a.noPct || a.acc.total == 0 {
			return math.NaN()
		}
		return a.acc.percentile(st.p, a.min, a.max)
	case st.name == Sum:
		return a.sum
	case st.name == SampleCount:
		return a.count
	case st.name == Average:
		return a.sum / a.count
	case st.name == Minimum:
		return a.min
	default:
		return a.max
	}
}

func (a *agg) addSeries(g *gslot) {
	a.sum += g.sum
	a.count += g.count
	a.min, a.max = min(a.min, g.min), max(a.max, g.max)
	a.noPct = a.noPct || g.noPct
	if a.wantH {
		a.acc.addHist(g.h)
	}
}

// addGroup adds metric m of a request slot: Count is n samples of 1; the
// error metrics are n samples of 0 or 1; latencies are in milliseconds.
func (a *agg) addGroup(r *rslot, m int) {
	n := r.count()
	if n == 0 {
		return
	}
	fn := float64(n)
	a.count += fn
	one := keyOf(1)
	switch m {
	case mCount:
		a.sum += fn
		a.min, a.max = min(a.min, 1), max(a.max, 1)
		if a.wantH {
			a.acc.add(one, n)
		}
	case m4xx, m5xx:
		e := uint64(r.class[4])
		if m == m5xx {
			e = uint64(r.class[5])
		}
		a.sum += float64(e)
		lo, hi := 0.0, 0.0
		if e == n {
			lo = 1
		}
		if e > 0 {
			hi = 1
		}
		a.min, a.max = min(a.min, lo), max(a.max, hi)
		if a.wantH {
			a.acc.add(0, n-e)
			a.acc.add(one, e)
		}
	default:
		d, h := r.lat, r.h[0]
		if m == mIntegration {
			d, h = r.integ, r.h[1]
		}
		a.sum += float64(d.sum) / 1e6
		a.min, a.max = min(a.min, float64(d.min)/1e6), max(a.max, float64(d.max)/1e6)
		if a.wantH {
			a.acc.addHist(h)
		}
	}
}

// sources are what answers one metric: the request series (one route, or
// the routes a coarser set sums) and the PutMetricData series of the same
// name (both may exist).
type sources struct {
	gs   []*group
	m    int
	s    *series
	unit string
}

func (s *Store) resolve(ns, name string, dims []Dimension) (src sources) {
	sorted := sortDims(dims)
	if ns == Namespaces[0] || ns == Namespaces[1] {
		key := dimKey(sorted)
		var k *kind
		if g, ok := s.groups.Load(key); ok && !g.hidden {
			src.gs, k = []*group{g}, g.kind
		} else if p, ok := s.parents.Load(key); ok {
			src.gs, k = p.members(), p.kind
		}
		i := -1
		if k != nil {
			i = slices.Index(k.names[:], name)
		}
		if i >= 0 {
			src.m, src.unit = i, k.units[i]
		} else {
			src.gs = nil
		}
	}
	if sr, ok := s.series.Load(seriesKey(ns, name, sorted)); ok {
		src.s = sr
		sr.mu.Lock()
		if src.unit == "" {
			src.unit = sr.unit
		}
		sr.mu.Unlock()
	}
	return src
}

// window is a query's time range in unix seconds, aligned as CloudWatch
// aligns it: the start rounded down to the minute when the period is a
// minute or more, else to a multiple of the period; the end exclusive.
type span struct{ start, end, period int64 }

func checkSpan(start, end time.Time, period int32, limit int64) (span, error) {
	if start.IsZero() {
		return span{}, errorf("MissingParameter", "The parameter StartTime is required.")
	}
	if end.IsZero() {
		return span{}, errorf("MissingParameter", "The parameter EndTime is required.")
	}
	p := int64(period)
	switch {
	case p <= 0:
		return span{}, errorf("InvalidParameterValue", "The parameter Period must be greater than 0.")
	case p < 60 && p != 1 && p != 5 && p != 10 && p != 30, p >= 60 && p%60 != 0:
		return span{}, errorf("InvalidParameterValue", "The parameter Period must be 1, 5, 10, 30 or a multiple of 60.")
	}
	if !start.Before(end) {
		return span{}, errorf("InvalidParameterValue", "The parameter StartTime must be less than the parameter EndTime.")
	}
	sp := span{start: start.Unix(), end: end.Unix(), period: p}
	if end.Nanosecond() > 0 {
		sp.end++
	}
	sp.start -= mod(sp.start, min(p, 60))
	if n := (sp.end - sp.start + p - 1) / p; limit > 0 && n > limit {
		return span{}, errorf("InvalidParameterCombination", "You have requested up to %d datapoints, which exceeds the limit of %d. You may reduce the datapoints requested by increasing Period, or decreasing the time range.", n, limit)
	}
	return sp, nil
}

// scan calls fn with each period of sp that has data, oldest first. Periods
// under a minute read 1-second data (none past its retention, as
// CloudWatch); the others read 1-minute data.
func (s *Store) scan(src sources, sp span, wantH bool, fn func(start int64, a *agg)) {
	if len(src.gs) == 0 && src.s == nil {
		return
	}
	now := s.now().Unix()
	step, oldest := int64(60), now-s.loSlots*60
	if sp.period < 60 {
		step, oldest = 1, now-s.hiSlots
	}
	oldest -= mod(oldest, step)
	for _, g := range src.gs {
		g.flush()
	}
	// Locks are taken per period and series, not for the whole read: the
	// first request of each second retires a window under its series'
	// lock, and must not wait for a long read.
	a := agg{wantH: wantH}
	for ps := sp.start; ps < sp.end; ps += sp.period {
		a.reset()
		from, to := max(ps, oldest), min(ps+sp.period, sp.end)
		for _, g := range src.gs {
			r := &g.hi
			if step == 60 {
				r = &g.lo
			}
			g.mu.Lock()
			for t := from; t < to; t += step {
				if x := r.get(t); x != nil {
					a.addGroup(x, src.m)
				}
			}
			g.mu.Unlock()
		}
		if src.s != nil {
			r := &src.s.hi
			if step == 60 {
				r = &src.s.lo
			}
			src.s.mu.Lock()
			for t := from; t < to; t += step {
				if x := r.get(t); x != nil {
					a.addSeries(x)
				}
			}
			src.s.mu.Unlock()
		}
		if a.count > 0 {
			fn(ps, &a)
		}
	}
}

// StatisticsQuery is GetMetricStatistics' input.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetMetricStatistics.html
type StatisticsQuery struct {
	Namespace, MetricName          string
	Dimensions                     []Dimension // the exact set
	StartTime, EndTime             time.Time
	Period                         int32 // seconds
	Statistics, ExtendedStatistics []string
	Unit                           string // "": any
}

// Datapoint is one period of GetMetricStatistics' answer. Statistics and
// Extended are aligned with the query's Statistics and ExtendedStatistics;
// an extended value is NaN when it cannot be computed (a statistic set with
// several distinct samples) and is then left out on the wire.
type Datapoint struct {
	Timestamp  time.Time
	Unit       string
	Statistics []float64
	Extended   []float64
}

// StatisticsResult is GetMetricStatistics' output.
type StatisticsResult struct {
	Label      string
	Datapoints []Datapoint // oldest first; periods without data are left out
}

// GetMetricStatistics answers one metric's statistics per period.
func (s *Store) GetMetricStatistics(q StatisticsQuery) (StatisticsResult, error) {
	if q.Namespace == "" || q.MetricName == "" {
		return StatisticsResult{}, errorf("MissingParameter", "The parameters Namespace and MetricName are required.")
	}
	if len(q.Statistics) == 0 && len(q.ExtendedStatistics) == 0 {
		return StatisticsResult{}, errorf("MissingParameter", "Must specify either Statistics or ExtendedStatistics.")
	}
	if len(q.Statistics) > 5 || len(q.ExtendedStatistics) > 10 {
		return StatisticsResult{}, errorf("InvalidParameterValue", "At most 5 Statistics and 10 ExtendedStatistics may be requested.")
	}
	stats := make([]stat, 0, len(q.Statistics)+len(q.ExtendedStatistics))
	for i, n := range append(slices.Clip(q.Statistics), q.ExtendedStatistics...) {
		st, ok := parseStat(n, i >= len(q.Statistics))
		if !ok {
			return StatisticsResult{}, errorf("InvalidParameterValue", "The value %s for statistic is invalid.", n)
		}
		stats = append(stats, st)
	}
	sp, err := checkSpan(q.StartTime, q.EndTime, q.Period, MaxStatisticsDatapoints)
	if err != nil {
		return StatisticsResult{}, err
	}
	res := StatisticsResult{Label: q.MetricName}
	src := s.resolve(q.Namespace, q.MetricName, q.Dimensions)
	if q.Unit != "" && q.Unit != src.unit {
		return res, nil
	}
	wantH := len(q.ExtendedStatistics) > 0
	var vals []float64
	s.scan(src, sp, wantH, func(ps int64, a *agg) {
		if cap(vals)-len(vals) < len(stats) {
			vals = make([]float64, 0, 64*len(stats))
		}
		at := len(vals)
		for _, st := range stats {
			vals = append(vals, a.value(st))
		}
		v := vals[at:len(vals):len(vals)]
		res.Datapoints = append(res.Datapoints, Datapoint{
			Timestamp:  time.Unix(ps, 0).UTC(),
			Unit:       src.unit,
			Statistics: v[:len(q.Statistics)],
			Extended:   v[len(q.Statistics):],
		})
	})
	return res, nil
}

// MetricStatQuery is one MetricStat query of GetMetricData.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetMetricData.html
type MetricStatQuery struct {
	Namespace, MetricName string
	Dimensions            []Dimension
	Period                int32
	Stat                  string // Sum, SampleCount, Average, Minimum, Maximum or pNN.NN
	Unit                  string
	StartTime, EndTime    time.Time
	ScanBy                string // TimestampDescending (default) or TimestampAscending
}

// MetricStatResult is one MetricDataResult: periods with data, newest
// first unless ScanBy is TimestampAscending.
type MetricStatResult struct {
	Label      string
	Timestamps []time.Time
	Values     []float64
}

// MetricStat answers one MetricStat query. Paging over several queries
// (MaxDatapoints, NextToken) is the caller's.
func (s *Store) MetricStat(q MetricStatQuery) (MetricStatResult, error) {
	if q.Namespace == "" || q.MetricName == "" {
		return MetricStatResult{}, errorf("MissingParameter", "The parameters Namespace and MetricName are required.")
	}
	st, ok := parseStat(q.Stat, false)
	if !ok {
		if st, ok = parseStat(q.Stat, true); !ok {
			return MetricStatResult{}, errorf("InvalidParameterValue", "The value %s for parameter MetricStat.Stat is invalid.", q.Stat)
		}
	}
	if q.ScanBy != "" && q.ScanBy != "TimestampDescending" && q.ScanBy != "TimestampAscending" {
		return MetricStatResult{}, errorf("InvalidParameterValue", "The value %s for parameter ScanBy is invalid.", q.ScanBy)
	}
	sp, err := checkSpan(q.StartTime, q.EndTime, q.Period, MaxMetricDataDatapoints)
	if err != nil {
		return MetricStatResult{}, err
	}
	res := MetricStatResult{Label: q.MetricName}
	src := s.resolve(q.Namespace, q.MetricName, q.Dimensions)
	if q.Unit != "" && q.Unit != src.unit {
		return res, nil
	}
	s.scan(src, sp, st.p > 0, func(ps int64, a *agg) {
		if v := a.value(st); !math.IsNaN(v) {
			res.Timestamps = append(res.Timestamps, time.Unix(ps, 0).UTC())
			res.Values = append(res.Values, v)
		}
	})
	if q.ScanBy != "TimestampAscending" {
		slices.Reverse(res.Timestamps)
		slices.Reverse(res.Values)
	}
	return res, nil
}

// DimensionFilter matches series having dimension Name, with Value unless
// Value is empty.
type DimensionFilter struct {
	Name, Value string
}

// ListMetricsQuery is ListMetrics' input.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_ListMetrics.html
type ListMetricsQuery struct {
	Namespace, MetricName string // "": any
	Dimensions            []DimensionFilter
	RecentlyActive        string // "PT3H": only metrics with data in the past three hours
	NextToken             string
}

// Metric names one series.
type Metric struct {
	Namespace, MetricName string
	Dimensions            []Dimension // sorted by name
}

// ListMetrics lists the series that match, with data within the retention,
// ordered by namespace, name and dimensions, ListMetricsPage at a time; the
// token is the next page's, "" on the last.
func (s *Store) ListMetrics(q ListMetricsQuery) ([]Metric, string, error) {
	if len(q.Dimensions) > 10 {
		return nil, "", errorf("InvalidParameterValue", "The collection Dimensions must not have a size greater than 10.")
	}
	if q.RecentlyActive != "" && q.RecentlyActive != "PT3H" {
		return nil, "", errorf("InvalidParameterValue", "The value %s for parameter RecentlyActive is invalid.", q.RecentlyActive)
	}
	after := ""
	if q.NextToken != "" {
		b, err := base64.RawURLEncoding.DecodeString(q.NextToken)
		if err != nil || len(b) == 0 {
			return nil, "", errorf("InvalidNextToken", "The service couldn't process the token.")
		}
		after = string(b)
	}
	now := s.now().Unix()
	since := now - s.loSlots*60
	if q.RecentlyActive != "" {
		since = now - 3*3600
	}
	type item struct {
		key string
		m   Metric
	}
	var items []item
	add := func(ns, name string, dims []Dimension) {
		if (q.Namespace != "" && ns != q.Namespace) || (q.MetricName != "" && name != q.MetricName) || !matches(dims, q.Dimensions) {
			return
		}
		if k := seriesKey(ns, name, dims); k > after {
			items = append(items, item{k, Metric{ns, name, dims}})
		}
	}
	s.groups.Range(func(_ string, g *group) bool {
		if !g.hidden && g.last.Load() >= since {
			for _, ns := range Namespaces {
				for _, name := range g.kind.names {
					add(ns, name, g.dims)
				}
			}
		}
		return true
	})
	s.parents.Range(func(_ string, p *parent) bool {
		last := int64(math.MinInt64)
		for _, g := range p.members() {
			last = max(last, g.last.Load())
		}
		if last >= since {
			for _, ns := range Namespaces {
				for _, name := range p.kind.names {
					add(ns, name, p.dims)
				}
			}
		}
		return true
	})
	s.series.Range(func(_ string, sr *series) bool {
		sr.mu.Lock()
		last := sr.last
		sr.mu.Unlock()
		if last >= since {
			add(sr.ns, sr.name, sr.dims)
		}
		return true
	})
	slices.SortFunc(items, func(a, b item) int { return strings.Compare(a.key, b.key) })
	items = slices.CompactFunc(items, func(a, b item) bool { return a.key == b.key })
	next := ""
	if len(items) > ListMetricsPage {
		items = items[:ListMetricsPage]
		next = base64.RawURLEncoding.EncodeToString([]byte(items[len(items)-1].key))
	}
	out := make([]Metric, len(items))
	for i, it := range items {
		out[i] = Metric{it.m.Namespace, it.m.MetricName, slices.Clone(it.m.Dimensions)}
	}
	return out, next, nil
}

func matches(dims []Dimension, fs []DimensionFilter) bool {
	for _, f := range fs {
		if !slices.ContainsFunc(dims, func(d Dimension) bool { return d.Name == f.Name && (f.Value == "" || d.Value == f.Value) }) {
			return false
		}
	}
	return true
}
