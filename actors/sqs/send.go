package sqs

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// SendMessageInput is SendMessage's input (and, with Id, a batch entry's).
type SendMessageInput struct {
	QueueUrl                string                      `json:"QueueUrl"` //nolint:revive // the model's name
	MessageBody             string                      `json:"MessageBody"`
	DelaySeconds            *int32                      `json:"DelaySeconds"`
	MessageAttributes       map[string]MessageAttribute `json:"MessageAttributes"`
	MessageSystemAttributes map[string]MessageAttribute `json:"MessageSystemAttributes"`
	MessageDeduplicationId  string                      `json:"MessageDeduplicationId"` //nolint:revive // the model's name
	MessageGroupId          string                      `json:"MessageGroupId"`         //nolint:revive // the model's name
}

// SendMessageResult is SendMessage's output.
type SendMessageResult struct {
	MD5OfMessageBody             string `json:"MD5OfMessageBody"`
	MD5OfMessageAttributes       string `json:"MD5OfMessageAttributes,omitempty"`
	MD5OfMessageSystemAttributes string `json:"MD5OfMessageSystemAttributes,omitempty"`
	MessageId                    string `json:"MessageId"`                //nolint:revive // the model's name
	SequenceNumber               string `json:"SequenceNumber,omitempty"` //nolint:revive // the model's name
}

// outgoing is a message checked and digested outside the owner, waiting
// for its sequence and time.
type outgoing struct {
	m     Message
	delay *int32
}

// traceHeader is the one message system attribute AWS takes.
const traceHeader = "AWSTraceHeader"

// snsSender is the SenderId of messages SNS delivers.
const snsSender = "AIDAIT2UOQQY3AUEKVGXU"

// deliveryMaxSize bounds a message SNS delivers: AWS's SQS takes 1 MiB
// since 2025, and SNS's envelope around a 256 KiB publish exceeds 256 KiB.
const deliveryMaxSize = 1 << 20

// prepare checks a message for queue q as AWS does, its body and attributes
// within maxSize bytes, and computes its digests.
func prepare(q *Queue, in *SendMessageInput, maxSize int) (*outgoing, error) {
	if in.MessageBody == "" {
		return nil, missingParameter("MessageBody")
	}
	if in.DelaySeconds != nil {
		d := *in.DelaySeconds
		if q.FIFO && d != 0 {
			return nil, invalidParameter("Value %d for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.", d)
		}
		if d < 0 || d > 900 {
			return nil, invalidParameter("Value %d for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.", d)
		}
	}
	if err := checkMessageAttributes(in.MessageAttributes); err != nil {
		return nil, err
	}
	var trace string
	for k, a := range in.MessageSystemAttributes {
		if k != traceHeader {
			return nil, invalidParameter("Message system attribute name '%s' is invalid.", k)
		}
		if a.DataType != "String" || a.StringValue == "" {
			return nil, invalidParameter("Message system attribute 'AWSTraceHeader' must contain a non-empty value of type 'String'.")
		}
		trace = a.StringValue
	}
	if n := len(in.MessageBody) + attributesSize(in.MessageAttributes); n > maxSize {
		return nil, invalidParameter("One or more parameters are invalid. Reason: Message must be shorter than %d bytes.", maxSize)
	}
	if !validChars(in.MessageBody) {
		return nil, sqsError(codeInvalidMessageContents, invalidMessageContentsText)
	}
	o := &outgoing{delay: in.DelaySeconds}
	m := &o.m
	var x MessageExtra
	if q.FIFO {
		if in.MessageGroupId == "" {
			return nil, missingParameter("MessageGroupId")
		}
		if !fifoID(in.MessageGroupId) {
			return nil, invalidParameter("Value %s for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.", in.MessageGroupId)
		}
		switch {
		case in.MessageDeduplicationId != "":
			if !fifoID(in.MessageDeduplicationId) {
				return nil, invalidParameter("Value %s for parameter MessageDeduplicationId is invalid. Reason: MessageDeduplicationId can only include alphanumeric and punctuation characters. 1 to 128 in length.", in.MessageDeduplicationId)
			}
			x.Dedup = in.MessageDeduplicationId
		case q.conf.contentDedup:
			sum := sha256.Sum256([]byte(in.MessageBody))
			x.Dedup = hex.EncodeToString(sum[:])
		default:
			return nil, invalidParameter("The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
		}
	} else {
		if in.MessageDeduplicationId != "" {
			return nil, invalidParameter("Value %s for parameter MessageDeduplicationId is invalid. Reason: The request includes a parameter that is not valid for this queue type.", in.MessageDeduplicationId)
		}
		if in.MessageGroupId != "" && !fifoID(in.MessageGroupId) {
			return nil, invalidParameter("Value %s for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.", in.MessageGroupId)
		}
	}
	x.Group = in.MessageGroupId
	m.Body = in.MessageBody
	m.MD5Body = md5.Sum([]byte(in.MessageBody))
	if len(in.MessageAttributes) > 0 {
		m.Attrs = copyAttributes(in.MessageAttributes)
	}
	if trace != "" {
		x.Trace = trace
		x.MD5Sys = MD5OfAttributes(map[string]MessageAttribute{traceHeader: {DataType: "String", StringValue: trace}})
	}
	m.edit(func(e *MessageExtra) { *e = x })
	return o, nil
}

func copyAttributes(in map[string]MessageAttribute) map[string]MessageAttribute {
	out := make(map[string]MessageAttribute, len(in))
	for k, a := range in {
		out[k] = MessageAttribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: append([]byte(nil), a.BinaryValue...)}
	}
	return out
}

