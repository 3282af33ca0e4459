package sns

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/store"
)

var scope = actorstest.Scope

// fakeQueues records deliveries per queue ARN; queues not in known fail.
type fakeQueues struct {
	mu    sync.Mutex
	known map[string]bool
	got   map[string][]QueueMessage
}

func newFakeQueues(arns ...string) *fakeQueues {
	q := &fakeQueues{known: map[string]bool{}, got: map[string][]QueueMessage{}}
	for _, a := range arns {
		q.known[a] = true
	}
	return q
}

func (q *fakeQueues) Deliver(_ context.Context, arn string, m QueueMessage) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.known[arn] {
		return errors.New("no such queue")
	}
	q.got[arn] = append(q.got[arn], m)
	return nil
}

func (q *fakeQueues) messages(arn string) []QueueMessage {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]QueueMessage(nil), q.got[arn]...)
}

// recorder collects asynchronous deliveries (HTTP posts, invocations).
type recorder struct {
	mu    sync.Mutex
	posts []HTTPPost
	calls []invocation
	ch    chan struct{}
}

type invocation struct {
	sc       awswire.Scope
	function string
	payload  []byte
}

func newRecorder() *recorder { return &recorder{ch: make(chan struct{}, 100)} }

func (r *recorder) Post(_ context.Context, p HTTPPost) (int, error) {
	r.mu.Lock()
	r.posts = append(r.posts, p)
	r.mu.Unlock()
	r.ch <- struct{}{}
	return 200, nil
}

func (r *recorder) Invoke(_ context.Context, sc awswire.Scope, fn string, payload []byte) error {
	r.mu.Lock()
	r.calls = append(r.calls, invocation{sc, fn, payload})
	r.mu.Unlock()
	r.ch <- struct{}{}
	return nil
}

func (r *recorder) wait(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-r.ch:
		case <-time.After(5 * time.Second):
			t.Fatal("delivery did not arrive")
		}
	}
}

const queueARN = "arn:aws:sqs:us-east-1:000000000000:q1"

type fixture struct {
	svc   *Service
	q     *fakeQueues
	rec   *recorder
	inbox *inbox.Inbox
}

func newFixture(t *testing.T, opts ...actorstest.Option) fixture {
	t.Helper()
	env := actorstest.New(t, opts...)
	f := fixture{q: newFakeQueues(queueARN, "arn:aws:sqs:us-east-1:000000000000:dlq", "arn:aws:sqs:us-east-1:000000000000:q.fifo"),
		rec: newRecorder(), inbox: inbox.New(0)}
	f.svc = New(env.Sys, env.Store, env.Now, env.Log, Options{Queues: f.q, Functions: f.rec, HTTP: f.rec, Inbox: f.inbox})
	t.Cleanup(func() { f.svc.Detach(); _ = f.svc.Close() })
	return f
}

func (f fixture) topic(t *testing.T, name string, attrs map[string]string) string {
	t.Helper()
	arn, err := f.svc.CreateTopic(scope, CreateTopicInput{Name: name, Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	return arn
}

func (f fixture) subscribe(t *testing.T, topic, protocol, endpoint string, attrs map[string]string) string {
	t.Helper()
	arn, err := f.svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: protocol, Endpoint: endpoint, Attributes: attrs, ReturnARN: true})
	if err != nil {
		t.Fatal(err)
	}
	return arn
}

