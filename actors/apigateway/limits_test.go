package apigateway

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudemu/emulator/throttle"
)

// TestKeyLimitsLifecycle: the plan's owner makes a key's limits when it is
// linked, re-sizes the same objects when the plan changes, and drops them
// with the link, the key or the plan.
func TestKeyLimitsLifecycle(t *testing.T) {
	now := time.Date(2024, 5, 15, 10, 0, 0, 0, time.UTC)
	s := keysService(t, &now)
	api := keysAPI(t, s, "prod")
	plan, err := s.CreateUsagePlan(keysScope, UsagePlan{Name: "p",
		APIStages: []ApiStage{{APIID: api, Stage: "prod", Throttle: map[string]*ThrottleSettings{
			"/pets/GET": {BurstLimit: 2, RateLimit: 1}, "//GET": {BurstLimit: 3, RateLimit: 1}}}},
		Throttle: &ThrottleSettings{BurstLimit: 10, RateLimit: 5}})
	if err != nil {
		t.Fatal(err)
	}
	id := plan.Plan.ID
	k1, err := s.CreateAPIKey(keysScope, APIKey{Name: "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := s.CreateAPIKey(keysScope, APIKey{Name: "b"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.KeyLimits(keysScope, id, k1.Key.ID); ok {
		t.Fatal("limits before the link")
	}
	for _, k := range []string{k1.Key.ID, k2.Key.ID} {
		if _, err := s.CreateUsagePlanKey(keysScope, id, k, KeyTypeAPIKey); err != nil {
			t.Fatal(err)
		}
	}
	l, ok := s.KeyLimits(keysScope, id, k1.Key.ID)
	if !ok {
		t.Fatal("no limits after the link")
	}
	pets := MethodRef{APIID: api, Stage: "prod", Path: "/pets", Method: "GET"}
	root := MethodRef{APIID: api, Stage: "prod", Path: "/", Method: "GET"}
	other := MethodRef{APIID: api, Stage: "prod", Path: "/toys", Method: "GET"}
	petsBucket, planBucket := l.Client(pets), l.PlanBucket()
	for _, c := range []struct {
		name string
		got  throttle.Limits
		want throttle.Limits
	}{
		{"method=/pets/GET", l.Client(pets).Limits(), throttle.Limits{Rate: 1, Burst: 2}},
		{"method=//GET", l.Client(root).Limits(), throttle.Limits{Rate: 1, Burst: 3}},
		{"method=other", l.Client(other).Limits(), throttle.Limits{Rate: 5, Burst: 10}},
		{"quota=none", throttle.Limits{Burst: l.Quota.Remaining(now)}, throttle.Limits{Burst: throttle.Unlimited}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Fatalf("got %+v, want %+v", c.got, c.want)
			}
		})
	}

	_, err = s.UpdateUsagePlan(keysScope, id, []PatchOp{
		{Op: "replace", Path: "/throttle/burstLimit", Value: keysPtr("20")},
		{Op: "replace", Path: "/apiStages/" + api + ":prod/throttle/~1pets/GET/burstLimit", Value: keysPtr("4")},
		{Op: "remove", Path: "/apiStages/" + api + ":prod/throttle/~1~1GET"},
		{Op: "add", Path: "/quota/limit", Value: keysPtr("100")},
		{Op: "add", Path: "/quota/period", Value: keysPtr("DAY")},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("update/same-objects", func(t *testing.T) {
		l2, _ := s.KeyLimits(keysScope, id, k1.Key.ID)
		if l2 != l || l.Client(pets) != petsBucket || l.PlanBucket() != planBucket {
			t.Fatal("UpdateUsagePlan replaced the limits instead of re-sizing them")
		}
	})
	t.Run("update/limits", func(t *testing.T) {
		if got := l.Client(pets).Limits(); got != (throttle.Limits{Rate: 1, Burst: 4}) {
			t.Errorf("/pets/GET: %+v", got)
		}
		if got := l.Client(root); got != planBucket || got.Limits() != (throttle.Limits{Rate: 5, Burst: 20}) {
			t.Errorf("//GET after its removal: %+v", got.Limits())
		}
		if got := l.Quota.Remaining(now); got != 100 {
			t.Errorf("quota remaining %d", got)
		}
	})

	t.Run("unlink", func(t *testing.T) {
		if err := s.DeleteUsagePlanKey(keysScope, id, k1.Key.ID); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.KeyLimits(keysScope, id, k1.Key.ID); ok {
			t.Fatal("limits outlive the link")
		}
	})
	t.Run("key=deleted", func(t *testing.T) {
		if err := s.DeleteAPIKey(keysScope, k2.Key.ID); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.KeyLimits(keysScope, id, k2.Key.ID); ok {
			t.Fatal("limits outlive the key")
		}
	})
	t.Run("plan=deleted", func(t *testing.T) {
		k3, err := s.CreateAPIKey(keysScope, APIKey{Name: "c"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bare, err := s.CreateUsagePlan(keysScope, UsagePlan{Name: "bare"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateUsagePlanKey(keysScope, bare.Plan.ID, k3.Key.ID, KeyTypeAPIKey); err != nil {
			t.Fatal(err)
		}
		if l, ok := s.KeyLimits(keysScope, bare.Plan.ID, k3.Key.ID); !ok || l.PlanBucket() != nil || l.Client(pets) != nil {
			t.Fatal("a plan without throttle has no buckets, but its key has a quota log")
		}
		if err := s.DeleteUsagePlan(keysScope, bare.Plan.ID); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.KeyLimits(keysScope, bare.Plan.ID, k3.Key.ID); ok {
			t.Fatal("limits outlive the plan")
		}
	})
}

// TestKeyLimitsUnderLoad: requests take from a key's buckets while the
// plan's limits change; with no refill, what was admitted never exceeds
// the largest burst the bucket had.
func TestKeyLimitsUnderLoad(t *testing.T) {
	now := time.Date(2024, 5, 15, 10, 0, 0, 0, time.UTC)
	s := keysService(t, &now)
	api := keysAPI(t, s, "prod")
	plan, err := s.CreateUsagePlan(keysScope, UsagePlan{Name: "p", APIStages: []ApiStage{{APIID: api, Stage: "prod"}},
		Throttle: &ThrottleSettings{BurstLimit: 100}})
	if err != nil {
		t.Fatal(err)
	}
	k, err := s.CreateAPIKey(keysScope, APIKey{Name: "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUsagePlanKey(keysScope, plan.Plan.ID, k.Key.ID, KeyTypeAPIKey); err != nil {
		t.Fatal(err)
	}
	l, _ := s.KeyLimits(keysScope, plan.Plan.ID, k.Key.ID)
	ref := MethodRef{APIID: api, Stage: "prod", Path: "/", Method: "GET"}
	var admitted atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				lv := throttle.Levels{Client: l.Client(ref), Quota: l.Quota}
				if d, _ := lv.Take(now); d == throttle.Admitted {
					admitted.Add(1)
				}
			}
		}()
	}
	// The takers run before the first resize (they may not have been
	// scheduled yet when the updates end).
	for deadline := time.Now().Add(5 * time.Second); admitted.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	for _, burst := range []string{"50", "150", "80"} {
		if _, err := s.UpdateUsagePlan(keysScope, plan.Plan.ID, []PatchOp{
			{Op: "replace", Path: "/throttle/burstLimit", Value: keysPtr(burst)}}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if n := admitted.Load(); n < 1 || n > 150 {
		t.Fatalf("admitted %d, want 1 to 150", n)
	}
	if got := l.Quota.Usage(throttle.DayOf(now), throttle.DayOf(now), now)[0].Used; got != admitted.Load() {
		t.Fatalf("quota counted %d, admitted %d", got, admitted.Load())
	}
}

// TestStageBuckets: a stage's method throttling comes from its
// methodSettings (the method's entry, else */*, else AWS's defaults), is
// re-sized in place by UpdateStage and goes with the stage.
func TestStageBuckets(t *testing.T) {
	now := time.Date(2024, 5, 15, 10, 0, 0, 0, time.UTC)
	s := keysService(t, &now)
	api := keysAPI(t, s, "prod")
	stage := func() *Stage {
		a, _ := s.API(keysScope, api)
		st, _ := a.Stages.Get("prod")
		return st
	}
	pets := MethodRef{APIID: api, Stage: "prod", Path: "/pets", Method: "GET"}
	toys := MethodRef{APIID: api, Stage: "prod", Path: "/toys", Method: "GET"}
	b := s.StageBucket(keysScope, stage(), pets, now)
	if b.Limits() != throttle.DefaultLimits() {
		t.Fatalf("default limits %+v", b.Limits())
	}
	if _, err := s.UpdateStage(keysScope, api, "prod", []PatchOp{
		{Op: "replace", Path: "/*/*/throttling/burstLimit", Value: keysPtr("7")},
		{Op: "replace", Path: "/~1toys/GET/throttling/rateLimit", Value: keysPtr("3")},
	}); err != nil {
		t.Fatal(err)
	}
	if got := s.StageBucket(keysScope, stage(), pets, now); got != b || got.Limits() != (throttle.Limits{Rate: 10000, Burst: 7}) {
		t.Fatalf("after UpdateStage: same %v, %+v", got == b, got.Limits())
	}
	// The method's entry starts from */*'s values.
	if got := s.StageBucket(keysScope, stage(), toys, now).Limits(); got != (throttle.Limits{Rate: 3, Burst: 7}) {
		t.Fatalf("method entry: %+v", got)
	}
	if err := s.DeleteStage(keysScope, api, "prod"); err != nil {
		t.Fatal(err)
	}
	if got := s.StageBucket(keysScope, nil, pets, now); got == b || got.Limits() != throttle.DefaultLimits() {
		t.Fatal("the stage's buckets outlive it")
	}
}
