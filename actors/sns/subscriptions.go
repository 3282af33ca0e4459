package sns

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Subscription is one subscription of a topic, as persisted and
// published. A published subscription never changes.
type Subscription struct {
	Seq      uint64 `json:"seq"`
	ID       string `json:"id"`
	ARN      string `json:"arn"`
	TopicARN string `json:"topicArn"`
	Protocol string `json:"protocol"`
	Endpoint string `json:"endpoint"`
	Owner    string `json:"owner"`
	// Attrs are the attributes set by Subscribe and
	// SetSubscriptionAttributes.
	Attrs   map[string]string `json:"attrs,omitempty"`
	Pending bool              `json:"pending,omitempty"`
	Token   string            `json:"token,omitempty"`

	filter *FilterPolicy
}

// Raw reports whether the subscription asked for raw message delivery.
func (sb *Subscription) Raw() bool { return sb.Attrs["RawMessageDelivery"] == "true" }

// compile compiles the filter policy.
func (sb *Subscription) compile() error {
	sb.filter = nil
	if p := sb.Attrs["FilterPolicy"]; p != "" {
		f, err := CompileFilterPolicy(p, filterScope(sb.Attrs))
		if err != nil {
			return err
		}
		sb.filter = f
	}
	return nil
}

func filterScope(attrs map[string]string) string {
	if attrs["FilterPolicyScope"] == ScopeBody {
		return ScopeBody
	}
	return ScopeAttributes
}

// protocols are the protocols Subscribe accepts.
var protocols = map[string]bool{"sqs": true, "http": true, "https": true, "email": true, "email-json": true,
	"sms": true, "application": true, "lambda": true, "firehose": true}

// subscriptionAttributes are the attributes a subscription accepts.
var subscriptionAttributes = map[string]bool{"RawMessageDelivery": true, "FilterPolicy": true,
	"FilterPolicyScope": true, "RedrivePolicy": true, "DeliveryPolicy": true, "SubscriptionRoleArn": true,
	"ReplayPolicy": true}

// checkSubscriptionAttributes checks attrs (the subscription's attributes
// once changed) for protocol on a topic (fifo); the reason is AWS's, to follow "Invalid
// parameter: " and the caller's prefix.
func checkSubscriptionAttributes(attrs map[string]string, changed []string, protocol string, fifo bool) (string, bool) {
	for _, name := range changed {
		v := attrs[name]
		switch name {
		case "RawMessageDelivery":
			if v != "true" && v != "false" {
				return "RawMessageDelivery: Invalid value [" + v + "]. Must be true or false.", false
			}
			if v == "true" && protocol != "sqs" && protocol != "http" && protocol != "https" && protocol != "firehose" {
				return "Delivery protocol [" + protocol + "] does not support raw message delivery.", false
			}
		case "FilterPolicyScope":
			if v != ScopeAttributes && v != ScopeBody {
				return "FilterPolicyScope: Invalid value [" + v + "]. Please use either MessageBody or MessageAttributes", false
			}
		case "RedrivePolicy":
			if v == "" {
				continue
			}
			if _, r := parsePolicyJSON(v); r != nil {
				return "RedrivePolicy: failed to parse JSON. " + r.words(v), false
			}
			var p struct {
				DLQ string `json:"deadLetterTargetArn"`
			}
			if err := json.Unmarshal([]byte(v), &p); err != nil {
				return "RedrivePolicy: deadLetterTargetArn is an invalid arn", false
			}
			a, ok := awswire.ParseARN(p.DLQ)
			if !ok || a.Service != "sqs" {
				return "RedrivePolicy: deadLetterTargetArn is an invalid arn", false
			}
			if fifo && protocol == "sqs" && !strings.HasSuffix(a.Resource, ".fifo") {
				return "RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic.", false
			}
		case "DeliveryPolicy":
			if v != "" && !json.Valid([]byte(v)) {
				return "DeliveryPolicy: failed to parse JSON.", false
			}
		}
	}
	if p := attrs["FilterPolicy"]; p != "" && (slices.Contains(changed, "FilterPolicy") || slices.Contains(changed, "FilterPolicyScope")) {
		if _, err := CompileFilterPolicy(p, filterScope(attrs)); err != nil {
			if strings.HasPrefix(err.Error(), "Filter policy scope") {
				return err.Error(), false
			}
			return "FilterPolicy: " + err.Error(), false
		}
	}
	return "", true
}