// sequenceBase makes FIFO sequence numbers 20 digits long, as AWS's are.
const sequenceBase = 10_000_000_000_000_000_000

// enqueue adds a prepared message (or, on a FIFO queue, answers the
// message it duplicates).
func (w *work) enqueue(o *outgoing, sender string) SendMessageResult {
	q := w.q
	var dedupKey string
	if q.FIFO {
		x := o.m.extra()
		dedupKey = x.Dedup
		if q.conf.dedupByGroup {
			dedupKey = x.Group + "\x00" + dedupKey
		}
		if d, ok := q.Dedup.Get(dedupKey); ok && d.Expires > w.now {
			r := result(&o.m, false)
			r.MessageId, r.SequenceNumber = d.ID, d.SeqNumber
			return r
		}
	}
	m := o.m
	m.Seq = q.NextMsg
	q.NextMsg++
	m.ID = newMessageID()
	m.Sent = w.now / int64(time.Millisecond)
	m.Sender = sender
	if q.FIFO {
		exp := w.now + dedupInterval*int64(time.Second)
		q.Dedup = q.Dedup.Set(dedupKey, dedupEntry{ID: m.ID.String(), SeqNumber: m.sequenceNumber(), Expires: exp})
		w.rt.dedup = append(w.rt.dedup, dedupExpiry{exp, dedupKey})
		w.rtChanged = true
	}
	delay := q.conf.delay
	if o.delay != nil {
		delay = int(*o.delay)
	}
	w.place(&m, delay)
	return result(&m, q.FIFO)
}

// place adds a new message, visible or delayed.
func (w *work) place(m *Message, delay int) {
	if delay > 0 {
		m.State = stateDelayed
		m.VisibleAt = w.now + int64(delay)*int64(time.Second)
		w.rt.deadlines.push(deadline{m.VisibleAt, m.Seq})
	} else {
		m.State = stateVisible
		if !w.q.FIFO {
			w.rt.ready.push(seqNum(m.Seq))
		}
	}
	w.rtChanged = true
	w.replace(nil, m, true)
	if w.q.FIFO {
		w.addToGroup(m)
	}
}

func result(m *Message, fifo bool) SendMessageResult {
	r := SendMessageResult{MD5OfMessageBody: m.md5OfBody(), MD5OfMessageAttributes: MD5OfAttributes(m.Attrs),
		MD5OfMessageSystemAttributes: m.extra().MD5Sys, MessageId: m.ID.String()}
	if fifo {
		r.SequenceNumber = m.sequenceNumber()
	}
	return r
}

// SendMessage sends one message; sc's account is its sender.
func (s *Service) SendMessage(sc awswire.Scope, in *SendMessageInput) (SendMessageResult, error) {
	e, q, err := s.resolve(sc, in.QueueUrl)
	if err != nil {
		return SendMessageResult{}, err
	}
	o, err := prepare(q, in, q.conf.maxSize)
	if err != nil {
		return SendMessageResult{}, err
	}
	v, err := s.update(e, func(w *work) (any, error) { return w.enqueue(o, sc.Account), nil })
	if err != nil {
		return SendMessageResult{}, err
	}
	return v.(SendMessageResult), nil
}

// SendMessageBatchRequestEntry is one entry of SendMessageBatch.
type SendMessageBatchRequestEntry struct {
	Id string `json:"Id"` //nolint:revive // the model's name
	SendMessageInput
}

// SendMessageBatchResultEntry is one sent entry.
type SendMessageBatchResultEntry struct {
	Id string `json:"Id"` //nolint:revive // the model's name
	SendMessageResult
}

// BatchResultErrorEntry is one failed entry of a batch.
type BatchResultErrorEntry struct {
	Id          string `json:"Id"` //nolint:revive // the model's name
	SenderFault bool   `json:"SenderFault"`
	Code        string `json:"Code"`
	Message     string `json:"Message,omitempty"`
}

// SendMessageBatchResult is SendMessageBatch's output.
type SendMessageBatchResult struct {
	Successful []SendMessageBatchResultEntry `json:"Successful"`
	Failed     []BatchResultErrorEntry       `json:"Failed"`
}

