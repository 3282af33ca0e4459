package sns

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/inbox"
)

// Deliveries are attempted once: there are no retries (docs/sns.md). A
// failed SQS delivery goes to the subscription's dead-letter queue when it
// has one.

var errNoTarget = errors.New("sns: no way to deliver to this protocol is configured")

// deliver sends p to one subscription: SQS and the inbox at once, HTTP and
// Lambda through the bounded worker queue.
func (s *Service) deliver(ctx context.Context, p *published, sb *Subscription) {
	switch sb.Protocol {
	case "sqs":
		m := QueueMessage{Body: string(s.envelope(p, sb))}
		if sb.Raw() {
			m = QueueMessage{Body: p.bodyFor("sqs"), Attributes: p.Attributes}
		}
		if p.topic.Fifo() {
			m.GroupID, m.DedupID = p.GroupID, p.DedupID
		}
		if err := s.toQueue(ctx, sb.Endpoint, m); err != nil {
			s.log.Warn("sns: delivery to queue failed", "subscription", sb.ARN, "queue", sb.Endpoint, "err", err)
			s.deadLetter(ctx, sb, m)
		}
	case "http", "https":
		headers := map[string]string{
			"x-amz-sns-message-type":     "Notification",
			"x-amz-sns-message-id":       p.id,
			"x-amz-sns-topic-arn":        p.topic.ARN,
			"x-amz-sns-subscription-arn": sb.ARN,
			"Content-Type":               contentType(p.topic, sb),
			"User-Agent":                 "Amazon Simple Notification Service Agent",
		}
		body := s.envelope(p, sb)
		if sb.Raw() {
			body = []byte(p.bodyFor(sb.Protocol))
			headers["x-amz-sns-rawdelivery"] = "true"
		}
		post := HTTPPost{URL: sb.Endpoint, Headers: headers, Body: body}
		s.later("http", func(ctx context.Context) { s.post(ctx, sb, post) })
	case "lambda":
		payload := s.lambdaEvent(p, sb)
		fn := sb.Endpoint
		a, _ := awswire.ParseARN(fn)
		sc := awswire.Scope{Account: a.Account, Region: a.Region}
		s.later("lambda", func(ctx context.Context) {
			if s.opts.Functions == nil {
				s.log.Warn("sns: delivery to function failed", "subscription", sb.ARN, "err", errNoTarget)
				return
			}
			if err := s.opts.Functions.Invoke(ctx, sc, fn, payload); err != nil {
				s.log.Warn("sns: delivery to function failed", "subscription", sb.ARN, "function", fn, "err", err)
			}
		})
	case "email", "email-json":
		text := p.bodyFor(sb.Protocol)
		if sb.Protocol == "email-json" {
			text = string(s.envelope(p, sb))
		}
		subject := p.Subject
		if subject == "" {
			subject = "AWS Notification Message"
		}
		s.toInbox(inbox.Entry{ID: awswire.UUID(), Kind: inbox.Email, Account: p.sc.Account, Region: p.sc.Region,
			Source: "no-reply@sns.amazonaws.com", Destinations: &inbox.Destinations{To: []string{sb.Endpoint}},
			Subject: subject, Text: text, TopicArn: p.topic.ARN, SubscriptionArn: sb.ARN, Message: p.bodyFor(sb.Protocol),
			MessageStructure: p.Structure, MessageAttributes: inboxAttributes(p.Attributes)})
	case "sms":
		s.toInbox(inbox.Entry{ID: awswire.UUID(), Kind: inbox.SMS, Account: p.sc.Account, Region: p.sc.Region,
			PhoneNumber: sb.Endpoint, TopicArn: p.topic.ARN, SubscriptionArn: sb.ARN, Message: p.bodyFor("sms"), Subject: p.Subject,
			MessageStructure: p.Structure, MessageAttributes: inboxAttributes(p.Attributes)})
	case "application":
		_, app, ep, err := s.endpoint(sb.Endpoint)
		if err != nil {
			s.log.Warn("sns: delivery to endpoint failed", "subscription", sb.ARN, "endpoint", sb.Endpoint, "err", err)
			return
		}
		if ep.Attrs["Enabled"] == "false" {
			s.log.Debug("sns: endpoint disabled, not delivered", "subscription", sb.ARN, "endpoint", sb.Endpoint)
			return
		}
		s.toInbox(inbox.Entry{ID: awswire.UUID(), Kind: inbox.Push, Account: p.sc.Account, Region: p.sc.Region,
			TargetArn: ep.ARN, TopicArn: p.topic.ARN, SubscriptionArn: sb.ARN, Message: p.bodyFor(app.Platform), Subject: p.Subject,
			MessageStructure: p.Structure, MessageAttributes: inboxAttributes(p.Attributes)})
	case "firehose":
		// Accepted and kept, never delivered: the emulator has no Firehose.
	}
}