// checkEndpoint checks a subscription's endpoint for its protocol.
func checkEndpoint(protocol, endpoint string, topic *Topic) error {
	if endpoint == "" {
		return InvalidParameter("Endpoint Reason: no value for required parameter")
	}
	switch protocol {
	case "sqs":
		a, ok := awswire.ParseARN(endpoint)
		if !ok || a.Service != "sqs" {
			return InvalidParameter("SQS endpoint ARN")
		}
		if strings.HasSuffix(a.Resource, ".fifo") && !topic.Fifo() {
			return InvalidParameter("Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics")
		}
	case "http", "https":
		if !strings.HasPrefix(strings.ToLower(endpoint), protocol+"://") {
			return InvalidParameter("Endpoint must match the specified protocol")
		}
	case "email", "email-json":
		if at := strings.IndexByte(endpoint, '@'); at <= 0 || at == len(endpoint)-1 {
			return InvalidParameter("Email address")
		}
	case "sms":
		if !validPhone(endpoint) {
			return invalid("Invalid SMS endpoint: " + endpoint)
		}
	case "lambda":
		if a, ok := awswire.ParseARN(endpoint); !ok || a.Service != "lambda" {
			return InvalidParameter("Lambda endpoint ARN")
		}
	case "application":
		if a, ok := awswire.ParseARN(endpoint); !ok || a.Service != "sns" || !strings.HasPrefix(a.Resource, "endpoint/") {
			return InvalidParameter("Application endpoint ARN")
		}
	case "firehose":
		if a, ok := awswire.ParseARN(endpoint); !ok || a.Service != "firehose" {
			return InvalidParameter("Firehose endpoint ARN")
		}
	}
	return nil
}

// SubscribeInput is a Subscribe request.
type SubscribeInput struct {
	TopicARN   string
	Protocol   string
	Endpoint   string
	Attributes map[string]string
	ReturnARN  bool
}

// PendingARN is what Subscribe returns for a subscription awaiting
// confirmation, unless asked for the ARN.
const PendingARN = "pending confirmation"

