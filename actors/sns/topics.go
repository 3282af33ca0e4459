package sns

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// TopicRecord is a topic as it is persisted (its subscriptions are
// records of their own).
type TopicRecord struct {
	Seq  uint64 `json:"seq"`
	Name string `json:"name"`
	ARN  string `json:"arn"`
	// Attrs are the attributes set by CreateTopic and SetTopicAttributes.
	Attrs map[string]string `json:"attrs,omitempty"`
	Tags  map[string]string `json:"tags,omitempty"`
	// Deleted counts the subscriptions deleted (SubscriptionsDeleted).
	Deleted int `json:"deleted,omitempty"`
	// DataProtection is the data protection policy (not a topic
	// attribute on AWS).
	DataProtection string `json:"dataProtection,omitempty"`
}

// Topic is a topic as its owner publishes it, with its subscriptions by
// id. A published topic never changes.
type Topic struct {
	TopicRecord
	Subs pmap.Map[*Subscription] `json:"-"`
	rt   *topicRuntime
}

// Fifo reports whether the topic is a FIFO topic.
func (t *Topic) Fifo() bool { return t.Attrs["FifoTopic"] == "true" }

func (t *Topic) with() *Topic {
	next := *t
	return &next
}

// TopicARN is arn:aws:sns:<region>:<account>:<name>.
func TopicARN(sc awswire.Scope, name string) string {
	return "arn:aws:sns:" + sc.Region + ":" + sc.Account + ":" + name
}

// topicAttributes are the attributes CreateTopic and SetTopicAttributes
// accept (FifoTopic only at creation).
var topicAttributes = map[string]bool{
	"DisplayName": true, "Policy": true, "DeliveryPolicy": true, "KmsMasterKeyId": true,
	"FifoTopic": true, "ContentBasedDeduplication": true, "SignatureVersion": true,
	"TracingConfig": true, "FifoThroughputScope": true, "ArchivePolicy": true,
	"DataProtectionPolicy":       true,
	"HTTPSuccessFeedbackRoleArn": true, "HTTPSuccessFeedbackSampleRate": true, "HTTPFailureFeedbackRoleArn": true,
	"LambdaSuccessFeedbackRoleArn": true, "LambdaSuccessFeedbackSampleRate": true, "LambdaFailureFeedbackRoleArn": true,
	"SQSSuccessFeedbackRoleArn": true, "SQSSuccessFeedbackSampleRate": true, "SQSFailureFeedbackRoleArn": true,
	"FirehoseSuccessFeedbackRoleArn": true, "FirehoseSuccessFeedbackSampleRate": true, "FirehoseFailureFeedbackRoleArn": true,
	"ApplicationSuccessFeedbackRoleArn": true, "ApplicationSuccessFeedbackSampleRate": true, "ApplicationFailureFeedbackRoleArn": true,
}

