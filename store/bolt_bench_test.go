package store

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// benchValue is a ~300-byte JSON record, the size of a typical resource.
var benchValue = []byte(`{"id":"a1b2c3d4e5","name":"orders-api","description":"Public API for the orders service",` +
	`"createdDate":"2024-05-01T12:00:00Z","apiKeySource":"HEADER","endpointConfiguration":{"types":["REGIONAL"]},` +
	`"tags":{"team":"payments","env":"prod"},"disableExecuteApiEndpoint":false,"version":"7","binaryMediaTypes":[]}`)

// BenchmarkBoltApply measures durable single-Put Applys: group commit versus
// one fsync per write, with 32 concurrent writers and with one.
func BenchmarkBoltApply(b *testing.B) {
	cases := []struct {
		writers  int
		maxBatch int // 0: DefaultMaxBatch (group commit)
	}{
		{writers: 32},
		{writers: 32, maxBatch: 1},
		{writers: 1},
	}
	for _, c := range cases {
		batch := "group"
		if c.maxBatch == 1 {
			batch = "1"
		}
		b.Run(fmt.Sprintf("writers=%d/batch=%s", c.writers, batch), func(b *testing.B) {
			benchApply(b, c.writers, c.maxBatch)
		})
	}
}

func benchApply(b *testing.B, writers, maxBatch int) {
	s, err := OpenBolt(b.TempDir(), BoltOptions{MaxBatch: maxBatch})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	keys := make([]string, b.N)
	for i := range keys {
		keys[i] = Key("000000000000", "us-east-1", "apigateway", "restapi", fmt.Sprintf("r%09d", i))
	}
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	write := func() {
		i := next.Add(1) - 1
		start := time.Now()
		if err := s.Apply(0, Put(keys[i], benchValue)); err != nil {
			b.Error(err)
		}
		lat[i] = time.Since(start)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchValue)))
	b.ResetTimer()
	if writers == 1 {
		for range b.N {
			write()
		}
	} else {
		// RunParallel starts parallelism×GOMAXPROCS goroutines.
		b.SetParallelism((writers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				write()
			}
		})
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkMemoryApply checks the memory store's hot path stays allocation-free.
func BenchmarkMemoryApply(b *testing.B) {
	s := NewMemory()
	ops := []Op{Put("k", benchValue)}
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Apply(0, ops...)
	}
}
