package apigateway

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/throttle"
	"github.com/puzpuzpuz/xsync/v3"
)

// KeyLimits are what one API key may do under one usage plan: the plan's
// token bucket, one per method its apiStages[].throttle names, and the
// quota. The plan's owner creates them when the key is linked, re-sizes
// them in place when the plan changes (the same objects, so counts and
// tokens survive) and drops them when the key or the plan goes. The data
// plane reads them without a lock.
type KeyLimits struct {
	// plan is the plan's throttle; nil when the plan has none.
	plan atomic.Pointer[throttle.Bucket]
	// methods are the per-method throttles (immutable map, replaced whole).
	methods atomic.Pointer[map[MethodRef]*throttle.Bucket]
	// Quota counts the key's requests (NoPeriod when the plan has no
	// quota): GetUsage's log.
	Quota *throttle.Quota
}

// MethodRef names a method of an API stage: "/pets/GET" is {Path: "/pets",
// Method: "GET"}, the root "//GET" is {Path: "/", Method: "GET"}.
type MethodRef struct {
	APIID, Stage, Path, Method string
}

// Client returns the bucket that limits the key on a method: the method's
// entry in the plan's apiStages[].throttle if there is one, else "/*/*",
// else the plan's throttle; nil when none applies.
func (k *KeyLimits) Client(m MethodRef) *throttle.Bucket {
	if ms := k.methods.Load(); ms != nil && len(*ms) > 0 {
		if b, ok := (*ms)[m]; ok {
			return b
		}
		if b, ok := (*ms)[MethodRef{APIID: m.APIID, Stage: m.Stage, Path: "/*", Method: "*"}]; ok {
			return b
		}
	}
	return k.plan.Load()
}

// PlanBucket returns the bucket of the plan's own throttle, nil when it
// has none.
func (k *KeyLimits) PlanBucket() *throttle.Bucket { return k.plan.Load() }

// limitsKey names the limits of one key under one plan.
type limitsKey struct{ plan, key string }

// keyLimits are the KeyLimits of a scope's (plan, key) links.
type keyLimits = xsync.MapOf[limitsKey, *KeyLimits]

// bucketLimits are a ThrottleSettings as a bucket's limits.
func bucketLimits(t *ThrottleSettings) throttle.Limits {
	return throttle.Limits{Rate: float64(t.RateLimit), Burst: t.BurstLimit}
}

// quotaSettings are a plan's quota as the throttle package reads it:
// NoPeriod (counting without limit) when the plan has none.
func quotaSettings(q *QuotaSettings) throttle.QuotaSettings {
	if q == nil {
		return throttle.QuotaSettings{}
	}
	p, _ := throttle.ParsePeriod(q.Period)
	return throttle.QuotaSettings{Limit: q.Limit, Offset: q.Offset, Period: p}
}

// parseMethodThrottle reads an apiStages[].throttle key, "/pets/GET" or
// "//GET", as its path and method.
func parseMethodThrottle(s string) (path, method string, ok bool) {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 || i == len(s)-1 {
		return "", "", false
	}
	path, method = s[:i], s[i+1:]
	if path == "" {
		path = "/"
	}
	return path, method, true
}

// syncLimits brings the limits of every key of p in line with p, creating
// those of new keys and re-sizing the others in place. Only p's owner
// calls it (from a change's After), so calls for one plan never race.
func syncLimits(d *dirs, p *PlanState, now time.Time) {
	start := now
	if p.Created != 0 {
		start = time.Unix(p.Created, 0)
	}
	qs := quotaSettings(p.Plan.Quota)
	for _, id := range p.KeyIDs {
		k, ok := d.limits.Load(limitsKey{p.Plan.ID, id})
		if !ok {
			k = &KeyLimits{Quota: throttle.NewQuota(qs, start)}
		} else if k.Quota.Settings() != qs {
			k.Quota.SetSettings(qs, now)
		}
		resizeKey(k, &p.Plan, now)
		d.limits.Store(limitsKey{p.Plan.ID, id}, k)
	}
}