func validTopicName(name string) bool {
	if len(name) == 0 || len(name) > 256 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// checkTopicAttribute checks one attribute's value; fifo says whether the
// topic is FIFO.
func checkTopicAttribute(name, value string, fifo bool) error {
	switch name {
	case "FifoTopic", "ContentBasedDeduplication":
		if value != "true" && value != "false" {
			return InvalidParameter("Attributes Reason: " + name + ": Invalid value [" + value + "]. Must be true or false.")
		}
		if name == "ContentBasedDeduplication" && value == "true" && !fifo {
			return InvalidParameter("Attributes Reason: Content-based deduplication can only be set for FIFO topics")
		}
	case "Policy", "DeliveryPolicy", "ArchivePolicy", "TracingConfig":
		if name == "TracingConfig" {
			if value != "PassThrough" && value != "Active" {
				return InvalidParameter("Attributes Reason: TracingConfig: Invalid value [" + value + "]. Must be PassThrough or Active.")
			}
			return nil
		}
		if value != "" && !json.Valid([]byte(value)) {
			return InvalidParameter("Attributes Reason: " + name + ": failed to parse JSON.")
		}
	case "SignatureVersion":
		if value != "1" && value != "2" {
			return InvalidParameter("Attributes Reason: SignatureVersion: Invalid value [" + value + "]. Must be 1 or 2.")
		}
	}
	return nil
}

// CreateTopicInput is a CreateTopic request.
type CreateTopicInput struct {
	Name                 string
	Attributes           map[string]string
	Tags                 []Tag
	DataProtectionPolicy string
}

// Tag is one tag, in the order given.
type Tag struct{ Key, Value string }

// CreateTopic creates a topic, or returns the one of that name when the
// attributes and tags agree (AWS's idempotency).
func (s *Service) CreateTopic(sc awswire.Scope, in CreateTopicInput) (string, error) {
	attrs := maps.Clone(in.Attributes)
	if attrs == nil {
		attrs = map[string]string{}
	}
	if in.DataProtectionPolicy != "" && !json.Valid([]byte(in.DataProtectionPolicy)) {
		return "", InvalidParameter("DataProtectionPolicy Reason: failed to parse JSON.")
	}
	fifo := attrs["FifoTopic"] == "true"
	base := in.Name
	if strings.HasSuffix(base, ".fifo") {
		base = strings.TrimSuffix(base, ".fifo")
		if !fifo {
			return "", InvalidParameter("Topic Name")
		}
	} else if fifo {
		return "", InvalidParameter("Fifo Topic names must end with .fifo and must be made up of only uppercase and lowercase ASCII letters, numbers, underscores, and hyphens, and must be between 1 and 256 characters long.")
	}
	if !validTopicName(base) || len(in.Name) > 256 {
		return "", InvalidParameter("Topic Name")
	}
	for k, v := range attrs {
		if !topicAttributes[k] {
			return "", InvalidParameter("Attributes Reason: Unknown attribute " + k)
		}
		if err := checkTopicAttribute(k, v, fifo); err != nil {
			return "", err
		}
	}
	if !fifo {
		delete(attrs, "FifoTopic")
	} else if _, ok := attrs["ContentBasedDeduplication"]; !ok {
		attrs["ContentBasedDeduplication"] = "false"
	}
	tags, err := checkTags(in.Tags)
	if err != nil {
		return "", err
	}
	arn := TopicARN(sc, in.Name)
	d := s.scopes.Get(sc)
	if cur, ok := d.topics.Get(in.Name); ok {
		return sameTopic(cur, attrs, tags)
	}
	seq := s.seq.Next()
	t := &Topic{TopicRecord: TopicRecord{Seq: seq, Name: in.Name, ARN: arn, Attrs: attrs, Tags: tags,
		DataProtection: in.DataProtectionPolicy},
		Subs: pmap.New[*Subscription](), rt: newTopicRuntime()}
	errTaken := invalid("taken")
	_, err = actors.Create(s.records(), actors.NewRecord[Topic]{
		Kind: "sns.topic", Key: topicKey(sc, in.Name), Dir: d.topics, ID: in.Name, Order: actors.SeqKey(seq),
		Taken: func() error { return errTaken },
		Build: func() (*Topic, error) { return t, nil },
	})
	if err == errTaken {
		// Another create of the same name won the race: compare with it
		// once it is settled.
		if cur := settled(d.topics, in.Name); cur != nil {
			return sameTopic(cur, attrs, tags)
		}
		return "", busy()
	}
	if err != nil {
		return "", err
	}
	return arn, nil
}

// settled returns the published state of the owner holding id, waiting
// (a bounded while, in the caller) for an owner still being created to
// publish. Nil when there is none, or its creation failed.
func settled[S any](dir *actors.Directory[S], id string) *S {
	deadline := time.Now().Add(2 * time.Second)
	for {
		if cur, ok := dir.Get(id); ok {
			return cur
		}
		if _, ok := dir.Lookup(id); !ok || time.Now().After(deadline) {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
}

// sameTopic is CreateTopic's answer for a name in use.
func sameTopic(cur *Topic, attrs, tags map[string]string) (string, error) {
	for k, v := range attrs {
		if cur.Attrs[k] != v {
			return "", InvalidParameter("Attributes Reason: Topic already exists with different attributes")
		}
	}
	if len(tags) > 0 && !maps.Equal(cur.Tags, tags) {
		return "", InvalidParameter("Tags Reason: Topic already exists with different tags")
	}
	return cur.ARN, nil
}

// topicRef is a topic named by ARN: its scope, name and directory.
type topicRef struct {
	sc   awswire.Scope
	name string
	d    *dirs
}

// resolveTopic checks a topic ARN (member names it in errors) and finds
// where the topic would live; ok is false when the ARN cannot name a
// topic of this emulator.
func (s *Service) resolveTopic(member, arn string) (topicRef, bool, error) {
	a, err := parseARN(member, arn)
	if err != nil {
		return topicRef{}, false, err
	}
	if a.Service != "sns" || strings.Contains(a.Resource, ":") || strings.Contains(a.Resource, "/") {
		return topicRef{}, false, nil
	}
	sc := awswire.Scope{Account: a.Account, Region: a.Region}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return topicRef{}, false, nil
	}
	return topicRef{sc: sc, name: a.Resource, d: d}, true, nil
}

// topic returns the published topic an ARN names, or NotFound.
func (s *Service) topic(member, arn string) (topicRef, *Topic, error) {
	ref, ok, err := s.resolveTopic(member, arn)
	if err != nil {
		return topicRef{}, nil, err
	}
	if !ok {
		return topicRef{}, nil, topicNotFound()
	}
	t, ok := ref.d.topics.Get(ref.name)
	if !ok {
		return topicRef{}, nil, topicNotFound()
	}
	return ref, t, nil
}

// updateTopic runs fn inside the topic's owner.
func (s *Service) updateTopic(ref topicRef, fn actors.Mutation[Topic]) (any, error) {
	e, _, ok := ref.d.topics.Entry(ref.name)
	if !ok {
		return nil, topicNotFound()
	}
	v, err := actors.Update(s.sys, e, func(cur *Topic) (actors.Change[Topic], error) {
		if cur == nil {
			return actors.Change[Topic]{}, topicNotFound()
		}
		return fn(cur)
	})
	return actors.Result[any](v, err, func() error { return topicNotFound() }, s.records().Busy)
}

// DeleteTopic deletes a topic and its subscriptions; deleting a topic that
// does not exist succeeds, as on AWS.
func (s *Service) DeleteTopic(arn string) error {
	ref, ok, err := s.resolveTopic("TopicArn", arn)
	if err != nil || !ok {
		return err
	}
	if _, ok := ref.d.topics.Get(ref.name); !ok {
		return nil
	}
	_, err = s.updateTopic(ref, func(cur *Topic) (actors.Change[Topic], error) {
		return actors.Change[Topic]{End: true, Records: []actors.Record{
			actors.Del(topicKey(ref.sc, ref.name)),
			actors.DelPrefix(topicKey(ref.sc, ref.name) + "/"),
		}}, nil
	})
	if err != nil {
		if e, ok := err.(*awswire.Error); ok && e.Code == codeNotFound {
			return nil
		}
	}
	return err
}

// TopicsPage is one page of ListTopics.
type TopicsPage struct {
	ARNs []string
	Next string
}

// listPage is the page size of SNS's listings.
const listPage = 100

// ListTopics lists the scope's topics in creation order, 100 a page.
func (s *Service) ListTopics(sc awswire.Scope, token string) (TopicsPage, error) {
	from, err := pageStart(token)
	if err != nil {
		return TopicsPage{}, err
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return TopicsPage{}, nil
	}
	var out TopicsPage
	for k, t := range d.topics.Ordered(from) {
		if len(out.ARNs) == listPage {
			out.Next = k
			break
		}
		out.ARNs = append(out.ARNs, t.ARN)
	}
	return out, nil
}

// pageStart checks a NextToken: tokens are the order key of the first item
// of the next page.
func pageStart(token string) (string, error) {
	if token == "" {
		return "", nil
	}
	if len(token) != 16 {
		return "", InvalidParameter("NextToken")
	}
	if _, err := strconv.ParseUint(token, 16, 64); err != nil {
		return "", InvalidParameter("NextToken")
	}
	return token, nil
}

// defaultPolicy is the access policy AWS gives a topic created without one.
func defaultPolicy(t *Topic, account string) string {
	p := map[string]any{
		"Version": "2008-10-17",
		"Id":      "__default_policy_ID",
		"Statement": []any{map[string]any{
			"Sid":       "__default_statement_ID",
			"Effect":    "Allow",
			"Principal": map[string]any{"AWS": "*"},
			"Action": []string{"SNS:GetTopicAttributes", "SNS:SetTopicAttributes", "SNS:AddPermission",
				"SNS:RemovePermission", "SNS:DeleteTopic", "SNS:Subscribe", "SNS:ListSubscriptionsByTopic", "SNS:Publish"},
			"Resource":  t.ARN,
			"Condition": map[string]any{"StringEquals": map[string]any{"AWS:SourceOwner": account}},
		}},
	}
	return orderedJSON(p, "Version", "Id", "Statement", "Sid", "Effect", "Principal", "Action", "Resource", "Condition")
}

// effectiveDeliveryPolicy is the topic's delivery policy with AWS's
// defaults filled in.
func effectiveDeliveryPolicy(t *Topic) string {
	contentType := "text/plain; charset=UTF-8"
	disable := false
	if dp := t.Attrs["DeliveryPolicy"]; dp != "" {
		var p struct {
			HTTP struct {
				Disable *bool `json:"disableSubscriptionOverrides"`
				Request struct {
					ContentType string `json:"headerContentType"`
				} `json:"defaultRequestPolicy"`
			} `json:"http"`
		}
		if json.Unmarshal([]byte(dp), &p) == nil {
			if p.HTTP.Request.ContentType != "" {
				contentType = p.HTTP.Request.ContentType
			}
			if p.HTTP.Disable != nil {
				disable = *p.HTTP.Disable
			}
		}
	}
	return `{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":3,` +
		`"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},` +
		`"disableSubscriptionOverrides":` + strconv.FormatBool(disable) +
		`,"defaultRequestPolicy":{"headerContentType":` + jsonString(contentType) + `}}}`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// orderedJSON marshals v with object members in the order given (others
// after, sorted), as AWS writes its documents.
func orderedJSON(v any, order ...string) string {
	rank := map[string]int{}
	for i, k := range order {
		rank[k] = i + 1
	}
	var b strings.Builder
	var write func(v any)
	write = func(v any) {
		switch tv := v.(type) {
		case map[string]any:
			keys := slices.Collect(maps.Keys(tv))
			slices.SortFunc(keys, func(a, c string) int {
				ra, rc := rank[a], rank[c]
				if ra == 0 {
					ra = 1 << 20
				}
				if rc == 0 {
					rc = 1 << 20
				}
				if ra != rc {
					return ra - rc
				}
				return strings.Compare(a, c)
			})
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(jsonString(k))
				b.WriteByte(':')
				write(tv[k])
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range tv {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteByte(']')
		default:
			enc, _ := json.Marshal(tv)
			b.Write(enc)
		}
	}
	write(v)
	return b.String()
}

// GetTopicAttributes returns the topic's attributes with those AWS
// computes.
func (s *Service) GetTopicAttributes(arn string) (map[string]string, error) {
	ref, t, err := s.topic("TopicArn", arn)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(t.Attrs)
	if out == nil {
		out = map[string]string{}
	}
	confirmed, pending := 0, 0
	for _, sb := range t.Subs.All() {
		if sb.Pending {
			pending++
		} else {
			confirmed++
		}
	}
	out["TopicArn"] = t.ARN
	out["Owner"] = ref.sc.Account
	out["SubscriptionsConfirmed"] = strconv.Itoa(confirmed)
	out["SubscriptionsPending"] = strconv.Itoa(pending)
	out["SubscriptionsDeleted"] = strconv.Itoa(t.Deleted)
	out["EffectiveDeliveryPolicy"] = effectiveDeliveryPolicy(t)
	if _, ok := out["DisplayName"]; !ok {
		out["DisplayName"] = ""
	}
	if out["Policy"] == "" {
		out["Policy"] = defaultPolicy(t, ref.sc.Account)
	}
	return out, nil
}

// SetTopicAttributes sets one attribute (an empty value removes it).
func (s *Service) SetTopicAttributes(arn, name, value string) error {
	ref, t, err := s.topic("TopicArn", arn)
	if err != nil {
		return err
	}
	if !topicAttributes[name] || name == "FifoTopic" {
		return InvalidParameter("AttributeName")
	}
	if err := checkTopicAttribute(name, value, t.Fifo()); err != nil {
		return err
	}
	_, err = s.updateTopic(ref, func(cur *Topic) (actors.Change[Topic], error) {
		next := cur.with()
		next.Attrs = maps.Clone(cur.Attrs)
		if next.Attrs == nil {
			next.Attrs = map[string]string{}
		}
		if value == "" && name != "DisplayName" {
			delete(next.Attrs, name)
		} else {
			next.Attrs[name] = value
		}
		return actors.Change[Topic]{Next: next, Records: []actors.Record{actors.Put(topicKey(ref.sc, ref.name), &next.TopicRecord)}}, nil
	})
	return err
}

// ---- tags ----

func tagNotFound() *awswire.Error {
	return awswire.New(awswire.SNS, codeResourceNotFound, "Resource does not exist")
}

// checkTags checks tags as SNS does and returns them as a map.
func checkTags(tags []Tag) (map[string]string, error) {
	if len(tags) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(tags))
	for _, t := range tags {
		if len(t.Key) == 0 || len(t.Key) > 128 {
			return nil, InvalidParameter("Tags.Key Reason: must be between 1 and 128 characters long")
		}
		if len(t.Value) > 256 {
			return nil, InvalidParameter("Tags.Value Reason: must be at most 256 characters long")
		}
		if _, dup := out[t.Key]; dup {
			return nil, InvalidParameter("Duplicated keys are not allowed.")
		}
		out[t.Key] = t.Value
	}
	if len(out) > 50 {
		return nil, awswire.New(awswire.SNS, codeTagLimitExceeded, "Could not complete request: tag quota of per resource exceeded")
	}
	return out, nil
}

func (s *Service) taggedTopic(arn string) (topicRef, *Topic, error) {
	ref, t, err := s.topic("ResourceArn", arn)
	if err != nil {
		if e, ok := err.(*awswire.Error); ok && e.Code == codeNotFound {
			return topicRef{}, nil, tagNotFound()
		}
		return topicRef{}, nil, err
	}
	return ref, t, nil
}

// ListTags returns a topic's tags sorted by key.
func (s *Service) ListTags(arn string) ([]Tag, error) {
	_, t, err := s.taggedTopic(arn)
	if err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(t.Tags))
	out := make([]Tag, 0, len(keys))
	for _, k := range keys {
		out = append(out, Tag{Key: k, Value: t.Tags[k]})
	}
	return out, nil
}

// TagResource adds or replaces tags on a topic.
func (s *Service) TagResource(arn string, tags []Tag) error {
	ref, _, err := s.taggedTopic(arn)
	if err != nil {
		return err
	}
	add, err := checkTags(tags)
	if err != nil {
		return err
	}
	return s.retag(ref, func(cur map[string]string) (map[string]string, error) {
		next := maps.Clone(cur)
		if next == nil {
			next = map[string]string{}
		}
		maps.Copy(next, add)
		if len(next) > 50 {
			return nil, awswire.New(awswire.SNS, codeTagLimitExceeded, "Could not complete request: tag quota of per resource exceeded")
		}
		return next, nil
	})
}

// UntagResource removes tag keys from a topic.
func (s *Service) UntagResource(arn string, keys []string) error {
	ref, _, err := s.taggedTopic(arn)
	if err != nil {
		return err
	}
	return s.retag(ref, func(cur map[string]string) (map[string]string, error) {
		next := maps.Clone(cur)
		for _, k := range keys {
			delete(next, k)
		}
		return next, nil
	})
}

func (s *Service) retag(ref topicRef, change func(map[string]string) (map[string]string, error)) error {
	_, err := s.updateTopic(ref, func(cur *Topic) (actors.Change[Topic], error) {
		tags, err := change(cur.Tags)
		if err != nil {
			return actors.Change[Topic]{}, err
		}
		next := cur.with()
		next.Tags = tags
		return actors.Change[Topic]{Next: next, Records: []actors.Record{actors.Put(topicKey(ref.sc, ref.name), &next.TopicRecord)}}, nil
	})
	if e, ok := err.(*awswire.Error); ok && e.Code == codeNotFound {
		return tagNotFound()
	}
	return err
}
