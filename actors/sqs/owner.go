package sqs

import (
	"cmp"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// Queue is one queue as its owner publishes it: attributes, tags and the
// messages in send order, with their counts. Published values never
// change; the owner publishes a new Queue on every change.
type Queue struct {
	Name     string            `json:"name"`
	ARN      string            `json:"arn"`
	Seq      uint64            `json:"seq"` // creation order
	FIFO     bool              `json:"fifo"`
	Attrs    map[string]string `json:"attrs"`
	Tags     map[string]string `json:"tags,omitempty"`
	Created  int64             `json:"created"`  // unix seconds
	Modified int64             `json:"modified"` // unix seconds
	PurgedAt int64             `json:"purgedAt,omitempty"`
	// NextMsg is the sequence of the next message; restore recomputes it.
	NextMsg   uint64     `json:"nextMsg"`
	MoveTasks []MoveTask `json:"moveTasks,omitempty"` // newest first

	Scope    awswire.Scope      `json:"-"`
	Messages pmap.Map[*Message] `json:"-"`
	// Visible, InFlight and Delayed count the messages in each state.
	Visible, InFlight, Delayed int `json:"-"`
	// Dedup: FIFO deduplication key → the message it deduplicated to.
	Dedup pmap.Map[dedupEntry] `json:"-"`

	conf config
	rt   *ownerState
}

// Idle implements actors.Idler: a queue's owner passivates only with no
// message in flight or delayed, no timer set and no long poll waiting.
// It runs inside the owner, which alone touches rt.
func (q *Queue) Idle() bool {
	rt := q.rt
	if rt == nil {
		return true
	}
	if q.InFlight > 0 || q.Delayed > 0 || rt.timer.Pending() {
		return false
	}
	for _, w := range rt.waiters {
		if w.state.Load() == waiting {
			return false
		}
	}
	return true
}

type dedupEntry struct {
	ID, SeqNumber string
	Expires       int64 // unix ns
}

func (q *Queue) count(state uint8, d int) {
	switch state {
	case stateVisible:
		q.Visible += d
	case stateInflight:
		q.InFlight += d
	case stateDelayed:
		q.Delayed += d
	}
}

// ownerState is the owner's private working state: indexes derived from the
// published state (rebuilt from it when a change failed half-way), the
// long-poll waiters and the timer. Only the owner touches it.
type ownerState struct {
	timer     *actors.Timer[Queue]
	deadlines minHeap[deadline] // inflight and delayed messages by VisibleAt
	ready     minHeap[seqNum]   // visible messages of a standard queue
	// early: messages sent before a message ahead of them in sequence order
	// (moved in from another queue, keeping their send time), by Sent (unix
	// ms): the in-order retention scan stops before them.
	early minHeap[deadline]
	// groups and groupHeads index a FIFO queue's messages (fifo.go).
	groups     map[string]*fifoGroup
	groupHeads minHeap[groupHead]
	waiters    []*waiter
	dedup      []dedupExpiry // in expiry order
	attempts   map[string]attempt
	dirty      bool
	tick       actors.Mutation[Queue]
	// closed: the queue is going away (a reset); no more waiters or timer.
	closed bool
}

type dedupExpiry struct {
	at  int64
	key string
}

type attempt struct {
	expires int64
	seqs    []uint64
	handles []string
}

// Waiter states: a waiter is served by the owner or abandoned by its
// caller, whichever comes first.
const (
	waiting int32 = iota
	served
	abandoned
)

type waiter struct {
	state atomic.Int32
	ch    chan []Received
	req   receiveRequest
	// deadline (unix ns, the service's clock) is when the caller stops
	// waiting; the owner never serves a waiter past it.
	deadline int64
}

// live reports whether wt may still be served at now; an expired waiter
// is marked abandoned so that its caller gets nothing from it.
func (wt *waiter) live(now int64) bool {
	if wt.state.Load() != waiting {
		return false
	}
	if now >= wt.deadline {
		wt.state.CompareAndSwap(waiting, abandoned)
		return false
	}
	return true
}

func (rt *ownerState) rebuild(q *Queue) {
	rt.deadlines = rt.deadlines[:0]
	rt.ready = rt.ready[:0]
	rt.early = rt.early[:0]
	var latest int64 // the latest Sent so far in sequence order
	for _, m := range q.Messages.All() {
		if m.Sent < latest {
			rt.early.push(deadline{m.Sent, m.Seq})
		}
		latest = max(latest, m.Sent)
		switch {
		case m.State != stateVisible:
			rt.deadlines.push(deadline{m.VisibleAt, m.Seq})
		case !q.FIFO:
			rt.ready.push(seqNum(m.Seq))
		}
	}
	rt.dedup = rt.dedup[:0]
	for k, d := range q.Dedup.All() {
		rt.dedup = append(rt.dedup, dedupExpiry{d.Expires, k})
	}
	sortDedup(rt.dedup)
	rt.rebuildGroups(q)
	rt.attempts = nil
	rt.dirty = false
}

// close answers every waiter empty and stops the timer, in the owner or
// once it has ended.
func (rt *ownerState) close() {
	rt.closed = true
	rt.timer.Stop()
	for _, w := range rt.waiters {
		if w.state.CompareAndSwap(waiting, served) {
			w.ch <- nil
		}
	}
	rt.waiters = nil
}

// spawn starts the owner of q (not yet in any directory).
func (s *Service) spawn(q *Queue) (*actors.Entry[Queue], *ownerState) {
	o := actors.NewStateOwner[Queue](s.store)
	e := actors.SpawnState(s.sys, "sqs.queue", o, nil)
	rt := &ownerState{}
	rt.tick = func(cur *Queue) (actors.Change[Queue], error) {
		rt.timer.Fired()
		if cur == nil {
			return actors.Change[Queue]{}, nil
		}
		return s.begin(cur).change(nil), nil
	}
	rt.timer = actors.NewTimer(s.sys, e, rt.tick)
	if q != nil {
		q.rt = rt
		rt.rebuild(q)
		e.Publish(q)
	}
	return e, rt
}

// work is one change of a queue being built inside its owner: the next
// state (a copy of the current one whose maps are replaced, never
// written), the records to persist and what to do once they are durable.
type work struct {
	s          *Service
	rt         *ownerState
	q          *Queue
	now        int64 // unix ns
	recs       []actors.Record
	deliveries []delivery
	moves      []*Message
	afters     []func()
	rtChanged  bool
}

type delivery struct {
	w    *waiter
	msgs []Received
}

func (s *Service) begin(cur *Queue) *work {
	rt := cur.rt
	if rt.dirty {
		rt.rebuild(cur)
	}
	rt.dirty = true
	next := *cur
	w := &work{s: s, rt: rt, q: &next, now: s.clock().UnixNano()}
	w.advance()
	return w
}

// fail ends a change that decided nothing: the owner state needs a rebuild
// only if the change already touched it.
func (w *work) fail(err error) (actors.Change[Queue], error) {
	w.rt.dirty = w.rtChanged
	return actors.Change[Queue]{}, err
}

// change ends a change: waiters get what is available, the timer is set
// to the next deadline, and deliveries and moves to dead-letter queues
// happen once the records are durable.
func (w *work) change(reply any) actors.Change[Queue] {
	w.serveWaiters()
	w.arm()
	rt, deliveries, moves, afters, q := w.rt, w.deliveries, w.moves, w.afters, w.q
	return actors.Change[Queue]{Next: q, Records: w.recs, Reply: reply, After: func() {
		rt.dirty = false
		for _, d := range deliveries {
			d.w.ch <- d.msgs
		}
		for _, m := range moves {
			w.s.moveToDeadLetter(q, m)
		}
		for _, f := range afters {
			f()
		}
	}}
}

func (w *work) get(seq uint64) (*Message, bool) { return w.q.Messages.Get(msgKey(seq)) }

// replace puts m in the queue in place of old (nil for a new message).
func (w *work) replace(old, m *Message, persist bool) {
	if old != nil {
		w.q.count(old.State, -1)
	}
	w.q.count(m.State, 1)
	k := msgKey(m.Seq)
	w.q.Messages = w.q.Messages.Set(k, m)
	if persist {
		w.recs = append(w.recs, actors.Put(msgRecordKey(w.q.Scope, w.q.Name, m.Seq), m))
	}
}

func (w *work) remove(m *Message) {
	w.q.count(m.State, -1)
	w.q.Messages = w.q.Messages.Delete(msgKey(m.Seq))
	w.recs = append(w.recs, actors.Del(msgRecordKey(w.q.Scope, w.q.Name, m.Seq)))
	if w.q.FIFO {
		w.touchGroup(m.extra().Group)
	}
}

// makeVisible turns m visible (its delay or visibility timeout ended).
func (w *work) makeVisible(m *Message, persist bool) {
	nm := *m
	nm.State, nm.VisibleAt = stateVisible, 0
	w.replace(m, &nm, persist)
	if w.q.FIFO {
		w.touchGroup(nm.extra().Group)
	} else {
		w.rt.ready.push(seqNum(nm.Seq))
		w.rtChanged = true
	}
}

// advance applies what came due: delays and visibility timeouts that ended
// (not persisted: a restored message whose deadline passed is visible),
// messages past the retention period, deduplication entries past 5 minutes.
func (w *work) advance() {
	rt := w.rt
	for len(rt.deadlines) > 0 && rt.deadlines[0].at <= w.now {
		d := rt.deadlines.pop()
		w.rtChanged = true
		m, ok := w.get(d.seq)
		if !ok || m.State == stateVisible || m.VisibleAt != d.at {
			continue
		}
		w.makeVisible(m, false)
	}
	if w.q.Messages.Len() > 0 {
		cutoff := w.now/int64(time.Millisecond) - int64(w.q.conf.retention)*1000
		for _, m := range w.q.Messages.All() {
			if m.Sent > cutoff {
				break
			}
			w.remove(m)
		}
		for len(rt.early) > 0 && rt.early[0].at <= cutoff {
			d := rt.early.pop()
			w.rtChanged = true
			if m, ok := w.get(d.seq); ok && m.Sent == d.at {
				w.remove(m)
			}
		}
	}
	for len(rt.dedup) > 0 && rt.dedup[0].at <= w.now {
		e := rt.dedup[0]
		rt.dedup = rt.dedup[1:]
		w.rtChanged = true
		if d, ok := w.q.Dedup.Get(e.key); ok && d.Expires == e.at {
			w.q.Dedup = w.q.Dedup.Delete(e.key)
		}
	}
	for k, a := range rt.attempts {
		if a.expires <= w.now {
			delete(rt.attempts, k)
		}
	}
}

// arm sets the timer to the next deadline: the first delay or visibility
// timeout to end, or the retention of the first message or of the
// earliest sent one moved in.
func (w *work) arm() {
	if w.rt.closed {
		return
	}
	next := int64(0)
	if len(w.rt.deadlines) > 0 {
		next = w.rt.deadlines[0].at
	}
	retention := func(sent int64) {
		at := (sent + int64(w.q.conf.retention)*1000) * int64(time.Millisecond)
		if next == 0 || at < next {
			next = at
		}
	}
	for _, m := range w.q.Messages.All() {
		retention(m.Sent)
		break
	}
	if len(w.rt.early) > 0 {
		retention(w.rt.early[0].at)
	}
	if next != 0 {
		w.rt.timer.At(time.Unix(0, next))
	}
}

// receiveRequest is a receive as the owner serves it.
type receiveRequest struct {
	max        int
	visibility int
	system     selection
	user       selection
	attemptID  string
}

// Outcomes of a receive for a waiter.
const (
	receivedNone = iota
	receivedClaimFailed
	receivedSome
)

// receive takes up to req.max available messages: in send order, a FIFO
// queue's groups blocked while one of their messages is in flight; each
// goes in flight with a new receipt handle, or to the dead-letter queue
// when it was received maxReceiveCount times already (then the receive
// looks again: a receive whose candidates all moved found nothing). claim,
// when set, is called once messages were found, and a false return leaves
// them.
func (w *work) receive(req receiveRequest, claim func() bool) ([]Received, int) {
	var cands []*Message
	for len(cands) == 0 {
		found := w.candidates(req.max)
		if len(found) == 0 {
			return nil, receivedNone
		}
		for _, m := range found {
			if c := w.q.conf; c.maxReceive > 0 && int(m.Receives) >= c.maxReceive {
				if _, _, ok := w.s.deadLetterQueue(c.deadLetterARN); ok {
					w.remove(m)
					w.moves = append(w.moves, m)
					continue
				}
			}
			cands = append(cands, m)
		}
	}
	if claim != nil && !claim() {
		if !w.q.FIFO {
			for _, m := range cands {
				w.rt.ready.push(seqNum(m.Seq))
			}
		}
		return nil, receivedClaimFailed
	}
	out := make([]Received, 0, len(cands))
	var a attempt // the messages and handles, index for index, a retry repeats
	nowMs := w.now / int64(time.Millisecond)
	for _, m := range cands {
		nm := *m
		nm.State = stateInflight
		nm.Receives++
		if nm.FirstReceive == 0 {
			nm.FirstReceive = nowMs
		}
		nm.VisibleAt = w.now + int64(req.visibility)*int64(time.Second)
		nm.Handle = newHandle(w.q.ARN, &nm)
		w.replace(m, &nm, true)
		w.rt.deadlines.push(deadline{nm.VisibleAt, nm.Seq})
		w.rtChanged = true
		out = append(out, received(w.q, &nm, req.system, req.user))
		if req.attemptID != "" {
			a.seqs = append(a.seqs, nm.Seq)
			a.handles = append(a.handles, nm.Handle)
		}
	}
	if req.attemptID != "" && len(out) > 0 {
		a.expires = w.now + dedupInterval*int64(time.Second)
		if w.rt.attempts == nil {
			w.rt.attempts = map[string]attempt{}
		}
		w.rt.attempts[req.attemptID] = a
	}
	return out, receivedSome
}

// candidates are up to limit visible messages a receive may take, in send
// order, a FIFO queue's groups with a message in flight left out.
func (w *work) candidates(limit int) []*Message {
	if w.q.FIFO {
		return w.fifoCandidates(limit)
	}
	var cands []*Message
	for len(cands) < limit && len(w.rt.ready) > 0 {
		seq := uint64(w.rt.ready.pop())
		w.rtChanged = true
		m, ok := w.get(seq)
		if !ok || m.State != stateVisible || containsMsg(cands, m) {
			continue
		}
		cands = append(cands, m)
	}
	return cands
}

func containsMsg(ms []*Message, m *Message) bool {
	for _, x := range ms {
		if x.Seq == m.Seq {
			return true
		}
	}
	return false
}

// serveWaiters hands available messages to the waiting receives, first
// come first served; waiters their callers gave up are dropped.
func (w *work) serveWaiters() {
	rt := w.rt
	for len(rt.waiters) > 0 && w.q.Visible > 0 {
		wt := rt.waiters[0]
		if !wt.live(w.now) {
			rt.waiters = rt.waiters[1:]
			continue
		}
		got, outcome := w.receive(wt.req, func() bool { return wt.state.CompareAndSwap(waiting, served) })
		if outcome == receivedNone {
			return
		}
		rt.waiters = rt.waiters[1:]
		if outcome == receivedSome {
			w.deliveries = append(w.deliveries, delivery{wt, got})
		}
	}
	if len(rt.waiters) == 0 {
		rt.waiters = nil
	}
}

// addWaiter registers wt, a receive that found nothing, dropping the
// waiters whose callers gave up or whose deadline passed.
func (w *work) addWaiter(wt *waiter) {
	kept := w.rt.waiters[:0]
	for _, x := range w.rt.waiters {
		if x.live(w.now) {
			kept = append(kept, x)
		}
	}
	clear(w.rt.waiters[len(kept):])
	if wt.live(w.now) { // not given up by a caller whose Ask timed out
		kept = append(kept, wt)
	}
	w.rt.waiters = kept
}

// ---- receipt handles ----

// newHandle makes a receipt handle: the queue's ARN, the message's
// sequence, receive count and id (a sequence may come back after a
// restart; the id tells a new message from the one the handle was given
// for), and randomness, base64-encoded.
func newHandle(arn string, m *Message) string {
	raw := make([]byte, 0, len(arn)+80)
	raw = append(raw, "h1 "...)
	raw = strconv.AppendUint(raw, m.Seq, 16)
	raw = append(raw, ' ')
	raw = strconv.AppendInt(raw, int64(m.Receives), 10)
	raw = append(raw, ' ')
	raw = m.ID.appendText(raw)
	raw = append(raw, ' ')
	raw = append(raw, awswire.ShortID(8)...)
	raw = append(raw, ' ')
	raw = append(raw, arn...)
	return base64.StdEncoding.EncodeToString(raw)
}

type handle struct {
	seq      uint64
	receives int
	id       messageID
	arn      string
}

func parseHandle(h string) (handle, bool) {
	if len(h) == 0 || len(h) > 2048 {
		return handle{}, false
	}
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		return handle{}, false
	}
	parts := strings.SplitN(string(raw), " ", 6)
	if len(parts) != 6 || parts[0] != "h1" {
		return handle{}, false
	}
	seq, err1 := strconv.ParseUint(parts[1], 16, 64)
	n, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil {
		return handle{}, false
	}
	id, ok := parseMessageID(parts[3])
	if !ok {
		return handle{}, false
	}
	return handle{seq: seq, receives: n, id: id, arn: parts[5]}, true
}

// ---- heaps ----

type deadline struct {
	at  int64
	seq uint64
}

// before orders deadlines by time.
func (d deadline) before(o deadline) bool { return d.at < o.at }

// seqNum is a message's sequence, ordered as such in a heap.
type seqNum uint64

func (a seqNum) before(b seqNum) bool { return a < b }

// ordered is what a minHeap holds: values that tell which comes first.
type ordered[T any] interface{ before(T) bool }

// The heaps' element types (named here: staticcheck does not see methods
// used only through a type parameter's constraint).
var (
	_ ordered[deadline]  = deadline{}
	_ ordered[seqNum]    = seqNum(0)
	_ ordered[groupHead] = groupHead{}
)

// minHeap is a binary min-heap of the values' before order.
type minHeap[T ordered[T]] []T

func (h *minHeap[T]) push(v T) {
	*h = append(*h, v)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].before(s[p]) {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap[T]) pop() T {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s[l].before(s[m]) {
			m = l
		}
		if r < n && s[r].before(s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[m], s[i] = s[i], s[m]
		i = m
	}
	*h = s
	return top
}

func sortDedup(s []dedupExpiry) {
	slices.SortFunc(s, func(a, b dedupExpiry) int { return cmp.Compare(a.at, b.at) })
}
