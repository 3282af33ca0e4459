package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"

	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/server/servertest"
)

func snsClient(srv *servertest.Server) *sns.Client {
	return sns.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *sns.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

// TestSNSTopics drives the topic operations and their errors.
func TestSNSTopics(t *testing.T) {
	srv := servertest.Start(t)
	c := snsClient(srv)
	ctx := context.Background()

	out, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders"),
		Attributes: map[string]string{"DisplayName": "Orders"}, Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("a")}}})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TopicArn)
	if arn != "arn:aws:sns:us-east-1:000000000000:orders" {
		t.Fatalf("arn %s", arn)
	}
	again, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders"), Attributes: map[string]string{"DisplayName": "Orders"}})
	if err != nil || aws.ToString(again.TopicArn) != arn {
		t.Fatalf("idempotent create %v %v", again, err)
	}
	_, err = c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders"), Attributes: map[string]string{"DisplayName": "Other"}})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: Attributes Reason: Topic already exists with different attributes")
	_, err = c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("bad name")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: Topic Name")

	attrs, err := c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: out.TopicArn})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"TopicArn": arn, "Owner": "000000000000", "DisplayName": "Orders", "SubscriptionsConfirmed": "0"} {
		if attrs.Attributes[k] != v {
			t.Errorf("%s = %q, want %q", k, attrs.Attributes[k], v)
		}
	}
	if !strings.Contains(attrs.Attributes["Policy"], "__default_policy_ID") || attrs.Attributes["EffectiveDeliveryPolicy"] == "" {
		t.Errorf("computed attributes %v", attrs.Attributes)
	}
	if _, err := c.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: out.TopicArn, AttributeName: aws.String("DisplayName"), AttributeValue: aws.String("New")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: out.TopicArn, AttributeName: aws.String("Bogus"), AttributeValue: aws.String("x")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: AttributeName")
	_, err = c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(arn + "-missing")})
	servertest.WantAPIError(t, err, "NotFound", "Topic does not exist")
	_, err = c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String("not-an-arn")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1")

	// Tags.
	if _, err := c.TagResource(ctx, &sns.TagResourceInput{ResourceArn: out.TopicArn, Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("dev")}}}); err != nil {
		t.Fatal(err)
	}
	tags, err := c.ListTagsForResource(ctx, &sns.ListTagsForResourceInput{ResourceArn: out.TopicArn})
	if err != nil || len(tags.Tags) != 2 || aws.ToString(tags.Tags[0].Key) != "env" {
		t.Fatalf("tags %+v %v", tags, err)
	}
	if _, err := c.UntagResource(ctx, &sns.UntagResourceInput{ResourceArn: out.TopicArn, TagKeys: []string{"env"}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.ListTagsForResource(ctx, &sns.ListTagsForResourceInput{ResourceArn: aws.String(arn + "-missing")})
	servertest.WantAPIError(t, err, "ResourceNotFound", "")

	// Paging by 100.
	for i := range 104 {
		if _, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(fmt.Sprintf("t-%03d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	var listed []string
	p := sns.NewListTopicsPaginator(c, &sns.ListTopicsInput{})
	pages := 0
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, tp := range page.Topics {
			listed = append(listed, aws.ToString(tp.TopicArn))
		}
	}
	if len(listed) != 105 || pages != 2 || listed[0] != arn {
		t.Fatalf("%d topics in %d pages, first %v", len(listed), pages, listed[:1])
	}

	// Permissions and the data protection policy.
	if _, err := c.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: out.TopicArn, Label: aws.String("pub"),
		AWSAccountId: []string{"111111111111"}, ActionName: []string{"Publish", "Subscribe"}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: out.TopicArn, Label: aws.String("pub"),
		AWSAccountId: []string{"111111111111"}, ActionName: []string{"Publish"}})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: Statement already exists")
	attrs, _ = c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: out.TopicArn})
	if !strings.Contains(attrs.Attributes["Policy"], `"Sid":"pub"`) {
		t.Fatalf("policy %s", attrs.Attributes["Policy"])
	}
	if _, err := c.RemovePermission(ctx, &sns.RemovePermissionInput{TopicArn: out.TopicArn, Label: aws.String("pub")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutDataProtectionPolicy(ctx, &sns.PutDataProtectionPolicyInput{ResourceArn: out.TopicArn, DataProtectionPolicy: aws.String(`{"Name":"p"}`)}); err != nil {
		t.Fatal(err)
	}
	dp, err := c.GetDataProtectionPolicy(ctx, &sns.GetDataProtectionPolicyInput{ResourceArn: out.TopicArn})
	if err != nil || aws.ToString(dp.DataProtectionPolicy) != `{"Name":"p"}` {
		t.Fatalf("data protection policy %v %v", dp, err)
	}

	if _, err := c.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: out.TopicArn}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: out.TopicArn}); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	_, err = c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: out.TopicArn})
	servertest.WantAPIError(t, err, "NotFound", "Topic does not exist")
}