func TestCreateTopicIdempotent(t *testing.T) {
	f := newFixture(t)
	a := f.topic(t, "t1", map[string]string{"DisplayName": "x"})
	if a != "arn:aws:sns:us-east-1:000000000000:t1" {
		t.Fatalf("arn %s", a)
	}
	if b := f.topic(t, "t1", map[string]string{"DisplayName": "x"}); b != a {
		t.Fatalf("second create %s, want %s", b, a)
	}
	_, err := f.svc.CreateTopic(scope, CreateTopicInput{Name: "t1", Attributes: map[string]string{"DisplayName": "y"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Attributes Reason: Topic already exists with different attributes")
	_, err = f.svc.CreateTopic(scope, CreateTopicInput{Name: "t1", Tags: []Tag{{"k", "v"}}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Tags Reason: Topic already exists with different tags")
	for _, bad := range []string{"", "a b", "x.fifo", strings.Repeat("a", 257), "ä"} {
		_, err = f.svc.CreateTopic(scope, CreateTopicInput{Name: bad})
		awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Topic Name")
	}
	_, err = f.svc.CreateTopic(scope, CreateTopicInput{Name: "nofifo", Attributes: map[string]string{"FifoTopic": "true"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "")
}

func TestTopicAttributes(t *testing.T) {
	f := newFixture(t)
	arn := f.topic(t, "t.fifo", map[string]string{"FifoTopic": "true", "DisplayName": "TestTopic"})
	attrs, err := f.svc.GetTopicAttributes(arn)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"TopicArn": arn, "Owner": scope.Account, "FifoTopic": "true", "ContentBasedDeduplication": "false",
		"DisplayName": "TestTopic", "SubscriptionsConfirmed": "0", "SubscriptionsPending": "0", "SubscriptionsDeleted": "0"}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("%s = %q, want %q", k, attrs[k], v)
		}
	}
	var policy struct {
		Version   string
		Statement []struct {
			Resource  string
			Action    []string
			Condition map[string]map[string]string
		}
	}
	if err := json.Unmarshal([]byte(attrs["Policy"]), &policy); err != nil || policy.Version != "2008-10-17" ||
		policy.Statement[0].Resource != arn || len(policy.Statement[0].Action) != 8 ||
		policy.Statement[0].Condition["StringEquals"]["AWS:SourceOwner"] != scope.Account {
		t.Errorf("default policy %s (%v)", attrs["Policy"], err)
	}
	if !strings.Contains(attrs["EffectiveDeliveryPolicy"], `"headerContentType":"text/plain; charset=UTF-8"`) {
		t.Errorf("EffectiveDeliveryPolicy %s", attrs["EffectiveDeliveryPolicy"])
	}
	if err := f.svc.SetTopicAttributes(arn, "DisplayName", "other"); err != nil {
		t.Fatal(err)
	}
	attrs, _ = f.svc.GetTopicAttributes(arn)
	if attrs["DisplayName"] != "other" {
		t.Fatalf("DisplayName %q", attrs["DisplayName"])
	}
	awswiretest.WantError(t, f.svc.SetTopicAttributes(arn, "Nope", "x"), codeInvalidParameter, "Invalid parameter: AttributeName")
	_, err = f.svc.GetTopicAttributes("arn:aws:sns:us-east-1:000000000000:missing")
	awswiretest.WantError(t, err, codeNotFound, "Topic does not exist")
	_, err = f.svc.GetTopicAttributes("missing")
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1")
}

func TestListTopicsPages(t *testing.T) {
	f := newFixture(t)
	for i := range 205 {
		f.topic(t, "t"+itoa(i), nil)
	}
	var all []string
	token := ""
	pages := 0
	for {
		p, err := f.svc.ListTopics(scope, token)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, p.ARNs...)
		if p.Next == "" {
			break
		}
		token = p.Next
	}
	if len(all) != 205 || pages != 3 {
		t.Fatalf("%d topics in %d pages", len(all), pages)
	}
	_, err := f.svc.ListTopics(scope, "garbage")
	awswiretest.WantError(t, err, codeInvalidParameter, "")
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestPublishToQueue(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	sub := f.subscribe(t, topic, "sqs", queueARN, nil)
	res, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{
		Body: "hello <world>", Subject: "subj", Attributes: map[string]Attribute{"a": {DataType: "String", StringValue: "v"}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := f.q.messages(queueARN)
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(got[0].Body), &env); err != nil {
		t.Fatal(err)
	}
	if env["Type"] != "Notification" || env["MessageId"] != res.MessageID || env["TopicArn"] != topic ||
		env["Subject"] != "subj" || env["Message"] != "hello <world>" || env["SignatureVersion"] != "1" ||
		env["Signature"] == "" || !strings.Contains(env["UnsubscribeURL"].(string), "SubscriptionArn="+sub) {
		t.Fatalf("envelope %s", got[0].Body)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", env["Timestamp"].(string)); err != nil {
		t.Fatalf("timestamp %v", env["Timestamp"])
	}
	if a := env["MessageAttributes"].(map[string]any)["a"].(map[string]any); a["Type"] != "String" || a["Value"] != "v" {
		t.Fatalf("attributes %v", a)
	}
	if strings.Contains(got[0].Body, `\u003c`) {
		t.Fatalf("HTML escaped: %s", got[0].Body)
	}
	// Raw delivery: the message itself, attributes as queue attributes.
	if err := f.svc.SetSubscriptionAttributes(sub, "RawMessageDelivery", "true"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{
		Body: "raw", Attributes: map[string]Attribute{"a": {DataType: "Number", StringValue: "5"}}}}); err != nil {
		t.Fatal(err)
	}
	got = f.q.messages(queueARN)
	if len(got) != 2 || got[1].Body != "raw" || got[1].Attributes["a"].StringValue != "5" {
		t.Fatalf("raw delivery %+v", got)
	}
}

func TestFilterPolicyOnDelivery(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	f.subscribe(t, topic, "sqs", queueARN, map[string]string{"FilterPolicy": `{"color":["red"]}`, "RawMessageDelivery": "true"})
	body := f.subscribe(t, topic, "sqs", "arn:aws:sqs:us-east-1:000000000000:dlq",
		map[string]string{"FilterPolicy": `{"size":[{"numeric":[">",10]}]}`, "FilterPolicyScope": "MessageBody", "RawMessageDelivery": "true"})
	pub := func(msg, color string) {
		in := PublishInput{TopicARN: topic, Message: Message{Body: msg}}
		if color != "" {
			in.Attributes = map[string]Attribute{"color": {DataType: "String", StringValue: color}}
		}
		if _, err := f.svc.Publish(context.Background(), scope, in); err != nil {
			t.Fatal(err)
		}
	}
	pub("one", "red")
	pub("two", "blue")
	pub(`{"size":11}`, "")
	pub(`{"size":3}`, "red")
	if got := f.q.messages(queueARN); len(got) != 2 || got[0].Body != "one" || got[1].Body != `{"size":3}` {
		t.Fatalf("attribute filter delivered %+v", got)
	}
	if got := f.q.messages("arn:aws:sqs:us-east-1:000000000000:dlq"); len(got) != 1 || got[0].Body != `{"size":11}` {
		t.Fatalf("body filter delivered %+v", got)
	}
	attrs, err := f.svc.GetSubscriptionAttributes(body)
	if err != nil || attrs["FilterPolicyScope"] != "MessageBody" || attrs["Protocol"] != "sqs" || attrs["PendingConfirmation"] != "false" {
		t.Fatalf("attributes %v %v", attrs, err)
	}
	_, err = f.svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: queueARN + "x",
		Attributes: map[string]string{"FilterPolicy": `{invalid`}})
	awswiretest.WantError(t, err, codeInvalidParameter, "")
	if !strings.HasPrefix(err.(*awswire.Error).Message, "Invalid parameter: Attributes Reason: FilterPolicy: failed to parse JSON.") {
		t.Fatalf("message %q", err.(*awswire.Error).Message)
	}
	err = f.svc.SetSubscriptionAttributes(body, "FilterPolicyScope", "RandomValue")
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: FilterPolicyScope: Invalid value [RandomValue]. Please use either MessageBody or MessageAttributes")
	err = f.svc.SetSubscriptionAttributes(body, "RedrivePolicy", "{invalid-json}")
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: RedrivePolicy: failed to parse JSON. Unexpected character ('i' (code 105)): was expecting double-quote to start field name\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 2]")
	err = f.svc.SetSubscriptionAttributes(body, "RedrivePolicy", `{"deadLetterTargetArn":"not-an-arn"}`)
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: RedrivePolicy: deadLetterTargetArn is an invalid arn")
	err = f.svc.SetSubscriptionAttributes(body, "FilterPolicy", `{"key":[{"numeric":[">",3,"<",1]}]}`)
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: FilterPolicy: Bottom must be less than top\n at [Source: (String)\"{\"key\":[{\"numeric\":[\">\",3,\"<\",1]}]}\"; line: 1, column: 33]")
	err = f.svc.SetSubscriptionAttributes(body, "RawMessageDelivery", "wrongvalue")
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: RawMessageDelivery: Invalid value [wrongvalue]. Must be true or false.")
}

func TestDeadLetterQueue(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	f.subscribe(t, topic, "sqs", "arn:aws:sqs:us-east-1:000000000000:gone",
		map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq"}`})
	if _, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "m"}}); err != nil {
		t.Fatal(err)
	}
	if got := f.q.messages("arn:aws:sqs:us-east-1:000000000000:dlq"); len(got) != 1 || !strings.Contains(got[0].Body, `"Message":"m"`) {
		t.Fatalf("dead letters %+v", got)
	}
}

