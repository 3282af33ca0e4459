package functions

import (
	"container/list"
	"slices"
	"strings"
	"sync"
	"time"
)

// What the runtime remembers of recent invocations, for a dashboard: the
// last RecentPerFunction invocations of each function (by its unqualified
// ARN), for the MaxRememberedFunctions functions invoked most recently.
// Each record keeps at most TailSize bytes of log, so the worst case is
// about 1,000 × 20 × 4 KB = 80 MB; in practice a record is a few hundred
// bytes. ForgetActivity (an emulator reset) frees it all.
const (
	RecentPerFunction      = 20
	MaxRememberedFunctions = 1000
)

// InvocationRecord is one invocation that reached a function, however it
// ended: a success, the function's error, a timeout, a failed init. Calls
// that Invoke refused or abandoned before the function saw them (account
// concurrency, a full pool, the caller leaving during a cold start) have
// none. Durations are in nanoseconds in JSON.
type InvocationRecord struct {
	RequestID string `json:"requestId"`
	ARN       string `json:"arn"`     // the version's (qualified) ARN it ran as
	Version   string `json:"version"` // "$LATEST", "1"…
	// Started is when the invocation began on its instance; a cold
	// start's began with its init (Started + InitDuration + Duration is
	// its end).
	Started       time.Time     `json:"started"`
	Duration      time.Duration `json:"duration"`
	InitDuration  time.Duration `json:"initDuration"`  // 0 when warm
	ErrorType     string        `json:"errorType"`     // "" on success; "Sandbox.Timedout" on a timeout
	FunctionError string        `json:"functionError"` // "" or "Unhandled"
	// Log is the invocation's log as Result.LogTail has it: its
	// START/END/REPORT lines and what the function printed, the last
	// TailSize bytes.
	Log string `json:"log"`
}

// FunctionActivity is one function's warm instances and invocations.
type FunctionActivity struct {
	ARN         string    `json:"arn"` // unqualified
	Idle        int       `json:"idle"`
	Busy        int       `json:"busy"`        // running an invocation, or starting for one
	Invocations int64     `json:"invocations"` // since the runtime started or ForgetActivity (or the function was forgotten)
	Last        time.Time `json:"last"`        // when its latest invocation ended; zero when none is remembered
}

// activityLog is the remembered invocations. One mutex: an update is a
// map lookup, a list move and a slot store (well under a microsecond),
// against an invocation's milliseconds.
type activityLog struct {
	mu     sync.Mutex
	byARN  map[string]*fnActivity
	order  list.List // of *fnActivity, most recently invoked first
	forgot time.Time // the last ForgetActivity: invocations begun before it are not recorded
}

type fnActivity struct {
	arn   string // unqualified
	elem  *list.Element
	recs  []InvocationRecord // a ring once full: recs[next] is the oldest
	next  int
	count int64
	last  time.Time
}

// functionARN is the unqualified ARN of a function's (qualified or not)
// ARN: arn:partition:lambda:region:account:function:name.
func functionARN(arn string) string {
	i, colons := 0, 0
	for ; i < len(arn); i++ {
		if arn[i] == ':' {
			if colons++; colons == 7 {
				return arn[:i]
			}
		}
	}
	return arn
}

// arnUnder reports whether Evict(prefix) covers arn: arn is prefix, or
// prefix with a qualifier, or prefix ends with ":" and starts arn.
func arnUnder(arn, prefix string) bool {
	return arn == prefix || strings.HasPrefix(arn, prefix+":") ||
		(strings.HasSuffix(prefix, ":") && strings.HasPrefix(arn, prefix))
}

// recordInvocation remembers an invocation that ended with res; started
// is when it began (a cold one: when its init began). It runs where an
// invocation settles, once per invocation.
func (r *Runtime) recordInvocation(fn *Function, started time.Time, res *Result) {
	rec := InvocationRecord{
		RequestID: res.RequestID, ARN: fn.ARN, Version: fn.version(),
		Started: started, Duration: res.Duration, InitDuration: res.InitDuration,
		ErrorType: res.ErrorType, FunctionError: res.FunctionError,
		Log: string(res.LogTail), // a copy, made outside the lock
	}
	r.activity.add(functionARN(fn.ARN), rec, time.Now())
}