// resizeKey gives k the plan's throttles, keeping the buckets that stay.
func resizeKey(k *KeyLimits, p *UsagePlan, now time.Time) {
	ns := now.UnixNano()
	switch b := k.plan.Load(); {
	case p.Throttle == nil:
		k.plan.Store(nil)
	case b == nil:
		k.plan.Store(throttle.NewBucket(bucketLimits(p.Throttle), ns))
	case b.Limits() != bucketLimits(p.Throttle):
		b.SetLimits(bucketLimits(p.Throttle), ns)
	}
	var old map[MethodRef]*throttle.Bucket
	if m := k.methods.Load(); m != nil {
		old = *m
	}
	next := make(map[MethodRef]*throttle.Bucket)
	for _, st := range p.APIStages {
		for name, t := range st.Throttle {
			path, method, ok := parseMethodThrottle(name)
			if !ok || t == nil {
				continue
			}
			ref := MethodRef{APIID: st.APIID, Stage: st.Stage, Path: path, Method: method}
			l := bucketLimits(t)
			if b, ok := old[ref]; ok {
				if b.Limits() != l {
					b.SetLimits(l, ns)
				}
				next[ref] = b
				continue
			}
			next[ref] = throttle.NewBucket(l, ns)
		}
	}
	k.methods.Store(&next)
}

// dropLimits forgets the limits of keys under plan planID.
func dropLimits(d *dirs, planID string, keys []string) {
	for _, k := range keys {
		d.limits.Delete(limitsKey{planID, k})
	}
}

// KeyLimits returns the limits of API key keyID under plan planID, as the
// plan's owner last set them.
func (s *Service) KeyLimits(sc awswire.Scope, planID, keyID string) (*KeyLimits, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.limits.Load(limitsKey{planID, keyID})
}

// StageBucket returns the bucket of a stage's method throttling (one per
// stage, resource path and method, shared by all clients), made on the
// method's first request from the stage's methodSettings. The stage's
// owner re-sizes it when the stage changes and drops it with the stage.
func (s *Service) StageBucket(sc awswire.Scope, st *Stage, m MethodRef, now time.Time) *throttle.Bucket {
	d := s.scopes.Get(sc)
	if b, ok := d.stageLimits.Load(m); ok {
		return b
	}
	b, _ := d.stageLimits.LoadOrCompute(m, func() *throttle.Bucket {
		// The stage as its owner last published it, so that a change
		// published meanwhile is not missed.
		if a, ok := d.apis.Get(m.APIID); ok {
			if cur, ok := a.Stages.Get(m.Stage); ok {
				st = cur
			}
		}
		return throttle.NewBucket(stageMethodLimits(st, m.Path, m.Method), now.UnixNano())
	})
	return b
}

// AccountBucket returns the account's limit in the scope's region, made
// with limits l on first use; a reset forgets it.
func (s *Service) AccountBucket(sc awswire.Scope, l throttle.Limits, now time.Time) *throttle.Bucket {
	d := s.scopes.Get(sc)
	if b := d.account.Load(); b != nil {
		return b
	}
	b := throttle.NewBucket(l, now.UnixNano())
	if d.account.CompareAndSwap(nil, b) {
		return b
	}
	return d.account.Load()
}

// stageMethodLimits are a stage's throttling of a method: its
// methodSettings entry, else "*/*", else AWS's defaults. Entries are kept
// under the path as written, without its leading slash: "~1pets/GET" or
// "pets/GET".
func stageMethodLimits(st *Stage, path, method string) throttle.Limits {
	if st != nil && len(st.MethodSettings) > 0 {
		escaped := strings.ReplaceAll(path, "/", "~1")
		for _, k := range []string{escaped + "/" + method, strings.TrimPrefix(path, "/") + "/" + method, "*/*"} {
			if ms := st.MethodSettings[k]; ms != nil {
				return throttle.Limits{Rate: ms.ThrottlingRateLimit, Burst: ms.ThrottlingBurstLimit}
			}
		}
	}
	return throttle.DefaultLimits()
}

// resizeStage gives the buckets of stage sg of API apiID the stage's
// limits. The stage's owner calls it once the stage is published.
func resizeStage(d *dirs, apiID string, sg *Stage, now time.Time) {
	d.stageLimits.Range(func(m MethodRef, b *throttle.Bucket) bool {
		if m.APIID == apiID && m.Stage == sg.StageName {
			if l := stageMethodLimits(sg, m.Path, m.Method); b.Limits() != l {
				b.SetLimits(l, now.UnixNano())
			}
		}
		return true
	})
}

// dropStageLimits forgets the buckets of stage name of API apiID (of every
// stage when name is "").
func dropStageLimits(d *dirs, apiID, name string) {
	d.stageLimits.Range(func(m MethodRef, _ *throttle.Bucket) bool {
		if m.APIID == apiID && (name == "" || m.Stage == name) {
			d.stageLimits.Delete(m)
		}
		return true
	})
}
