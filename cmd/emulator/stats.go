package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/inithook"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// `emulator stats` scrapes the emulator's Prometheus endpoint and shows,
// per API and stage, the rates of the last interval: what a throttling
// experiment needs to watch while it runs.

const (
	statsPath = "/_emulator/metrics"
	// statsTimeout bounds one scrape: a hung emulator shows as an error
	// instead of freezing the view.
	statsTimeout = 5 * time.Second
	// statsMaxBody bounds what one scrape reads.
	statsMaxBody = 64 << 20
	// clearScreen moves the cursor home and clears the terminal.
	clearScreen = "\x1b[H\x1b[2J"
)

// statsNow is the clock scrapes are stamped with; tests replace it so that
// rates do not depend on the scheduler.
var statsNow = time.Now

const statsUsage = "usage: emulator stats [--endpoint URL] [--interval 1s] [--no-stream] [--api NAME]"

// statsConfig is what the command line chose.
type statsConfig struct {
	endpoint string // the emulator's base URL
	interval time.Duration
	noStream bool
	api      string
}

// runStats runs `emulator stats` with the arguments after "stats".
func runStats(args []string, stdout, stderr io.Writer, lookup func(string) (string, bool)) error {
	var c statsConfig
	fs := flag.NewFlagSet("emulator stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.endpoint, "endpoint", "", "the emulator's `URL` (default: EMULATOR_ENDPOINT, else http://EMULATOR_HOST:EMULATOR_PORT)")
	fs.DurationVar(&c.interval, "interval", time.Second, "time between scrapes; rates are per second over it")
	fs.BoolVar(&c.noStream, "no-stream", false, "print one table after two scrapes one interval apart, then exit (the default when stdout is not a terminal)")
	fs.StringVar(&c.api, "api", "", "show only the API with this `NAME` (its name, or its id for HTTP APIs)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), statsUsage)
		fmt.Fprintln(fs.Output(), "\nShows, per deployed API and stage, requests, admitted, throttled and over-quota requests,")
		fmt.Fprintln(fs.Output(), "4xx and 5xx per second and p50/p99 latency over each interval, from "+statsPath+".")
		fmt.Fprintln(fs.Output(), "\nFlags:")
		fs.PrintDefaults()
	}
	if wantsHelp(args) {
		fs.SetOutput(stdout)
		fs.Usage()
		return nil
	}
	if err := fs.Parse(args); err != nil {
		return errFlags
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (%s)", fs.Arg(0), statsUsage)}
	}
	if c.interval <= 0 {
		return usageError{fmt.Sprintf("--interval %v: must be positive", c.interval)}
	}
	endpoint, err := statsEndpoint(c.endpoint, lookup)
	if err != nil {
		return err
	}
	c.endpoint = endpoint

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := newScraper(c.endpoint)
	defer s.close()
	if c.noStream || !isTerminal(stdout) {
		return statsOnce(ctx, s, c, stdout)
	}
	return statsStream(ctx, s, c, stdout)
}

// statsEndpoint is the flag, else EMULATOR_ENDPOINT, else where the
// emulator's own configuration makes it listen, as the init hooks see it.
func statsEndpoint(flagValue string, lookup func(string) (string, bool)) (string, error) {
	name, v := "--endpoint", flagValue
	if v == "" {
		if e, ok := lookup("EMULATOR_ENDPOINT"); ok && e != "" {
			name, v = "EMULATOR_ENDPOINT", e
		}
	}
	if v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", &config.Error{Var: name, Value: v, Reason: "must be a URL such as http://localhost:4566"}
		}
		return strings.TrimRight(v, "/"), nil
	}
	cfg, err := config.FromEnv(lookup)
	if err != nil {
		return "", err
	}
	e := inithook.EndpointURL(cfg.Host, cfg.Port)
	if e == "" {
		return "", &config.Error{Var: "EMULATOR_PORT", Value: "0", Reason: "a picked port cannot be found from here; pass --endpoint with the logged address"}
	}
	return e, nil
}

