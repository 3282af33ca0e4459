package sns

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/pmap"
	"github.com/cloudemu/emulator/store"
)

// storeService is the service segment of this package's store keys.
const storeService = "sns"

// Record kinds: a topic (its subscriptions are sub-records
// topic/<name>/sub/<id>) and a platform application (its endpoints are
// app/<platform>:<name>/endpoint/<id>).
const (
	kindTopic    = "topic"
	kindSub      = "sub"
	kindApp      = "app"
	kindEndpoint = "endpoint"
)

// QueueMessage is what a topic delivers to an SQS queue: the body (the
// envelope, or the message itself for raw delivery), the message
// attributes (raw delivery only) and, from FIFO topics, the group and
// deduplication ids.
type QueueMessage struct {
	Body       string
	Attributes map[string]Attribute
	GroupID    string
	DedupID    string
}

// Queues delivers to the emulator's SQS queues.
type Queues interface {
	// Deliver MUST enqueue m into the queue queueARN names, or return an
	// error (no such queue, refused message). It MUST NOT wait on an SNS
	// owner.
	Deliver(ctx context.Context, queueARN string, m QueueMessage) error
}

// Functions invokes the emulator's Lambda functions.
type Functions interface {
	// Invoke MUST run function (a name or ARN) in sc with payload, the SNS
	// event, and return once the invocation ended or failed.
	Invoke(ctx context.Context, sc awswire.Scope, function string, payload []byte) error
}

// HTTPPost is one delivery to an HTTP or HTTPS subscription.
type HTTPPost struct {
	URL     string
	Headers map[string]string
	Body    []byte
}

// HTTPEndpoints posts to HTTP and HTTPS subscriptions.
type HTTPEndpoints interface {
	// Post MUST send p as a POST within a bounded time and return the
	// status the endpoint answered, or an error.
	Post(ctx context.Context, p HTTPPost) (int, error)
}

// Options are the service's ways out: each MAY be nil, and deliveries
// through a missing one fail (logged) as a delivery to a missing target
// would.
type Options struct {
	Queues    Queues
	Functions Functions
	HTTP      HTTPEndpoints
	Inbox     *inbox.Inbox
	// Workers and Backlog bound the asynchronous deliveries (HTTP,
	// Lambda): how many run at once, and how many may wait; past the
	// backlog a delivery is dropped and logged.
	Workers int
	Backlog int
	// DeliveryTimeout bounds one delivery (default 10 s).
	DeliveryTimeout time.Duration
}

// dirs are the directories of one account and region.
type dirs struct {
	topics *actors.Directory[Topic]
	apps   *actors.Directory[App]
	// sms holds the account's SMS attributes (SetSMSAttributes), not
	// persisted.
	sms atomic.Pointer[map[string]string]
}

func newDirs() *dirs {
	return &dirs{topics: actors.NewDirectory[Topic](), apps: actors.NewDirectory[App]()}
}

// Service is the SNS facade: reads and publishing come from published
// snapshots; writes run inside the topic's or application's owner.
type Service struct {
	sys     *actors.System
	store   store.Store
	now     func() time.Time
	log     *slog.Logger
	seq     actors.Seq
	scopes  *actors.Scopes[dirs]
	opts    Options
	baseURL atomic.Pointer[string]
	queues  atomic.Pointer[Queues]

	jobs chan job
	// epoch is the generation queued deliveries belong to: Detach and
	// Close cancel it, which cancels the deliveries in flight and makes
	// the workers discard those still queued.
	epoch    atomic.Pointer[epoch]
	stop     chan struct{}
	stopOnce sync.Once
	workers  sync.WaitGroup

	restoring restoring
}

// restoring gathers the records of topics and applications until
// RestoreDone builds their owners.
type restoring struct {
	topics map[string]*Topic // by store key of the topic record
	subs   map[string][]*Subscription
	apps   map[string]*App
	eps    map[string][]*Endpoint
	scope  map[string]awswire.Scope
}

// New returns an empty service and starts its delivery workers (Close
// stops them). Call Restore before serving.
func New(sys *actors.System, st store.Store, now func() time.Time, log *slog.Logger, opts Options) *Service {
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.Backlog <= 0 {
		opts.Backlog = 1024
	}
	if opts.DeliveryTimeout <= 0 {
		opts.DeliveryTimeout = 10 * time.Second
	}
	s := &Service{sys: sys, store: st, now: now, log: log.With("component", "sns"),
		scopes: actors.NewScopes(newDirs), opts: opts,
		jobs: make(chan job, opts.Backlog), stop: make(chan struct{})}
	s.epoch.Store(newEpoch())
	s.SetEndpoint("http://localhost:4566")
	if opts.Queues != nil {
		s.SetQueues(opts.Queues)
	}
	for range opts.Workers {
		s.workers.Add(1)
		go s.work()
	}
	return s
}

// SetEndpoint sets the base URL of the emulator that SubscribeURL and
// UnsubscribeURL name.
func (s *Service) SetEndpoint(url string) {
	url = strings.TrimRight(url, "/")
	s.baseURL.Store(&url)
}