// endpointRecorder is a loopback HTTP subscriber.
type endpointRecorder struct {
	mu   sync.Mutex
	got  []recorded
	seen chan struct{}
}

type recorded struct {
	header http.Header
	body   []byte
}

func newEndpoint(t *testing.T) (*endpointRecorder, string) {
	r := &endpointRecorder{seen: make(chan struct{}, 100)}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, recorded{req.Header.Clone(), b})
		r.mu.Unlock()
		r.seen <- struct{}{}
	}))
	t.Cleanup(hs.Close)
	return r, hs.URL + "/sns"
}

func (r *endpointRecorder) next(t *testing.T) recorded {
	t.Helper()
	select {
	case <-r.seen:
	case <-time.After(10 * time.Second):
		t.Fatal("nothing was POSTed")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[len(r.got)-1]
}

func (r *endpointRecorder) none(t *testing.T) {
	t.Helper()
	select {
	case <-r.seen:
		r.mu.Lock()
		defer r.mu.Unlock()
		t.Fatalf("unexpected POST %s", r.got[len(r.got)-1].body)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestSNSHTTPDelivery subscribes a loopback HTTP server: confirmation,
// the envelope and its headers, raw delivery and filter policies.
func TestSNSHTTPDelivery(t *testing.T) {
	srv := servertest.Start(t)
	c := snsClient(srv)
	ctx := context.Background()
	ep, endpoint := newEndpoint(t)
	topic, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("web")})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("http"), Endpoint: aws.String(endpoint),
		Attributes: map[string]string{"FilterPolicy": `{"kind":["keep"]}`}})
	if err != nil || aws.ToString(sub.SubscriptionArn) != "pending confirmation" {
		t.Fatalf("subscribe %v %v", sub, err)
	}
	conf := ep.next(t)
	var doc map[string]string
	if err := json.Unmarshal(conf.body, &doc); err != nil {
		t.Fatalf("%v: %s", err, conf.body)
	}
	if conf.header.Get("x-amz-sns-message-type") != "SubscriptionConfirmation" || doc["Type"] != "SubscriptionConfirmation" ||
		doc["TopicArn"] != aws.ToString(topic.TopicArn) || doc["Token"] == "" {
		t.Fatalf("confirmation %v %s", conf.header, conf.body)
	}
	su, err := url.Parse(doc["SubscribeURL"])
	if err != nil || su.Query().Get("Action") != "ConfirmSubscription" || su.Query().Get("Token") != doc["Token"] {
		t.Fatalf("SubscribeURL %q", doc["SubscribeURL"])
	}
	_, err = c.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: topic.TopicArn, Token: aws.String(strings.Repeat("a", 64))})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid token")
	confirmed, err := c.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: topic.TopicArn, Token: aws.String(doc["Token"])})
	if err != nil {
		t.Fatal(err)
	}
	subARN := aws.ToString(confirmed.SubscriptionArn)

	pub, err := c.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("hello"), Subject: aws.String("greeting"),
		MessageAttributes: map[string]types.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String("keep")}}})
	if err != nil {
		t.Fatal(err)
	}
	n := ep.next(t)
	for h, want := range map[string]string{"x-amz-sns-message-type": "Notification", "x-amz-sns-message-id": aws.ToString(pub.MessageId),
		"x-amz-sns-topic-arn": aws.ToString(topic.TopicArn), "x-amz-sns-subscription-arn": subARN, "Content-Type": "text/plain; charset=UTF-8"} {
		if got := n.header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	var env struct {
		Type, MessageId, TopicArn, Subject, Message, Timestamp, SignatureVersion, Signature, SigningCertURL, UnsubscribeURL string
		MessageAttributes                                                                                                   map[string]struct{ Type, Value string }
	}
	if err := json.Unmarshal(n.body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Type != "Notification" || env.MessageId != aws.ToString(pub.MessageId) || env.Subject != "greeting" || env.Message != "hello" ||
		env.SignatureVersion != "1" || env.Signature == "" || env.SigningCertURL == "" || !strings.Contains(env.UnsubscribeURL, subARN) ||
		env.MessageAttributes["kind"].Value != "keep" || env.MessageAttributes["kind"].Type != "String" {
		t.Fatalf("envelope %s", n.body)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", env.Timestamp); err != nil {
		t.Fatalf("timestamp %q", env.Timestamp)
	}

	// Filtered out.
	if _, err := c.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("drop"),
		MessageAttributes: map[string]types.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String("drop")}}}); err != nil {
		t.Fatal(err)
	}
	ep.none(t)

	// Raw delivery.
	if _, err := c.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: aws.String(subARN),
		AttributeName: aws.String("RawMessageDelivery"), AttributeValue: aws.String("true")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("raw body"),
		MessageAttributes: map[string]types.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String("keep")}}}); err != nil {
		t.Fatal(err)
	}
	if raw := ep.next(t); string(raw.body) != "raw body" || raw.header.Get("x-amz-sns-rawdelivery") != "true" {
		t.Fatalf("raw delivery %v %q", raw.header, raw.body)
	}

	sa, err := c.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: aws.String(subARN)})
	if err != nil || sa.Attributes["PendingConfirmation"] != "false" || sa.Attributes["RawMessageDelivery"] != "true" ||
		sa.Attributes["FilterPolicyScope"] != "MessageAttributes" {
		t.Fatalf("subscription attributes %v %v", sa, err)
	}
	list, err := c.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: topic.TopicArn})
	if err != nil || len(list.Subscriptions) != 1 || aws.ToString(list.Subscriptions[0].Endpoint) != endpoint {
		t.Fatalf("by topic %+v %v", list, err)
	}
	all, err := c.ListSubscriptions(ctx, &sns.ListSubscriptionsInput{})
	if err != nil || len(all.Subscriptions) != 1 {
		t.Fatalf("all %+v %v", all, err)
	}
	if _, err := c.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: aws.String(subARN)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: aws.String(subARN)})
	servertest.WantAPIError(t, err, "NotFound", "Subscription does not exist")

	// A subscriber may confirm by GETting the SubscribeURL, as on AWS.
	ep2, endpoint2 := newEndpoint(t)
	if _, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String(strings.Replace(endpoint2, "http:", "https:", 1))}); err != nil {
		t.Fatal(err)
	}
	ep2.none(t) // an https endpoint on a plain server: the POST fails, logged
	sub2, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("http"), Endpoint: aws.String(endpoint2),
		ReturnSubscriptionArn: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ep2.next(t).body, &doc); err != nil {
		t.Fatal(err)
	}
	confirmURL, err := url.Parse(doc["SubscribeURL"])
	if err != nil {
		t.Fatal(err)
	}
	confirmURL.Host = srv.Addr // the URL names EMULATOR_EXTERNAL_HOSTNAME, which need not resolve here
	resp, err := http.Get(confirmURL.String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), aws.ToString(sub2.SubscriptionArn)) {
		t.Fatalf("GET SubscribeURL: %d %s", resp.StatusCode, body)
	}
	sa, err = c.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub2.SubscriptionArn})
	if err != nil || sa.Attributes["PendingConfirmation"] != "false" {
		t.Fatalf("after GET confirmation %v %v", sa, err)
	}
}