// isTerminal reports whether w is a character device, where redrawing
// makes sense; anything else (a pipe, a file, a buffer) gets one table.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// statsOnce prints one table over one interval: the mode of scripts and
// tests. Every failure ends the command.
func statsOnce(ctx context.Context, s *scraper, c statsConfig, w io.Writer) error {
	prev, err := s.scrape(ctx)
	if err != nil {
		return quiet(ctx, err)
	}
	t := time.NewTimer(c.interval)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil
	case <-t.C:
	}
	cur, err := s.scrape(ctx)
	if err != nil {
		return quiet(ctx, err)
	}
	return renderStats(w, viewOf(c, prev, cur))
}

// statsStream redraws the table every interval until interrupted. A
// failed scrape is shown in the header and retried; the last good scrape
// stays the baseline, so the next rates cover the outage.
func statsStream(ctx context.Context, s *scraper, c statsConfig, w io.Writer) error {
	tick := time.NewTicker(c.interval)
	defer tick.Stop()
	var prev *statsSnapshot
	for {
		cur, err := s.scrape(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var v statsView
		if err != nil {
			v = statsView{Endpoint: c.endpoint, Interval: c.interval, At: statsNow(), Err: err}
		} else {
			v = viewOf(c, prev, cur)
			prev = cur
		}
		var buf bytes.Buffer
		buf.WriteString(clearScreen)
		if err := renderStats(&buf, v); err != nil {
			return err
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// quiet drops the error of a scrape that Ctrl-C interrupted.
func quiet(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// viewOf is what one screen shows; prev nil is the first scrape, which has
// no rates yet.
func viewOf(c statsConfig, prev, cur *statsSnapshot) statsView {
	v := statsView{Endpoint: c.endpoint, Interval: c.interval, At: cur.at, Enforced: cur.enforced, Usage: cur.usage, API: c.api}
	if prev == nil {
		v.Waiting = true
		return v
	}
	v.Rows = diffStats(prev, cur, cur.at.Sub(prev.at))
	if c.api != "" {
		v.Rows = slices.DeleteFunc(v.Rows, func(r statsRow) bool { return r.API != c.api })
	}
	return v
}

// scraper reads the metrics endpoint.
type scraper struct {
	endpoint, url string
	client        *http.Client
	transport     *http.Transport
}

func newScraper(endpoint string) *scraper {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: statsTimeout}).DialContext,
		ResponseHeaderTimeout: statsTimeout,
		MaxIdleConnsPerHost:   1,
		IdleConnTimeout:       time.Minute,
	}
	return &scraper{endpoint: endpoint, url: endpoint + statsPath, transport: tr,
		client: &http.Client{Transport: tr, Timeout: statsTimeout}}
}

func (s *scraper) close() { s.transport.CloseIdleConnections() }

// scrape reads and parses one exposition, stamped with statsNow. Its
// errors are one line naming the endpoint.
func (s *scraper) scrape(ctx context.Context) (*statsSnapshot, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", s.url, err)
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the emulator at %s: %s", s.endpoint, reason(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, fmt.Errorf("%s answered %s (an emulator without metrics?)", s.url, resp.Status)
	}
	snap, err := parseStats(io.LimitReader(resp.Body, statsMaxBody))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", s.url, err)
	}
	snap.at = statsNow()
	return snap, nil
}

// reason is the innermost useful words of a client error: "connect:
// connection refused", not the request's whole description again.
func reason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Sprintf("no answer within %v", statsTimeout)
		}
		err = ue.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		err = oe.Err
	}
	return err.Error()
}

// statsKey is one line of the table: the labels not summed over.
type statsKey struct{ Kind, API, Stage string }

// statsCounter is one counter series.
type statsCounter struct {
	key   statsKey
	what  int // one of the counter kinds below
	value float64
}

// The counters the table reads. A request's status class is a kind of its
// own, so that 4xx and 5xx come from the same series as requests.
const (
	cRequests = iota
	cRequests4xx
	cRequests5xx
	cThrottled
	cQuota
)

// statsBucket is one cumulative histogram bucket.
type statsBucket struct{ le, count float64 }

