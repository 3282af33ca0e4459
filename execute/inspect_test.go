package execute

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestInspectorNilIsOff(t *testing.T) {
	for _, c := range []int{0, -1} {
		if in := NewInspector(c); in != nil {
			t.Fatalf("NewInspector(%d) = %v, want nil", c, in)
		}
	}
	var in *Inspector
	in.Add(&Trace{RequestID: "x"})
	in.Reset()
	if in.Sample() || in.Len() != 0 || in.Cap() != 0 || in.Seq() != 0 || in.List(TraceFilter{}) != nil {
		t.Fatal("a nil inspector did something")
	}
	if _, ok := in.Get("x"); ok {
		t.Fatal("a nil inspector found a trace")
	}
}

func TestInspectorRing(t *testing.T) {
	in := NewInspector(3)
	for i := range 5 {
		in.Add(&Trace{RequestID: strconv.Itoa(i), APIID: []string{"a", "b"}[i%2], Stage: "dev", Status: []int{200, 404, 500, 201, 403}[i]})
	}
	if in.Len() != 3 || in.Cap() != 3 || in.Seq() != 5 {
		t.Fatalf("len %d cap %d seq %d", in.Len(), in.Cap(), in.Seq())
	}
	ids := func(ts []*Trace) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.RequestID)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		f    TraceFilter
		want string
	}{
		{TraceFilter{}, "4,3,2"},
		{TraceFilter{Limit: 2}, "4,3"},
		{TraceFilter{APIID: "a"}, "4,2"},
		{TraceFilter{APIID: "b"}, "3"},
		{TraceFilter{Status: 2}, "3"},
		{TraceFilter{Status: 4}, "4"},
		{TraceFilter{Status: 5}, "2"},
		{TraceFilter{Stage: "prod"}, ""},
		{TraceFilter{APIID: "a", Status: 4, Limit: 5}, "4"},
	} {
		if got := ids(in.List(c.f)); got != c.want {
			t.Errorf("List(%+v) = %q, want %q", c.f, got, c.want)
		}
	}
	if tr, ok := in.Get("3"); !ok || tr.Status != 201 {
		t.Errorf("Get(3) = %v, %v", tr, ok)
	}
	if _, ok := in.Get("0"); ok {
		t.Error("Get found a trace the ring dropped")
	}
	in.Reset()
	if in.Len() != 0 || len(in.List(TraceFilter{})) != 0 || in.Seq() != 6 {
		t.Fatalf("after reset: len %d seq %d", in.Len(), in.Seq())
	}
	in.Add(&Trace{RequestID: "after"})
	if got := ids(in.List(TraceFilter{})); got != "after" {
		t.Fatalf("after reset and add: %q", got)
	}
}