func TestFifoTopic(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t.fifo", map[string]string{"FifoTopic": "true"})
	f.subscribe(t, topic, "sqs", "arn:aws:sqs:us-east-1:000000000000:q.fifo", map[string]string{"RawMessageDelivery": "true"})
	_, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "m"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: The MessageGroupId parameter is required for FIFO topics")
	_, err = f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "m", GroupID: "g"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
	a, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "m", GroupID: "g", DedupID: "d"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "m", GroupID: "g", DedupID: "d"}})
	if err != nil {
		t.Fatal(err)
	}
	if a != b || len(a.SequenceNumber) != 20 {
		t.Fatalf("duplicate answered %+v, first %+v", b, a)
	}
	got := f.q.messages("arn:aws:sqs:us-east-1:000000000000:q.fifo")
	if len(got) != 1 || got[0].GroupID != "g" || got[0].DedupID != "d" {
		t.Fatalf("fifo deliveries %+v", got)
	}
	_, err = f.svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: "arn:aws:sqs:us-east-1:000000000000:q2.fifo",
		Attributes: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq"}`}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Attributes Reason: RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic.")
	std := f.topic(t, "std", nil)
	_, err = f.svc.Subscribe(scope, SubscribeInput{TopicARN: std, Protocol: "sqs", Endpoint: "arn:aws:sqs:us-east-1:000000000000:q.fifo"})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics")
	_, err = f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: std, Message: Message{Body: "m", DedupID: "d"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type")
}

