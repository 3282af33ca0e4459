package throttle

import (
	"io"
	"log/slog"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Every request reads the clock, as the data plane does once per request:
// BenchmarkClock is that part of each figure.
var benchStart = utc("2024-05-01T12:00:00Z")

func BenchmarkClock(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var sink int64
		for pb.Next() {
			sink += time.Now().UnixNano()
		}
		_ = sink
	})
}

// BenchmarkBucketTake takes from one bucket shared by all goroutines:
// load=under admits everything, load=over admits a few of many (1000/s).
func BenchmarkBucketTake(b *testing.B) {
	for _, bc := range []struct {
		name string
		l    Limits
	}{
		{"load=under", Limits{Rate: 1e9, Burst: 1 << 40}},
		{"load=over", Limits{Rate: 1000, Burst: 100}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			bk := NewBucket(bc.l, time.Now().UnixNano())
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					bk.Take(time.Now().UnixNano())
				}
			})
			c := bk.Counts()
			b.ReportMetric(float64(c.Rejected)/float64(b.N), "throttled/op")
		})
	}
}

// BenchmarkQuotaTake takes from one key's quota shared by all goroutines.
func BenchmarkQuotaTake(b *testing.B) {
	q := NewQuota(QuotaSettings{Limit: 1 << 50, Period: PeriodMonth}, time.Now())
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			q.Take(time.Now())
		}
	})
}

// BenchmarkLevelsTake passes a request through a client bucket, a quota, a
// stage bucket and the account bucket, all shared by all goroutines.
func BenchmarkLevelsTake(b *testing.B) {
	for _, bc := range []struct {
		name   string
		client Limits
	}{
		{"load=under", Limits{Rate: 1e9, Burst: 1 << 40}},
		{"load=over", Limits{Rate: 1000, Burst: 100}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			start := time.Now()
			ns := start.UnixNano()
			l := Levels{
				Client:  NewBucket(bc.client, ns),
				Quota:   NewQuota(QuotaSettings{Limit: 1 << 50, Period: PeriodMonth}, start),
				Stage:   NewBucket(Limits{Rate: 1e9, Burst: 1 << 40}, ns),
				Account: NewBucket(Limits{Rate: 1e9, Burst: 1 << 40}, ns),
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					l.Take(time.Now())
				}
			})
			b.ReportMetric(float64(l.Client.Counts().Rejected)/float64(b.N), "throttled/op")
		})
	}
}

// plainBucket is the same GCRA without atomics, for an actor to own.
type plainBucket struct {
	tat, t, window int64
}

func (p *plainBucket) take(now int64) bool {
	next := max(p.tat, now) + p.t
	if next-now > p.window {
		return false
	}
	p.tat = next
	return true
}

type actorTake struct{ now int64 }

// planActor is a per-plan owner that holds its buckets and answers each
// request's admission: the alternative to lock-free buckets.
type planActor struct{ b plainBucket }

func (a *planActor) Receive(ctx actor.Context) {
	if m, ok := ctx.Message().(actorTake); ok {
		ctx.Respond(a.b.take(m.now))
	}
}

func quietSystem() *actor.ActorSystem {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }),
		actor.WithDeadLetterRequestLogging(false),
	)
}

// BenchmarkActorBucket asks a per-plan actor (protoactor, RequestFuture with
// a timeout, as actors.Ask does) for each request's admission, against the
// same plan limits as BenchmarkBucketTake.
func BenchmarkActorBucket(b *testing.B) {
	for _, bc := range []struct {
		name string
		p    plainBucket
	}{
		{"load=under", plainBucket{tat: time.Now().UnixNano(), t: 1, window: 1 << 40}},
		{"load=over", plainBucket{tat: time.Now().UnixNano(), t: 1e6, window: 100 * 1e6}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sys := quietSystem()
			defer sys.Shutdown()
			p := bc.p
			pid := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &planActor{b: p} }))
			var refused atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					res, err := sys.Root.RequestFuture(pid, actorTake{time.Now().UnixNano()}, time.Second).Result()
					if err != nil {
						b.Error(err)
						return
					}
					if !res.(bool) {
						refused.Add(1)
					}
				}
			})
			b.ReportMetric(float64(refused.Load())/float64(b.N), "throttled/op")
		})
	}
}

// BenchmarkMemory reports the heap one bucket, one quota (with a day of
// usage logged) and one actor-held bucket cost, over 100k of each.
func BenchmarkMemory(b *testing.B) {
	const n = 100_000
	measure := func(b *testing.B, build func(i int) any) {
		keep := make([]any, n)
		var per float64
		for range b.N {
			clear(keep)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := range keep {
				keep[i] = build(i)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			per = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
		}
		b.ReportMetric(per, "bytes/each")
		runtime.KeepAlive(keep)
	}
	ns := benchStart.UnixNano()
	b.Run("kind=bucket", func(b *testing.B) {
		measure(b, func(int) any { return NewBucket(Limits{Rate: 100, Burst: 50}, ns) })
	})
	b.Run("kind=quota", func(b *testing.B) {
		measure(b, func(int) any {
			q := NewQuota(QuotaSettings{Limit: 1000, Period: PeriodDay}, benchStart)
			q.Take(benchStart)
			return q
		})
	})
	b.Run("kind=actor", func(b *testing.B) {
		sys := quietSystem()
		defer sys.Shutdown()
		measure(b, func(int) any {
			return sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor {
				return &planActor{b: plainBucket{tat: ns, t: 1e7, window: 5e8}}
			}))
		})
	})
}
