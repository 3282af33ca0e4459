package snshttp

import (
	"context"
	"time"

	"github.com/cloudemu/emulator/actors/sns"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
)

// Handlers returns the handler of every supported SNS operation, by
// operation name.
func Handlers(svc *sns.Service) map[string]awsrpc.Handler {
	h := &handlers{svc: svc}
	return map[string]awsrpc.Handler{
		"CreateTopic":                        h.createTopic,
		"DeleteTopic":                        h.deleteTopic,
		"ListTopics":                         h.listTopics,
		"GetTopicAttributes":                 h.getTopicAttributes,
		"SetTopicAttributes":                 h.setTopicAttributes,
		"Subscribe":                          h.subscribe,
		"Unsubscribe":                        h.unsubscribe,
		"ConfirmSubscription":                h.confirmSubscription,
		"ListSubscriptions":                  h.listSubscriptions,
		"ListSubscriptionsByTopic":           h.listSubscriptionsByTopic,
		"GetSubscriptionAttributes":          h.getSubscriptionAttributes,
		"SetSubscriptionAttributes":          h.setSubscriptionAttributes,
		"Publish":                            h.publish,
		"PublishBatch":                       h.publishBatch,
		"CreatePlatformApplication":          h.createPlatformApplication,
		"GetPlatformApplicationAttributes":   h.getPlatformApplicationAttributes,
		"SetPlatformApplicationAttributes":   h.setPlatformApplicationAttributes,
		"ListPlatformApplications":           h.listPlatformApplications,
		"DeletePlatformApplication":          h.deletePlatformApplication,
		"CreatePlatformEndpoint":             h.createPlatformEndpoint,
		"GetEndpointAttributes":              h.getEndpointAttributes,
		"SetEndpointAttributes":              h.setEndpointAttributes,
		"ListEndpointsByPlatformApplication": h.listEndpoints,
		"DeleteEndpoint":                     h.deleteEndpoint,
		"TagResource":                        h.tagResource,
		"UntagResource":                      h.untagResource,
		"ListTagsForResource":                h.listTags,
		"GetSMSAttributes":                   h.getSMSAttributes,
		"SetSMSAttributes":                   h.setSMSAttributes,
		"CheckIfPhoneNumberIsOptedOut":       h.checkOptedOut,
		"ListPhoneNumbersOptedOut":           h.listOptedOut,
		"OptInPhoneNumber":                   h.optIn,
		"AddPermission":                      h.addPermission,
		"RemovePermission":                   h.removePermission,
		"GetDataProtectionPolicy":            h.getDataProtectionPolicy,
		"PutDataProtectionPolicy":            h.putDataProtectionPolicy,
	}
}

// Partial lists the supported operations that are emulated only in part
// (docs/sns.md).
var Partial = []string{"Publish", "PublishBatch", "Subscribe", "SetSMSAttributes", "GetSMSAttributes",
	"AddPermission", "RemovePermission", "PutDataProtectionPolicy", "OptInPhoneNumber"}

type handlers struct {
	svc *sns.Service
}

// publishTimeout bounds the SQS deliveries a Publish waits for.
const publishTimeout = 30 * time.Second

type tag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

func tagsIn(in []tag) []sns.Tag {
	out := make([]sns.Tag, 0, len(in))
	for _, t := range in {
		out = append(out, sns.Tag{Key: t.Key, Value: t.Value})
	}
	return out
}

// ---- topics ----

