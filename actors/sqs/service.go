package sqs

import (
	"crypto/md5"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
	"github.com/cloudemu/emulator/store"
)

// storeService is the service segment of this package's store keys.
const storeService = "sqs"

// kindQueue is the kind segment of a queue's record; its messages are
// recorded under the queue's key, sub-segment "m".
const kindQueue = "queue"

// dirs are the directories of one account and region.
type dirs struct {
	queues *actors.Directory[Queue]
}

func newDirs() *dirs { return &dirs{queues: actors.NewDirectory[Queue]()} }

// Service is the SQS facade: reads come from published snapshots, every
// change of a queue runs inside its owner.
type Service struct {
	sys   *actors.System
	store store.Store
	now   func() time.Time
	// clock times messages: delays, visibility, retention and
	// deduplication run on real time even when now is fixed
	// (EMULATOR_FIXED_TIME fixes the timestamps of resources).
	clock    func() time.Time
	log      *slog.Logger
	seq      actors.Seq
	scopes   *actors.Scopes[dirs]
	endpoint atomic.Pointer[string]
	// longPolls counts the receives waiting for messages, every queue
	// together; maxLongPolls bounds it (0: no bound) (receive.go).
	longPolls    atomic.Int64
	maxLongPolls atomic.Int64

	restoreMu sync.Mutex
	restoring map[restoreKey]*restored
}

// New returns an empty service. Call Restore before serving to load what
// the store holds.
func New(sys *actors.System, st store.Store, now func() time.Time, log *slog.Logger) *Service {
	s := &Service{sys: sys, store: st, now: now, clock: time.Now, log: log.With("component", "sqs"), scopes: actors.NewScopes(newDirs)}
	s.SetEndpoint("http://localhost:4566")
	return s
}

// SetEndpoint sets the scheme, host and port queue URLs start with
// ("http://localhost:4566").
func (s *Service) SetEndpoint(base string) {
	base = strings.TrimRight(base, "/")
	s.endpoint.Store(&base)
}

// QueueURL is the URL of the queue name in sc.
func (s *Service) QueueURL(sc awswire.Scope, name string) string {
	return *s.endpoint.Load() + "/" + sc.Account + "/" + name
}

func queueKey(sc awswire.Scope, name string) string {
	return store.Key(sc.Account, sc.Region, storeService, kindQueue, name)
}

// msgKey is a message's key in its queue's map and the last segment of its
// record: its sequence as 16 hex digits, so that key order is send order.
func msgKey(seq uint64) string {
	const hex = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = hex[seq&0xf]
		seq >>= 4
	}
	return string(b[:])
}

func msgRecordKey(sc awswire.Scope, name string, seq uint64) string {
	return store.Key(sc.Account, sc.Region, storeService, kindQueue, name, "m", msgKey(seq))
}

// entry returns the owner and snapshot of the queue name in sc.
func (s *Service) entry(sc awswire.Scope, name string) (*actors.Entry[Queue], *Queue, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, nil, false
	}
	return d.queues.Entry(name)
}

func (s *Service) snapshot(sc awswire.Scope, name string) (*Queue, bool) {
	_, q, ok := s.entry(sc, name)
	return q, ok
}

// ---- restore and reset ----

type restoreKey struct {
	sc   awswire.Scope
	name string
}

type restored struct {
	q    *Queue
	msgs []*Message
}

// Restore gathers one persisted record (a queue or one of its messages);
// RestoreDone starts the owners.
func (s *Service) Restore(key string, value []byte) error {
	account, region, service, kind, id, sub, ok := store.ParseKey(key)
	if !ok || service != storeService || kind != kindQueue {
		return fmt.Errorf("sqs: restore: foreign key %q", key)
	}
	s.restoreMu.Lock()
	defer s.restoreMu.Unlock()
	if s.restoring == nil {
		s.restoring = map[restoreKey]*restored{}
	}
	rk := restoreKey{awswire.Scope{Account: account, Region: region}, id}
	r := s.restoring[rk]
	if r == nil {
		r = &restored{}
		s.restoring[rk] = r
	}
	switch {
	case len(sub) == 0:
		q := new(Queue)
		if err := json.Unmarshal(value, q); err != nil {
			return fmt.Errorf("sqs: restore %s: %w", key, err)
		}
		r.q = q
	case len(sub) == 2 && sub[0] == "m":
		m := new(Message)
		if err := json.Unmarshal(value, m); err != nil {
			return fmt.Errorf("sqs: restore %s: %w", key, err)
		}
		m.MD5Body = md5.Sum([]byte(m.Body))
		r.msgs = append(r.msgs, m)
	default:
		return fmt.Errorf("sqs: restore: unknown record %q", key)
	}
	return nil
}