func (s *Service) base() string { return *s.baseURL.Load() }

// SetQueues sets (or replaces) the way to the emulator's SQS queues, for
// an assembly that builds SQS after SNS.
func (s *Service) SetQueues(q Queues) { s.queues.Store(&q) }

// Close cancels the deliveries in flight, drops those still queued and
// stops the delivery workers.
func (s *Service) Close() error {
	s.epoch.Load().cancel()
	s.stopOnce.Do(func() { close(s.stop) })
	s.workers.Wait()
	return nil
}

// epoch is one generation of asynchronous deliveries.
type epoch struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func newEpoch() *epoch {
	ctx, cancel := context.WithCancel(context.Background())
	return &epoch{ctx: ctx, cancel: cancel}
}

// job is one queued asynchronous delivery and the epoch it was queued in.
type job struct {
	epoch *epoch
	run   func(context.Context)
}

func (s *Service) work() {
	defer s.workers.Done()
	for {
		select {
		case <-s.stop:
			return
		case j := <-s.jobs:
			if j.epoch.ctx.Err() != nil {
				continue // queued before a reset
			}
			ctx, cancel := context.WithTimeout(j.epoch.ctx, s.opts.DeliveryTimeout)
			j.run(ctx)
			cancel()
		}
	}
}

// later queues an asynchronous delivery; it never blocks (an owner may
// call it): past the backlog the delivery is dropped.
func (s *Service) later(what string, run func(context.Context)) {
	select {
	case s.jobs <- job{epoch: s.epoch.Load(), run: run}:
	default:
		s.log.Warn("sns: delivery backlog full, delivery dropped", "delivery", what)
	}
}

// discardDeliveries starts a new epoch and cancels the old one: the
// deliveries in flight are cancelled and the queued ones are dropped
// (emptied from the queue here, or skipped by a worker that already took
// one). It does not wait for the workers.
func (s *Service) discardDeliveries() {
	s.epoch.Swap(newEpoch()).cancel()
	for {
		select {
		case j := <-s.jobs:
			if j.epoch.ctx.Err() == nil {
				// Queued after the swap: it belongs to the new epoch. Put
				// it back if there is room (its order among the new
				// epoch's few deliveries does not matter), else drop it.
				select {
				case s.jobs <- j:
				default:
					s.log.Warn("sns: delivery backlog full, delivery dropped", "delivery", "requeued")
				}
				return
			}
		default:
			return
		}
	}
}

func (s *Service) records() actors.Records {
	return actors.Records{Sys: s.sys, Store: s.store, Busy: busy}
}

func topicKey(sc awswire.Scope, name string) string {
	return store.Key(sc.Account, sc.Region, storeService, kindTopic, name)
}

func subKey(sc awswire.Scope, topic, id string) string {
	return store.Key(sc.Account, sc.Region, storeService, kindTopic, topic, kindSub, id)
}

func appKey(sc awswire.Scope, id string) string {
	return store.Key(sc.Account, sc.Region, storeService, kindApp, id)
}

func endpointKey(sc awswire.Scope, app, id string) string {
	return store.Key(sc.Account, sc.Region, storeService, kindApp, app, kindEndpoint, id)
}

// ---- restore and reset ----

// StoreService is the service segment of the keys Restore accepts.
func (s *Service) StoreService() string { return storeService }

// Restore gathers one persisted record; RestoreDone starts the owners.
func (s *Service) Restore(key string, value []byte) error {
	account, region, service, kind, id, sub, ok := store.ParseKey(key)
	if !ok || service != storeService {
		return fmt.Errorf("sns: restore: foreign key %q", key)
	}
	r := &s.restoring
	if r.topics == nil {
		*r = restoring{topics: map[string]*Topic{}, subs: map[string][]*Subscription{},
			apps: map[string]*App{}, eps: map[string][]*Endpoint{}, scope: map[string]awswire.Scope{}}
	}
	sc := awswire.Scope{Account: account, Region: region}
	owner := store.Key(account, region, storeService, kind, id)
	r.scope[owner] = sc
	var err error
	switch {
	case kind == kindTopic && len(sub) == 0:
		t := new(Topic)
		err = json.Unmarshal(value, &t.TopicRecord)
		r.topics[owner] = t
	case kind == kindTopic && len(sub) == 2 && sub[0] == kindSub:
		sb := new(Subscription)
		err = json.Unmarshal(value, sb)
		r.subs[owner] = append(r.subs[owner], sb)
	case kind == kindApp && len(sub) == 0:
		a := new(App)
		err = json.Unmarshal(value, &a.AppRecord)
		r.apps[owner] = a
	case kind == kindApp && len(sub) == 2 && sub[0] == kindEndpoint:
		e := new(Endpoint)
		err = json.Unmarshal(value, e)
		r.eps[owner] = append(r.eps[owner], e)
	default:
		return fmt.Errorf("sns: restore: unknown kind in %q", key)
	}
	if err != nil {
		return fmt.Errorf("sns: restore %s: %w", key, err)
	}
	return nil
}