// TestSNSInbox publishes to a phone number, a platform endpoint and SMS
// and e-mail subscriptions: each lands in the inbox with its kind.
func TestSNSInbox(t *testing.T) {
	srv := servertest.Start(t)
	c := snsClient(srv)
	ctx := context.Background()
	box := srv.Emulator.Inbox()

	if _, err := c.Publish(ctx, &sns.PublishInput{PhoneNumber: aws.String("+15551234567"), Message: aws.String("code 1234")}); err != nil {
		t.Fatal(err)
	}
	if e := box.List(inbox.Filter{Kind: inbox.SMS, PhoneNumber: "+15551234567"}); len(e) != 1 || e[0].Message != "code 1234" || e[0].Service != "sns" {
		t.Fatalf("sms %+v", e)
	}
	_, err := c.Publish(ctx, &sns.PublishInput{PhoneNumber: aws.String("+1a234"), Message: aws.String("x")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: PhoneNumber Reason: +1a234 is not valid to publish to")

	app, err := c.CreatePlatformApplication(ctx, &sns.CreatePlatformApplicationInput{Name: aws.String("mobile"), Platform: aws.String("GCM"),
		Attributes: map[string]string{"PlatformCredential": "server-key"}})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := c.CreatePlatformEndpoint(ctx, &sns.CreatePlatformEndpointInput{PlatformApplicationArn: app.PlatformApplicationArn, Token: aws.String("device-1")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Publish(ctx, &sns.PublishInput{TargetArn: ep.EndpointArn, Message: aws.String(`{"default":"d","GCM":"{\"data\":1}"}`),
		MessageStructure: aws.String("json")}); err != nil {
		t.Fatal(err)
	}
	if e := box.List(inbox.Filter{Kind: inbox.Push, TargetArn: aws.ToString(ep.EndpointArn)}); len(e) != 1 || e[0].Message != `{"data":1}` {
		t.Fatalf("push %+v", e)
	}
	if _, err := c.SetEndpointAttributes(ctx, &sns.SetEndpointAttributesInput{EndpointArn: ep.EndpointArn, Attributes: map[string]string{"Enabled": "false"}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Publish(ctx, &sns.PublishInput{TargetArn: ep.EndpointArn, Message: aws.String("x")})
	servertest.WantAPIError(t, err, "EndpointDisabled", "Endpoint is disabled")

	topic, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("alerts")})
	if err != nil {
		t.Fatal(err)
	}
	for p, e := range map[string]string{"sms": "+4930123456", "email": "ops@example.com"} {
		if _, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String(p), Endpoint: aws.String(e)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("disk full"), Subject: aws.String("Alert")}); err != nil {
		t.Fatal(err)
	}
	if e := box.List(inbox.Filter{Kind: inbox.SMS, PhoneNumber: "+4930123456"}); len(e) != 1 || e[0].TopicArn != aws.ToString(topic.TopicArn) {
		t.Fatalf("topic sms %+v", e)
	}
	if e := box.List(inbox.Filter{Kind: inbox.Email, Email: "ops@example.com"}); len(e) != 1 || e[0].Subject != "Alert" || e[0].Text != "disk full" {
		t.Fatalf("topic email %+v", e)
	}
}

// TestSNSPlatform drives the platform application and endpoint
// operations.
func TestSNSPlatform(t *testing.T) {
	srv := servertest.Start(t)
	c := snsClient(srv)
	ctx := context.Background()
	app, err := c.CreatePlatformApplication(ctx, &sns.CreatePlatformApplicationInput{Name: aws.String("a1"), Platform: aws.String("APNS"),
		Attributes: map[string]string{"PlatformPrincipal": "cert", "PlatformCredential": "key"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreatePlatformApplication(ctx, &sns.CreatePlatformApplicationInput{Name: aws.String("a2"), Platform: aws.String("AAA"), Attributes: map[string]string{}})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: Platform Reason: AAA is not supported")
	if _, err := c.SetPlatformApplicationAttributes(ctx, &sns.SetPlatformApplicationAttributesInput{PlatformApplicationArn: app.PlatformApplicationArn,
		Attributes: map[string]string{"EventEndpointCreated": "arn:aws:sns:us-east-1:000000000000:t"}}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetPlatformApplicationAttributes(ctx, &sns.GetPlatformApplicationAttributesInput{PlatformApplicationArn: app.PlatformApplicationArn})
	if err != nil || got.Attributes["EventEndpointCreated"] == "" || got.Attributes["PlatformCredential"] != "" {
		t.Fatalf("attributes %v %v", got, err)
	}
	apps, err := c.ListPlatformApplications(ctx, &sns.ListPlatformApplicationsInput{})
	if err != nil || len(apps.PlatformApplications) != 1 {
		t.Fatalf("apps %+v %v", apps, err)
	}
	ep, err := c.CreatePlatformEndpoint(ctx, &sns.CreatePlatformEndpointInput{PlatformApplicationArn: app.PlatformApplicationArn,
		Token: aws.String("tok"), CustomUserData: aws.String("user-1")})
	if err != nil {
		t.Fatal(err)
	}
	same, err := c.CreatePlatformEndpoint(ctx, &sns.CreatePlatformEndpointInput{PlatformApplicationArn: app.PlatformApplicationArn,
		Token: aws.String("tok"), CustomUserData: aws.String("user-1")})
	if err != nil || aws.ToString(same.EndpointArn) != aws.ToString(ep.EndpointArn) {
		t.Fatalf("idempotent endpoint %v %v", same, err)
	}
	if _, err := c.SetEndpointAttributes(ctx, &sns.SetEndpointAttributesInput{EndpointArn: ep.EndpointArn, Attributes: map[string]string{"Token": "tok2"}}); err != nil {
		t.Fatal(err)
	}
	ea, err := c.GetEndpointAttributes(ctx, &sns.GetEndpointAttributesInput{EndpointArn: ep.EndpointArn})
	if err != nil || ea.Attributes["Token"] != "tok2" || ea.Attributes["CustomUserData"] != "user-1" || ea.Attributes["Enabled"] != "true" {
		t.Fatalf("endpoint %v %v", ea, err)
	}
	eps, err := c.ListEndpointsByPlatformApplication(ctx, &sns.ListEndpointsByPlatformApplicationInput{PlatformApplicationArn: app.PlatformApplicationArn})
	if err != nil || len(eps.Endpoints) != 1 {
		t.Fatalf("endpoints %+v %v", eps, err)
	}
	if _, err := c.DeleteEndpoint(ctx, &sns.DeleteEndpointInput{EndpointArn: ep.EndpointArn}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetEndpointAttributes(ctx, &sns.GetEndpointAttributesInput{EndpointArn: ep.EndpointArn})
	servertest.WantAPIError(t, err, "NotFound", "Endpoint does not exist")
	if _, err := c.DeletePlatformApplication(ctx, &sns.DeletePlatformApplicationInput{PlatformApplicationArn: app.PlatformApplicationArn}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetPlatformApplicationAttributes(ctx, &sns.GetPlatformApplicationAttributesInput{PlatformApplicationArn: app.PlatformApplicationArn})
	servertest.WantAPIError(t, err, "NotFound", "PlatformApplication does not exist")

	// SMS settings.
	if _, err := c.SetSMSAttributes(ctx, &sns.SetSMSAttributesInput{Attributes: map[string]string{"DefaultSMSType": "Transactional"}}); err != nil {
		t.Fatal(err)
	}
	sms, err := c.GetSMSAttributes(ctx, &sns.GetSMSAttributesInput{})
	if err != nil || sms.Attributes["DefaultSMSType"] != "Transactional" {
		t.Fatalf("sms attributes %v %v", sms, err)
	}
	_, err = c.SetSMSAttributes(ctx, &sns.SetSMSAttributesInput{Attributes: map[string]string{"DefaultSMSType": "Loud"}})
	servertest.WantAPIError(t, err, "InvalidParameter", "DefaultSMSType is invalid")
	opted, err := c.CheckIfPhoneNumberIsOptedOut(ctx, &sns.CheckIfPhoneNumberIsOptedOutInput{PhoneNumber: aws.String("+15551234567")})
	if err != nil || opted.IsOptedOut {
		t.Fatalf("opted out %v %v", opted, err)
	}
	if out, err := c.ListPhoneNumbersOptedOut(ctx, &sns.ListPhoneNumbersOptedOutInput{}); err != nil || len(out.PhoneNumbers) != 0 {
		t.Fatalf("opted-out numbers %v %v", out, err)
	}
	if _, err := c.OptInPhoneNumber(ctx, &sns.OptInPhoneNumberInput{PhoneNumber: aws.String("+15551234567")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.CheckIfPhoneNumberIsOptedOut(ctx, &sns.CheckIfPhoneNumberIsOptedOutInput{PhoneNumber: aws.String("12")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: PhoneNumber Reason: input incorrectly formatted")
}

// TestSNSBadInput sends what AWS refuses: each answer is AWS's 4xx.
func TestSNSBadInput(t *testing.T) {
	srv := servertest.Start(t)
	c := snsClient(srv)
	ctx := context.Background()
	topic, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"),
		Endpoint: aws.String("arn:aws:sqs:us-east-1:000000000000:q"), Attributes: map[string]string{"FilterPolicy": "{invalid"}})
	servertest.WantAPIError(t, err, "InvalidParameter", "")
	_, err = c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("carrier-pigeon"), Endpoint: aws.String("x")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: Amazon SNS does not support this protocol string: carrier-pigeon")
	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String(strings.Repeat("x", 256*1024+1))})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: Message too long")
	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String("arn:aws:sns:us-east-1:000000000000:nope"), Message: aws.String("x")})
	servertest.WantAPIError(t, err, "NotFound", "Topic does not exist")
	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("x"),
		MessageAttributes: map[string]types.MessageAttributeValue{"a": {DataType: aws.String("Weird"), StringValue: aws.String("v")}}})
	servertest.WantAPIError(t, err, "ParameterValueInvalid", "The message attribute 'a' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.")
	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(""), Message: aws.String("x")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1")
	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String("randomstring:1"), Message: aws.String("x")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 2")
	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("x"), Subject: aws.String("")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: Subject")
	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("x"), MessageStructure: aws.String("json")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: Message Structure - JSON message body failed to parse")
	_, err = c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: topic.TopicArn, PublishBatchRequestEntries: []types.PublishBatchRequestEntry{
		{Id: aws.String("a"), Message: aws.String("1")}, {Id: aws.String("a"), Message: aws.String("2")}}})
	servertest.WantAPIError(t, err, "BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id.")
	res, err := c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: topic.TopicArn, PublishBatchRequestEntries: []types.PublishBatchRequestEntry{
		{Id: aws.String("a"), Message: aws.String("1")}, {Id: aws.String("b"), Message: aws.String("2")}}})
	if err != nil || len(res.Successful) != 2 || aws.ToString(res.Successful[1].Id) != "b" {
		t.Fatalf("batch %+v %v", res, err)
	}
	_, err = c.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: aws.String("arn:aws:sns:us-east-1:000000000000")})
	servertest.WantAPIError(t, err, "InvalidParameter", "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 5")

	// Raw forms the SDK would not send: never a 5xx.
	for _, form := range []string{
		"Action=Publish&Version=2010-03-31",
		"Action=CreateTopic&Version=2010-03-31",
		"Action=GetTopicAttributes&Version=2010-03-31&TopicArn=%ZZ",
		"Action=Subscribe&Version=2010-03-31&TopicArn=x&Attributes.entry.1.key=FilterPolicy",
		"Action=Publish&Version=2010-03-31&TopicArn=" + url.QueryEscape(aws.ToString(topic.TopicArn)) + "&Message=x&MessageAttributes.entry.1.Name=a",
		"Action=PublishBatch&Version=2010-03-31&TopicArn=" + url.QueryEscape(aws.ToString(topic.TopicArn)),
		"Action=SetSMSAttributes&Version=2010-03-31",
		"Action=ConfirmSubscription&Version=2010-03-31&TopicArn=" + url.QueryEscape(aws.ToString(topic.TopicArn)) + "&Token=short",
		"Action=ListTopics&Version=2010-03-31&NextToken=%00%01",
		"Action=CreatePlatformEndpoint&Version=2010-03-31&PlatformApplicationArn=arn:aws:sns:us-east-1:000000000000:app/GCM/none&Token=t",
		"Action=Subscribe&Version=2010-03-31&TopicArn=" + url.QueryEscape(aws.ToString(topic.TopicArn)) + "&Protocol=http&Endpoint=ftp://x",
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Errorf("%s: %d %s", form, resp.StatusCode, body)
		}
	}
}

