package throttle

import "time"

// Decision is what Levels.Take decided for a request.
type Decision uint8

// The decisions. Throttled is API Gateway's THROTTLED gateway response (429
// {"message":"Too Many Requests"}), QuotaExceeded its QUOTA_EXCEEDED (429
// {"message":"Limit Exceeded"}).
const (
	Admitted Decision = iota
	Throttled
	QuotaExceeded
)

func (d Decision) String() string {
	switch d {
	case Admitted:
		return "Admitted"
	case Throttled:
		return "Throttled"
	case QuotaExceeded:
		return "QuotaExceeded"
	}
	return "Decision(?)"
}

// Level names one of the limits of Levels.
type Level uint8

// The levels, in the order they are checked.
const (
	LevelNone Level = iota
	LevelClient
	LevelStage
	LevelAccount
	LevelQuota
)

func (l Level) String() string {
	switch l {
	case LevelNone:
		return "none"
	case LevelClient:
		return "client"
	case LevelStage:
		return "stage"
	case LevelAccount:
		return "account"
	case LevelQuota:
		return "quota"
	}
	return "Level(?)"
}

// Levels are the limits one request must pass, most specific first
// (docs: api-gateway-request-throttling; docs/apigateway-execution.md §8). A nil level does
// not apply. A request is admitted only if every level admits it, and then
// it takes one token (or one request of quota) from each; a request refused
// at any level takes nothing from any.
//
// Refusals are decided by looking only, so under overload they write
// nothing shared. A level that admitted when looked at but is emptied by a
// concurrent request before this one takes gets its tokens given back at the
// levels already taken (see Bucket.refund for the one inexact case).
type Levels struct {
	// Client is the usage plan's limit for the request's API key: the
	// method's entry in apiStages[].throttle ("/pets/GET", the root
	// "//GET") if there is one, else the plan's throttle. Per API key,
	// shared by all the plan's stages.
	Client *Bucket
	// Quota is the usage plan's quota for the API key.
	Quota *Quota
	// Stage is the stage's throttling for the method: its methodSettings
	// entry, else "*/*", else AWS's default (DefaultLimits). Shared by all
	// clients.
	Stage *Bucket
	// Account is the account's limit (DefaultLimits unless configured).
	Account *Bucket
}

// Take decides a request at now. It returns the level that refused it, or
// LevelNone. Buckets are checked before the quota: a request both throttled
// and over quota is Throttled, and only requests that pass the throttles
// count against the quota.
func (l *Levels) Take(now time.Time) (Decision, Level) {
	ns := now.UnixNano()
	bs := [...]*Bucket{l.Client, l.Stage, l.Account}
	names := [...]Level{LevelClient, LevelStage, LevelAccount}
	for i, b := range bs {
		if b != nil && !b.allow(ns) {
			b.throttled.Add(1)
			return Throttled, names[i]
		}
	}
	if l.Quota != nil && !l.Quota.allow(now) {
		l.Quota.rejected.Add(1)
		return QuotaExceeded, LevelQuota
	}
	var rs [len(bs)]receipt
	for i, b := range bs {
		if b == nil {
			continue
		}
		r, ok := b.take(ns)
		if !ok {
			l.giveBack(&rs, i)
			b.throttled.Add(1)
			return Throttled, names[i]
		}
		rs[i] = r
	}
	if l.Quota != nil {
		if !l.Quota.take(now) {
			l.giveBack(&rs, len(bs))
			l.Quota.rejected.Add(1)
			return QuotaExceeded, LevelQuota
		}
	}
	for _, b := range bs {
		if b != nil {
			b.admitted.Add(1)
		}
	}
	return Admitted, LevelNone
}

// giveBack refunds the tokens taken from the first n buckets.
func (l *Levels) giveBack(rs *[3]receipt, n int) {
	bs := [...]*Bucket{l.Client, l.Stage, l.Account}
	for i := range n {
		if bs[i] != nil {
			bs[i].refund(rs[i])
		}
	}
}