func TestHTTPSubscription(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	arn, err := f.svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: "http", Endpoint: "http://127.0.0.1:9/x"})
	if err != nil || arn != PendingARN {
		t.Fatalf("subscribe %q %v", arn, err)
	}
	f.rec.wait(t, 1)
	f.rec.mu.Lock()
	conf := f.rec.posts[0]
	f.rec.mu.Unlock()
	var doc map[string]string
	if err := json.Unmarshal(conf.Body, &doc); err != nil {
		t.Fatal(err)
	}
	if conf.Headers["x-amz-sns-message-type"] != "SubscriptionConfirmation" || doc["Type"] != "SubscriptionConfirmation" ||
		doc["Token"] == "" || !strings.Contains(doc["SubscribeURL"], "Action=ConfirmSubscription") {
		t.Fatalf("confirmation %v %s", conf.Headers, conf.Body)
	}
	// Pending: not delivered.
	if _, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "early"}}); err != nil {
		t.Fatal(err)
	}
	attrs, _ := f.svc.GetTopicAttributes(topic)
	if attrs["SubscriptionsPending"] != "1" {
		t.Fatalf("pending %s", attrs["SubscriptionsPending"])
	}
	_, err = f.svc.ConfirmSubscription(topic, strings.Repeat("0", 64))
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid token")
	sub, err := f.svc.ConfirmSubscription(topic, doc["Token"])
	if err != nil || !strings.HasPrefix(sub, topic+":") {
		t.Fatalf("confirm %q %v", sub, err)
	}
	if _, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "late"}}); err != nil {
		t.Fatal(err)
	}
	f.rec.wait(t, 1)
	f.rec.mu.Lock()
	n := f.rec.posts[len(f.rec.posts)-1]
	f.rec.mu.Unlock()
	if n.Headers["x-amz-sns-message-type"] != "Notification" || n.Headers["x-amz-sns-subscription-arn"] != sub ||
		n.Headers["Content-Type"] != "text/plain; charset=UTF-8" || !strings.Contains(string(n.Body), `"Message":"late"`) {
		t.Fatalf("notification %v %s", n.Headers, n.Body)
	}
}

func TestLambdaSubscription(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	fn := "arn:aws:lambda:us-east-1:000000000000:function:f"
	sub := f.subscribe(t, topic, "lambda", fn, nil)
	if _, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "hi"}}); err != nil {
		t.Fatal(err)
	}
	f.rec.wait(t, 1)
	f.rec.mu.Lock()
	call := f.rec.calls[0]
	f.rec.mu.Unlock()
	var ev struct {
		Records []struct {
			EventSource, EventVersion, EventSubscriptionArn string
			Sns                                             map[string]any
		}
	}
	if err := json.Unmarshal(call.payload, &ev); err != nil {
		t.Fatal(err)
	}
	r := ev.Records[0]
	if call.function != fn || r.EventSource != "aws:sns" || r.EventVersion != "1.0" || r.EventSubscriptionArn != sub ||
		r.Sns["Message"] != "hi" || r.Sns["SigningCertUrl"] == nil || r.Sns["Subject"] != nil {
		t.Fatalf("event %s", call.payload)
	}
	if _, ok := r.Sns["MessageAttributes"]; !ok {
		t.Fatal("no MessageAttributes")
	}
}