func newToken() string {
	b := make([]byte, 64)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Subscribe subscribes an endpoint to a topic. HTTP and HTTPS
// subscriptions stay pending until confirmed (the confirmation is POSTed
// to the endpoint); every other protocol is confirmed at once.
func (s *Service) Subscribe(sc awswire.Scope, in SubscribeInput) (string, error) {
	ref, t, err := s.topic("TopicArn", in.TopicARN)
	if err != nil {
		return "", err
	}
	if !protocols[in.Protocol] {
		return "", InvalidParameter("Amazon SNS does not support this protocol string: " + in.Protocol)
	}
	if err := checkEndpoint(in.Protocol, in.Endpoint, t); err != nil {
		return "", err
	}
	attrs := map[string]string{}
	var changed []string
	for k, v := range in.Attributes {
		if !subscriptionAttributes[k] {
			return "", InvalidParameter("Attributes Reason: Invalid attribute name: " + k)
		}
		attrs[k] = v
		changed = append(changed, k)
	}
	slices.Sort(changed)
	if reason, ok := checkSubscriptionAttributes(attrs, changed, in.Protocol, t.Fifo()); !ok {
		if strings.HasPrefix(reason, "Filter policy scope") {
			return "", InvalidParameter(reason)
		}
		return "", InvalidParameter("Attributes Reason: " + reason)
	}
	if _, ok := attrs["RawMessageDelivery"]; !ok && (in.Protocol == "sqs" || in.Protocol == "http" || in.Protocol == "https" || in.Protocol == "firehose") {
		attrs["RawMessageDelivery"] = "false"
	}
	if _, ok := attrs["FilterPolicy"]; ok {
		if _, ok := attrs["FilterPolicyScope"]; !ok {
			attrs["FilterPolicyScope"] = ScopeAttributes
		}
	}
	pending := in.Protocol == "http" || in.Protocol == "https"
	id := awswire.UUID()
	sb := &Subscription{Seq: s.seq.Next(), ID: id, ARN: t.ARN + ":" + id, TopicARN: t.ARN,
		Protocol: in.Protocol, Endpoint: in.Endpoint, Owner: sc.Account, Attrs: attrs, Pending: pending}
	if pending {
		sb.Token = newToken()
	}
	if err := sb.compile(); err != nil {
		return "", InvalidParameter("Attributes Reason: FilterPolicy: " + err.Error())
	}
	v, err := s.updateTopic(ref, func(cur *Topic) (actors.Change[Topic], error) {
		for _, old := range cur.Subs.All() {
			if old.Protocol != in.Protocol || old.Endpoint != in.Endpoint {
				continue
			}
			for k, v := range in.Attributes {
				if old.Attrs[k] != v {
					return actors.Change[Topic]{}, InvalidParameter("Attributes Reason: Subscription already exists with different attributes")
				}
			}
			return actors.Change[Topic]{Reply: old}, nil
		}
		next := cur.with()
		next.Subs = cur.Subs.Set(sb.ID, sb)
		ch := actors.Change[Topic]{Next: next, Reply: sb,
			Records: []actors.Record{actors.Put(subKey(ref.sc, ref.name, sb.ID), sb)}}
		if pending {
			ch.After = func() { s.confirmLater(ref.sc, sb) }
		}
		return ch, nil
	})
	if err != nil {
		return "", err
	}
	got := v.(*Subscription)
	if got.Pending && !in.ReturnARN {
		return PendingARN, nil
	}
	return got.ARN, nil
}

// subRef is a subscription named by ARN.
type subRef struct {
	topic topicRef
	id    string
}

// resolveSubscription checks a subscription ARN; ok is false when no topic
// of this emulator can hold it.
func (s *Service) resolveSubscription(arn string) (subRef, bool, error) {
	a, err := parseARN("SubscriptionArn", arn)
	if err != nil {
		return subRef{}, false, err
	}
	topicName, id, found := strings.Cut(a.Resource, ":")
	if !found || id == "" || strings.Contains(id, ":") {
		return subRef{}, false, InvalidParameter("SubscriptionId")
	}
	if a.Service != "sns" {
		return subRef{}, false, nil
	}
	sc := awswire.Scope{Account: a.Account, Region: a.Region}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return subRef{}, false, nil
	}
	return subRef{topic: topicRef{sc: sc, name: topicName, d: d}, id: id}, true, nil
}

func (s *Service) subscription(arn string) (subRef, *Topic, *Subscription, error) {
	ref, ok, err := s.resolveSubscription(arn)
	if err != nil {
		return subRef{}, nil, nil, err
	}
	if !ok {
		return subRef{}, nil, nil, subscriptionNotFound()
	}
	t, ok := ref.topic.d.topics.Get(ref.topic.name)
	if !ok {
		return subRef{}, nil, nil, subscriptionNotFound()
	}
	sb, ok := t.Subs.Get(ref.id)
	if !ok {
		return subRef{}, nil, nil, subscriptionNotFound()
	}
	return ref, t, sb, nil
}

// Unsubscribe deletes a subscription; one that does not exist is already
// gone, which succeeds as on AWS.
func (s *Service) Unsubscribe(arn string) error {
	ref, ok, err := s.resolveSubscription(arn)
	if err != nil || !ok {
		return err
	}
	if _, ok := ref.topic.d.topics.Get(ref.topic.name); !ok {
		return nil
	}
	_, err = s.updateTopic(ref.topic, func(cur *Topic) (actors.Change[Topic], error) {
		if !cur.Subs.Has(ref.id) {
			return actors.Change[Topic]{}, nil
		}
		next := cur.with()
		next.Subs = cur.Subs.Delete(ref.id)
		next.Deleted++
		return actors.Change[Topic]{Next: next, Records: []actors.Record{
			actors.Del(subKey(ref.topic.sc, ref.topic.name, ref.id)),
			actors.Put(topicKey(ref.topic.sc, ref.topic.name), &next.TopicRecord)}}, nil
	})
	if e, ok := err.(*awswire.Error); ok && e.Code == codeNotFound {
		return nil
	}
	return err
}