func (h *handlers) createTopic(c *awsrpc.Call) error {
	var in struct {
		Name                 string            `json:"Name"`
		Attributes           map[string]string `json:"Attributes"`
		Tags                 []tag             `json:"Tags"`
		DataProtectionPolicy string            `json:"DataProtectionPolicy"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	arn, err := h.svc.CreateTopic(c.Scope, sns.CreateTopicInput{Name: in.Name, Attributes: in.Attributes,
		Tags: tagsIn(in.Tags), DataProtectionPolicy: in.DataProtectionPolicy})
	if err != nil {
		return err
	}
	return c.Reply(&struct {
		TopicArn string `json:"TopicArn"`
	}{arn})
}

type topicArn struct {
	TopicArn string `json:"TopicArn"`
}

func (h *handlers) deleteTopic(c *awsrpc.Call) error {
	var in topicArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.DeleteTopic(in.TopicArn); err != nil {
		return err
	}
	return c.Reply(nil)
}

type nextToken struct {
	NextToken string `json:"NextToken"`
}

func (h *handlers) listTopics(c *awsrpc.Call) error {
	var in nextToken
	if err := c.Decode(&in); err != nil {
		return err
	}
	page, err := h.svc.ListTopics(c.Scope, in.NextToken)
	if err != nil {
		return err
	}
	out := struct {
		Topics    []topicArn `json:"Topics"`
		NextToken string     `json:"NextToken,omitempty"`
	}{Topics: make([]topicArn, 0, len(page.ARNs)), NextToken: page.Next}
	for _, a := range page.ARNs {
		out.Topics = append(out.Topics, topicArn{a})
	}
	return c.Reply(&out)
}

type attributes struct {
	Attributes map[string]string `json:"Attributes"`
}

func (h *handlers) getTopicAttributes(c *awsrpc.Call) error {
	var in topicArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	attrs, err := h.svc.GetTopicAttributes(in.TopicArn)
	if err != nil {
		return err
	}
	return c.Reply(&attributes{attrs})
}

type setAttribute struct {
	AttributeName  string `json:"AttributeName"`
	AttributeValue string `json:"AttributeValue"`
}

func (h *handlers) setTopicAttributes(c *awsrpc.Call) error {
	var in struct {
		topicArn
		setAttribute
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.SetTopicAttributes(in.TopicArn, in.AttributeName, in.AttributeValue); err != nil {
		return err
	}
	return c.Reply(nil)
}

// ---- subscriptions ----

type subscriptionArn struct {
	SubscriptionArn string `json:"SubscriptionArn"`
}

func (h *handlers) subscribe(c *awsrpc.Call) error {
	var in struct {
		TopicArn              string            `json:"TopicArn"`
		Protocol              string            `json:"Protocol"`
		Endpoint              string            `json:"Endpoint"`
		Attributes            map[string]string `json:"Attributes"`
		ReturnSubscriptionArn bool              `json:"ReturnSubscriptionArn"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	arn, err := h.svc.Subscribe(c.Scope, sns.SubscribeInput{TopicARN: in.TopicArn, Protocol: in.Protocol,
		Endpoint: in.Endpoint, Attributes: in.Attributes, ReturnARN: in.ReturnSubscriptionArn})
	if err != nil {
		return err
	}
	return c.Reply(&subscriptionArn{arn})
}

func (h *handlers) unsubscribe(c *awsrpc.Call) error {
	var in subscriptionArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.Unsubscribe(in.SubscriptionArn); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h *handlers) confirmSubscription(c *awsrpc.Call) error {
	var in struct {
		TopicArn string `json:"TopicArn"`
		Token    string `json:"Token"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	arn, err := h.svc.ConfirmSubscription(in.TopicArn, in.Token)
	if err != nil {
		return err
	}
	return c.Reply(&subscriptionArn{arn})
}

type subscription struct {
	SubscriptionArn string `json:"SubscriptionArn"`
	Owner           string `json:"Owner"`
	Protocol        string `json:"Protocol"`
	Endpoint        string `json:"Endpoint"`
	TopicArn        string `json:"TopicArn"`
}

func replySubscriptions(c *awsrpc.Call, page sns.SubscriptionsPage) error {
	out := struct {
		Subscriptions []subscription `json:"Subscriptions"`
		NextToken     string         `json:"NextToken,omitempty"`
	}{Subscriptions: make([]subscription, 0, len(page.Subscriptions)), NextToken: page.Next}
	for _, s := range page.Subscriptions {
		out.Subscriptions = append(out.Subscriptions, subscription(s))
	}
	return c.Reply(&out)
}

func (h *handlers) listSubscriptions(c *awsrpc.Call) error {
	var in nextToken
	if err := c.Decode(&in); err != nil {
		return err
	}
	page, err := h.svc.ListSubscriptions(c.Scope, in.NextToken)
	if err != nil {
		return err
	}
	return replySubscriptions(c, page)
}

func (h *handlers) listSubscriptionsByTopic(c *awsrpc.Call) error {
	var in struct {
		topicArn
		nextToken
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	page, err := h.svc.ListSubscriptionsByTopic(in.TopicArn, in.NextToken)
	if err != nil {
		return err
	}
	return replySubscriptions(c, page)
}

func (h *handlers) getSubscriptionAttributes(c *awsrpc.Call) error {
	var in subscriptionArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	attrs, err := h.svc.GetSubscriptionAttributes(in.SubscriptionArn)
	if err != nil {
		return err
	}
	return c.Reply(&attributes{attrs})
}

func (h *handlers) setSubscriptionAttributes(c *awsrpc.Call) error {
	var in struct {
		subscriptionArn
		setAttribute
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.SetSubscriptionAttributes(in.SubscriptionArn, in.AttributeName, in.AttributeValue); err != nil {
		return err
	}
	return c.Reply(nil)
}

// ---- publishing ----

type messageAttribute struct {
	DataType    string `json:"DataType"`
	StringValue string `json:"StringValue"`
	BinaryValue []byte `json:"BinaryValue"`
}

func attributesIn(in map[string]messageAttribute) map[string]sns.Attribute {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]sns.Attribute, len(in))
	for k, a := range in {
		out[k] = sns.Attribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: a.BinaryValue}
	}
	return out
}

type message struct {
	Message                string                      `json:"Message"`
	Subject                *string                     `json:"Subject"`
	MessageStructure       string                      `json:"MessageStructure"`
	MessageAttributes      map[string]messageAttribute `json:"MessageAttributes"`
	MessageDeduplicationID string                      `json:"MessageDeduplicationId"`
	MessageGroupID         string                      `json:"MessageGroupId"`
}

func (m message) domain() sns.Message {
	var subject string
	if m.Subject != nil {
		subject = *m.Subject
	}
	return sns.Message{Body: m.Message, Subject: subject, SubjectSet: m.Subject != nil, Structure: m.MessageStructure,
		Attributes: attributesIn(m.MessageAttributes), DedupID: m.MessageDeduplicationID, GroupID: m.MessageGroupID}
}

func (h *handlers) publish(c *awsrpc.Call) error {
	var in struct {
		TopicArn    *string `json:"TopicArn"`
		TargetArn   string  `json:"TargetArn"`
		PhoneNumber string  `json:"PhoneNumber"`
		message
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	var topic string
	if in.TopicArn != nil {
		topic = *in.TopicArn
	}
	res, err := h.svc.Publish(ctx, c.Scope, sns.PublishInput{TopicARN: topic, TopicARNSet: in.TopicArn != nil, TargetARN: in.TargetArn,
		PhoneNumber: in.PhoneNumber, Message: in.message.domain()})
	if err != nil {
		return err
	}
	return c.Reply(&struct {
		MessageID      string `json:"MessageId"`
		SequenceNumber string `json:"SequenceNumber,omitempty"`
	}{res.MessageID, res.SequenceNumber})
}

func (h *handlers) publishBatch(c *awsrpc.Call) error {
	var in struct {
		TopicArn string `json:"TopicArn"`
		Entries  []struct {
			ID string `json:"Id"`
			message
		} `json:"PublishBatchRequestEntries"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	entries := make([]sns.BatchEntry, 0, len(in.Entries))
	for _, e := range in.Entries {
		entries = append(entries, sns.BatchEntry{ID: e.ID, Message: e.message.domain()})
	}
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	res, err := h.svc.PublishBatch(ctx, in.TopicArn, entries)
	if err != nil {
		return err
	}
	type result struct {
		ID             string `json:"Id"`
		MessageID      string `json:"MessageId"`
		SequenceNumber string `json:"SequenceNumber,omitempty"`
	}
	out := struct {
		Successful []result   `json:"Successful"`
		Failed     []struct{} `json:"Failed"`
	}{Successful: make([]result, 0, len(res)), Failed: []struct{}{}}
	for _, r := range res {
		out.Successful = append(out.Successful, result{r.ID, r.MessageID, r.SequenceNumber})
	}
	return c.Reply(&out)
}

// ---- platform applications and endpoints ----

type appArn struct {
	PlatformApplicationArn string `json:"PlatformApplicationArn"`
}

func (h *handlers) createPlatformApplication(c *awsrpc.Call) error {
	var in struct {
		Name       string            `json:"Name"`
		Platform   string            `json:"Platform"`
		Attributes map[string]string `json:"Attributes"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	arn, err := h.svc.CreatePlatformApplication(c.Scope, in.Name, in.Platform, in.Attributes)
	if err != nil {
		return err
	}
	return c.Reply(&appArn{arn})
}

func (h *handlers) getPlatformApplicationAttributes(c *awsrpc.Call) error {
	var in appArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	attrs, err := h.svc.GetPlatformApplicationAttributes(in.PlatformApplicationArn)
	if err != nil {
		return err
	}
	return c.Reply(&attributes{attrs})
}

func (h *handlers) setPlatformApplicationAttributes(c *awsrpc.Call) error {
	var in struct {
		appArn
		attributes
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.SetPlatformApplicationAttributes(in.PlatformApplicationArn, in.Attributes); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h *handlers) listPlatformApplications(c *awsrpc.Call) error {
	var in nextToken
	if err := c.Decode(&in); err != nil {
		return err
	}
	apps, next, err := h.svc.ListPlatformApplications(c.Scope, in.NextToken)
	if err != nil {
		return err
	}
	type app struct {
		PlatformApplicationArn string            `json:"PlatformApplicationArn"`
		Attributes             map[string]string `json:"Attributes"`
	}
	out := struct {
		PlatformApplications []app  `json:"PlatformApplications"`
		NextToken            string `json:"NextToken,omitempty"`
	}{PlatformApplications: make([]app, 0, len(apps)), NextToken: next}
	for _, a := range apps {
		out.PlatformApplications = append(out.PlatformApplications, app{a.ARN, a.Attributes})
	}
	return c.Reply(&out)
}

func (h *handlers) deletePlatformApplication(c *awsrpc.Call) error {
	var in appArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.DeletePlatformApplication(in.PlatformApplicationArn); err != nil {
		return err
	}
	return c.Reply(nil)
}

type endpointArn struct {
	EndpointArn string `json:"EndpointArn"`
}

func (h *handlers) createPlatformEndpoint(c *awsrpc.Call) error {
	var in struct {
		appArn
		Token          string            `json:"Token"`
		CustomUserData string            `json:"CustomUserData"`
		Attributes     map[string]string `json:"Attributes"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	arn, err := h.svc.CreatePlatformEndpoint(in.PlatformApplicationArn, in.Token, in.CustomUserData, in.Attributes)
	if err != nil {
		return err
	}
	return c.Reply(&endpointArn{arn})
}

func (h *handlers) getEndpointAttributes(c *awsrpc.Call) error {
	var in endpointArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	attrs, err := h.svc.GetEndpointAttributes(in.EndpointArn)
	if err != nil {
		return err
	}
	return c.Reply(&attributes{attrs})
}

func (h *handlers) setEndpointAttributes(c *awsrpc.Call) error {
	var in struct {
		endpointArn
		attributes
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.SetEndpointAttributes(in.EndpointArn, in.Attributes); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h *handlers) listEndpoints(c *awsrpc.Call) error {
	var in struct {
		appArn
		nextToken
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	eps, next, err := h.svc.ListEndpoints(in.PlatformApplicationArn, in.NextToken)
	if err != nil {
		return err
	}
	type endpoint struct {
		EndpointArn string            `json:"EndpointArn"`
		Attributes  map[string]string `json:"Attributes"`
	}
	out := struct {
		Endpoints []endpoint `json:"Endpoints"`
		NextToken string     `json:"NextToken,omitempty"`
	}{Endpoints: make([]endpoint, 0, len(eps)), NextToken: next}
	for _, e := range eps {
		out.Endpoints = append(out.Endpoints, endpoint{e.ARN, e.Attributes})
	}
	return c.Reply(&out)
}

func (h *handlers) deleteEndpoint(c *awsrpc.Call) error {
	var in endpointArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.DeleteEndpoint(in.EndpointArn); err != nil {
		return err
	}
	return c.Reply(nil)
}

// ---- tags ----

type resourceArn struct {
	ResourceArn string `json:"ResourceArn"`
}

func (h *handlers) tagResource(c *awsrpc.Call) error {
	var in struct {
		resourceArn
		Tags []tag `json:"Tags"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.TagResource(in.ResourceArn, tagsIn(in.Tags)); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h *handlers) untagResource(c *awsrpc.Call) error {
	var in struct {
		resourceArn
		TagKeys []string `json:"TagKeys"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.UntagResource(in.ResourceArn, in.TagKeys); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h *handlers) listTags(c *awsrpc.Call) error {
	var in resourceArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	tags, err := h.svc.ListTags(in.ResourceArn)
	if err != nil {
		return err
	}
	out := struct {
		Tags []tag `json:"Tags"`
	}{Tags: make([]tag, 0, len(tags))}
	for _, t := range tags {
		out.Tags = append(out.Tags, tag{t.Key, t.Value})
	}
	return c.Reply(&out)
}

// ---- SMS ----

func (h *handlers) getSMSAttributes(c *awsrpc.Call) error {
	var in struct {
		Attributes []string `json:"attributes"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	return c.Reply(&struct {
		Attributes map[string]string `json:"attributes"`
	}{h.svc.GetSMSAttributes(c.Scope, in.Attributes)})
}

func (h *handlers) setSMSAttributes(c *awsrpc.Call) error {
	var in struct {
		Attributes map[string]string `json:"attributes"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if in.Attributes == nil {
		return awswire.New(awswire.SNS, awswire.CodeValidationError,
			"1 validation error detected: Value null at 'attributes' failed to satisfy constraint: Member must not be null")
	}
	if err := h.svc.SetSMSAttributes(c.Scope, in.Attributes); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h *handlers) checkOptedOut(c *awsrpc.Call) error {
	var in struct {
		PhoneNumber string `json:"phoneNumber"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := sns.CheckPhoneNumber(in.PhoneNumber); err != nil {
		return err
	}
	return c.Reply(&struct {
		IsOptedOut bool `json:"isOptedOut"`
	}{false})
}

func (h *handlers) listOptedOut(c *awsrpc.Call) error {
	var in struct {
		NextToken string `json:"nextToken"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	return c.Reply(&struct {
		PhoneNumbers []string `json:"phoneNumbers"`
	}{[]string{}})
}

func (h *handlers) optIn(c *awsrpc.Call) error {
	var in struct {
		PhoneNumber string `json:"phoneNumber"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := sns.CheckPhoneNumber(in.PhoneNumber); err != nil {
		return err
	}
	return c.Reply(&struct{}{})
}

// ---- policies ----

func (h *handlers) addPermission(c *awsrpc.Call) error {
	var in struct {
		topicArn
		Label        string   `json:"Label"`
		AWSAccountID []string `json:"AWSAccountId"`
		ActionName   []string `json:"ActionName"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.AddPermission(in.TopicArn, in.Label, in.AWSAccountID, in.ActionName); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h *handlers) removePermission(c *awsrpc.Call) error {
	var in struct {
		topicArn
		Label string `json:"Label"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.RemovePermission(in.TopicArn, in.Label); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h *handlers) getDataProtectionPolicy(c *awsrpc.Call) error {
	var in resourceArn
	if err := c.Decode(&in); err != nil {
		return err
	}
	p, err := h.svc.GetDataProtectionPolicy(in.ResourceArn)
	if err != nil {
		return err
	}
	return c.Reply(&struct {
		DataProtectionPolicy string `json:"DataProtectionPolicy,omitempty"`
	}{p})
}

func (h *handlers) putDataProtectionPolicy(c *awsrpc.Call) error {
	var in struct {
		resourceArn
		DataProtectionPolicy string `json:"DataProtectionPolicy"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.PutDataProtectionPolicy(in.ResourceArn, in.DataProtectionPolicy); err != nil {
		return err
	}
	return c.Reply(nil)
}
