package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	boom := errors.New("connection reset")
	tests := []struct {
		status    int
		err       error
		racing    bool
		throttled bool
		fault     string
		want      int
	}{
		{200, nil, false, false, "", classOK},
		{201, nil, true, false, "backend-reset", classOK},
		{404, nil, true, false, "", classRacing},
		{404, nil, false, false, "", class4xx},
		{500, nil, true, false, "", class5xx}, // a reset never excuses a 5xx
		{502, nil, false, false, "backend-garbage", classFault},
		{504, nil, false, false, "backend-hang", classFault},
		{429, nil, false, true, "", classThrottled},
		{429, nil, false, false, "", class4xx},
		{503, nil, false, true, "", class5xx},
		{302, nil, false, false, "", class4xx},
		{0, boom, true, true, "backend-hang", classTransport},
	}
	for _, tt := range tests {
		if got := classify(tt.status, tt.err, tt.racing, tt.throttled, tt.fault); got != tt.want {
			t.Errorf("classify(%d, %v, racing=%v, throttled=%v, %q) = %d, want %d",
				tt.status, tt.err, tt.racing, tt.throttled, tt.fault, got, tt.want)
		}
	}
}

func TestParseFaults(t *testing.T) {
	p, err := parseFaults("backend-reset=0.01, backend-hang=0.002,function-crash=1")
	if err != nil {
		t.Fatal(err)
	}
	if p["backend-reset"] != 0.01 || p["backend-hang"] != 0.002 || p["function-crash"] != 1 || len(p) != 3 {
		t.Errorf("plan %v", p)
	}
	if got := p.String(); got != "backend-reset=0.01,backend-hang=0.002,function-crash=1" {
		t.Errorf("String() = %q", got)
	}
	for _, s := range []string{"", "none"} {
		if p, err := parseFaults(s); err != nil || len(p) != 0 || p.String() != "none" {
			t.Errorf("parseFaults(%q) = %v, %v", s, p, err)
		}
	}
	for _, bad := range []string{"backend-reset", "disk-full=0.1", "backend-500=1.5", "backend-500=-0.1",
		"backend-500=x", "backend-reset=0.6,backend-garbage=0.6"} {
		if _, err := parseFaults(bad); err == nil {
			t.Errorf("parseFaults(%q) accepted", bad)
		}
	}
}

func TestFaultPlanPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	if f := (faultPlan{}).backend(rng); f != "" {
		t.Fatalf("empty plan picked %q", f)
	}
	p := faultPlan{"backend-reset": 0.1, "backend-500": 0.2, "function-crash": 1}
	counts := map[string]int{}
	const n = 100000
	for range n {
		counts[p.backend(rng)]++
		if f := p.function(rng); f != "function-crash" {
			t.Fatalf("function fault %q with share 1", f)
		}
	}
	for f, want := range map[string]float64{"backend-reset": 0.1, "backend-500": 0.2, "": 0.7} {
		if got := float64(counts[f]) / n; math.Abs(got-want) > 0.01 {
			t.Errorf("%q drawn %.3f of the time, want %.2f", f, got, want)
		}
	}
	if counts["function-crash"] != 0 || counts["backend-hang"] != 0 {
		t.Errorf("faults outside the plan or family: %v", counts)
	}
}

func TestLatHist(t *testing.T) {
	var h latHist
	if h.quantile(0.5) != 0 {
		t.Fatal("empty histogram has a quantile")
	}
	for i := 1; i <= 1000; i++ {
		h.record(time.Duration(i) * time.Millisecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.99, 990 * time.Millisecond}, {1, time.Second}} {
		got := h.quantile(c.q)
		if math.Abs(float64(got-c.want))/float64(c.want) > 1.0/latSub {
			t.Errorf("quantile(%g) = %s, want %s within %.1f%%", c.q, got, c.want, 100.0/latSub)
		}
	}
	// Every bucket's middle maps back to the bucket.
	for i := range latIndex(math.MaxUint64) + 1 {
		if j := latIndex(latMid(i)); j != i {
			t.Fatalf("latIndex(latMid(%d)) = %d", i, j)
		}
	}
	var small latHist
	small.record(3 * time.Microsecond)
	small.record(-time.Second) // clamped to 0
	h.merge(&small)
	if h.n != 1002 || small.quantile(1) != 3*time.Microsecond || small.quantile(0.5) != 0 {
		t.Errorf("merge: n %d; small quantiles %s, %s", h.n, small.quantile(0.5), small.quantile(1))
	}
}