// statsHistogram is one latency series: cumulative buckets by ascending
// upper bound, the last one +Inf.
type statsHistogram struct {
	key     statsKey
	buckets []statsBucket
}

// statsKeyUsage is one API key's usage under one plan.
type statsKeyUsage struct {
	Region, Plan, Key string
	Used              float64
	Remaining         float64 // NaN: the plan has no quota
}

// statsSnapshot is one scrape. Series are keyed by family and every label,
// so that a reset is seen series by series.
type statsSnapshot struct {
	at       time.Time
	enforced bool
	counters map[string]statsCounter
	latency  map[string]statsHistogram
	usage    []statsKeyUsage
}

const (
	famRequests  = "emulator_apigateway_requests_total"
	famLatency   = "emulator_apigateway_latency_seconds"
	famThrottled = "emulator_apigateway_throttled_total"
	famQuota     = "emulator_apigateway_quota_exceeded_total"
	famEnforced  = "emulator_apigateway_throttle_enforced"
	famUsed      = "emulator_apigateway_usage_plan_used_requests"
	famRemaining = "emulator_apigateway_usage_plan_remaining_requests"
)

// parseStats reads a Prometheus text exposition. A family that is absent
// has no samples yet and counts as zero; families the table does not show
// are ignored.
func parseStats(r io.Reader) (*statsSnapshot, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, err
	}
	s := &statsSnapshot{counters: map[string]statsCounter{}, latency: map[string]statsHistogram{}}
	for _, m := range fams[famRequests].GetMetric() {
		what := cRequests
		switch labelOf(m, "status_class") {
		case "4xx":
			what = cRequests4xx
		case "5xx":
			what = cRequests5xx
		}
		s.counters[seriesID(famRequests, m)] = statsCounter{keyOf(m), what, sampleValue(m)}
	}
	for fam, what := range map[string]int{famThrottled: cThrottled, famQuota: cQuota} {
		for _, m := range fams[fam].GetMetric() {
			s.counters[seriesID(fam, m)] = statsCounter{keyOf(m), what, sampleValue(m)}
		}
	}
	for _, m := range fams[famLatency].GetMetric() {
		h := m.GetHistogram()
		if h == nil {
			continue
		}
		bs := make([]statsBucket, 0, len(h.GetBucket())+1)
		for _, b := range h.GetBucket() {
			bs = append(bs, statsBucket{b.GetUpperBound(), float64(b.GetCumulativeCount())})
		}
		slices.SortFunc(bs, func(a, b statsBucket) int { return cmp.Compare(a.le, b.le) })
		// The text format may leave +Inf implicit in the count.
		if len(bs) == 0 || !math.IsInf(bs[len(bs)-1].le, 1) {
			bs = append(bs, statsBucket{math.Inf(1), float64(h.GetSampleCount())})
		}
		s.latency[seriesID(famLatency, m)] = statsHistogram{keyOf(m), bs}
	}
	for _, m := range fams[famEnforced].GetMetric() {
		s.enforced = s.enforced || sampleValue(m) != 0
	}
	usage := map[string]*statsKeyUsage{}
	for i, fam := range []string{famUsed, famRemaining} {
		for _, m := range fams[fam].GetMetric() {
			id := labelOf(m, "account") + "\xff" + labelOf(m, "region") + "\xff" + labelOf(m, "plan") + "\xff" + labelOf(m, "key")
			u := usage[id]
			if u == nil {
				u = &statsKeyUsage{Region: labelOf(m, "region"), Plan: labelOf(m, "plan"), Key: labelOf(m, "key"), Remaining: math.NaN()}
				usage[id] = u
			}
			if i == 0 {
				u.Used = sampleValue(m)
			} else {
				u.Remaining = sampleValue(m)
			}
		}
	}
	for _, u := range usage {
		s.usage = append(s.usage, *u)
	}
	slices.SortFunc(s.usage, func(a, b statsKeyUsage) int {
		return cmp.Or(strings.Compare(a.Plan, b.Plan), strings.Compare(a.Key, b.Key), strings.Compare(a.Region, b.Region))
	})
	return s, nil
}