func TestInboxDeliveries(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	f.subscribe(t, topic, "sms", "+15551234567", nil)
	f.subscribe(t, topic, "email", "a@example.com", nil)
	app, err := f.svc.CreatePlatformApplication(scope, "app", "GCM", map[string]string{"PlatformCredential": "k"})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := f.svc.CreatePlatformEndpoint(app, "tok", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	f.subscribe(t, topic, "application", ep, nil)
	if _, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{
		Body: `{"default":"d","GCM":"g","sms":"s"}`, Structure: "json"}}); err != nil {
		t.Fatal(err)
	}
	if e := f.inbox.List(inbox.Filter{Kind: inbox.SMS}); len(e) != 1 || e[0].Message != "s" || e[0].PhoneNumber != "+15551234567" {
		t.Fatalf("sms %+v", e)
	}
	if e := f.inbox.List(inbox.Filter{Kind: inbox.Push}); len(e) != 1 || e[0].Message != "g" || e[0].TargetArn != ep {
		t.Fatalf("push %+v", e)
	}
	if e := f.inbox.List(inbox.Filter{Kind: inbox.Email}); len(e) != 1 || e[0].Text != "d" || e[0].Destinations.To[0] != "a@example.com" {
		t.Fatalf("email %+v", e)
	}
	// Direct publishes.
	if _, err := f.svc.Publish(context.Background(), scope, PublishInput{PhoneNumber: "+4930123456", Message: Message{Body: "x"}}); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Publish(context.Background(), scope, PublishInput{PhoneNumber: "+1a234", Message: Message{Body: "x"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: PhoneNumber Reason: +1a234 is not valid to publish to")
	if _, err := f.svc.Publish(context.Background(), scope, PublishInput{TargetARN: ep, Message: Message{Body: "direct"}}); err != nil {
		t.Fatal(err)
	}
	if e := f.inbox.List(inbox.Filter{TargetArn: ep}); len(e) != 2 || e[1].Message != "direct" {
		t.Fatalf("direct push %+v", e)
	}
	if err := f.svc.SetEndpointAttributes(ep, map[string]string{"Enabled": "false"}); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Publish(context.Background(), scope, PublishInput{TargetARN: ep, Message: Message{Body: "x"}})
	awswiretest.WantError(t, err, codeEndpointDisabled, "Endpoint is disabled")
	_, err = f.svc.Publish(context.Background(), scope, PublishInput{TargetARN: ep + "x", Message: Message{Body: "x"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: TargetArn Reason: No endpoint found for the target arn specified")
}

func TestPublishRefused(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	pub := func(m Message) error {
		_, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: m})
		return err
	}
	awswiretest.WantError(t, pub(Message{}), codeInvalidParameter, "Invalid parameter: Empty message")
	awswiretest.WantError(t, pub(Message{Body: strings.Repeat("x", maxMessageBytes+1)}), codeInvalidParameter, "Invalid parameter: Message too long")
	awswiretest.WantError(t, pub(Message{Body: "x", Subject: "a\nb"}), codeInvalidParameter, "Invalid parameter: Subject")
	awswiretest.WantError(t, pub(Message{Body: "x", Structure: "json"}), codeInvalidParameter, "Invalid parameter: Message Structure - JSON message body failed to parse")
	awswiretest.WantError(t, pub(Message{Body: `{"sqs":"x"}`, Structure: "json"}), codeInvalidParameter, "Invalid parameter: Message Structure - No default entry in JSON message body")
	attr := func(name string, a Attribute) error {
		return pub(Message{Body: "x", Attributes: map[string]Attribute{name: a}})
	}
	awswiretest.WantError(t, attr("attr1", Attribute{DataType: "String"}), codeInvalidParameterValue, "The message attribute 'attr1' must contain non-empty message attribute value for message attribute type 'String'.")
	awswiretest.WantError(t, attr("attr1", Attribute{DataType: "Binary"}), codeInvalidParameterValue, "The message attribute 'attr1' must contain non-empty message attribute value for message attribute type 'Binary'.")
	awswiretest.WantError(t, attr("attr1", Attribute{DataType: "String", BinaryValue: []byte("x")}), codeInvalidParameterValue, "The message attribute 'attr1' with type 'String' must use field 'String'.")
	awswiretest.WantError(t, attr("attr1", Attribute{DataType: "Binary", StringValue: "x"}), codeInvalidParameterValue, "The message attribute 'attr1' with type 'Binary' must use field 'Binary'.")
	awswiretest.WantError(t, attr("attr1", Attribute{DataType: "Other", StringValue: "x"}), codeInvalidParameterValue, "The message attribute 'attr1' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.")
	awswiretest.WantError(t, attr("a^b", Attribute{DataType: "String", StringValue: "x"}), codeInvalidParameterValue, "Invalid non-alphanumeric character '#x5E' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots.")
	awswiretest.WantError(t, attr(".a", Attribute{DataType: "String", StringValue: "x"}), codeInvalidParameterValue, "Invalid message attribute name starting with character '.' was found.")
	awswiretest.WantError(t, attr("a.", Attribute{DataType: "String", StringValue: "x"}), codeInvalidParameterValue, "Invalid message attribute name ending with character '.' was found.")
	awswiretest.WantError(t, attr("a..b", Attribute{DataType: "String", StringValue: "x"}), codeInvalidParameterValue, "Message attribute name can not have successive '.' character.")
	awswiretest.WantError(t, attr(strings.Repeat("a", 256), Attribute{DataType: "String", StringValue: "x"}), codeInvalidParameterValue, "Length of message attribute name must be less than 256 bytes.")
	awswiretest.WantError(t, attr("n", Attribute{DataType: "Number", StringValue: "abc"}), codeInvalidParameterValue, "")
	awswiretest.WantError(t, attr("attr1", Attribute{StringValue: "x"}), awswire.CodeValidationError, "1 validation error detected: Value null at 'messageAttributes.attr1.member.dataType' failed to satisfy constraint: Member must not be null")
	if err := attr("n", Attribute{DataType: "String.Array", StringValue: `["a",1,true,null]`}); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: "arn:aws:sns:us-east-1:000000000000:none", Message: Message{Body: "x"}})
	awswiretest.WantError(t, err, codeNotFound, "Topic does not exist")
	_, err = f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: "arn:aws:sns:us-east-1:000000000000", Message: Message{Body: "x"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 5")
}

func TestPublishBatch(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	f.subscribe(t, topic, "sqs", queueARN, map[string]string{"RawMessageDelivery": "true"})
	res, err := f.svc.PublishBatch(context.Background(), topic, []BatchEntry{{ID: "1", Message: Message{Body: "a"}}, {ID: "2", Message: Message{Body: "b"}}})
	if err != nil || len(res) != 2 || res[1].ID != "2" || res[1].MessageID == "" {
		t.Fatalf("batch %+v %v", res, err)
	}
	if got := f.q.messages(queueARN); len(got) != 2 || got[1].Body != "b" {
		t.Fatalf("delivered %+v", got)
	}
	many := make([]BatchEntry, 11)
	for i := range many {
		many[i] = BatchEntry{ID: itoa(i), Message: Message{Body: "x"}}
	}
	_, err = f.svc.PublishBatch(context.Background(), topic, many)
	awswiretest.WantError(t, err, codeTooManyEntries, "The batch request contains more entries than permissible.")
	_, err = f.svc.PublishBatch(context.Background(), topic, []BatchEntry{{ID: "1", Message: Message{Body: "a"}}, {ID: "1", Message: Message{Body: "b"}}})
	awswiretest.WantError(t, err, codeBatchIDsNotDistinct, "Two or more batch entries in the request have the same Id.")
	_, err = f.svc.PublishBatch(context.Background(), topic, []BatchEntry{{ID: "message.id", Message: Message{Body: "a"}}})
	awswiretest.WantError(t, err, codeInvalidBatchEntryID, "The Id of a batch entry in the batch request contains an impermissible character: message.id")
	_, err = f.svc.PublishBatch(context.Background(), topic, []BatchEntry{{ID: "1", Message: Message{Body: strings.Repeat("a", 200000)}}, {ID: "2", Message: Message{Body: strings.Repeat("a", 200000)}}})
	awswiretest.WantError(t, err, codeBatchTooLong, "The length of all the messages put together is more than the limit.")
}

func TestSubscriptions(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	a := f.subscribe(t, topic, "sqs", queueARN, nil)
	if b := f.subscribe(t, topic, "sqs", queueARN, nil); b != a {
		t.Fatalf("resubscribe %s, want %s", b, a)
	}
	_, err := f.svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: queueARN, Attributes: map[string]string{"RawMessageDelivery": "true"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Attributes Reason: Subscription already exists with different attributes")
	_, err = f.svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: "test-protocol", Endpoint: "x"})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Amazon SNS does not support this protocol string: test-protocol")
	_, err = f.svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: "not-an-arn"})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: SQS endpoint ARN")
	_, err = f.svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: "sms", Endpoint: "+15--551234567"})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid SMS endpoint: +15--551234567")
	_, err = f.svc.Subscribe(scope, SubscribeInput{TopicARN: topic, Protocol: "sqs", Endpoint: queueARN + "2", Attributes: map[string]string{"RawMessageDelivery": "wrongvalue"}})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid value [wrongvalue]. Must be true or false.")
	p, err := f.svc.ListSubscriptionsByTopic(topic, "")
	if err != nil || len(p.Subscriptions) != 1 || p.Subscriptions[0].SubscriptionArn != a {
		t.Fatalf("by topic %+v %v", p, err)
	}
	if p, _ := f.svc.ListSubscriptions(scope, ""); len(p.Subscriptions) != 1 {
		t.Fatalf("all %+v", p)
	}
	if err := f.svc.Unsubscribe(a); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Unsubscribe(a); err != nil {
		t.Fatalf("second unsubscribe: %v", err)
	}
	_, err = f.svc.GetSubscriptionAttributes(a)
	awswiretest.WantError(t, err, codeNotFound, "Subscription does not exist")
	attrs, _ := f.svc.GetTopicAttributes(topic)
	if attrs["SubscriptionsDeleted"] != "1" {
		t.Fatalf("deleted %s", attrs["SubscriptionsDeleted"])
	}
	awswiretest.WantError(t, f.svc.Unsubscribe("arn"), codeInvalidParameter, "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 1")
	awswiretest.WantError(t, f.svc.Unsubscribe("arn:aws:sns:us-east-1:000000000000:t1"), codeInvalidParameter, "Invalid parameter: SubscriptionId")
	if err := f.svc.DeleteTopic(topic); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.DeleteTopic(topic); err != nil {
		t.Fatalf("second delete: %v", err)
	}
}