func TestTrendWindows(t *testing.T) {
	for _, c := range []struct {
		total, resetEvery           time.Duration
		second0, second1, last0, l1 time.Duration
	}{
		{10 * time.Minute, 0, time.Minute, 2 * time.Minute, 9 * time.Minute, 10 * time.Minute},
		{10 * time.Minute, 30 * time.Second, time.Minute, 2 * time.Minute, 9 * time.Minute, 10 * time.Minute},
		{10 * time.Minute, 40 * time.Second, 40 * time.Second, 80 * time.Second, 560 * time.Second, 10 * time.Minute},
		{10 * time.Minute, 5 * time.Minute, time.Minute, 2 * time.Minute, 9 * time.Minute, 10 * time.Minute},
		{3 * time.Minute, 0, time.Minute, 2 * time.Minute, 2 * time.Minute, 3 * time.Minute},
		{90 * time.Second, 30 * time.Second, 30 * time.Second, 60 * time.Second, 60 * time.Second, 90 * time.Second},
		{2 * time.Minute, 30 * time.Second, 30 * time.Second, 60 * time.Second, 90 * time.Second, 2 * time.Minute},
		{3 * time.Second, 0, time.Second, 2 * time.Second, 2 * time.Second, 3 * time.Second},
	} {
		s, l := trendWindows(c.total, c.resetEvery)
		if s != [2]time.Duration{c.second0, c.second1} || l != [2]time.Duration{c.last0, c.l1} {
			t.Errorf("trendWindows(%s, %s) = %v, %v", c.total, c.resetEvery, s, l)
		}
	}
}

// flatRun is a 10-minute run of 10 s samples, every figure constant.
func flatRun() soakRun {
	var r soakRun
	for k := 1; k <= 60; k++ {
		r.Samples = append(r.Samples, soakSample{Elapsed: time.Duration(k) * 10 * time.Second, Requests: 1000,
			RSS: 100 << 20, HeapLive: 20 << 20, Goroutines: 200})
	}
	r.Total.classes[classOK] = 60000
	return r
}

var soakTestBounds = soakBounds{MaxGrowth: 5, MemSlack: 1 << 20, GoroutineSlack: 10}

func TestJudgeSoakPasses(t *testing.T) {
	r := flatRun()
	r.Total.classes[classRacing] = 7
	r.Total.classes[classThrottled] = 70
	r.Total.classes[classFault] = 3
	// Within the bounds: RSS +5% +1 MiB, heap +5%, goroutines +5% +10, and
	// whatever happened outside the two windows.
	for i := range r.Samples {
		s := &r.Samples[i]
		switch {
		case s.Elapsed > 9*time.Minute:
			s.RSS = 105<<20 + 1<<19
			s.HeapLive = 21 << 20
			s.Goroutines = 219
		case s.Elapsed > 2*time.Minute:
			s.RSS, s.HeapLive, s.Goroutines = 500<<20, 400<<20, 5000
		}
	}
	v := judgeSoak(r, 0, soakTestBounds)
	if !v.pass() || len(v.Trends) != 3 {
		t.Fatalf("verdict %+v", v)
	}
	for _, tr := range v.Trends {
		if !strings.HasSuffix(tr.String(), ": ok") {
			t.Errorf("trend %s", tr)
		}
	}
}

