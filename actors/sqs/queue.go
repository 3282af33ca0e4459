package sqs

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// locate resolves a queue URL (any host; the path /{account}/{name}, or
// /queue/{region}/{account}/{name}) in the caller's scope sc.
func locate(sc awswire.Scope, queueURL string) (awswire.Scope, string, bool) {
	p := queueURL
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
		j := strings.IndexByte(p, '/')
		if j < 0 {
			return sc, "", false
		}
		p = p[j:]
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(parts) == 2:
		return awswire.Scope{Account: parts[0], Region: sc.Region}, parts[1], parts[0] != "" && parts[1] != ""
	case len(parts) == 4 && parts[0] == "queue":
		return awswire.Scope{Account: parts[2], Region: parts[1]}, parts[3], parts[3] != ""
	}
	return sc, "", false
}

// resolve returns the owner and snapshot of the queue a URL names.
func (s *Service) resolve(sc awswire.Scope, queueURL string) (*actors.Entry[Queue], *Queue, error) {
	if queueURL == "" {
		return nil, nil, missingParameter("QueueUrl")
	}
	qsc, name, ok := locate(sc, queueURL)
	if !ok {
		return nil, nil, QueueDoesNotExist()
	}
	e, q, ok := s.entry(qsc, name)
	if !ok {
		return nil, nil, QueueDoesNotExist()
	}
	return e, q, nil
}

// update runs fn in the queue's owner.
func (s *Service) update(e *actors.Entry[Queue], fn func(w *work) (any, error)) (any, error) {
	v, err := actors.Update(s.sys, e, func(cur *Queue) (actors.Change[Queue], error) {
		if cur == nil {
			return actors.Change[Queue]{}, QueueDoesNotExist()
		}
		w := s.begin(cur)
		reply, err := fn(w)
		if err != nil {
			return w.fail(err)
		}
		return w.change(reply), nil
	})
	return actors.Result[any](v, err, func() error { return QueueDoesNotExist() }, busy)
}

