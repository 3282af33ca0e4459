package functions

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// The benchmarks report the median (p50) of what each measures, beside
// Go's mean per op. Run them with:
//
//	go test -run '^$' -bench . -count 5 ./functions/

func reportPercentiles(b *testing.B, took []time.Duration, unit time.Duration, name string) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	p := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))]) / float64(unit) }
	b.ReportMetric(p(0.5), name+"-p50")
	b.ReportMetric(p(0.99), name+"-p99")
}

// benchCold measures a cold start to the first answer: the code is
// unpacked already (as for every cold start but a function's first), the
// process starts, its runtime initialises and answers.
// quiet: the benchmarks measure the runtime, not a log handler.
var quiet = quietLog()

func benchCold(b *testing.B, fn Function, payload string) {
	r, _ := newRuntime(b, Config{Log: quiet})
	res := invoke(b, r, fn, payload) // unpack once
	mustOK(b, res)
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r.Evict(fn.ARN)
		b.StartTimer()
		begin := time.Now()
		res := invoke(b, r, fn, payload)
		took = append(took, time.Since(begin))
		if res.InitDuration == 0 || res.FunctionError != "" {
			b.Fatalf("not a good cold start: %+v", res)
		}
	}
	b.StopTimer()
	reportPercentiles(b, took, time.Millisecond, "ms")
}

func BenchmarkColdStartGo(b *testing.B) {
	benchCold(b, goFunction(b, "coldgo"), `{}`)
}

func BenchmarkColdStartPython(b *testing.B) {
	if _, _, err := newPython("python3").resolve(); err != nil {
		missingTool(b, "python3", err)
	}
	code := makeZip(b, zipEntry{name: "app.py", body: "def handler(event, context):\n    return event\n"})
	benchCold(b, function("coldpy", "python3.12", "app.handler", code), `{}`)
}

func BenchmarkColdStartNode(b *testing.B) {
	if _, _, err := newNode("node").resolve(); err != nil {
		missingTool(b, "node", err)
	}
	code := makeZip(b, zipEntry{name: "index.js", body: "exports.handler = async (e) => e;\n"})
	benchCold(b, function("coldnode", "nodejs20.x", "index.handler", code), `{}`)
}

// BenchmarkWarmInvoke is one Invoke round trip to a warm no-op Go
// function: hand-over through GET /next, the handler, POST /response,
// the log drain and the START/END/REPORT lines.
func BenchmarkWarmInvoke(b *testing.B) {
	r, _ := newRuntime(b, Config{Log: quiet})
	fn := goFunction(b, "warm")
	mustOK(b, invoke(b, r, fn, `{}`))
	payload := []byte(`{}`)
	ctx := context.Background()
	took := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		begin := time.Now()
		res, err := r.Invoke(ctx, fn, payload)
		took = append(took, time.Since(begin))
		if err != nil || res.FunctionError != "" {
			b.Fatalf("%v %s", err, res.Payload)
		}
	}
	b.StopTimer()
	reportPercentiles(b, took, time.Microsecond, "µs")
}

// BenchmarkWarmInvokeParallel is warm invokes from several callers at once,
// each served by an instance of its own.
func BenchmarkWarmInvokeParallel(b *testing.B) {
	r, _ := newRuntime(b, Config{MaxConcurrency: 64, Log: quiet})
	fn := goFunction(b, "warmpar")
	mustOK(b, invoke(b, r, fn, `{}`))
	payload := []byte(`{}`)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := r.Invoke(context.Background(), fn, payload)
			if err != nil || res.FunctionError != "" {
				b.Errorf("%v %s", err, res.Payload)
				return
			}
		}
	})
}

// BenchmarkInstanceMemory is what a warm instance costs the emulator's own
// process (not the function's): its Runtime API server and connection,
// the output reader, the process's bookkeeping, their goroutines' stacks.
func BenchmarkInstanceMemory(b *testing.B) {
	const n = 16
	fn := goFunction(b, "mem")
	var perInstance, goroutines float64
	for i := 0; i < b.N; i++ {
		r := New(Config{MaxConcurrency: n, WorkDir: b.TempDir(), Log: quiet})
		mustOK(b, invoke(b, r, fn, `{}`)) // unpack, warm the paths once
		r.Evict(fn.ARN)
		time.Sleep(50 * time.Millisecond)
		before, g0 := heapAndStacks()
		var wg sync.WaitGroup
		for j := 0; j < n; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mustOK(b, invoke(b, r, fn, `{"action":"sleep","ms":300}`))
			}()
		}
		wg.Wait()
		if all, idle := poolSize(r, fn); all != n || idle != n {
			b.Fatalf("%d instances, %d idle", all, idle)
		}
		after, g1 := heapAndStacks()
		perInstance += float64(after-before) / n
		goroutines += float64(g1-g0) / n
		r.Close()
	}
	b.ReportMetric(perInstance/float64(b.N), "B/instance")
	b.ReportMetric(goroutines/float64(b.N), "goroutines/instance")
}

func heapAndStacks() (uint64, int) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse, runtime.NumGoroutine()
}