func TestInspectorSample(t *testing.T) {
	in := NewInspector(1)
	n := 0
	for range 3 * MaxTracesPerSecond {
		if in.sampleAt(1000) {
			n++
		}
	}
	if n != MaxTracesPerSecond {
		t.Fatalf("sampled %d in one second, want %d", n, MaxTracesPerSecond)
	}
	if !in.sampleAt(1001) {
		t.Fatal("a new second sampled nothing")
	}
	// Concurrent samplers share one second's allowance exactly.
	in = NewInspector(1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	n = 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := 0
			for range 100 {
				if in.sampleAt(2000) {
					k++
				}
			}
			mu.Lock()
			n += k
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != MaxTracesPerSecond {
		t.Fatalf("sampled %d concurrently, want %d", n, MaxTracesPerSecond)
	}
}

func TestInspectorBounds(t *testing.T) {
	big := strings.Repeat("é", MaxTraceLog) // 2 bytes a character: cut inside one
	tr := &Trace{Path: big, Log: big, Steps: make([]TraceStep, 100), ResponseHeaders: make([]NameValue, 100)}
	for i := range tr.Steps {
		tr.Steps[i] = TraceStep{Name: StepIntegration, Detail: big}
	}
	in := NewInspector(1)
	in.Add(tr)
	got, _ := in.Get("")
	if len(got.Log) > MaxTraceLog || !strings.HasSuffix(got.Log, Truncated) || !utf8.ValidString(got.Log) {
		t.Errorf("log of %d bytes, valid %v", len(got.Log), utf8.ValidString(got.Log))
	}
	if len(got.Path) > MaxTraceDetail || len(got.Steps) != maxTraceSteps || len(got.ResponseHeaders) != maxTraceHeaders {
		t.Errorf("path %d, %d steps, %d headers", len(got.Path), len(got.Steps), len(got.ResponseHeaders))
	}
	for _, s := range got.Steps {
		if len(s.Detail) > MaxTraceDetail || !utf8.ValidString(s.Detail) {
			t.Fatalf("detail of %d bytes", len(s.Detail))
		}
	}
	worst := got.Size()
	if worst > 80<<10 {
		t.Errorf("a worst-case trace holds %d bytes", worst)
	}
	t.Logf("worst-case trace: %d bytes", worst)
}

// typicalTrace is a MOCK request's trace as the REST executor records it.
func typicalTrace(i int) *Trace {
	return &Trace{RequestID: "c6f4b4a2-6d55-4b58-9b0e-" + strconv.Itoa(100000000000+i), Kind: "REST",
		APIID: "a1b2c3d4e5", APIName: "pets-api", Account: "000000000000", Region: "us-east-1", Stage: "dev",
		Method: "GET", Path: "/pets/42", RawQuery: "q=1", Route: "/pets/{id}", Status: 200,
		Latency: 900 * time.Microsecond, Received: time.Now(), Decision: DecisionAdmitted,
		Steps: []TraceStep{
			{Name: StepRoute, Outcome: "matched", Detail: "GET /pets/{id}"},
			{Name: StepThrottle, Outcome: "admitted"},
			{Name: StepRequestTemplate, Outcome: "rendered", Detail: `{"statusCode": 200}`},
			{Name: StepIntegration, Outcome: "MOCK", Detail: "status 200"},
			{Name: StepIntegrationResponse, Outcome: "selected", Detail: "200 (default)"},
			{Name: StepResponseTemplate, Outcome: "rendered", Detail: `{"id": "42", "stage": "dev"}`},
			{Name: StepResponse, Outcome: "200"},
		},
		ResponseHeaders: []NameValue{{"Content-Type", "application/json"},
			{"x-amzn-RequestId", "c6f4b4a2-6d55-4b58-9b0e-1a2b3c4d5e6f"}, {"x-amz-apigw-id", "AbCdEfGhIjKlMnO="}},
		Log: strings.Repeat("Mon Jan 02 15:04:05 UTC 2006 : Method request headers: {Accept=*/*, User-Agent=curl/8.5.0}\n", 14),
	}
}

// TestInspectorEntrySize reports what a typical entry holds, and what a
// ring of 1000 of them costs.
func TestInspectorEntrySize(t *testing.T) {
	n := typicalTrace(0).Size()
	if n <= 0 || n > 8<<10 {
		t.Fatalf("typical trace of %d bytes", n)
	}
	t.Logf("typical trace: ~%d bytes; a ring of 1000: ~%d KiB", n, n*1000/1024)
}

func BenchmarkInspectorAdd(b *testing.B) {
	in := NewInspector(1000)
	traces := make([]*Trace, 1024)
	for i := range traces {
		traces[i] = typicalTrace(i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		in.Add(traces[i&1023])
		i++
	}
}

func BenchmarkInspectorSampleExhausted(b *testing.B) {
	in := NewInspector(1)
	at := time.Now()
	for in.SampleAt(at) {
	}
	b.ReportAllocs()
	for b.Loop() {
		in.SampleAt(at)
	}
}

func TestInspectorConcurrent(t *testing.T) {
	in := NewInspector(16)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				in.Add(typicalTrace(w*1000 + i))
				for _, tr := range in.List(TraceFilter{Status: 2, Limit: 4}) {
					_ = tr.Size()
				}
			}
		}()
	}
	wg.Wait()
	if in.Len() != 16 || in.Seq() != 800 {
		t.Fatalf("len %d seq %d", in.Len(), in.Seq())
	}
}

func TestSelectionSource(t *testing.T) {
	p, err := CompileSelection(`2\d{2}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Source(); got != `2\d{2}` {
		t.Fatalf("Source = %q", got)
	}
	if (SelectionPattern{}).Source() != "" {
		t.Fatal("empty pattern has a source")
	}
}
