package sqs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/cloudemu/emulator/awswire"
)

// Received is one message as ReceiveMessage returns it.
type Received struct {
	MessageId              string                      `json:"MessageId"`     //nolint:revive // the model's name
	ReceiptHandle          string                      `json:"ReceiptHandle"` //nolint:revive // the model's name
	MD5OfBody              string                      `json:"MD5OfBody"`
	Body                   string                      `json:"Body"`
	Attributes             map[string]string           `json:"Attributes,omitempty"`
	MD5OfMessageAttributes string                      `json:"MD5OfMessageAttributes,omitempty"`
	MessageAttributes      map[string]MessageAttribute `json:"MessageAttributes,omitempty"`
}

// selection is a list of attribute names to return: All (or .*), names,
// and prefix.* patterns.
type selection struct {
	all      bool
	names    []string
	prefixes []string
}

func parseSelection(names ...[]string) selection {
	var s selection
	for _, list := range names {
		for _, n := range list {
			switch {
			case n == attrAll || n == ".*":
				s.all = true
			case strings.HasSuffix(n, ".*"):
				s.prefixes = append(s.prefixes, n[:len(n)-1])
			default:
				s.names = append(s.names, n)
			}
		}
	}
	return s
}

func (s selection) none() bool { return !s.all && len(s.names) == 0 && len(s.prefixes) == 0 }