// RestoreDone starts the owners of the gathered topics and applications.
// Sub-records whose topic or application is gone (a crash between the two
// writes cannot leave them: a delete removes the prefix in one batch) are
// skipped.
func (s *Service) RestoreDone() error {
	r := s.restoring
	s.restoring = restoring{}
	for key, t := range r.topics {
		sc := r.scope[key]
		subs := pmap.New[*Subscription]()
		for _, sb := range r.subs[key] {
			if err := sb.compile(); err != nil {
				s.log.Warn("sns: restore: subscription filter policy refused", "subscription", sb.ARN, "err", err)
			}
			subs = subs.Set(sb.ID, sb)
		}
		t.Subs = subs
		t.rt = newTopicRuntime()
		s.seq.Restored(t.Seq)
		if err := spawnRestored(s, "sns.topic", s.scopes.Get(sc).topics, t, t.Name, actors.SeqKey(t.Seq)); err != nil {
			return err
		}
	}
	for key, a := range r.apps {
		sc := r.scope[key]
		eps := pmap.New[*Endpoint]()
		for _, e := range r.eps[key] {
			s.seq.Restored(e.Seq)
			eps = eps.Set(e.ID, e)
		}
		a.Endpoints = eps
		s.seq.Restored(a.Seq)
		if err := spawnRestored(s, "sns.app", s.scopes.Get(sc).apps, a, a.ID, actors.SeqKey(a.Seq)); err != nil {
			return err
		}
	}
	return nil
}

func spawnRestored[S any](s *Service, kind string, dir *actors.Directory[S], st *S, id, order string) error {
	o := actors.NewStateOwner[S](s.store)
	e := actors.SpawnState(s.sys, kind, o, st)
	o.OnEnd = func(*S) { dir.Release(id, e) }
	if !dir.ReserveAt(id, order, e) {
		s.sys.StopAsync(e.Ref())
		return fmt.Errorf("sns: restore: duplicate %s %s", kind, id)
	}
	return nil
}

// Detach forgets every owner and stops them all, and discards the
// asynchronous deliveries queued or in flight.
func (s *Service) Detach() {
	var refs []actors.Ref
	s.scopes.Drain(func(_ awswire.Scope, d *dirs) bool {
		refs = append(refs, d.topics.Drain()...)
		refs = append(refs, d.apps.Drain()...)
		d.sms.Store(nil)
		return true
	})
	s.sys.Stop(refs)
	// After the owners stopped, so that a confirmation one queued while
	// stopping goes too.
	s.discardDeliveries()
}

// Counts reports how many topics, subscriptions, applications and
// endpoints each scope holds.
func (s *Service) Counts() map[awswire.Scope]map[string]int {
	out := map[awswire.Scope]map[string]int{}
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		c := map[string]int{"topics": 0, "subscriptions": 0, "platformApplications": 0, "endpoints": 0}
		for _, t := range d.topics.Ordered("") {
			c["topics"]++
			c["subscriptions"] += t.Subs.Len()
		}
		for _, a := range d.apps.Ordered("") {
			c["platformApplications"]++
			c["endpoints"] += a.Endpoints.Len()
		}
		if c["topics"]+c["platformApplications"] > 0 {
			out[sc] = c
		}
		return true
	})
	return out
}

// topicRuntime is what a topic keeps outside its persisted state and
// shares across its snapshots: FIFO deduplication and sequence numbers,
// which publishing updates without entering the owner.
type topicRuntime struct {
	// mu serialises a FIFO topic's publishes from the deduplication check
	// through delivery, so that a deduplication id is delivered once and
	// queues receive messages in sequence-number order. It is held outside
	// every owner, for one topic, while the (bounded) SQS deliveries run,
	// as AWS's FIFO topics also deliver one message at a time.
	mu sync.Mutex
	// dedup holds the live deduplication ids; expiry lists them oldest
	// first, so expiring is popping its head, not scanning dedup.
	dedup  map[string]dedupEntry
	expiry []dedupKey
	seq    uint64
}

type dedupEntry struct {
	at        time.Time
	messageID string
	sequence  string
}

type dedupKey struct {
	id string
	at time.Time
}

func newTopicRuntime() *topicRuntime {
	return &topicRuntime{dedup: map[string]dedupEntry{}}
}

// expire forgets the deduplication ids recorded dedupWindow or more
// before now. Callers hold rt.mu.
func (rt *topicRuntime) expire(now time.Time) {
	n := 0
	for n < len(rt.expiry) && now.Sub(rt.expiry[n].at) >= dedupWindow {
		k := rt.expiry[n]
		if e, ok := rt.dedup[k.id]; ok && e.at.Equal(k.at) {
			delete(rt.dedup, k.id)
		}
		n++
	}
	if n > 0 {
		clear(rt.expiry[:n])
		rt.expiry = rt.expiry[n:]
	}
}
