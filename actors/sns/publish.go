package sns

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/inbox"
)

// maxMessageBytes is the largest message SNS takes: body and attributes
// together, 256 KiB.
const maxMessageBytes = 262144

// dedupWindow is how long a FIFO topic remembers a deduplication id.
const dedupWindow = 5 * time.Minute

// Message is one message to publish.
type Message struct {
	Body    string
	Subject string
	// SubjectSet says a Subject was sent: an empty one is refused.
	SubjectSet bool
	Structure  string // "" or "json"
	Attributes map[string]Attribute
	DedupID    string
	GroupID    string
}

// PublishInput is a Publish request: exactly one of TopicARN, TargetARN
// and PhoneNumber.
type PublishInput struct {
	TopicARN string
	// TopicARNSet says a TopicArn was sent (an empty one is a malformed
	// ARN, not a missing target).
	TopicARNSet bool
	TargetARN   string
	PhoneNumber string
	Message
}

// PublishResult is what Publish returns.
type PublishResult struct {
	MessageID      string
	SequenceNumber string
}

// validPhone reports whether n is an E.164 number: '+', then 2 to 15
// digits, the first not 0.
func validPhone(n string) bool {
	if len(n) < 3 || len(n) > 16 || n[0] != '+' || n[1] == '0' {
		return false
	}
	for _, c := range n[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkAttributes checks message attributes as SNS does; path is where
// they are in the request, as a missing DataType's error names it
// ("messageAttributes").
func checkAttributes(path string, attrs map[string]Attribute) error {
	for name, a := range attrs {
		if a.DataType == "" {
			return awswire.New(awswire.SNS, awswire.CodeValidationError, fmt.Sprintf(
				"1 validation error detected: Value null at '%s.%s.member.dataType' failed to satisfy constraint: Member must not be null", path, name))
		}
		if len(name) >= 256 {
			return invalidValue("Length of message attribute name must be less than 256 bytes.")
		}
		for _, c := range name {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
				return invalidValue(fmt.Sprintf("Invalid non-alphanumeric character '#x%X' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots.", c))
			}
		}
		switch {
		case name == "":
			return invalidValue("The message attribute name can not be empty.")
		case strings.HasPrefix(name, "."):
			return invalidValue("Invalid message attribute name starting with character '.' was found.")
		case strings.HasSuffix(name, "."):
			return invalidValue("Invalid message attribute name ending with character '.' was found.")
		case strings.Contains(name, ".."):
			return invalidValue("Message attribute name can not have successive '.' character.")
		}
		base, _, _ := strings.Cut(a.DataType, ".")
		switch base {
		case "String", "Number":
			if a.StringValue == "" {
				if len(a.BinaryValue) > 0 {
					return invalidValue(fmt.Sprintf("The message attribute '%s' with type '%s' must use field 'String'.", name, base))
				}
				return invalidValue(fmt.Sprintf("The message attribute '%s' must contain non-empty message attribute value for message attribute type '%s'.", name, base))
			}
			if base == "Number" {
				if _, err := strconv.ParseFloat(strings.TrimSpace(a.StringValue), 64); err != nil {
					return invalidValue(fmt.Sprintf("Could not cast message attribute '%s' value to number.", name))
				}
			}
			if strings.HasPrefix(a.DataType, "String.Array") {
				var list []any
				if json.Unmarshal([]byte(a.StringValue), &list) != nil {
					return invalidValue(fmt.Sprintf("The message attribute '%s' with type 'String.Array' must be a JSON array.", name))
				}
				for _, e := range list {
					switch e.(type) {
					case map[string]any, []any:
						return invalidValue(fmt.Sprintf("The message attribute '%s' with type 'String.Array' must be a JSON array of strings, numbers, booleans or nulls.", name))
					}
				}
			}
		case "Binary":
			if len(a.BinaryValue) == 0 {
				if a.StringValue != "" {
					return invalidValue(fmt.Sprintf("The message attribute '%s' with type 'Binary' must use field 'Binary'.", name))
				}
				return invalidValue(fmt.Sprintf("The message attribute '%s' must contain non-empty message attribute value for message attribute type 'Binary'.", name))
			}
		default:
			return invalidValue(fmt.Sprintf("The message attribute '%s' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.", name))
		}
	}
	return nil
}

// size is the message's size as SNS counts it toward 256 KiB.
func (m *Message) size() int {
	n := len(m.Body)
	for k, a := range m.Attributes {
		n += len(k) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}

// check validates a message for a topic (fifo, contentDedup) or a direct
// publish (topic false); path is where its attributes are in the request.
func (m *Message) check(path string, topic, fifo, contentDedup bool) error {
	if m.Body == "" {
		return InvalidParameter("Empty message")
	}
	if m.size() > maxMessageBytes {
		return InvalidParameter("Message too long")
	}
	if (m.Subject != "" || m.SubjectSet) && !validSubject(m.Subject) {
		return InvalidParameter("Subject")
	}
	switch m.Structure {
	case "":
	case "json":
		var obj map[string]any
		if err := json.Unmarshal([]byte(m.Body), &obj); err != nil {
			return InvalidParameter("Message Structure - JSON message body failed to parse")
		}
		if _, ok := obj["default"].(string); !ok {
			return InvalidParameter("Message Structure - No default entry in JSON message body")
		}
	default:
		return InvalidParameter("MessageStructure")
	}
	if err := checkAttributes(path, m.Attributes); err != nil {
		return err
	}
	if !topic {
		return nil
	}
	if fifo {
		if m.GroupID == "" {
			return InvalidParameter("The MessageGroupId parameter is required for FIFO topics")
		}
		if m.DedupID == "" && !contentDedup {
			return InvalidParameter("The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
		}
		return nil
	}
	if m.DedupID != "" {
		return InvalidParameter("MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type")
	}
	return nil
}

// validSubject: ASCII printable text, no line breaks, 1 to 99
// characters.
func validSubject(s string) bool {
	if s == "" || len(s) >= 100 || !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// bodyFor is the message a protocol receives: with MessageStructure json,
// its own key if present, else "default".
func (m *Message) bodyFor(key string) string {
	if m.Structure != "json" {
		return m.Body
	}
	var obj map[string]any
	_ = json.Unmarshal([]byte(m.Body), &obj)
	if v, ok := obj[key].(string); ok {
		return v
	}
	v, _ := obj["default"].(string)
	return v
}

// published is one message being delivered.
type published struct {
	Message
	sc        awswire.Scope
	topic     *Topic
	id        string
	sequence  string
	timestamp string
}

// timestamp is ISO 8601 with milliseconds, as SNS writes it.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Publish publishes to a topic (fanned out to its confirmed subscriptions
// whose filter policy matches; SQS deliveries are done when it returns,
// HTTP and Lambda ones are queued), to a platform endpoint or to a phone
// number (both land in the inbox).
func (s *Service) Publish(ctx context.Context, sc awswire.Scope, in PublishInput) (PublishResult, error) {
	set := 0
	for _, v := range []string{in.TopicARN, in.TargetARN, in.PhoneNumber} {
		if v != "" {
			set++
		}
	}
	if set == 0 {
		if in.TopicARNSet {
			return PublishResult{}, InvalidParameter("TopicArn Reason: An ARN must have at least 6 elements, not 1")
		}
		return PublishResult{}, InvalidParameter("TopicArn or TargetArn Reason: no value for required parameter")
	}
	if set > 1 {
		return PublishResult{}, InvalidParameter("TopicArn Reason: Only one of TopicArn, TargetArn or PhoneNumber may be specified")
	}
	switch {
	case in.PhoneNumber != "":
		return s.publishSMS(sc, in)
	case in.TargetARN != "":
		a, err := parseARN("TargetArn", in.TargetARN)
		if err != nil {
			return PublishResult{}, err
		}
		if a.Service == "sns" && strings.HasPrefix(a.Resource, "endpoint/") {
			return s.publishPush(sc, in)
		}
		in.TopicARN = in.TargetARN
		return s.publishTopic(ctx, "TargetArn", in.TopicARN, in.Message)
	}
	return s.publishTopic(ctx, "TopicArn", in.TopicARN, in.Message)
}

func (s *Service) publishSMS(sc awswire.Scope, in PublishInput) (PublishResult, error) {
	if !validPhone(in.PhoneNumber) {
		return PublishResult{}, InvalidParameter("PhoneNumber Reason: " + in.PhoneNumber + " is not valid to publish to")
	}
	if err := in.check("messageAttributes", false, false, false); err != nil {
		return PublishResult{}, err
	}
	id := awswire.UUID()
	s.toInbox(inbox.Entry{ID: id, Kind: inbox.SMS, Account: sc.Account, Region: sc.Region,
		PhoneNumber: in.PhoneNumber, Message: in.Body, Subject: in.Subject, MessageStructure: in.Structure,
		MessageAttributes: inboxAttributes(in.Attributes)})
	return PublishResult{MessageID: id}, nil
}

func (s *Service) publishPush(sc awswire.Scope, in PublishInput) (PublishResult, error) {
	_, app, ep, err := s.endpoint(in.TargetARN)
	if err != nil {
		if e, ok := err.(*awswire.Error); ok && e.Code == codeNotFound {
			return PublishResult{}, InvalidParameter("TargetArn Reason: No endpoint found for the target arn specified")
		}
		return PublishResult{}, err
	}
	if err := in.check("messageAttributes", false, false, false); err != nil {
		return PublishResult{}, err
	}
	if ep.Attrs["Enabled"] == "false" {
		return PublishResult{}, awswire.New(awswire.SNS, codeEndpointDisabled, "Endpoint is disabled")
	}
	id := awswire.UUID()
	s.toInbox(inbox.Entry{ID: id, Kind: inbox.Push, Account: sc.Account, Region: sc.Region,
		TargetArn: ep.ARN, Message: in.bodyFor(app.Platform), Subject: in.Subject, MessageStructure: in.Structure,
		MessageAttributes: inboxAttributes(in.Attributes)})
	return PublishResult{MessageID: id}, nil
}

func (s *Service) toInbox(e inbox.Entry) {
	if s.opts.Inbox == nil {
		return
	}
	e.Service = "sns"
	e.Timestamp = s.now().UTC()
	s.opts.Inbox.Add(e)
}

func inboxAttributes(attrs map[string]Attribute) map[string]inbox.Attribute {
	if len(attrs) == 0 {
		return nil
	}
	out := make(map[string]inbox.Attribute, len(attrs))
	for k, a := range attrs {
		out[k] = inbox.Attribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: a.BinaryValue}
	}
	return out
}

// publishTopic publishes one message to a topic.
func (s *Service) publishTopic(ctx context.Context, member, arn string, m Message) (PublishResult, error) {
	ref, t, err := s.topic(member, arn)
	if err != nil {
		return PublishResult{}, err
	}
	if err := m.check("messageAttributes", true, t.Fifo(), t.Attrs["ContentBasedDeduplication"] == "true"); err != nil {
		return PublishResult{}, err
	}
	return s.fanOut(ctx, ref.sc, t, m), nil
}

// fanOut delivers a checked message to every subscription of t. A FIFO
// topic's publish holds the topic's runtime lock from deduplication to
// delivery (see topicRuntime).
func (s *Service) fanOut(ctx context.Context, sc awswire.Scope, t *Topic, m Message) PublishResult {
	p := &published{Message: m, sc: sc, topic: t, id: awswire.UUID()}
	if t.Fifo() {
		if p.DedupID == "" {
			sum := sha256.Sum256([]byte(m.Body))
			p.DedupID = hex.EncodeToString(sum[:])
		}
		rt := t.rt
		rt.mu.Lock()
		defer rt.mu.Unlock()
		now := s.now()
		rt.expire(now)
		if prev, ok := rt.dedup[p.DedupID]; ok {
			// A duplicate within the window is accepted and not delivered.
			return PublishResult{MessageID: prev.messageID, SequenceNumber: prev.sequence}
		}
		rt.seq++
		p.sequence = fmt.Sprintf("%020d", uint64(10000000000000000000)+rt.seq)
		p.timestamp = timestamp(now)
		rt.dedup[p.DedupID] = dedupEntry{at: now, messageID: p.id, sequence: p.sequence}
		rt.expiry = append(rt.expiry, dedupKey{id: p.DedupID, at: now})
	} else {
		p.timestamp = timestamp(s.now())
	}
	for _, sb := range sortedSubs(t) {
		if sb.Pending {
			continue
		}
		if sb.filter != nil && !sb.filter.Match(p.bodyFor(sb.Protocol), p.Attributes) {
			continue
		}
		s.deliver(ctx, p, sb)
	}
	return PublishResult{MessageID: p.id, SequenceNumber: p.sequence}
}

// ---- the envelope ----

type envelopeAttribute struct {
	Type  string `json:"Type"`
	Value string `json:"Value"`
}

func envelopeAttributes(attrs map[string]Attribute) map[string]envelopeAttribute {
	out := make(map[string]envelopeAttribute, len(attrs))
	for k, a := range attrs {
		v := a.StringValue
		if strings.HasPrefix(a.DataType, "Binary") {
			v = base64.StdEncoding.EncodeToString(a.BinaryValue)
		}
		out[k] = envelopeAttribute{Type: a.DataType, Value: v}
	}
	return out
}

// notification is the JSON document SNS delivers to SQS, HTTP and
// email-json subscriptions, members in AWS's order.
type notification struct {
	Type              string                       `json:"Type"`
	MessageID         string                       `json:"MessageId"`
	SequenceNumber    string                       `json:"SequenceNumber,omitempty"`
	TopicArn          string                       `json:"TopicArn"`
	Subject           string                       `json:"Subject,omitempty"`
	Message           string                       `json:"Message"`
	Timestamp         string                       `json:"Timestamp"`
	SignatureVersion  string                       `json:"SignatureVersion"`
	Signature         string                       `json:"Signature"`
	SigningCertURL    string                       `json:"SigningCertURL"`
	UnsubscribeURL    string                       `json:"UnsubscribeURL"`
	MessageAttributes map[string]envelopeAttribute `json:"MessageAttributes,omitempty"`
}

// confirmation is the SubscriptionConfirmation document.
type confirmation struct {
	Type             string `json:"Type"`
	MessageID        string `json:"MessageId"`
	Token            string `json:"Token"`
	TopicArn         string `json:"TopicArn"`
	Message          string `json:"Message"`
	SubscribeURL     string `json:"SubscribeURL"`
	Timestamp        string `json:"Timestamp"`
	SignatureVersion string `json:"SignatureVersion"`
	Signature        string `json:"Signature"`
	SigningCertURL   string `json:"SigningCertURL"`
}

// lambdaNotification is the Sns member of the event a function receives:
// AWS spells its URLs differently, and always sends Subject (null when
// absent) and MessageAttributes.
type lambdaNotification struct {
	Type              string                       `json:"Type"`
	MessageID         string                       `json:"MessageId"`
	TopicArn          string                       `json:"TopicArn"`
	Subject           *string                      `json:"Subject"`
	Message           string                       `json:"Message"`
	Timestamp         string                       `json:"Timestamp"`
	SignatureVersion  string                       `json:"SignatureVersion"`
	Signature         string                       `json:"Signature"`
	SigningCertURL    string                       `json:"SigningCertUrl"`
	UnsubscribeURL    string                       `json:"UnsubscribeUrl"`
	MessageAttributes map[string]envelopeAttribute `json:"MessageAttributes"`
}

type lambdaRecord struct {
	EventSource          string             `json:"EventSource"`
	EventVersion         string             `json:"EventVersion"`
	EventSubscriptionArn string             `json:"EventSubscriptionArn"`
	Sns                  lambdaNotification `json:"Sns"`
}

type lambdaEvent struct {
	Records []lambdaRecord `json:"Records"`
}

// marshal encodes v as AWS does: no HTML escaping.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// signature stands for SNS's signature: the emulator does not sign, so
// any base64 text does.
func signature(id string) string {
	sum := sha256.Sum256([]byte(id))
	return base64.StdEncoding.EncodeToString(append(sum[:], sum[:]...))
}

func signingCertURL(region string) string {
	return "https://sns." + region + ".amazonaws.com/SimpleNotificationService-0000000000000000000000.pem"
}

func (s *Service) unsubscribeURL(sb *Subscription) string {
	return s.base() + "/?Action=Unsubscribe&SubscriptionArn=" + sb.ARN + "&Version=2010-03-31"
}

func (s *Service) envelope(p *published, sb *Subscription) []byte {
	n := notification{Type: "Notification", MessageID: p.id, SequenceNumber: p.sequence, TopicArn: p.topic.ARN,
		Subject: p.Subject, Message: p.bodyFor(sb.Protocol), Timestamp: p.timestamp, SignatureVersion: "1",
		Signature: signature(p.id), SigningCertURL: signingCertURL(p.sc.Region), UnsubscribeURL: s.unsubscribeURL(sb)}
	if len(p.Attributes) > 0 {
		n.MessageAttributes = envelopeAttributes(p.Attributes)
	}
	return marshal(n)
}

// LambdaEvent is the event a function subscribed to a topic receives.
func (s *Service) lambdaEvent(p *published, sb *Subscription) []byte {
	var subject *string
	if p.Subject != "" {
		subject = &p.Subject
	}
	return marshal(lambdaEvent{Records: []lambdaRecord{{EventSource: "aws:sns", EventVersion: "1.0",
		EventSubscriptionArn: sb.ARN, Sns: lambdaNotification{Type: "Notification", MessageID: p.id,
			TopicArn: p.topic.ARN, Subject: subject, Message: p.bodyFor(sb.Protocol), Timestamp: p.timestamp,
			SignatureVersion: "1", Signature: signature(p.id), SigningCertURL: signingCertURL(p.sc.Region),
			UnsubscribeURL: s.unsubscribeURL(sb), MessageAttributes: envelopeAttributes(p.Attributes)}}}})
}