// TestSNSPersistence restarts a persistent emulator: topics, their
// subscriptions and attributes, applications and endpoints come back.
func TestSNSPersistence(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var topicARN, subARN, endpointARN string
	{
		srv := servertest.Start(t, servertest.WithPersistence(dir))
		c := snsClient(srv)
		topic, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("kept.fifo"),
			Attributes: map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"}})
		if err != nil {
			t.Fatal(err)
		}
		topicARN = aws.ToString(topic.TopicArn)
		sub, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sms"), Endpoint: aws.String("+15550001111"),
			Attributes: map[string]string{"FilterPolicy": `{"k":["v"]}`}})
		if err != nil {
			t.Fatal(err)
		}
		subARN = aws.ToString(sub.SubscriptionArn)
		app, err := c.CreatePlatformApplication(ctx, &sns.CreatePlatformApplicationInput{Name: aws.String("a"), Platform: aws.String("GCM"),
			Attributes: map[string]string{"PlatformCredential": "k"}})
		if err != nil {
			t.Fatal(err)
		}
		ep, err := c.CreatePlatformEndpoint(ctx, &sns.CreatePlatformEndpointInput{PlatformApplicationArn: app.PlatformApplicationArn, Token: aws.String("t")})
		if err != nil {
			t.Fatal(err)
		}
		endpointARN = aws.ToString(ep.EndpointArn)
		shutdown(t, srv)
	}
	srv := servertest.Start(t, servertest.WithPersistence(dir))
	c := snsClient(srv)
	attrs, err := c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topicARN)})
	if err != nil || attrs.Attributes["FifoTopic"] != "true" || attrs.Attributes["SubscriptionsConfirmed"] != "1" {
		t.Fatalf("topic %v %v", attrs, err)
	}
	sa, err := c.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: aws.String(subARN)})
	if err != nil || sa.Attributes["FilterPolicy"] != `{"k":["v"]}` {
		t.Fatalf("subscription %v %v", sa, err)
	}
	if _, err := c.GetEndpointAttributes(ctx, &sns.GetEndpointAttributesInput{EndpointArn: aws.String(endpointARN)}); err != nil {
		t.Fatal(err)
	}
	// The restored filter policy still applies.
	for _, v := range []string{"v", "w"} {
		if _, err := c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topicARN), Message: aws.String("m-" + v), MessageGroupId: aws.String("g"),
			MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String(v)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if e := srv.Emulator.Inbox().List(inbox.Filter{Kind: inbox.SMS}); len(e) != 1 || e[0].Message != "m-v" {
		t.Fatalf("inbox after restart %+v", e)
	}
}