func TestPlatformApplications(t *testing.T) {
	f := newFixture(t)
	app, err := f.svc.CreatePlatformApplication(scope, "app", "ADM", map[string]string{"PlatformPrincipal": "p", "PlatformCredential": "c"})
	if err != nil || app != "arn:aws:sns:us-east-1:000000000000:app/ADM/app" {
		t.Fatalf("create %s %v", app, err)
	}
	attrs, _ := f.svc.GetPlatformApplicationAttributes(app)
	if len(attrs) != 1 || attrs["Enabled"] != "true" {
		t.Fatalf("attributes %v", attrs)
	}
	_, err = f.svc.CreatePlatformApplication(scope, "app", "AAA", map[string]string{})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Platform Reason: AAA is not supported")
	_, err = f.svc.CreatePlatformApplication(scope, "@name", "GCM", map[string]string{})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: @name Reason: must contain only characters 'a'-'z', 'A'-'Z', '0'-'9', '_', '-', and '.'")
	_, err = f.svc.CreatePlatformApplication(scope, "x", "GCM", map[string]string{"PlatformPrincipal": "p"})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential")
	ep, err := f.svc.CreatePlatformEndpoint(app, "token_1", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := f.svc.CreatePlatformEndpoint(app, "token_1", "", nil); err != nil || again != ep {
		t.Fatalf("idempotent create %s %v", again, err)
	}
	_, err = f.svc.CreatePlatformEndpoint(app, "token_1", "other", nil)
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Token Reason: Endpoint "+ep+" already exists with the same Token, but different attributes.")
	eps, _, err := f.svc.ListEndpoints(app, "")
	if err != nil || len(eps) != 1 || eps[0].Attributes["Token"] != "token_1" || eps[0].Attributes["Enabled"] != "true" {
		t.Fatalf("endpoints %+v %v", eps, err)
	}
	err = f.svc.SetEndpointAttributes(ep, map[string]string{"InvalidKey": "x"})
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: Attributes Reason: Invalid attribute name: InvalidKey")
	_, err = f.svc.GetEndpointAttributes("arn:aws:sns:us-east-1:000000000000:endpoint/ADM/app")
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: EndpointArn Reason: Wrong number of slashes in relative portion of the ARN.")
	if err := f.svc.DeleteEndpoint(ep); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.GetEndpointAttributes(ep)
	awswiretest.WantError(t, err, codeNotFound, "Endpoint does not exist")
	if err := f.svc.DeletePlatformApplication(app); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.GetPlatformApplicationAttributes(app)
	awswiretest.WantError(t, err, codeNotFound, "PlatformApplication does not exist")
}

func TestTags(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	if err := f.svc.TagResource(topic, []Tag{{"k2", "v2"}, {"k1", "v1"}}); err != nil {
		t.Fatal(err)
	}
	tags, _ := f.svc.ListTags(topic)
	if len(tags) != 2 || tags[0] != (Tag{"k1", "v1"}) {
		t.Fatalf("tags %v", tags)
	}
	if err := f.svc.UntagResource(topic, []string{"k1"}); err != nil {
		t.Fatal(err)
	}
	if tags, _ := f.svc.ListTags(topic); len(tags) != 1 {
		t.Fatalf("tags %v", tags)
	}
	_, err := f.svc.ListTags(topic + "x")
	awswiretest.WantError(t, err, codeResourceNotFound, "Resource does not exist")
}

// TestRestart persists topics, subscriptions, applications and endpoints
// in a bolt store and reads them back in a new service.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	st, err := store.OpenBolt(dir, store.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, actorstest.WithStore(st))
	topic := f.topic(t, "t1", map[string]string{"DisplayName": "d"})
	sub := f.subscribe(t, topic, "sqs", queueARN, map[string]string{"FilterPolicy": `{"c":["red"]}`, "RawMessageDelivery": "true"})
	gone := f.subscribe(t, topic, "sms", "+15551234567", nil)
	if err := f.svc.Unsubscribe(gone); err != nil {
		t.Fatal(err)
	}
	f.topic(t, "t2", nil)
	if err := f.svc.DeleteTopic(TopicARN(scope, "t2")); err != nil {
		t.Fatal(err)
	}
	app, _ := f.svc.CreatePlatformApplication(scope, "app", "GCM", map[string]string{"PlatformCredential": "k"})
	ep, _ := f.svc.CreatePlatformEndpoint(app, "tok", "data", nil)
	f.svc.Detach()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := store.OpenBolt(dir, store.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close() })
	g := newFixture(t, actorstest.WithStore(st2))
	if err := st2.Load(g.svc.Restore); err != nil {
		t.Fatal(err)
	}
	if err := g.svc.RestoreDone(); err != nil {
		t.Fatal(err)
	}
	attrs, err := g.svc.GetTopicAttributes(topic)
	if err != nil || attrs["DisplayName"] != "d" || attrs["SubscriptionsConfirmed"] != "1" || attrs["SubscriptionsDeleted"] != "1" {
		t.Fatalf("topic %v %v", attrs, err)
	}
	if _, err := g.svc.GetTopicAttributes(TopicARN(scope, "t2")); err == nil {
		t.Fatal("deleted topic came back")
	}
	if a, err := g.svc.GetSubscriptionAttributes(sub); err != nil || a["FilterPolicy"] != `{"c":["red"]}` {
		t.Fatalf("subscription %v %v", a, err)
	}
	for _, c := range []string{"blue", "red"} {
		if _, err := g.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: c,
			Attributes: map[string]Attribute{"c": {DataType: "String", StringValue: c}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := g.q.messages(queueARN); len(got) != 1 || got[0].Body != "red" {
		t.Fatalf("the restored filter policy delivered %+v", got)
	}
	if a, err := g.svc.GetEndpointAttributes(ep); err != nil || a["CustomUserData"] != "data" {
		t.Fatalf("endpoint %v %v", a, err)
	}
	if n := g.svc.Counts()[scope]; n["topics"] != 1 || n["subscriptions"] != 1 || n["endpoints"] != 1 {
		t.Fatalf("counts %v", n)
	}
}

// TestConcurrentCreateAndPublish races creates of one name (all get the
// one ARN) and publishes against subscribes and unsubscribes.
func TestConcurrentCreateAndPublish(t *testing.T) {
	f := newFixture(t)
	var wg sync.WaitGroup
	arns := make([]string, 8)
	for i := range arns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arn, err := f.svc.CreateTopic(scope, CreateTopicInput{Name: "race"})
			if err != nil {
				t.Error(err)
			}
			arns[i] = arn
		}()
	}
	wg.Wait()
	for _, a := range arns {
		if a != arns[0] || a == "" {
			t.Fatalf("arns %v", arns)
		}
	}
	topic := arns[0]
	f.subscribe(t, topic, "sqs", queueARN, map[string]string{"RawMessageDelivery": "true"})
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := f.svc.Publish(context.Background(), scope, PublishInput{TopicARN: topic, Message: Message{Body: "m"}}); err != nil {
					t.Error(err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for j := range 10 {
				arn := f.subscribe(t, topic, "sms", "+1555000"+strconv.Itoa(i)+strconv.Itoa(j), nil)
				if err := f.svc.Unsubscribe(arn); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if got := len(f.q.messages(queueARN)); got != 80 {
		t.Fatalf("%d messages delivered, want 80", got)
	}
	attrs, _ := f.svc.GetTopicAttributes(topic)
	if attrs["SubscriptionsDeleted"] != "40" || attrs["SubscriptionsConfirmed"] != "1" {
		t.Fatalf("counts %v", attrs)
	}
}

// TestSubscriptionPages lists 230 subscriptions over three topics, 100 a
// page, by scope and by topic.
func TestSubscriptionPages(t *testing.T) {
	f := newFixture(t)
	var topics []string
	for i := range 3 {
		topics = append(topics, f.topic(t, "t"+itoa(i), nil))
	}
	for i := range 230 {
		f.subscribe(t, topics[i%3], "sms", "+1555"+strconv.Itoa(1000000+i), nil)
	}
	seen := map[string]bool{}
	token, pages := "", 0
	for {
		p, err := f.svc.ListSubscriptions(scope, token)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, s := range p.Subscriptions {
			seen[s.SubscriptionArn] = true
		}
		if p.Next == "" {
			break
		}
		token = p.Next
	}
	if len(seen) != 230 || pages != 3 {
		t.Fatalf("%d subscriptions in %d pages", len(seen), pages)
	}
	for i := range 30 {
		f.subscribe(t, topics[0], "sms", "+1666"+strconv.Itoa(1000000+i), nil)
	}
	p, err := f.svc.ListSubscriptionsByTopic(topics[0], "")
	if err != nil || len(p.Subscriptions) != 100 || p.Next == "" {
		t.Fatalf("by topic: %d, next %q, %v", len(p.Subscriptions), p.Next, err)
	}
	p2, err := f.svc.ListSubscriptionsByTopic(topics[0], p.Next)
	if err != nil || len(p2.Subscriptions) != 7 || p2.Next != "" || p2.Subscriptions[0] == p.Subscriptions[99] {
		t.Fatalf("by topic, page 2: %d, next %q, %v", len(p2.Subscriptions), p2.Next, err)
	}
	_, err = f.svc.ListSubscriptionsByTopic(topics[0], "bad")
	awswiretest.WantError(t, err, codeInvalidParameter, "Invalid parameter: NextToken")
}

func TestPermissions(t *testing.T) {
	f := newFixture(t)
	topic := f.topic(t, "t1", nil)
	if err := f.svc.AddPermission(topic, "test", []string{"111111111111"}, []string{"Publish"}); err != nil {
		t.Fatal(err)
	}
	attrs, _ := f.svc.GetTopicAttributes(topic)
	var doc struct {
		Statement []struct {
			Sid       string
			Action    any
			Principal map[string]any
		}
	}
	if err := json.Unmarshal([]byte(attrs["Policy"]), &doc); err != nil || len(doc.Statement) != 2 ||
		doc.Statement[1].Sid != "test" || doc.Statement[1].Action != "SNS:Publish" ||
		doc.Statement[1].Principal["AWS"] != "arn:aws:iam::111111111111:root" {
		t.Fatalf("policy %s (%v)", attrs["Policy"], err)
	}
	awswiretest.WantError(t, f.svc.AddPermission(topic, "test", []string{"1"}, []string{"AddPermission"}), codeInvalidParameter, "Invalid parameter: Statement already exists")
	awswiretest.WantError(t, f.svc.AddPermission(topic, "t2", []string{"1"}, []string{"InvalidAction"}), codeInvalidParameter, "Invalid parameter: Policy statement action out of service scope!")
	awswiretest.WantError(t, f.svc.AddPermission(topic+"-x", "t2", []string{"1"}, []string{"Publish"}), codeNotFound, "Topic does not exist")
	if err := f.svc.RemovePermission(topic, "test"); err != nil {
		t.Fatal(err)
	}
	attrs, _ = f.svc.GetTopicAttributes(topic)
	if strings.Contains(attrs["Policy"], `"test"`) {
		t.Fatalf("policy %s", attrs["Policy"])
	}
	if err := f.svc.PutDataProtectionPolicy(topic, `{"Name":"p"}`); err != nil {
		t.Fatal(err)
	}
	if p, err := f.svc.GetDataProtectionPolicy(topic); err != nil || p != `{"Name":"p"}` {
		t.Fatalf("data protection %q %v", p, err)
	}
	attrs, _ = f.svc.GetTopicAttributes(topic)
	if _, ok := attrs["DataProtectionPolicy"]; ok {
		t.Fatal("the data protection policy is not an attribute")
	}
}