// RestoreDone starts the owner of every restored queue with its messages.
// A message that was in flight keeps its visibility deadline (and its last
// receipt handle); one whose deadline passed while the emulator was down
// is visible at once.
func (s *Service) RestoreDone() error {
	s.restoreMu.Lock()
	pending := s.restoring
	s.restoring = nil
	s.restoreMu.Unlock()
	for rk, r := range pending {
		if r.q == nil {
			s.log.Warn("messages of a queue without its record are dropped", "queue", rk.name)
			continue
		}
		q := r.q
		q.Scope = rk.sc
		q.conf = parseConfig(q.Attrs)
		s.seq.Restored(q.Seq)
		var msgs pmap.Map[*Message]
		for _, m := range r.msgs {
			msgs = msgs.Set(msgKey(m.Seq), m)
			q.count(m.State, 1)
			if m.Seq >= q.NextMsg {
				q.NextMsg = m.Seq + 1
			}
		}
		q.Messages = msgs
		q.NextMsg = max(q.NextMsg, firstSeq(s.clock()))
		e, _ := s.spawn(q)
		if !s.scopes.Get(rk.sc).queues.ReserveAt(q.Name, actors.SeqKey(q.Seq), e) {
			s.sys.StopAsync(e.Ref())
			return fmt.Errorf("sqs: restore: duplicate queue %s", q.Name)
		}
		// The owner arms its timer itself, in its own mailbox. A queue
		// with no message and no move task has nothing to arm: its owner
		// stays passive until it is written.
		if q.Messages.Len() > 0 || len(q.MoveTasks) > 0 {
			actors.Tell(s.sys, e, q.rt.tick)
		}
	}
	return nil
}

// StoreService is the service segment of the keys Restore accepts.
func (s *Service) StoreService() string { return storeService }

// Detach forgets every queue and retires its owner; waiting receives are
// answered empty. The waiters and the timer are closed inside each owner,
// in its mailbox before the retirement: Stop waits at most the Ask timeout,
// so an owner still busy after it must not have them touched from here.
func (s *Service) Detach() {
	var refs []actors.Ref
	var entries []*actors.Entry[Queue]
	s.scopes.Drain(func(_ awswire.Scope, d *dirs) bool {
		for _, q := range d.queues.Snapshots(nil) {
			if e, ok := d.queues.Lookup(q.Name); ok {
				entries = append(entries, e)
			}
		}
		refs = append(refs, d.queues.Drain()...)
		return true
	})
	// A window at a time: a burst of messages to every queue would start
	// a goroutine per queue (see actors.Stop).
	for w := range slices.Chunk(entries, 256) {
		ps := make([]actors.Pending, 0, len(w))
		for _, e := range w {
			ps = append(ps, actors.Tell(s.sys, e, closeQueue))
		}
		_ = actors.WaitAll(ps)
	}
	s.sys.Stop(refs)
}

// closeQueue answers the queue's waiters empty and stops its timer, in its
// owner; the change itself is empty.
func closeQueue(cur *Queue) (actors.Change[Queue], error) {
	if cur != nil {
		cur.rt.close()
	}
	return actors.Change[Queue]{}, nil
}

// Counts reports how many queues each account and region holds.
func (s *Service) Counts() map[awswire.Scope]map[string]int {
	out := map[awswire.Scope]map[string]int{}
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		if n := d.queues.Len(); n > 0 {
			out[sc] = map[string]int{"queues": n}
		}
		return true
	})
	return out
}