func validQueueName(name string, fifo bool) bool {
	base := name
	if fifo {
		if !strings.HasSuffix(name, ".fifo") {
			return false
		}
		base = strings.TrimSuffix(name, ".fifo") + "_fifo"
	}
	if len(base) < 1 || len(base) > 80 {
		return false
	}
	for i := 0; i < len(base); i++ {
		c := base[i]
		if !(c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// CreateQueueInput is CreateQueue's input.
type CreateQueueInput struct {
	QueueName  string            `json:"QueueName"`
	Attributes map[string]string `json:"Attributes"`
	Tags       map[string]string `json:"tags"`
}

// CreateQueue creates a queue, or returns the URL of the queue of that
// name when the attributes given match its own.
func (s *Service) CreateQueue(sc awswire.Scope, in CreateQueueInput) (string, error) {
	if in.QueueName == "" {
		return "", missingParameter("QueueName")
	}
	fifo := strings.EqualFold(in.Attributes[attrFifoQueue], "true")
	if !validQueueName(in.QueueName, fifo) {
		if fifo {
			return "", invalidParameter("The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.")
		}
		return "", invalidParameter("Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length")
	}
	attrs, err := s.checkAttributes(sc, fifo, in.Attributes)
	if err != nil {
		return "", err
	}
	if err := checkTags(in.Tags); err != nil {
		return "", err
	}
	d := s.scopes.Get(sc)
	for range 100 {
		if q, ok := d.queues.Get(in.QueueName); ok {
			for k, v := range attrs {
				if q.Attrs[k] != v {
					return "", sqsError(codeQueueNameExists, "A queue already exists with the same name and a different value for attribute %s", k)
				}
			}
			return s.QueueURL(sc, in.QueueName), nil
		}
		if _, held := d.queues.Lookup(in.QueueName); held {
			// Being created (or deleted) by another request right now.
			time.Sleep(5 * time.Millisecond)
			continue
		}
		url, err, taken := s.create(sc, d, in.QueueName, fifo, attrs, in.Tags)
		if !taken {
			return url, err
		}
	}
	return "", busy()
}

func (s *Service) create(sc awswire.Scope, d *dirs, name string, fifo bool, attrs, tags map[string]string) (string, error, bool) {
	e, rt := s.spawn(nil)
	seq := s.seq.Next()
	if !d.queues.ReserveAt(name, actors.SeqKey(seq), e) {
		s.sys.StopAsync(e.Ref())
		return "", nil, true
	}
	now := s.now().Unix()
	var all map[string]string
	if len(attrs) == 0 {
		// Published attributes are never written (changes clone them):
		// queues created with the defaults share them.
		all = sharedDefaults[fifo]
	} else {
		all = defaultAttributes(fifo)
		maps.Copy(all, attrs)
		settle(all)
	}
	q := &Queue{Name: name, ARN: queueARN(sc, name), Seq: seq, FIFO: fifo, Attrs: all, Tags: tags,
		Created: now, Modified: now, NextMsg: firstSeq(s.clock()), Scope: sc, conf: parseConfig(all), rt: rt}
	if len(q.Tags) == 0 {
		q.Tags = nil
	}
	dir := d.queues
	_, err := actors.Init(s.sys, e, func(*Queue) (actors.Change[Queue], error) {
		return actors.Change[Queue]{Next: q, Records: []actors.Record{actors.Put(queueKey(sc, name), q)}}, nil
	})
	if err != nil {
		dir.Release(name, e)
		s.sys.StopAsync(e.Ref())
		_, err = actors.Result[any](nil, err, busy, busy)
		return "", err, false
	}
	return s.QueueURL(sc, name), nil, false
}

// settle applies what AWS derives between attributes: a KMS key turns
// SQS-managed encryption off and brings the data key reuse period.
func settle(a map[string]string) {
	if a[attrKmsMasterKeyID] != "" {
		if _, ok := a[attrKmsDataKeyReusePeriod]; !ok {
			a[attrKmsDataKeyReusePeriod] = defaultKmsDataKeyReuse
		}
		a[attrSqsManagedSseEnabled] = "false"
	}
	for _, k := range []string{attrPolicy, attrRedrivePolicy, attrRedriveAllowPolicy, attrKmsMasterKeyID} {
		if a[k] == "" {
			delete(a, k)
		}
	}
	if a[attrKmsMasterKeyID] == "" {
		delete(a, attrKmsDataKeyReusePeriod)
	}
}

func checkTags(tags map[string]string) error {
	if len(tags) > 50 {
		return invalidParameter("Too many tags added for queue. A queue can have at most 50 tags.")
	}
	for k, v := range tags {
		if n := utf8.RuneCountInString(k); n < 1 || n > 128 {
			return invalidParameter("Tag keys must be between 1 and 128 characters in length.")
		}
		if utf8.RuneCountInString(v) > 256 {
			return invalidParameter("Tag values must be less than 256 characters in length.")
		}
	}
	return nil
}

// GetQueueURL returns the URL of the queue name, in the account owner
// when given.
func (s *Service) GetQueueURL(sc awswire.Scope, name, owner string) (string, error) {
	if name == "" {
		return "", missingParameter("QueueName")
	}
	if owner != "" {
		sc.Account = owner
	}
	if _, ok := s.snapshot(sc, name); !ok {
		return "", QueueDoesNotExist()
	}
	return s.QueueURL(sc, name), nil
}

// ListQueues lists queue URLs whose names start with prefix, in creation
// order; max (1 to 1000) pages the listing, else at most 1000 come back.
func (s *Service) ListQueues(sc awswire.Scope, prefix, token string, max *int32) ([]string, string, error) {
	n := 1000
	if max != nil {
		if *max < 1 || *max > 1000 {
			return nil, "", invalidParameter("Value %d for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000.", *max)
		}
		n = int(*max)
	}
	from := ""
	if token != "" {
		k, ok := awswire.DecodeToken(token)
		if !ok {
			return nil, "", invalidParameter("Invalid NextToken value.")
		}
		from = k
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, "", nil
	}
	var out []string
	next := ""
	for k, q := range d.queues.Ordered(from) {
		if !strings.HasPrefix(q.Name, prefix) {
			continue
		}
		if len(out) == n {
			if max != nil {
				next = awswire.EncodeToken(k)
			}
			break
		}
		out = append(out, s.QueueURL(sc, q.Name))
	}
	return out, next, nil
}

// DeleteQueue deletes a queue and its messages; waiting receives are
// answered empty.
func (s *Service) DeleteQueue(sc awswire.Scope, queueURL string) error {
	e, q, err := s.resolve(sc, queueURL)
	if err != nil {
		return err
	}
	d := s.scopes.Get(q.Scope)
	name := q.Name
	v, err := actors.Update(s.sys, e, func(cur *Queue) (actors.Change[Queue], error) {
		if cur == nil {
			return actors.Change[Queue]{}, QueueDoesNotExist()
		}
		rt := cur.rt
		key := queueKey(cur.Scope, cur.Name)
		return actors.Change[Queue]{End: true,
			Records: []actors.Record{actors.Del(key), actors.DelPrefix(key + "/")},
			After: func() {
				rt.close()
				d.queues.Release(name, e)
			}}, nil
	})
	_, err = actors.Result[any](v, err, func() error { return QueueDoesNotExist() }, busy)
	return err
}

// GetQueueAttributes returns the attributes named (All for every one).
func (s *Service) GetQueueAttributes(sc awswire.Scope, queueURL string, names []string) (map[string]string, error) {
	_, q, err := s.resolve(sc, queueURL)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	all := false
	for _, n := range names {
		switch {
		case n == attrAll:
			all = true
		case computed[n], settable[n], q.FIFO && fifoOnly[n], n == attrKmsDataKeyReusePeriod:
			want[n] = true
		default:
			return nil, unknownAttribute(n)
		}
	}
	out := map[string]string{}
	add := func(k, v string) {
		if all || want[k] {
			out[k] = v
		}
	}
	for k, v := range q.Attrs {
		add(k, v)
	}
	add(attrApproxMessages, strconv.Itoa(q.Visible))
	add(attrApproxNotVisible, strconv.Itoa(q.InFlight))
	add(attrApproxDelayed, strconv.Itoa(q.Delayed))
	add(attrCreatedTimestamp, strconv.FormatInt(q.Created, 10))
	add(attrLastModifiedTimestamp, strconv.FormatInt(q.Modified, 10))
	add(attrQueueArn, q.ARN)
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// SetQueueAttributes changes a queue's attributes.
func (s *Service) SetQueueAttributes(sc awswire.Scope, queueURL string, attrs map[string]string) error {
	e, q, err := s.resolve(sc, queueURL)
	if err != nil {
		return err
	}
	checked, err := s.checkAttributes(q.Scope, q.FIFO, attrs)
	if err != nil {
		return err
	}
	if len(checked) == 0 {
		return nil
	}
	now := s.now().Unix()
	_, err = s.update(e, func(w *work) (any, error) {
		next := maps.Clone(w.q.Attrs)
		maps.Copy(next, checked)
		if checked[attrKmsMasterKeyID] == "" {
			if _, given := checked[attrKmsMasterKeyID]; given {
				delete(next, attrKmsDataKeyReusePeriod)
				if _, sse := checked[attrSqsManagedSseEnabled]; !sse {
					next[attrSqsManagedSseEnabled] = "true"
				}
			}
		}
		settle(next)
		w.q.Attrs = next
		w.q.conf = parseConfig(next)
		w.q.Modified = now
		w.recs = append(w.recs, putQueue(w.q))
		return nil, nil
	})
	return err
}

// TagQueue adds tags to a queue.
func (s *Service) TagQueue(sc awswire.Scope, queueURL string, tags map[string]string) error {
	e, _, err := s.resolve(sc, queueURL)
	if err != nil {
		return err
	}
	if err := checkTags(tags); err != nil {
		return err
	}
	_, err = s.update(e, func(w *work) (any, error) {
		next := maps.Clone(w.q.Tags)
		if next == nil {
			next = map[string]string{}
		}
		maps.Copy(next, tags)
		if err := checkTags(next); err != nil {
			return nil, err
		}
		w.q.Tags = next
		w.recs = append(w.recs, putQueue(w.q))
		return nil, nil
	})
	return err
}

// UntagQueue removes tags from a queue.
func (s *Service) UntagQueue(sc awswire.Scope, queueURL string, keys []string) error {
	e, _, err := s.resolve(sc, queueURL)
	if err != nil {
		return err
	}
	_, err = s.update(e, func(w *work) (any, error) {
		w.q.Tags = awswire.RemoveTags(w.q.Tags, keys)
		w.recs = append(w.recs, putQueue(w.q))
		return nil, nil
	})
	return err
}

// ListQueueTags returns a queue's tags.
func (s *Service) ListQueueTags(sc awswire.Scope, queueURL string) (map[string]string, error) {
	_, q, err := s.resolve(sc, queueURL)
	if err != nil {
		return nil, err
	}
	return maps.Clone(q.Tags), nil
}

// ListDeadLetterSourceQueues lists the queues of the same account and
// region whose redrive policy names this queue, in creation order.
func (s *Service) ListDeadLetterSourceQueues(sc awswire.Scope, queueURL, token string, max *int32) ([]string, string, error) {
	_, q, err := s.resolve(sc, queueURL)
	if err != nil {
		return nil, "", err
	}
	n := 1000
	if max != nil {
		if *max < 1 || *max > 1000 {
			return nil, "", invalidParameter("Value %d for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000.", *max)
		}
		n = int(*max)
	}
	from := ""
	if token != "" {
		k, ok := awswire.DecodeToken(token)
		if !ok {
			return nil, "", invalidParameter("Invalid NextToken value.")
		}
		from = k
	}
	out := []string{}
	next := ""
	for k, src := range s.scopes.Get(q.Scope).queues.Ordered(from) {
		if src.conf.deadLetterARN != q.ARN {
			continue
		}
		if len(out) == n {
			if max != nil {
				next = awswire.EncodeToken(k)
			}
			break
		}
		out = append(out, s.QueueURL(q.Scope, src.Name))
	}
	return out, next, nil
}

// PurgeQueue deletes every message of a queue, once per 60 seconds.
func (s *Service) PurgeQueue(sc awswire.Scope, queueURL string) error {
	e, _, err := s.resolve(sc, queueURL)
	if err != nil {
		return err
	}
	_, err = s.update(e, func(w *work) (any, error) {
		nowMs := w.now / int64(time.Millisecond)
		if w.q.PurgedAt != 0 && nowMs-w.q.PurgedAt < purgeInterval*1000 {
			return nil, sqsError(codePurgeQueueInProgress, "Only one PurgeQueue operation on %s is allowed every 60 seconds.", w.q.Name)
		}
		key := queueKey(w.q.Scope, w.q.Name)
		w.q.Messages = pmap.Map[*Message]{}
		w.q.Visible, w.q.InFlight, w.q.Delayed = 0, 0, 0
		w.q.PurgedAt = nowMs
		w.rt.deadlines = w.rt.deadlines[:0]
		w.rt.ready = w.rt.ready[:0]
		w.rt.early = w.rt.early[:0]
		w.rt.rebuildGroups(w.q)
		w.rtChanged = true
		w.recs = append(w.recs, actors.DelPrefix(key+"/m/"), putQueue(w.q))
		return nil, nil
	})
	return err
}

// AddPermissionInput is AddPermission's input.
type AddPermissionInput struct {
	QueueUrl      string   `json:"QueueUrl"` //nolint:revive // the model's name
	Label         string   `json:"Label"`
	AWSAccountIds []string `json:"AWSAccountIds"`
	Actions       []string `json:"Actions"`
}

var permissionActions = map[string]bool{
	"*": true, "SendMessage": true, "ReceiveMessage": true, "DeleteMessage": true,
	"ChangeMessageVisibility": true, "GetQueueAttributes": true, "GetQueueUrl": true,
	"ListDeadLetterSourceQueues": true, "PurgeQueue": true, "ListQueueTags": true,
}

type policyDoc struct {
	Version   string            `json:"Version"`
	ID        string            `json:"Id,omitempty"`
	Statement []json.RawMessage `json:"Statement"`
}

type policyStatement struct {
	Sid       string `json:"Sid"`
	Effect    string `json:"Effect"`
	Principal struct {
		AWS any `json:"AWS"`
	} `json:"Principal"`
	Action   any    `json:"Action"`
	Resource string `json:"Resource"`
}

// AddPermission adds a statement to the queue's policy, as AWS writes it.
func (s *Service) AddPermission(sc awswire.Scope, in AddPermissionInput) error {
	e, _, err := s.resolve(sc, in.QueueUrl)
	if err != nil {
		return err
	}
	if in.Label == "" {
		return missingParameter("Label")
	}
	if len(in.AWSAccountIds) == 0 {
		return missingParameter("AWSAccountIds")
	}
	if len(in.Actions) == 0 {
		return missingParameter("Actions")
	}
	for _, a := range in.Actions {
		if !permissionActions[a] {
			return invalidParameter("Value SQS:%s for parameter ActionName is invalid. Reason: Please refer to the appropriate WSDL for a list of valid actions. ", a)
		}
	}
	_, err = s.update(e, func(w *work) (any, error) {
		doc := policyDoc{Version: "2012-10-17", ID: w.q.ARN + "/SQSDefaultPolicy"}
		if p := w.q.Attrs[attrPolicy]; p != "" {
			_ = json.Unmarshal([]byte(p), &doc)
		}
		for _, raw := range doc.Statement {
			var st policyStatement
			if json.Unmarshal(raw, &st) == nil && st.Sid == in.Label {
				return nil, invalidParameter("Value %s for parameter Label is invalid. Reason: Already exists.", in.Label)
			}
		}
		var st policyStatement
		st.Sid, st.Effect, st.Resource = in.Label, "Allow", w.q.ARN
		principals := make([]string, len(in.AWSAccountIds))
		for i, a := range in.AWSAccountIds {
			principals[i] = "arn:aws:iam::" + a + ":root"
		}
		actions := make([]string, len(in.Actions))
		for i, a := range in.Actions {
			actions[i] = "SQS:" + a
		}
		st.Principal.AWS = oneOrMany(principals)
		st.Action = oneOrMany(actions)
		raw, _ := json.Marshal(st)
		doc.Statement = append(doc.Statement, raw)
		w.setPolicy(doc)
		return nil, nil
	})
	return err
}

func oneOrMany(s []string) any {
	if len(s) == 1 {
		return s[0]
	}
	return s
}

func (w *work) setPolicy(doc policyDoc) {
	next := maps.Clone(w.q.Attrs)
	if len(doc.Statement) == 0 {
		delete(next, attrPolicy)
	} else {
		b, _ := json.Marshal(doc)
		next[attrPolicy] = string(b)
	}
	w.q.Attrs = next
	w.recs = append(w.recs, putQueue(w.q))
}

// RemovePermission removes the statement labelled label from the queue's
// policy.
func (s *Service) RemovePermission(sc awswire.Scope, queueURL, label string) error {
	e, _, err := s.resolve(sc, queueURL)
	if err != nil {
		return err
	}
	if label == "" {
		return missingParameter("Label")
	}
	_, err = s.update(e, func(w *work) (any, error) {
		var doc policyDoc
		if p := w.q.Attrs[attrPolicy]; p != "" {
			_ = json.Unmarshal([]byte(p), &doc)
		}
		kept := doc.Statement[:0:0]
		found := false
		for _, raw := range doc.Statement {
			var st policyStatement
			if json.Unmarshal(raw, &st) == nil && st.Sid == label {
				found = true
				continue
			}
			kept = append(kept, raw)
		}
		if !found {
			return nil, invalidParameter("Value %s for parameter Label is invalid. Reason: can't find label.", label)
		}
		doc.Statement = kept
		w.setPolicy(doc)
		return nil, nil
	})
	return err
}

// putQueue is the record of q's own state (its messages have theirs).
func putQueue(q *Queue) actors.Record { return actors.Put(queueKey(q.Scope, q.Name), q) }

// firstSeq is where a queue's message sequence starts, when it is created
// or restored: the time in microseconds, so that sequences (and FIFO
// sequence numbers) keep growing across restarts although deleted
// messages leave no record of the last one used.
func firstSeq(now time.Time) uint64 { return uint64(now.UnixMicro()) }