// checkBatch applies the rules of every batch operation: 1 to 10 entries
// with distinct, well-formed ids.
func checkBatch(ids []string, entryShape string) error {
	if len(ids) == 0 {
		return sqsError(codeEmptyBatchRequest, "There should be at least one %s in the request.", entryShape)
	}
	if len(ids) > 10 {
		return sqsError(codeTooManyEntries, "Maximum number of entries per request are 10. You have sent %d.", len(ids))
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !batchEntryID(id) {
			return sqsError(codeInvalidBatchEntryID, "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.")
		}
		if seen[id] {
			return sqsError(codeBatchEntryIdsNotDist, "Id %s repeated.", id)
		}
		seen[id] = true
	}
	return nil
}

func failed(id string, err error) BatchResultErrorEntry {
	if ae, ok := err.(*awswire.Error); ok {
		// Batch entries carry the code as the query protocol spells it,
		// in both protocols.
		return BatchResultErrorEntry{Id: id, SenderFault: ae.Status < 500, Code: ae.QueryCode(), Message: ae.Message}
	}
	return BatchResultErrorEntry{Id: id, Code: "InternalError", Message: "An internal error occurred."}
}

// SendMessageBatch sends up to 10 messages; each entry succeeds or fails
// on its own.
func (s *Service) SendMessageBatch(sc awswire.Scope, queueURL string, entries []SendMessageBatchRequestEntry) (SendMessageBatchResult, error) {
	e, q, err := s.resolve(sc, queueURL)
	if err != nil {
		return SendMessageBatchResult{}, err
	}
	ids := make([]string, len(entries))
	total := 0
	for i := range entries {
		ids[i] = entries[i].Id
		total += len(entries[i].MessageBody) + attributesSize(entries[i].MessageAttributes)
	}
	if err := checkBatch(ids, "SendMessageBatchRequestEntry"); err != nil {
		return SendMessageBatchResult{}, err
	}
	if total > maxBatchBytes {
		return SendMessageBatchResult{}, sqsError(codeBatchRequestTooLong, "Batch requests cannot be longer than %d bytes. You have sent %d bytes.", maxBatchBytes, total)
	}
	out := SendMessageBatchResult{Successful: []SendMessageBatchResultEntry{}, Failed: []BatchResultErrorEntry{}}
	type ready struct {
		id string
		o  *outgoing
	}
	var ok []ready
	for i := range entries {
		o, err := prepare(q, &entries[i].SendMessageInput, q.conf.maxSize)
		if err != nil {
			out.Failed = append(out.Failed, failed(entries[i].Id, err))
			continue
		}
		ok = append(ok, ready{entries[i].Id, o})
	}
	if len(ok) == 0 {
		return out, nil
	}
	v, err := s.update(e, func(w *work) (any, error) {
		res := make([]SendMessageBatchResultEntry, len(ok))
		for i, r := range ok {
			res[i] = SendMessageBatchResultEntry{Id: r.id, SendMessageResult: w.enqueue(r.o, sc.Account)}
		}
		return res, nil
	})
	if err != nil {
		return SendMessageBatchResult{}, err
	}
	out.Successful = v.([]SendMessageBatchResultEntry)
	return out, nil
}

// deadLetterQueue returns the owner of the queue arn names.
func (s *Service) deadLetterQueue(arn string) (*actors.Entry[Queue], *Queue, bool) {
	sc, name, ok := parseQueueARN(arn)
	if !ok {
		return nil, nil, false
	}
	return s.entry(sc, name)
}

// moveToDeadLetter gives m, received maxReceiveCount times from src, to
// src's dead-letter queue. It runs in src's owner once m's removal is
// durable.
func (s *Service) moveToDeadLetter(src *Queue, m *Message) {
	s.transfer(src.conf.deadLetterARN, []*Message{m}, src.ARN, false)
}

// transfer adds msgs, removed from their queue, to the queue arn names, in
// that queue's owner, marked with dlqSource ("" clears the mark), counted
// as never received when fresh (a redrive out of a dead-letter queue). It
// runs in the giving owner once the removal is durable, and never waits.
func (s *Service) transfer(arn string, msgs []*Message, dlqSource string, fresh bool) {
	e, _, ok := s.deadLetterQueue(arn)
	if !ok {
		s.log.Warn("the queue messages were moving to went away; they are dropped", "queue", arn, "messages", len(msgs))
		return
	}
	actors.Tell(s.sys, e, func(cur *Queue) (actors.Change[Queue], error) {
		if cur == nil {
			return actors.Change[Queue]{}, nil
		}
		w := s.begin(cur)
		for _, m := range msgs {
			nm := *m
			nm.Seq = w.q.NextMsg
			w.q.NextMsg++
			nm.edit(func(x *MessageExtra) { x.DLQSource = dlqSource })
			nm.Handle, nm.VisibleAt = "", 0
			if fresh {
				nm.Receives, nm.FirstReceive = 0, 0
			}
			w.place(&nm, 0)
			// It keeps its send time behind newer messages: its retention
			// is tracked apart.
			w.rt.early.push(deadline{nm.Sent, nm.Seq})
		}
		return w.change(nil), nil
	})
}