func TestJudgeSoakFails(t *testing.T) {
	tests := []struct {
		name   string
		change func(*soakRun)
		resets int
		want   string
	}{
		{"5xx", func(r *soakRun) { r.Total.classes[class5xx] = 1 }, 0, "1 unexpected 5xx"},
		{"4xx", func(r *soakRun) { r.Total.classes[class4xx] = 2 }, 0, "2 unexpected 4xx"},
		{"transport", func(r *soakRun) { r.Total.classes[classTransport] = 3 }, 0, "3 transport errors"},
		{"reset", func(*soakRun) {}, 1, "1 failed resets"},
		{"probe", func(r *soakRun) { r.ProbeUnexpected = 4 }, 0, "4 unexpected answers during the capacity burst"},
		{"fatal", func(r *soakRun) { r.FatalErr = errors.New("the emulator exited") }, 0, "the soak ended early: the emulator exited"},
		{"rss", func(r *soakRun) { lastMinute(r, func(s *soakSample) { s.RSS = 107 << 20 }) }, 0, "RSS: 100.0 MiB in the second window, 107.0 MiB in the last"},
		{"heap", func(r *soakRun) { lastMinute(r, func(s *soakSample) { s.HeapLive = 23 << 20 }) }, 0, "live heap: 20.0 MiB"},
		{"goroutines", func(r *soakRun) { lastMinute(r, func(s *soakSample) { s.Goroutines = 221 }) }, 0, "goroutines: 200.0 in the second window, 221.0 in the last (+10.5%; bound 220.0): GROWING"},
		{"few samples", func(r *soakRun) { r.Samples = r.Samples[:1] }, 0, "too few samples"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := flatRun()
			tt.change(&r)
			v := judgeSoak(r, tt.resets, soakTestBounds)
			if v.pass() {
				t.Fatal("passed")
			}
			if !strings.Contains(strings.Join(v.Reasons, "\n"), tt.want) {
				t.Errorf("reasons %q, want one with %q", v.Reasons, tt.want)
			}
		})
	}
}

func lastMinute(r *soakRun, f func(*soakSample)) {
	for i := range r.Samples {
		if r.Samples[i].Elapsed > 9*time.Minute {
			f(&r.Samples[i])
		}
	}
}

// TestJudgeSoakShortRun: a 30 s run compares its second third with its
// last.
func TestJudgeSoakShortRun(t *testing.T) {
	var r soakRun
	for k := 1; k <= 6; k++ {
		rss := int64(100 << 20)
		if k >= 5 {
			rss = 120 << 20 // the last third
		}
		r.Samples = append(r.Samples, soakSample{Elapsed: time.Duration(k) * 5 * time.Second, RSS: rss, HeapLive: 1 << 20, Goroutines: 50})
	}
	v := judgeSoak(r, 0, soakTestBounds)
	if v.pass() || len(v.Reasons) != 1 || !strings.HasPrefix(v.Reasons[0], "RSS: 100.0 MiB in the second window, 120.0 MiB") {
		t.Errorf("verdict %+v", v)
	}
}

func TestParseDebugRuntime(t *testing.T) {
	r, err := parseDebugRuntime(200, []byte(`{"runtime":{"goroutines":42,"memory":{"heapAllocBytes":9000,"heapLiveBytes":4000}}}`))
	if err != nil || r != (debugRuntime{HeapAlloc: 9000, HeapLive: 4000, Goroutines: 42}) {
		t.Errorf("got %+v, %v", r, err)
	}
	// Before the first collection, or from an emulator without the figure:
	// the allocated heap.
	r, err = parseDebugRuntime(200, []byte(`{"runtime":{"goroutines":42,"memory":{"heapAllocBytes":9000,"heapLiveBytes":0}}}`))
	if err != nil || r.HeapLive != 9000 {
		t.Errorf("got %+v, %v", r, err)
	}
	for _, bad := range []struct {
		status int
		body   string
	}{
		{404, `{"message":"debug endpoints are off"}`},
		{200, `{"runtime":{"memory":{"heapAllocBytes":9000}}}`},
		{200, `{"runtime":{"goroutines":3,"memory":{}}}`},
		{200, `not json`},
	} {
		if _, err := parseDebugRuntime(bad.status, []byte(bad.body)); err == nil {
			t.Errorf("parseDebugRuntime(%d, %s) accepted", bad.status, bad.body)
		}
	}
}

