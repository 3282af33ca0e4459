package metrics

import (
	"math"
	"strconv"
	"sync"
	"time"
)

// series is one PutMetricData series. Puts carry timestamps anywhere in the
// retention, so each takes the series' own mutex: PutMetricData is not the
// request path, and no lock is shared between series.
type series struct {
	ns, name string
	dims     []Dimension // sorted
	key      string

	mu     sync.Mutex
	unit   string
	last   int64
	hi, lo ring[gslot]
}

// gslot is one second or minute of a series.
type gslot struct {
	sum, count, min, max float64
	h                    hist
	noPct                bool // fed by a statistic set: no distribution
}

func (a *gslot) merge(o *gslot) {
	if a.count == 0 {
		a.min, a.max = o.min, o.max
	} else {
		a.min, a.max = min(a.min, o.min), max(a.max, o.max)
	}
	a.sum += o.sum
	a.count += o.count
	a.h = a.h.merge(o.h)
	a.noPct = a.noPct || o.noPct
}

// StatisticSet is a datum's pre-aggregated samples.
type StatisticSet struct {
	Sum, SampleCount, Minimum, Maximum float64
}

// Datum is one element of PutMetricData's MetricData. Exactly one of
// Value, StatisticValues and Values is given; Counts, when given, pairs
// with Values (each count defaults to 1).
type Datum struct {
	MetricName        string
	Dimensions        []Dimension
	Timestamp         time.Time // zero: now
	Value             *float64
	StatisticValues   *StatisticSet
	Values, Counts    []float64
	Unit              string // "" is None
	StorageResolution int32  // accepted; every datum is kept at 1 second
}

// Put records PutMetricData's data under namespace. It validates the whole
// call first, as CloudWatch does, and records nothing when it refuses it.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricData.html
func (s *Store) Put(namespace string, data []Datum) error {
	if namespace == "" {
		return errorf("MissingParameter", "The parameter Namespace is required.")
	}
	if len(namespace) >= 4 && namespace[:4] == "AWS/" {
		return errorf("InvalidParameterValue", "The value %s for parameter Namespace is invalid.", namespace)
	}
	if len(data) == 0 {
		return errorf("MissingParameter", "The parameter MetricData is required.")
	}
	now := s.now()
	slots := make([]gslot, len(data))
	for i := range data {
		if err := datumSlot(&data[i], i+1, now, &slots[i]); err != nil {
			return err
		}
	}
	for i := range data {
		d := &data[i]
		dims := sortDims(d.Dimensions)
		key := seriesKey(namespace, d.MetricName, dims)
		sr, _ := s.series.LoadOrCompute(key, func() *series {
			return &series{ns: namespace, name: d.MetricName, dims: dims, key: key,
				hi: newRing[gslot](1, s.hiSlots), lo: newRing[gslot](60, s.loSlots), last: math.MinInt64}
		})
		at := now
		if !d.Timestamp.IsZero() {
			at = d.Timestamp
		}
		sec := at.Unix()
		sr.mu.Lock()
		unit := d.Unit
		if unit == "" {
			unit = "None"
		}
		if sr.unit == "" {
			sr.unit = unit
		}
		if hs := sr.hi.put(sec); hs != nil {
			hs.merge(&slots[i])
		}
		if ls := sr.lo.put(sec - mod(sec, 60)); ls != nil {
			ls.merge(&slots[i])
		}
		sr.last = max(sr.last, sec)
		sr.mu.Unlock()
	}
	return nil
}

// datumSlot checks datum n (1-based, as the wire names it) and reduces it.
func datumSlot(d *Datum, n int, now time.Time, g *gslot) error {
	p := func(f string) string { return "MetricData.member." + strconv.Itoa(n) + "." + f }
	if d.MetricName == "" {
		return errorf("MissingParameter", "The parameter %s is required.", p("MetricName"))
	}
	if len(d.Dimensions) > 30 {
		return errorf("InvalidParameterValue", "The collection %s must not have a size greater than 30.", p("Dimensions"))
	}
	for _, x := range d.Dimensions {
		if x.Name == "" || x.Value == "" {
			return errorf("InvalidParameterValue", "The dimensions of %s must have a name and a value.", p("Dimensions"))
		}
	}
	if !d.Timestamp.IsZero() && (d.Timestamp.Before(now.Add(-14*24*time.Hour)) || d.Timestamp.After(now.Add(2*time.Hour))) {
		return errorf("InvalidParameterValue", "The parameter %s must specify a time no more than two weeks in the past and two hours in the future.", p("Timestamp"))
	}
	given := 0
	for _, b := range []bool{d.Value != nil, d.StatisticValues != nil, len(d.Values) > 0} {
		if b {
			given++
		}
	}
	if given == 0 {
		return errorf("InvalidParameterCombination", "One of %s, %s or %s must be specified.", p("Value"), p("StatisticValues"), p("Values"))
	}
	if given > 1 {
		return errorf("InvalidParameterCombination", "Only one of %s, %s or %s may be specified.", p("Value"), p("StatisticValues"), p("Values"))
	}
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case d.Value != nil:
		v := *d.Value
		if bad(v) {
			return errorf("InvalidParameterValue", "The value %v for parameter %s is invalid.", v, p("Value"))
		}
		*g = gslot{sum: v, count: 1, min: v, max: v, h: hist{{keyOf(v), 1}}}
	case d.StatisticValues != nil:
		st := *d.StatisticValues
		if bad(st.Sum) || bad(st.SampleCount) || bad(st.Minimum) || bad(st.Maximum) || st.SampleCount <= 0 || st.Minimum > st.Maximum {
			return errorf("InvalidParameterValue", "The parameter %s is invalid.", p("StatisticValues"))
		}
		*g = gslot{sum: st.Sum, count: st.SampleCount, min: st.Minimum, max: st.Maximum}
		// CloudWatch answers percentiles of a statistic set only when it
		// tells the distribution: one sample, or all samples equal.
		if st.SampleCount == 1 || st.Minimum == st.Maximum {
			g.h = hist{{keyOf(st.Minimum), uint32(min(st.SampleCount, math.MaxUint32))}}
		} else {
			g.noPct = true
		}
	default:
		if len(d.Values) > 150 {
			return errorf("InvalidParameterValue", "The collection %s must not have a size greater than 150.", p("Values"))
		}
		if len(d.Counts) > 0 && len(d.Counts) != len(d.Values) {
			return errorf("InvalidParameterValue", "The parameters %s and %s must be of the same size.", p("Values"), p("Counts"))
		}
		g.min, g.max = math.Inf(1), math.Inf(-1)
		for j, v := range d.Values {
			c := 1.0
			if len(d.Counts) > 0 {
				c = d.Counts[j]
			}
			if bad(v) || bad(c) || c < 0 {
				return errorf("InvalidParameterValue", "The parameter %s is invalid.", p("Values"))
			}
			if c == 0 {
				continue
			}
			g.sum += v * c
			g.count += c
			g.min, g.max = min(g.min, v), max(g.max, v)
			g.h = g.h.add(keyOf(v), uint32(min(c, math.MaxUint32)))
		}
		if g.count == 0 {
			return errorf("InvalidParameterValue", "The parameter %s has no samples.", p("Counts"))
		}
	}
	return nil
}