func (s *Service) toQueue(ctx context.Context, arn string, m QueueMessage) error {
	q := s.queues.Load()
	if q == nil {
		return errNoTarget
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.DeliveryTimeout)
	defer cancel()
	return (*q).Deliver(ctx, arn, m)
}

// deadLetter sends a message that could not be delivered to the
// subscription's dead-letter queue, if it has one.
func (s *Service) deadLetter(ctx context.Context, sb *Subscription, m QueueMessage) {
	rp := sb.Attrs["RedrivePolicy"]
	if rp == "" {
		return
	}
	var p struct {
		DLQ string `json:"deadLetterTargetArn"`
	}
	if json.Unmarshal([]byte(rp), &p) != nil || p.DLQ == "" {
		return
	}
	if err := s.toQueue(ctx, p.DLQ, m); err != nil {
		s.log.Warn("sns: delivery to dead-letter queue failed", "subscription", sb.ARN, "queue", p.DLQ, "err", err)
	}
}

func (s *Service) post(ctx context.Context, sb *Subscription, p HTTPPost) {
	if s.opts.HTTP == nil {
		s.log.Warn("sns: delivery to endpoint failed", "subscription", sb.ARN, "err", errNoTarget)
		return
	}
	status, err := s.opts.HTTP.Post(ctx, p)
	switch {
	case err != nil:
		s.log.Warn("sns: delivery to endpoint failed", "subscription", sb.ARN, "url", p.URL, "err", err)
	case status < 200 || status > 299:
		s.log.Warn("sns: endpoint refused delivery", "subscription", sb.ARN, "url", p.URL, "status", status)
	}
}

// confirmLater queues the SubscriptionConfirmation POST of a new HTTP or
// HTTPS subscription. It runs in the topic's owner and does not block.
func (s *Service) confirmLater(sc awswire.Scope, sb *Subscription) {
	id := awswire.UUID()
	// Version lets the emulator's front recognise a GET of the URL as an
	// SNS request (AWS's URL has none).
	subscribeURL := s.base() + "/?Action=ConfirmSubscription&TopicArn=" + url.QueryEscape(sb.TopicARN) +
		"&Token=" + sb.Token + "&Version=2010-03-31"
	body := marshal(confirmation{Type: "SubscriptionConfirmation", MessageID: id, Token: sb.Token,
		TopicArn: sb.TopicARN,
		Message: "You have chosen to subscribe to the topic " + sb.TopicARN +
			".\nTo confirm the subscription, visit the SubscribeURL included in this message.",
		SubscribeURL: subscribeURL, Timestamp: timestamp(s.now()), SignatureVersion: "1",
		Signature: signature(id), SigningCertURL: signingCertURL(sc.Region)})
	post := HTTPPost{URL: sb.Endpoint, Body: body, Headers: map[string]string{
		"x-amz-sns-message-type": "SubscriptionConfirmation",
		"x-amz-sns-message-id":   id,
		"x-amz-sns-topic-arn":    sb.TopicARN,
		"Content-Type":           "text/plain; charset=UTF-8",
		"User-Agent":             "Amazon Simple Notification Service Agent",
	}}
	s.later("http confirmation", func(ctx context.Context) { s.post(ctx, sb, post) })
}
