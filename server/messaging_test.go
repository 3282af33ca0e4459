package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// TestSNSToSQS publishes to a topic with two queue subscriptions, one
// with raw message delivery and a filter policy, and receives from both
// through the SDKs: the envelope on one, the raw message with its
// attributes (digests checked by the SQS client) on the other.
func TestSNSToSQS(t *testing.T) {
	srv := servertest.Start(t)
	ctx := context.Background()
	q, n := sqsClient(t, srv, "test"), snsClient(srv)

	arnOf := func(name string) (url, arn string) {
		t.Helper()
		cq, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		a, err := q.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: cq.QueueUrl,
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
		if err != nil {
			t.Fatal(err)
		}
		return *cq.QueueUrl, a.Attributes["QueueArn"]
	}
	envURL, envARN := arnOf("envelopes")
	rawURL, rawARN := arnOf("raw")
	topic, err := n.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("events")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(envARN)}); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(rawARN),
		Attributes: map[string]string{"RawMessageDelivery": "true", "FilterPolicy": `{"color":["blue"]}`}}); err != nil {
		t.Fatal(err)
	}
	attr := func(v string) map[string]snstypes.MessageAttributeValue {
		return map[string]snstypes.MessageAttributeValue{"color": {DataType: aws.String("String"), StringValue: aws.String(v)}}
	}
	if _, err := n.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("red one"), MessageAttributes: attr("red")}); err != nil {
		t.Fatal(err)
	}
	pub, err := n.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("blue one"), Subject: aws.String("s"), MessageAttributes: attr("blue")})
	if err != nil {
		t.Fatal(err)
	}

	// Both messages reach the envelope queue, in order, as notifications.
	got, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(envURL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 2 {
		t.Fatalf("envelope queue got %d messages, want 2", len(got.Messages))
	}
	var env struct {
		Type, MessageId, TopicArn, Subject, Message string
		MessageAttributes                           map[string]struct{ Type, Value string }
	}
	if err := json.Unmarshal([]byte(*got.Messages[1].Body), &env); err != nil {
		t.Fatalf("envelope: %v: %s", err, *got.Messages[1].Body)
	}
	if env.Type != "Notification" || env.MessageId != *pub.MessageId || env.TopicArn != *topic.TopicArn ||
		env.Subject != "s" || env.Message != "blue one" || env.MessageAttributes["color"].Value != "blue" {
		t.Errorf("envelope %+v", env)
	}

	// Only the blue one passes the raw subscription's filter, as the bare
	// message with its attributes.
	got, err = q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(rawURL), MaxNumberOfMessages: 10,
		WaitTimeSeconds: 1, MessageAttributeNames: []string{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 || *got.Messages[0].Body != "blue one" ||
		*got.Messages[0].MessageAttributes["color"].StringValue != "blue" {
		t.Fatalf("raw queue got %+v", got.Messages)
	}
}