func (l *activityLog) add(key string, rec InvocationRecord, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// An invocation that began before a reset belongs to the state the
	// reset forgot, even if it ends after it.
	if rec.Started.Before(l.forgot) {
		return
	}
	if l.byARN == nil {
		l.byARN = make(map[string]*fnActivity)
	}
	a := l.byARN[key]
	if a == nil {
		a = &fnActivity{arn: key}
		a.elem = l.order.PushFront(a)
		l.byARN[key] = a
		if l.order.Len() > MaxRememberedFunctions {
			oldest := l.order.Remove(l.order.Back()).(*fnActivity)
			delete(l.byARN, oldest.arn)
		}
	} else {
		l.order.MoveToFront(a.elem)
	}
	if len(a.recs) < RecentPerFunction {
		if len(a.recs) == cap(a.recs) {
			// Grown by hand to at most the ring's size: most functions
			// are invoked a few times, and append would overshoot it.
			a.recs = slices.Grow(a.recs, min(max(4, 2*cap(a.recs)), RecentPerFunction)-len(a.recs))
		}
		a.recs = append(a.recs, rec)
	} else {
		a.recs[a.next] = rec
		a.next = (a.next + 1) % RecentPerFunction
	}
	a.count++
	a.last = now
}

// Recent is the remembered invocations of a function, newest first: at
// most RecentPerFunction, of every version. arn may be qualified; the
// qualifier is ignored. The slice is the caller's.
func (r *Runtime) Recent(arn string) []InvocationRecord {
	l := &r.activity
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.byARN[functionARN(arn)]
	if a == nil {
		return nil
	}
	n := len(a.recs)
	out := make([]InvocationRecord, n)
	for i := range n {
		// next is 0 until the ring is full, so this is recs[n-1-i] then.
		out[i] = a.recs[(a.next-1-i+2*n)%n]
	}
	return out
}

// Instances is how many warm instances the function has now, of every
// version, code and configuration: idle ones, and busy ones (running an
// invocation, or starting for one). arn may be qualified; the qualifier
// is ignored. Evicted instances still finishing an invocation are not
// counted.
func (r *Runtime) Instances(arn string) (idle, busy int) {
	key := functionARN(arn)
	r.pools.Range(func(_, v any) bool {
		if p := v.(*pool); functionARN(p.arn) == key {
			i, b := p.counts()
			idle, busy = idle+i, busy+b
		}
		return true
	})
	return idle, busy
}

// counts is the pool's idle and busy instances; none once it is dead.
func (p *pool) counts() (idle, busy int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead {
		return 0, 0
	}
	return len(p.idle), len(p.all) - len(p.idle)
}

// Active is every function that has warm instances or remembered
// invocations, sorted by ARN.
func (r *Runtime) Active() []FunctionActivity {
	// Instances first, outside the activity lock: a pool's lock is never
	// held with it.
	byARN := map[string]*FunctionActivity{}
	entry := func(arn string) *FunctionActivity {
		fa := byARN[arn]
		if fa == nil {
			fa = &FunctionActivity{ARN: arn}
			byARN[arn] = fa
		}
		return fa
	}
	r.pools.Range(func(_, v any) bool {
		p := v.(*pool)
		if idle, busy := p.counts(); idle+busy > 0 {
			fa := entry(functionARN(p.arn))
			fa.Idle += idle
			fa.Busy += busy
		}
		return true
	})
	l := &r.activity
	l.mu.Lock()
	for arn, a := range l.byARN {
		fa := entry(arn)
		fa.Invocations, fa.Last = a.count, a.last
	}
	l.mu.Unlock()
	out := make([]FunctionActivity, 0, len(byARN))
	for _, fa := range byARN {
		out = append(out, *fa)
	}
	slices.SortFunc(out, func(a, b FunctionActivity) int { return strings.Compare(a.ARN, b.ARN) })
	return out
}

// ForgetActivity forgets every remembered invocation and count, those of
// invocations still running included (an emulator reset calls it).
// Instances are the pools': Evict and Close end them.
func (r *Runtime) ForgetActivity() {
	l := &r.activity
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byARN = nil
	l.order.Init()
	l.forgot = time.Now()
}

// forget drops what is remembered of the functions Evict(prefix) covers
// whole (deleted functions). Evicting one version keeps the function's
// records: an update evicts $LATEST's instances, and its history stays.
// An invocation of an evicted function still running records itself when
// it ends.
func (l *activityLog) forget(prefix string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for arn, a := range l.byARN {
		if arnUnder(arn, prefix) {
			l.order.Remove(a.elem)
			delete(l.byARN, arn)
		}
	}
}