// keyOf is the series' line of the table; region, account, method, route
// and status class are summed over.
func keyOf(m *dto.Metric) statsKey {
	return statsKey{Kind: labelOf(m, "kind"), API: labelOf(m, "api"), Stage: labelOf(m, "stage")}
}

func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// seriesID names a series by its family and every label, in label order
// (the parser keeps the exposition's order, which need not be sorted).
func seriesID(fam string, m *dto.Metric) string {
	ls := slices.Clone(m.GetLabel())
	slices.SortFunc(ls, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
	var b strings.Builder
	b.WriteString(fam)
	for _, l := range ls {
		b.WriteString("\xff" + l.GetName() + "\xfe" + l.GetValue())
	}
	return b.String()
}

// sampleValue reads a counter, gauge or untyped sample (an exposition
// without # TYPE lines parses as untyped).
func sampleValue(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

// statsRow is one line of the table: rates per second over the interval,
// latencies in seconds (NaN: no request in the interval).
type statsRow struct {
	statsKey
	Requests, Admitted, Throttled, Quota, C4xx, C5xx float64
	P50, P99                                         float64
}

// diffStats turns two scrapes into the table's rows, one per (kind, API,
// stage) present in cur, sorted by requests per second, then by name. A
// series that went down was reset (the emulator restarted or was reset):
// its baseline is zero again, never a negative rate.
func diffStats(prev, cur *statsSnapshot, elapsed time.Duration) []statsRow {
	type acc struct {
		counts  [5]float64
		buckets map[float64]float64
	}
	accs := map[statsKey]*acc{}
	get := func(k statsKey) *acc {
		a := accs[k]
		if a == nil {
			a = &acc{buckets: map[float64]float64{}}
			accs[k] = a
		}
		return a
	}
	for id, c := range cur.counters {
		d := c.value
		if p, ok := prev.counters[id]; ok && p.value <= c.value {
			d -= p.value
		}
		get(c.key).counts[c.what] += d
	}
	for id, h := range cur.latency {
		a := get(h.key)
		p, ok := prev.latency[id]
		follows := ok && !histogramReset(p, h)
		for i, b := range h.buckets {
			d := b.count
			if follows {
				d -= p.buckets[i].count
			}
			a.buckets[b.le] += d
		}
	}
	secs := elapsed.Seconds()
	rate := func(n float64) float64 {
		if secs <= 0 {
			return 0
		}
		return n / secs
	}
	rows := make([]statsRow, 0, len(accs))
	for k, a := range accs {
		reqs := a.counts[cRequests] + a.counts[cRequests4xx] + a.counts[cRequests5xx]
		admitted := reqs
		if cur.enforced {
			admitted = max(0, reqs-a.counts[cThrottled]-a.counts[cQuota])
		}
		bs := make([]statsBucket, 0, len(a.buckets))
		for le, n := range a.buckets {
			bs = append(bs, statsBucket{le, n})
		}
		slices.SortFunc(bs, func(a, b statsBucket) int { return cmp.Compare(a.le, b.le) })
		rows = append(rows, statsRow{statsKey: k,
			Requests: rate(reqs), Admitted: rate(admitted), Throttled: rate(a.counts[cThrottled]),
			Quota: rate(a.counts[cQuota]), C4xx: rate(a.counts[cRequests4xx]), C5xx: rate(a.counts[cRequests5xx]),
			P50: bucketQuantile(0.5, bs), P99: bucketQuantile(0.99, bs)})
	}
	slices.SortFunc(rows, func(a, b statsRow) int {
		return cmp.Or(cmp.Compare(b.Requests, a.Requests),
			strings.Compare(a.API, b.API), strings.Compare(a.Stage, b.Stage), strings.Compare(a.Kind, b.Kind))
	})
	return rows
}

// histogramReset reports whether cur cannot follow prev: a bucket went
// down, or the buckets changed.
func histogramReset(prev, cur statsHistogram) bool {
	if len(prev.buckets) != len(cur.buckets) {
		return true
	}
	for i, b := range cur.buckets {
		if p := prev.buckets[i]; p.le != b.le || p.count > b.count {
			return true
		}
	}
	return false
}

// bucketQuantile is Prometheus' histogram_quantile over cumulative buckets
// sorted by upper bound, the last +Inf: linear interpolation inside the
// bucket that holds the rank, the first bucket starting at 0, and the
// highest finite bound for a rank in +Inf. NaN when there is no
// observation.
func bucketQuantile(q float64, buckets []statsBucket) float64 {
	if len(buckets) < 2 || !math.IsInf(buckets[len(buckets)-1].le, 1) {
		return math.NaN()
	}
	// Sums of deltas may be slightly off; keep the counts monotonic as
	// Prometheus does.
	bs := slices.Clone(buckets)
	for i := 1; i < len(bs); i++ {
		bs[i].count = max(bs[i].count, bs[i-1].count)
	}
	total := bs[len(bs)-1].count
	if total <= 0 {
		return math.NaN()
	}
	rank := q * total
	b := sort.Search(len(bs)-1, func(i int) bool { return bs[i].count >= rank })
	if b == len(bs)-1 {
		return bs[len(bs)-2].le
	}
	if b == 0 && bs[0].le <= 0 {
		return bs[0].le
	}
	start, end, count := 0.0, bs[b].le, bs[b].count
	if b > 0 {
		start = bs[b-1].le
		count -= bs[b-1].count
		rank -= bs[b-1].count
	}
	if count <= 0 {
		return end
	}
	return start + (end-start)*(rank/count)
}

// statsView is one screen.
type statsView struct {
	Endpoint string
	Interval time.Duration
	At       time.Time
	Enforced bool
	Err      error // the last scrape failed (streaming only)
	Waiting  bool  // first scrape: no rates yet
	API      string
	Rows     []statsRow
	Usage    []statsKeyUsage
}

// renderStats writes the header, the table and the per-key usage.
func renderStats(w io.Writer, v statsView) error {
	at := v.At.Format(time.DateTime)
	if v.Err != nil {
		_, err := fmt.Fprintf(w, "emulator stats  %s  %s  error: %v (retrying every %v)\n", v.Endpoint, at, v.Err, v.Interval)
		return err
	}
	mode := "throttling counted only (not enforced)"
	if v.Enforced {
		mode = "throttling enforced (429)"
	}
	fmt.Fprintf(w, "emulator stats  %s  %s  every %v  %s\n\n", v.Endpoint, at, v.Interval, mode)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "API\tSTAGE\tKIND\tREQ/S\tADMITTED/S\tTHROTTLED/S\tQUOTA/S\t4XX/S\t5XX/S\tP50\tP99")
	for _, r := range v.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", orDash(r.API), orDash(r.Stage), orDash(r.Kind),
			fmtRate(r.Requests), fmtRate(r.Admitted), fmtRate(r.Throttled), fmtRate(r.Quota),
			fmtRate(r.C4xx), fmtRate(r.C5xx), fmtLatency(r.P50), fmtLatency(r.P99))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case v.Waiting:
		fmt.Fprintf(w, "(first rates in %v)\n", v.Interval)
	case len(v.Rows) == 0 && v.API != "":
		fmt.Fprintf(w, "(no requests to an API named %q yet)\n", v.API)
	case len(v.Rows) == 0:
		fmt.Fprintln(w, "(no requests to a deployed API yet)")
	}
	if len(v.Usage) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "USAGE PLAN\tKEY\tUSED\tREMAINING")
	for _, u := range v.Usage {
		rem := "-" // no quota
		if !math.IsNaN(u.Remaining) {
			rem = strconv.FormatFloat(u.Remaining, 'f', -1, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Plan, u.Key, strconv.FormatFloat(u.Used, 'f', -1, 64), rem)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) }

// fmtLatency shows three significant digits at most, as a duration.
func fmtLatency(s float64) string {
	if math.IsNaN(s) {
		return "-"
	}
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Second:
		d = d.Round(10 * time.Millisecond)
	case d >= 100*time.Millisecond:
		d = d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		d = d.Round(100 * time.Microsecond)
	default:
		d = d.Round(10 * time.Microsecond)
	}
	return d.String()
}