func (s selection) has(name string) bool {
	if s.all {
		return true
	}
	for _, n := range s.names {
		if n == name {
			return true
		}
	}
	for _, p := range s.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// systemAttributes are m's system attributes as a receive with sel shows
// them.
func systemAttributes(q *Queue, m *Message, sel selection) map[string]string {
	if sel.none() {
		return nil
	}
	out := map[string]string{}
	add := func(k, v string) {
		if sel.has(k) {
			out[k] = v
		}
	}
	add("SenderId", m.Sender)
	add("SentTimestamp", strconv.FormatInt(m.Sent, 10))
	add("ApproximateReceiveCount", strconv.Itoa(int(m.Receives)))
	if m.FirstReceive != 0 {
		add("ApproximateFirstReceiveTimestamp", strconv.FormatInt(m.FirstReceive, 10))
	}
	x := m.extra()
	if q.FIFO {
		add("SequenceNumber", m.sequenceNumber())
		add("MessageDeduplicationId", x.Dedup)
		add("MessageGroupId", x.Group)
	} else if x.Group != "" {
		add("MessageGroupId", x.Group)
	}
	if x.Trace != "" {
		add(traceHeader, x.Trace)
	}
	if x.DLQSource != "" {
		add("DeadLetterQueueSourceArn", x.DLQSource)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func received(q *Queue, m *Message, sys, user selection) Received {
	r := Received{MessageId: m.ID.String(), ReceiptHandle: m.Handle, MD5OfBody: m.md5OfBody(), Body: m.Body,
		Attributes: systemAttributes(q, m, sys)}
	if !user.none() && len(m.Attrs) > 0 {
		sel := make(map[string]MessageAttribute, len(m.Attrs))
		for k, a := range m.Attrs {
			if user.has(k) {
				sel[k] = a
			}
		}
		if len(sel) > 0 {
			r.MessageAttributes = sel
			r.MD5OfMessageAttributes = MD5OfAttributes(sel)
		}
	}
	return r
}

// ReceiveMessageInput is ReceiveMessage's input.
type ReceiveMessageInput struct {
	QueueUrl                    string   `json:"QueueUrl"` //nolint:revive // the model's name
	AttributeNames              []string `json:"AttributeNames"`
	MessageSystemAttributeNames []string `json:"MessageSystemAttributeNames"`
	MessageAttributeNames       []string `json:"MessageAttributeNames"`
	MaxNumberOfMessages         *int32   `json:"MaxNumberOfMessages"`
	VisibilityTimeout           *int32   `json:"VisibilityTimeout"`
	WaitTimeSeconds             *int32   `json:"WaitTimeSeconds"`
	ReceiveRequestAttemptId     string   `json:"ReceiveRequestAttemptId"` //nolint:revive // the model's name
}

type receiveReply struct {
	msgs   []Received
	waiter *waiter
}

// ReceiveMessage receives up to MaxNumberOfMessages messages. With a wait
// (WaitTimeSeconds, else the queue's ReceiveMessageWaitTimeSeconds) and
// nothing available, it waits outside the owner until a message arrives,
// the wait ends or ctx is done.
func (s *Service) ReceiveMessage(ctx context.Context, sc awswire.Scope, in *ReceiveMessageInput) ([]Received, error) {
	e, q, err := s.resolve(sc, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	req := receiveRequest{max: 1, visibility: q.conf.visibility,
		system: parseSelection(in.AttributeNames, in.MessageSystemAttributeNames),
		user:   parseSelection(in.MessageAttributeNames)}
	if n := in.MaxNumberOfMessages; n != nil {
		if *n < 1 || *n > 10 {
			return nil, invalidParameter("Value %d for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.", *n)
		}
		req.max = int(*n)
	}
	if v := in.VisibilityTimeout; v != nil {
		if *v < 0 || *v > 43200 {
			return nil, invalidParameter("Value %d for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided.", *v)
		}
		req.visibility = int(*v)
	}
	wait := q.conf.wait
	if v := in.WaitTimeSeconds; v != nil {
		if *v < 0 || *v > 20 {
			return nil, invalidParameter("Value %d for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.", *v)
		}
		wait = int(*v)
	}
	if wait > 0 {
		// Past the bound a long poll does not wait: it answers at once
		// with what the queue holds, as a short poll, so that a flood of
		// parked receives cannot exhaust the emulator.
		if !s.takeLongPoll() {
			wait = 0
		} else {
			defer s.longPolls.Add(-1)
		}
	}
	if q.FIFO && in.ReceiveRequestAttemptId != "" {
		if !fifoID(in.ReceiveRequestAttemptId) {
			return nil, invalidParameter("Value %s for parameter ReceiveRequestAttemptId is invalid. Reason: ReceiveRequestAttemptId can only include alphanumeric and punctuation characters. 1 to 128 in length.", in.ReceiveRequestAttemptId)
		}
		req.attemptID = in.ReceiveRequestAttemptId
	}
	// The waiter is the caller's from the start, its deadline fixed before
	// the Ask: when the Ask times out (a busy owner) the caller gives it up,
	// and an owner that registers it later never serves it.
	deadline := s.clock().Add(time.Duration(wait) * time.Second).UnixNano()
	var wt *waiter
	if wait > 0 {
		wt = &waiter{ch: make(chan []Received, 1), req: req, deadline: deadline}
	}
	v, err := s.update(e, func(w *work) (any, error) {
		if req.attemptID != "" {
			if a, ok := w.rt.attempts[req.attemptID]; ok {
				return receiveReply{msgs: w.repeat(a, req)}, nil
			}
		}
		got, _ := w.receive(req, nil)
		if len(got) > 0 || wt == nil || w.now >= deadline || w.rt.closed {
			return receiveReply{msgs: got}, nil
		}
		w.addWaiter(wt)
		return receiveReply{waiter: wt}, nil
	})
	if err != nil {
		if wt != nil && !wt.state.CompareAndSwap(waiting, abandoned) {
			// Registered and served before the Ask gave up: the messages
			// are in flight for this caller.
			return wt.served(), nil
		}
		return nil, err
	}
	r := v.(receiveReply)
	if r.waiter == nil {
		return r.msgs, nil
	}
	return r.waiter.wait(ctx, time.Duration(deadline-s.clock().UnixNano())), nil
}

// SetMaxLongPolls bounds the receives waiting for messages at once, every
// queue together (0: no bound); past it a receive does not wait.
func (s *Service) SetMaxLongPolls(n int) { s.maxLongPolls.Store(int64(n)) }

// takeLongPoll takes a place for a receive that may wait.
func (s *Service) takeLongPoll() bool {
	limit := s.maxLongPolls.Load()
	if s.longPolls.Add(1) > limit && limit > 0 {
		s.longPolls.Add(-1)
		return false
	}
	return true
}

// wait waits for the owner to serve the waiter, at most d or until ctx is
// done; a waiter given up is dropped by the owner.
func (wt *waiter) wait(ctx context.Context, d time.Duration) []Received {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case msgs := <-wt.ch:
		return msgs
	case <-t.C:
	case <-ctx.Done():
	}
	if wt.state.CompareAndSwap(waiting, abandoned) {
		return nil
	}
	return wt.served()
}

// served waits for the messages of a served waiter: they are on their
// way, unless the owner failed to persist them (then they stayed in the
// queue).
func (wt *waiter) served() []Received {
	t := time.NewTimer(servedGrace)
	defer t.Stop()
	select {
	case msgs := <-wt.ch:
		return msgs
	case <-t.C:
		return nil
	}
}

// servedGrace bounds the wait for messages a waiter was served with.
const servedGrace = 5 * time.Second

// repeat answers a FIFO receive retried with the same attempt id: the
// messages of the first attempt still in flight under its handles.
func (w *work) repeat(a attempt, req receiveRequest) []Received {
	var out []Received
	for i, seq := range a.seqs {
		m, ok := w.get(seq)
		if !ok || m.State != stateInflight || i >= len(a.handles) || m.Handle != a.handles[i] {
			continue
		}
		out = append(out, received(w.q, m, req.system, req.user))
	}
	return out
}

// checkHandle reads a receipt handle of queue q.
func checkHandle(q *Queue, h string) (handle, error) {
	p, ok := parseHandle(h)
	if !ok || p.arn != q.ARN {
		return handle{}, invalidHandle(h)
	}
	return p, nil
}

// deleteOne deletes the message a handle names. A standard queue deletes
// with any handle the message was given; a FIFO queue only with the last
// one while the message is in flight.
func (w *work) deleteOne(h handle, raw string) error {
	m, ok := w.get(h.seq)
	if !ok || m.ID != h.id {
		return nil
	}
	if w.q.FIFO && (m.State != stateInflight || int(m.Receives) != h.receives) {
		return invalidParameter("Value %s for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.", raw)
	}
	w.remove(m)
	return nil
}

// DeleteMessage deletes the message a receipt handle names.
func (s *Service) DeleteMessage(sc awswire.Scope, queueURL, receiptHandle string) error {
	e, q, err := s.resolve(sc, queueURL)
	if err != nil {
		return err
	}
	if receiptHandle == "" {
		return missingParameter("ReceiptHandle")
	}
	h, err := checkHandle(q, receiptHandle)
	if err != nil {
		return err
	}
	_, err = s.update(e, func(w *work) (any, error) { return nil, w.deleteOne(h, receiptHandle) })
	return err
}

// DeleteMessageBatchRequestEntry is one entry of DeleteMessageBatch.
type DeleteMessageBatchRequestEntry struct {
	Id            string `json:"Id"`            //nolint:revive // the model's name
	ReceiptHandle string `json:"ReceiptHandle"` //nolint:revive // the model's name
}

// BatchResultEntry is one entry of a batch that succeeded.
type BatchResultEntry struct {
	Id string `json:"Id"` //nolint:revive // the model's name
}

// BatchResult is the output of DeleteMessageBatch and
// ChangeMessageVisibilityBatch.
type BatchResult struct {
	Successful []BatchResultEntry      `json:"Successful"`
	Failed     []BatchResultErrorEntry `json:"Failed"`
}

// DeleteMessageBatch deletes up to 10 messages.
func (s *Service) DeleteMessageBatch(sc awswire.Scope, queueURL string, entries []DeleteMessageBatchRequestEntry) (BatchResult, error) {
	ids := make([]string, len(entries))
	for i, en := range entries {
		ids[i] = en.Id
	}
	return s.batch(sc, queueURL, ids, "DeleteMessageBatchRequestEntry", func(q *Queue, i int) (func(w *work) error, error) {
		raw := entries[i].ReceiptHandle
		h, err := checkHandle(q, raw)
		if err != nil {
			return nil, err
		}
		return func(w *work) error { return w.deleteOne(h, raw) }, nil
	})
}

// batch runs a batch of changes to one queue in one turn of its owner;
// check prepares entry i outside the owner.
func (s *Service) batch(sc awswire.Scope, queueURL string, ids []string, entryShape string,
	check func(q *Queue, i int) (func(w *work) error, error)) (BatchResult, error) {
	e, q, err := s.resolve(sc, queueURL)
	if err != nil {
		return BatchResult{}, err
	}
	if err := checkBatch(ids, entryShape); err != nil {
		return BatchResult{}, err
	}
	out := BatchResult{Successful: []BatchResultEntry{}, Failed: []BatchResultErrorEntry{}}
	fns := make([]func(w *work) error, len(ids))
	for i, id := range ids {
		fn, err := check(q, i)
		if err != nil {
			out.Failed = append(out.Failed, failed(id, err))
			continue
		}
		fns[i] = fn
	}
	v, err := s.update(e, func(w *work) (any, error) {
		res := BatchResult{}
		for i, fn := range fns {
			if fn == nil {
				continue
			}
			if err := fn(w); err != nil {
				res.Failed = append(res.Failed, failed(ids[i], err))
				continue
			}
			res.Successful = append(res.Successful, BatchResultEntry{Id: ids[i]})
		}
		return res, nil
	})
	if err != nil {
		return BatchResult{}, err
	}
	r := v.(BatchResult)
	out.Successful = append(out.Successful, r.Successful...)
	out.Failed = append(out.Failed, r.Failed...)
	return out, nil
}

func checkVisibility(v int32) error {
	if v < 0 || v > 43200 {
		return invalidParameter("Value %d for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and 43200, if provided.", v)
	}
	return nil
}

// changeVisibility sets the visibility timeout of the in-flight message a
// handle names, from now.
func (w *work) changeVisibility(h handle, raw string, seconds int32) error {
	m, ok := w.get(h.seq)
	if !ok || m.ID != h.id {
		return invalidParameter("Value %s for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.", raw)
	}
	if m.State != stateInflight {
		return sqsError(codeMessageNotInflight, "The message referred to isn't in flight.")
	}
	if seconds == 0 {
		w.makeVisible(m, true)
		return nil
	}
	nm := *m
	nm.VisibleAt = w.now + int64(seconds)*int64(time.Second)
	w.replace(m, &nm, true)
	w.rt.deadlines.push(deadline{nm.VisibleAt, nm.Seq})
	w.rtChanged = true
	return nil
}

// ChangeMessageVisibility changes an in-flight message's visibility
// timeout.
func (s *Service) ChangeMessageVisibility(sc awswire.Scope, queueURL, receiptHandle string, seconds int32) error {
	e, q, err := s.resolve(sc, queueURL)
	if err != nil {
		return err
	}
	if receiptHandle == "" {
		return missingParameter("ReceiptHandle")
	}
	if err := checkVisibility(seconds); err != nil {
		return err
	}
	h, err := checkHandle(q, receiptHandle)
	if err != nil {
		return err
	}
	_, err = s.update(e, func(w *work) (any, error) { return nil, w.changeVisibility(h, receiptHandle, seconds) })
	return err
}

// ChangeMessageVisibilityBatchRequestEntry is one entry of
// ChangeMessageVisibilityBatch.
type ChangeMessageVisibilityBatchRequestEntry struct {
	Id                string `json:"Id"`            //nolint:revive // the model's name
	ReceiptHandle     string `json:"ReceiptHandle"` //nolint:revive // the model's name
	VisibilityTimeout *int32 `json:"VisibilityTimeout"`
}

// ChangeMessageVisibilityBatch changes the visibility of up to 10
// messages.
func (s *Service) ChangeMessageVisibilityBatch(sc awswire.Scope, queueURL string, entries []ChangeMessageVisibilityBatchRequestEntry) (BatchResult, error) {
	ids := make([]string, len(entries))
	for i, en := range entries {
		ids[i] = en.Id
	}
	return s.batch(sc, queueURL, ids, "ChangeMessageVisibilityBatchRequestEntry", func(q *Queue, i int) (func(w *work) error, error) {
		en := entries[i]
		var seconds int32
		if en.VisibilityTimeout != nil {
			seconds = *en.VisibilityTimeout
		}
		if err := checkVisibility(seconds); err != nil {
			return nil, err
		}
		h, err := checkHandle(q, en.ReceiptHandle)
		if err != nil {
			return nil, err
		}
		return func(w *work) error { return w.changeVisibility(h, en.ReceiptHandle, seconds) }, nil
	})
}

// ---- peek and delivery ----

// PeekedMessage is one message as the emulator's peek endpoint shows it.
type PeekedMessage struct {
	MessageId         string                      `json:"MessageId"`               //nolint:revive // the model's name
	ReceiptHandle     string                      `json:"ReceiptHandle,omitempty"` //nolint:revive // the model's name
	Body              string                      `json:"Body"`
	MD5OfBody         string                      `json:"MD5OfBody"`
	Attributes        map[string]string           `json:"Attributes"`
	MessageAttributes map[string]MessageAttribute `json:"MessageAttributes,omitempty"`
	// State is "visible", "inflight" or "delayed".
	State        string `json:"State"`
	ReceiveCount int    `json:"ReceiveCount"`
}

// Peeked is a queue and its messages, in send order.
type Peeked struct {
	QueueURL string          `json:"QueueUrl"`
	QueueARN string          `json:"QueueArn"`
	Messages []PeekedMessage `json:"Messages"`
}

// Peek reads the queue name in sc from its published snapshot, without
// counting a receive.
func (s *Service) Peek(sc awswire.Scope, name string) (Peeked, bool) {
	q, ok := s.snapshot(sc, name)
	if !ok {
		return Peeked{}, false
	}
	out := Peeked{QueueURL: s.QueueURL(sc, name), QueueARN: q.ARN, Messages: make([]PeekedMessage, 0, q.Messages.Len())}
	now := s.clock().UnixNano()
	all := selection{all: true}
	for _, m := range q.Messages.All() {
		state := m.State
		if state != stateVisible && m.VisibleAt <= now {
			state = stateVisible // due; the owner's timer is on its way
		}
		p := PeekedMessage{MessageId: m.ID.String(), Body: m.Body, MD5OfBody: m.md5OfBody(),
			Attributes: systemAttributes(q, m, all), State: stateNames[state], ReceiveCount: int(m.Receives)}
		if state == stateInflight {
			p.ReceiptHandle = m.Handle
		}
		if len(m.Attrs) > 0 {
			p.MessageAttributes = copyAttributes(m.Attrs)
		}
		out.Messages = append(out.Messages, p)
	}
	return out, true
}

// Delivery is a message SNS delivers to a queue.
type Delivery struct {
	Body       string
	Attributes map[string]MessageAttribute
	// GroupID and DedupID are the FIFO topic's; a FIFO queue without a
	// deduplication id deduplicates by the body's SHA-256.
	GroupID, DedupID string
}

// Deliver puts a message on the queue with ARN queueARN (any account and
// region of this emulator) as SNS does: body and attributes up to 1 MiB,
// whatever the queue's MaximumMessageSize.
func (s *Service) Deliver(ctx context.Context, queueARN string, d Delivery) error {
	sc, name, ok := parseQueueARN(queueARN)
	if !ok {
		return QueueDoesNotExist()
	}
	e, q, ok := s.entry(sc, name)
	if !ok {
		return QueueDoesNotExist()
	}
	in := &SendMessageInput{MessageBody: d.Body, MessageAttributes: d.Attributes, MessageGroupId: d.GroupID,
		MessageDeduplicationId: d.DedupID}
	if q.FIFO && in.MessageDeduplicationId == "" && !q.conf.contentDedup {
		sum := sha256.Sum256([]byte(d.Body))
		in.MessageDeduplicationId = hex.EncodeToString(sum[:])
	}
	if !q.FIFO {
		in.MessageDeduplicationId = ""
	}
	// SNS's envelope makes a 256 KiB publish larger than 256 KiB; AWS
	// delivers it (SQS takes 1 MiB), whatever MaximumMessageSize says.
	o, err := prepare(q, in, deliveryMaxSize)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err = s.update(e, func(w *work) (any, error) { return w.enqueue(o, snsSender), nil })
	return err
}