func TestSoakFlagsCheck(t *testing.T) {
	ok := func() soakFlags {
		var f soakFlags
		fs := newFlagSet("soak")
		f.attach(fs)
		if err := fs.Parse([]string{"-emulator", "bin"}); err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := ok()
	if err := f.check(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if r, err := f.parseRate(); r != 0 || err != nil {
		t.Errorf("-rate auto: %v, %v", r, err)
	}
	f.rate = "1500"
	if r, err := f.parseRate(); r != 1500 || err != nil {
		t.Errorf("-rate 1500: %v, %v", r, err)
	}
	for name, change := range map[string]func(*soakFlags){
		"no emulator":     func(f *soakFlags) { f.emulator = "" },
		"rate":            func(f *soakFlags) { f.rate = "fast" },
		"zero rate":       func(f *soakFlags) { f.rate = "0" },
		"conns":           func(f *soakFlags) { f.conns = 0 },
		"sample":          func(f *soakFlags) { f.sample = time.Millisecond },
		"short":           func(f *soakFlags) { f.duration = 2 * f.sample },
		"reset":           func(f *soakFlags) { f.resetEvery = time.Millisecond },
		"probe":           func(f *soakFlags) { f.probe = time.Second },
		"fraction":        func(f *soakFlags) { f.fraction = 1.5 },
		"function":        func(f *soakFlags) { f.function = "java" },
		"negative growth": func(f *soakFlags) { f.maxGrowth = -1 },
	} {
		f := ok()
		change(&f)
		if err := f.check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSoakCSVRow(t *testing.T) {
	s := soakSample{Elapsed: 20 * time.Second, Requests: 12, RPS: 1.2, Missed: 1, P50: 1500 * time.Microsecond,
		P99: 20 * time.Millisecond, RSS: 5, HeapAlloc: 6, HeapLive: 7, Goroutines: 8, Resets: 9}
	s.Classes = [numClasses]int64{classOK: 5, classRacing: 1, classThrottled: 1, classFault: 1, class4xx: 2, class5xx: 1, classTransport: 1}
	row := soakCSVRow(s)
	want := "20.0,12,1.2,5,3,2,1,1,1,1.500,20.000,5,6,7,8,9"
	if len(row) != len(soakCSVHeader) || strings.Join(row, ",") != want {
		t.Errorf("row %q (%d fields, header %d), want %s", row, len(row), len(soakCSVHeader), want)
	}
}

// TestSoakBackend: the backend answers 200 or the fault asked for.
func TestSoakBackend(t *testing.T) {
	b, err := startSoakBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(fault string) (*http.Response, error) {
		req, _ := http.NewRequest("GET", "http://"+b.addr+"/items/42", nil)
		if fault != "" {
			req.Header.Set(faultHeader, fault)
		}
		return hc.Do(req)
	}
	for fault, want := range map[string]int{"": 200, "backend-500": 500} {
		resp, err := get(fault)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("fault %q: %d, want %d", fault, resp.StatusCode, want)
		}
	}
	for _, fault := range []string{"backend-reset", "backend-garbage"} {
		if resp, err := get(fault); err == nil {
			resp.Body.Close()
			t.Errorf("fault %q answered %d", fault, resp.StatusCode)
		}
	}
	// A hang is held until the client gives up.
	req, _ := http.NewRequest("GET", "http://"+b.addr+"/items/42", nil)
	req.Header.Set(faultHeader, "backend-hang")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if resp, err := hc.Do(req.WithContext(ctx)); err == nil {
		resp.Body.Close()
		t.Errorf("backend-hang answered %d", resp.StatusCode)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("backend-hang let go after %s", d)
	}
	if _, err := net.DialTimeout("tcp", b.addr, time.Second); err != nil {
		t.Errorf("backend gone after the faults: %v", err)
	}
}

// soakAgainstEmulator runs "benchrun soak" with args (after -emulator and
// -out) against the real emulator (this test binary playing it) and
// returns the summary and the CSV's rows; it fails the test on a FAIL.
func soakAgainstEmulator(t *testing.T, args ...string) (string, [][]string) {
	t.Helper()
	t.Setenv(realEnv, "1")
	self, _ := os.Executable()
	dir := t.TempDir()
	var out, logs syncBuffer
	a := newTestApp(t, &out, &logs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := a.soak(ctx, append([]string{"-emulator", self, "-out", dir,
		// The first seconds of a process are not steady state; the bounds
		// are the unit tests' business.
		"-max-growth", "100", "-mem-slack", "64", "-goroutine-slack", "200"}, args...))
	summary := out.String()
	if err != nil {
		t.Fatalf("soak: %v\n%s\nlog:\n%s", err, summary, logs.String())
	}
	for _, want := range []string{"PASS: ", "RSS: ", "live heap: ", "goroutines: ", "unexpected: 0 4xx, 0 5xx, 0 transport errors"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	f, err := os.Open(filepath.Join(dir, "soak.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || strings.Join(rows[0], ",") != strings.Join(soakCSVHeader, ",") {
		t.Fatalf("csv: %d rows, header %q", len(rows), rows[0])
	}
	for _, row := range rows[1:] {
		for _, c := range []string{"rss_bytes", "heap_live_bytes", "goroutines"} {
			if v, err := strconv.ParseInt(row[soakColumn(t, c)], 10, 64); err != nil || v <= 0 {
				t.Errorf("%s = %q in %q", c, row[soakColumn(t, c)], row)
			}
		}
		if row[soakColumn(t, "unexpected_4xx")] != "0" || row[soakColumn(t, "unexpected_5xx")] != "0" {
			t.Errorf("unexpected answers in %q", row)
		}
	}
	png, err := os.ReadFile(filepath.Join(dir, "soak.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10000 {
		t.Errorf("soak.png: %d bytes, %v", len(png), err)
	}
	return summary, rows
}

func soakColumn(t *testing.T, name string) int {
	for i, h := range soakCSVHeader {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %s", name)
	return -1
}

// TestSoakAgainstEmulator runs the soak for a few seconds, capacity burst
// first, with resets every second and backend faults, and checks the
// summary, the CSV and the chart. The function proxy is left out: a
// function request racing a reset can find its API still there and its
// function gone, which API Gateway answers 500 (TestSoakFunction covers
// the function without resets).
func TestSoakAgainstEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an emulator and loads it for ~7 s")
	}
	summary, rows := soakAgainstEmulator(t, "-rate", "auto", "-probe", "2s", "-fraction", "0.05", "-conns", "4",
		"-duration", "4s", "-sample", "500ms", "-reset-every", "1s", "-function", "none",
		"-faults", "backend-500=0.2,backend-reset=0.1,backend-garbage=0.05")
	for _, want := range []string{"# capacity: ", "soaking at 5% of it", "# function proxy: none (-function none)", "0 failed"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	// A row every 500 ms, but one that waits out a reset may cost the next.
	if len(rows) < 1+5 || len(rows) > 1+8 {
		t.Errorf("csv: %d rows", len(rows))
	}
	var requests, resets int64
	for _, row := range rows[1:] {
		n, _ := strconv.ParseInt(row[soakColumn(t, "requests")], 10, 64)
		requests += n
		resets, _ = strconv.ParseInt(row[soakColumn(t, "resets")], 10, 64)
	}
	if last := rows[len(rows)-1][soakColumn(t, "elapsed_s")]; last != "4.0" {
		t.Errorf("last sample at %s s, want 4.0", last)
	}
	if requests < 10 || resets < 2 {
		t.Errorf("%d requests and %d resets over the soak\n%s", requests, resets, summary)
	}
}

// TestSoakFunction runs the soak's mix with its function proxy (when the
// machine has python3 or node) and the function-crash fault, without
// resets.
func TestSoakFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an emulator and loads it for ~3 s")
	}
	fn, err := findSoakFunction()
	if err != nil {
		t.Fatal(err)
	}
	if fn == nil {
		t.Skip("neither python3 nor node in PATH")
	}
	summary, _ := soakAgainstEmulator(t, "-rate", "40", "-conns", "4", "-duration", "3s", "-sample", "1s",
		"-reset-every", "0", "-faults", "function-crash=0.2")
	for _, want := range []string{"# function proxy: " + fn.runtime, "# rate: 40 requests/s (fixed)", "resets: none"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
}