// ConfirmSubscription confirms the pending subscription whose token this
// is, and returns its ARN.
func (s *Service) ConfirmSubscription(topicARN, token string) (string, error) {
	ref, t, err := s.topic("TopicArn", topicARN)
	if err != nil {
		return "", err
	}
	if len(token) < 32 || len(token) > 1024 {
		return "", InvalidParameter("Token")
	}
	var id string
	for _, sb := range t.Subs.All() {
		if sb.Token == token {
			id = sb.ID
		}
	}
	if id == "" {
		return "", invalid("Invalid token")
	}
	v, err := s.updateTopic(ref, func(cur *Topic) (actors.Change[Topic], error) {
		sb, ok := cur.Subs.Get(id)
		if !ok {
			return actors.Change[Topic]{}, invalid("Invalid token")
		}
		if !sb.Pending {
			return actors.Change[Topic]{Reply: sb.ARN}, nil
		}
		confirmed := *sb
		confirmed.Pending = false
		next := cur.with()
		next.Subs = cur.Subs.Set(id, &confirmed)
		return actors.Change[Topic]{Next: next, Reply: sb.ARN,
			Records: []actors.Record{actors.Put(subKey(ref.sc, ref.name, id), &confirmed)}}, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// SubscriptionSummary is one row of ListSubscriptions.
type SubscriptionSummary struct {
	SubscriptionArn, Owner, Protocol, Endpoint, TopicArn string
}

func summary(sb *Subscription) SubscriptionSummary {
	arn := sb.ARN
	if sb.Pending {
		arn = "PendingConfirmation"
	}
	return SubscriptionSummary{SubscriptionArn: arn, Owner: sb.Owner, Protocol: sb.Protocol, Endpoint: sb.Endpoint, TopicArn: sb.TopicARN}
}

// SubscriptionsPage is one page of a subscription listing.
type SubscriptionsPage struct {
	Subscriptions []SubscriptionSummary
	Next          string
}

// sortedSubs returns a topic's subscriptions in creation order.
func sortedSubs(t *Topic) []*Subscription {
	out := slices.Collect(t.Subs.Values())
	slices.SortFunc(out, func(a, b *Subscription) int { return cmpSeq(a.Seq, b.Seq) })
	return out
}

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ListSubscriptions lists every subscription of the scope, by topic then
// creation order, 100 a page.
func (s *Service) ListSubscriptions(sc awswire.Scope, token string) (SubscriptionsPage, error) {
	if token != "" && !validPageKey(token, 32) {
		return SubscriptionsPage{}, InvalidParameter("NextToken")
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return SubscriptionsPage{}, nil
	}
	var out SubscriptionsPage
	from := ""
	if token != "" {
		from = token[:16]
	}
	for k, t := range d.topics.Ordered(from) {
		for _, sb := range sortedSubs(t) {
			key := k + actors.SeqKey(sb.Seq)
			if key < token {
				continue
			}
			if len(out.Subscriptions) == listPage {
				out.Next = key
				return out, nil
			}
			out.Subscriptions = append(out.Subscriptions, summary(sb))
		}
	}
	return out, nil
}

func validPageKey(token string, n int) bool {
	if len(token) != n {
		return false
	}
	_, err := hex.DecodeString(token)
	return err == nil
}

// ListSubscriptionsByTopic lists a topic's subscriptions in creation
// order, 100 a page.
func (s *Service) ListSubscriptionsByTopic(topicARN, token string) (SubscriptionsPage, error) {
	_, t, err := s.topic("TopicArn", topicARN)
	if err != nil {
		return SubscriptionsPage{}, err
	}
	if token != "" && !validPageKey(token, 16) {
		return SubscriptionsPage{}, InvalidParameter("NextToken")
	}
	var out SubscriptionsPage
	for _, sb := range sortedSubs(t) {
		key := actors.SeqKey(sb.Seq)
		if key < token {
			continue
		}
		if len(out.Subscriptions) == listPage {
			out.Next = key
			break
		}
		out.Subscriptions = append(out.Subscriptions, summary(sb))
	}
	return out, nil
}

// GetSubscriptionAttributes returns a subscription's attributes with those
// AWS computes.
func (s *Service) GetSubscriptionAttributes(arn string) (map[string]string, error) {
	ref, t, sb, err := s.subscription(arn)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(sb.Attrs)
	if out == nil {
		out = map[string]string{}
	}
	out["SubscriptionArn"] = sb.ARN
	out["TopicArn"] = sb.TopicARN
	out["Protocol"] = sb.Protocol
	out["Endpoint"] = sb.Endpoint
	out["Owner"] = sb.Owner
	out["PendingConfirmation"] = boolText(sb.Pending)
	out["ConfirmationWasAuthenticated"] = boolText(!sb.Pending)
	out["SubscriptionPrincipal"] = "arn:aws:iam::" + ref.topic.sc.Account + ":root"
	if sb.Protocol == "http" || sb.Protocol == "https" {
		out["EffectiveDeliveryPolicy"] = effectiveSubscriptionDeliveryPolicy(t, sb)
	}
	return out, nil
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// effectiveSubscriptionDeliveryPolicy is an HTTP subscription's delivery
// policy with AWS's defaults.
func effectiveSubscriptionDeliveryPolicy(t *Topic, sb *Subscription) string {
	return `{"healthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":3,"numMaxDelayRetries":0,` +
		`"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"sicklyRetryPolicy":null,` +
		`"throttlePolicy":null,"requestPolicy":{"headerContentType":` + jsonString(contentType(t, sb)) + `},"guaranteed":false}`
}

// contentType is the Content-Type of an HTTP delivery: the subscription's
// delivery policy, else the topic's, else text/plain.
func contentType(t *Topic, sb *Subscription) string {
	if dp := sb.Attrs["DeliveryPolicy"]; dp != "" {
		var p struct {
			Request struct {
				ContentType string `json:"headerContentType"`
			} `json:"requestPolicy"`
		}
		if json.Unmarshal([]byte(dp), &p) == nil && p.Request.ContentType != "" {
			return p.Request.ContentType
		}
	}
	var tp struct {
		HTTP struct {
			Request struct {
				ContentType string `json:"headerContentType"`
			} `json:"defaultRequestPolicy"`
		} `json:"http"`
	}
	if dp := t.Attrs["DeliveryPolicy"]; dp != "" && json.Unmarshal([]byte(dp), &tp) == nil && tp.HTTP.Request.ContentType != "" {
		return tp.HTTP.Request.ContentType
	}
	return "text/plain; charset=UTF-8"
}

// SetSubscriptionAttributes sets one attribute of a subscription.
func (s *Service) SetSubscriptionAttributes(arn, name, value string) error {
	ref, t, sb, err := s.subscription(arn)
	if err != nil {
		return err
	}
	if !subscriptionAttributes[name] {
		return InvalidParameter("AttributeName")
	}
	attrs := maps.Clone(sb.Attrs)
	if attrs == nil {
		attrs = map[string]string{}
	}
	attrs[name] = value
	if value == "" && (name == "FilterPolicy" || name == "RedrivePolicy" || name == "DeliveryPolicy") {
		delete(attrs, name)
	}
	if reason, ok := checkSubscriptionAttributes(attrs, []string{name}, sb.Protocol, t.Fifo()); !ok {
		return InvalidParameter(reason)
	}
	if name == "FilterPolicy" {
		if _, ok := attrs["FilterPolicy"]; !ok {
			delete(attrs, "FilterPolicyScope")
		} else if _, ok := attrs["FilterPolicyScope"]; !ok {
			attrs["FilterPolicyScope"] = ScopeAttributes
		}
	}
	_, err = s.updateTopic(ref.topic, func(cur *Topic) (actors.Change[Topic], error) {
		old, ok := cur.Subs.Get(ref.id)
		if !ok {
			return actors.Change[Topic]{}, subscriptionNotFound()
		}
		changed := *old
		changed.Attrs = maps.Clone(old.Attrs)
		if changed.Attrs == nil {
			changed.Attrs = map[string]string{}
		}
		if v, ok := attrs[name]; ok {
			changed.Attrs[name] = v
		} else {
			delete(changed.Attrs, name)
		}
		if name == "FilterPolicy" {
			if v, ok := attrs["FilterPolicyScope"]; ok {
				changed.Attrs["FilterPolicyScope"] = v
			} else {
				delete(changed.Attrs, "FilterPolicyScope")
			}
		}
		if err := changed.compile(); err != nil {
			return actors.Change[Topic]{}, InvalidParameter("FilterPolicy: " + err.Error())
		}
		next := cur.with()
		next.Subs = cur.Subs.Set(ref.id, &changed)
		return actors.Change[Topic]{Next: next,
			Records: []actors.Record{actors.Put(subKey(ref.topic.sc, ref.topic.name, ref.id), &changed)}}, nil
	})
	return err
}