func shutdown(t *testing.T, srv *servertest.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Emulator.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// snsRecorderFunction writes the event it receives to the file OUT names.
const snsRecorderFunction = `import json, os

def handler(event, context):
    with open(os.environ["OUT"], "w") as f:
        json.dump(event, f)
    return {}
`

// TestSNSLambdaDelivery subscribes a Python function of the Lambda
// service and reads back the event it received.
func TestSNSLambdaDelivery(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		servertest.MissingTool(t, "python3")
	}
	srv := servertest.Start(t)
	ctx := context.Background()
	cfg := servertest.AWSConfig("us-east-1", "test")
	lc := lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	out := filepath.Join(t.TempDir(), "event.json")
	fn, err := lc.CreateFunction(ctx, &lambda.CreateFunctionInput{FunctionName: aws.String("on-sns"),
		Runtime: ltypes.RuntimePython312, Handler: aws.String("index.handler"), Role: aws.String("arn:aws:iam::000000000000:role/r"),
		Code:        &ltypes.FunctionCode{ZipFile: zipOf(t, "index.py", snsRecorderFunction)},
		Environment: &ltypes.Environment{Variables: map[string]string{"OUT": out}}})
	if err != nil {
		t.Fatal(err)
	}
	c := snsClient(srv)
	topic, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("fn")})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("lambda"), Endpoint: fn.FunctionArn})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := c.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("to the function")})
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err = os.ReadFile(out)
		if err == nil && len(b) > 0 && json.Valid(b) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the function was not invoked")
		}
		time.Sleep(100 * time.Millisecond)
	}
	var ev struct {
		Records []struct {
			EventSource, EventVersion, EventSubscriptionArn string
			Sns                                             struct{ Type, MessageId, TopicArn, Message string }
		}
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Records) != 1 {
		t.Fatalf("event %s", b)
	}
	r := ev.Records[0]
	if r.EventSource != "aws:sns" || r.EventVersion != "1.0" || r.EventSubscriptionArn != aws.ToString(sub.SubscriptionArn) ||
		r.Sns.Type != "Notification" || r.Sns.MessageId != aws.ToString(pub.MessageId) || r.Sns.Message != "to the function" {
		t.Fatalf("event %s", b)
	}
}
