package server_test

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/cloudemu/emulator/server/servertest"
)

func sqsClient(t testing.TB, srv *servertest.Server, accessKey string) *sqs.Client {
	t.Helper()
	cfg := servertest.AWSConfig("us-east-1", accessKey)
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

// wantSQSError checks the SDK's error code (the query code, which the SDK
// reads from x-amzn-query-error) and that the status is a 4xx.
func wantSQSError(t *testing.T, err error, code string) {
	t.Helper()
	servertest.WantAPIError(t, err, code, "")
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) && re.HTTPStatusCode() >= 500 {
		t.Fatalf("%s answered %d", code, re.HTTPStatusCode())
	}
}

func createQueue(t *testing.T, c *sqs.Client, name string, attrs map[string]string) string {
	t.Helper()
	out, err := c.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return *out.QueueUrl
}

func TestSQSQueues(t *testing.T) {
	srv := servertest.Start(t)
	c := sqsClient(t, srv, "test")
	ctx := context.Background()

	out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders"),
		Attributes: map[string]string{"VisibilityTimeout": "45", "DelaySeconds": "0"},
		Tags:       map[string]string{"team": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	url := *out.QueueUrl
	port := srv.Addr[strings.LastIndexByte(srv.Addr, ':')+1:]
	if url != "http://"+srv.Config.ExternalHostname+":"+port+"/000000000000/orders" {
		t.Fatalf("queue URL %s", url)
	}
	// The same attributes: the same queue; a different value: QueueAlreadyExists.
	again, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders"),
		Attributes: map[string]string{"VisibilityTimeout": "45"}})
	if err != nil || *again.QueueUrl != url {
		t.Fatalf("idempotent create: %v %v", again, err)
	}
	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders"),
		Attributes: map[string]string{"VisibilityTimeout": "46"}})
	wantSQSError(t, err, "QueueAlreadyExists")
	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bad name")})
	wantSQSError(t, err, "InvalidParameterValue")
	for attr, v := range map[string]string{"DelaySeconds": "901", "MaximumMessageSize": "1023",
		"MessageRetentionPeriod": "59", "ReceiveMessageWaitTimeSeconds": "21", "VisibilityTimeout": "43201"} {
		_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("x"), Attributes: map[string]string{attr: v}})
		wantSQSError(t, err, "InvalidAttributeValue")
	}
	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("x"), Attributes: map[string]string{"Nope": "1"}})
	wantSQSError(t, err, "InvalidAttributeName")

	for _, n := range []string{"orders-2", "other", "orders-3"} {
		createQueue(t, c, n, nil)
	}
	got, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("other"), QueueOwnerAWSAccountId: aws.String("000000000000")})
	if err != nil || !strings.HasSuffix(*got.QueueUrl, "/000000000000/other") {
		t.Fatalf("GetQueueUrl %v %v", got, err)
	}
	_, err = c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	wantSQSError(t, err, "AWS.SimpleQueueService.NonExistentQueue")
	var qdne *sqstypes.QueueDoesNotExist
	if !errors.As(err, &qdne) {
		t.Fatalf("want the SDK's QueueDoesNotExist, got %T", err)
	}

	list, err := c.ListQueues(ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("orders")})
	if err != nil || len(list.QueueUrls) != 3 || list.NextToken != nil {
		t.Fatalf("ListQueues prefix: %v %v", list, err)
	}
	var paged []string
	p := sqs.NewListQueuesPaginator(c, &sqs.ListQueuesInput{MaxResults: aws.Int32(1)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, page.QueueUrls...)
	}
	if len(paged) != 4 {
		t.Fatalf("paged %v", paged)
	}

	attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url,
		AttributeNames: []sqstypes.QueueAttributeName{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"VisibilityTimeout": "45", "DelaySeconds": "0", "MaximumMessageSize": "262144",
		"MessageRetentionPeriod": "345600", "ReceiveMessageWaitTimeSeconds": "0", "ApproximateNumberOfMessages": "0",
		"ApproximateNumberOfMessagesNotVisible": "0", "ApproximateNumberOfMessagesDelayed": "0",
		"QueueArn": "arn:aws:sqs:us-east-1:000000000000:orders", "SqsManagedSseEnabled": "true"}
	for k, v := range want {
		if attrs.Attributes[k] != v {
			t.Errorf("%s = %q, want %q", k, attrs.Attributes[k], v)
		}
	}
	if attrs.Attributes["CreatedTimestamp"] == "" || attrs.Attributes["LastModifiedTimestamp"] == "" {
		t.Errorf("timestamps missing: %v", attrs.Attributes)
	}
	_, err = c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: &url,
		Attributes: map[string]string{"DelaySeconds": "5", "Policy": `{"Version":"2012-10-17","Statement":[]}`}})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url,
		AttributeNames: []sqstypes.QueueAttributeName{"DelaySeconds"}})
	if len(one.Attributes) != 1 || one.Attributes["DelaySeconds"] != "5" {
		t.Fatalf("after set: %v", one.Attributes)
	}
	_, err = c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: &url, Attributes: map[string]string{"FifoQueue": "true"}})
	wantSQSError(t, err, "InvalidAttributeName")
	_, err = c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: &url, Attributes: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:nope","maxReceiveCount":1}`}})
	wantSQSError(t, err, "InvalidParameterValue")
	_, err = c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: &url, Attributes: map[string]string{"RedrivePolicy": `not json`}})
	wantSQSError(t, err, "InvalidParameterValue")

	if _, err := c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: &url, Tags: map[string]string{"env": "dev"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: &url, TagKeys: []string{"team"}}); err != nil {
		t.Fatal(err)
	}
	tags, err := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: &url})
	if err != nil || len(tags.Tags) != 1 || tags.Tags["env"] != "dev" {
		t.Fatalf("tags %v %v", tags, err)
	}

	// Any host names the queue; the path decides.
	if _, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String("http://elsewhere:1/000000000000/orders")}); err != nil {
		t.Fatalf("queue named by another host: %v", err)
	}
	if _, err := c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: &url}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url})
	wantSQSError(t, err, "AWS.SimpleQueueService.NonExistentQueue")
	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x")})
	wantSQSError(t, err, "AWS.SimpleQueueService.NonExistentQueue")
}

func TestSQSAccounts(t *testing.T) {
	srv := servertest.Start(t)
	a := sqsClient(t, srv, "111111111111")
	b := sqsClient(t, srv, "222222222222")
	ctx := context.Background()
	url := createQueue(t, a, "shared", nil)
	if !strings.Contains(url, "/111111111111/shared") {
		t.Fatalf("url %s", url)
	}
	if _, err := b.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("shared")}); err == nil {
		t.Fatal("another account sees the queue by name")
	}
	got, err := b.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("shared"), QueueOwnerAWSAccountId: aws.String("111111111111")})
	if err != nil || *got.QueueUrl != url {
		t.Fatalf("owner account: %v %v", got, err)
	}
	// The URL names the queue's account: b sends to a's queue.
	if _, err := b.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("hi")}); err != nil {
		t.Fatal(err)
	}
	r, err := a.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"SenderId"}})
	if err != nil || len(r.Messages) != 1 || r.Messages[0].Attributes["SenderId"] != "222222222222" {
		t.Fatalf("receive %v %v", r, err)
	}
}

func TestSQSMessages(t *testing.T) {
	srv := servertest.Start(t)
	c := sqsClient(t, srv, "test")
	ctx := context.Background()
	url := createQueue(t, c, "msgs", nil)

	// The SDK validates MD5OfMessageBody, MD5OfMessageAttributes and
	// MD5OfMessageSystemAttributes: a wrong digest fails the call.
	sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("héllo"),
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{
			"color":    {DataType: aws.String("String"), StringValue: aws.String("blue")},
			"count":    {DataType: aws.String("Number"), StringValue: aws.String("42")},
			"blob":     {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2, 255}},
			"app.kind": {DataType: aws.String("String.custom"), StringValue: aws.String("k")},
		},
		MessageSystemAttributes: map[string]sqstypes.MessageSystemAttributeValue{
			"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793")},
		}})
	if err != nil {
		t.Fatal(err)
	}
	// aws-sdk-go-v2 checks MD5OfMessageBody only: the attribute digests are
	// checked here against AWS's encoding, computed independently.
	if aws.ToString(sent.MD5OfMessageAttributes) != attributesMD5(map[string]sqstypes.MessageAttributeValue{
		"color":    {DataType: aws.String("String"), StringValue: aws.String("blue")},
		"count":    {DataType: aws.String("Number"), StringValue: aws.String("42")},
		"blob":     {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2, 255}},
		"app.kind": {DataType: aws.String("String.custom"), StringValue: aws.String("k")},
	}) || aws.ToString(sent.MD5OfMessageSystemAttributes) != attributesMD5(map[string]sqstypes.MessageAttributeValue{
		"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793")},
	}) {
		t.Fatalf("digests: %+v", sent)
	}
	r, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"All"},
		MessageAttributeNames:       []string{"app.*", "color"}, VisibilityTimeout: 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Messages) != 1 {
		t.Fatalf("received %d", len(r.Messages))
	}
	m := r.Messages[0]
	if aws.ToString(m.MD5OfMessageAttributes) != attributesMD5(m.MessageAttributes) {
		t.Fatalf("received attributes' digest %s", aws.ToString(m.MD5OfMessageAttributes))
	}
	if *m.MessageId != *sent.MessageId || *m.Body != "héllo" || len(m.MessageAttributes) != 2 ||
		m.MessageAttributes["app.kind"].StringValue == nil || m.Attributes["ApproximateReceiveCount"] != "1" ||
		m.Attributes["AWSTraceHeader"] == "" || m.Attributes["SentTimestamp"] == "" || m.Attributes["ApproximateFirstReceiveTimestamp"] == "" {
		t.Fatalf("message %+v", m)
	}
	// Visibility: in flight, then MessageNotInflight once visible again.
	if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0}); err != nil {
		t.Fatal(err)
	}
	_, err = c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 10})
	wantSQSError(t, err, "AWS.SimpleQueueService.MessageNotInflight")
	_, err = c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: aws.String("garbage")})
	wantSQSError(t, err, "ReceiptHandleIsInvalid")

	batch, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []sqstypes.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("one"), MessageAttributes: map[string]sqstypes.MessageAttributeValue{
			"x": {DataType: aws.String("String"), StringValue: aws.String("y")}}},
		{Id: aws.String("b"), MessageBody: aws.String("two"), DelaySeconds: 1},
		{Id: aws.String("c"), MessageBody: aws.String("bad\x01")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(batch.Successful) != 2 || len(batch.Failed) != 1 || *batch.Failed[0].Id != "c" || !batch.Failed[0].SenderFault || *batch.Failed[0].Code != "InvalidMessageContents" {
		t.Fatalf("batch %+v", batch)
	}
	attrs, _ := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url, AttributeNames: []sqstypes.QueueAttributeName{"All"}})
	if attrs.Attributes["ApproximateNumberOfMessages"] != "2" || attrs.Attributes["ApproximateNumberOfMessagesDelayed"] != "1" {
		t.Fatalf("counts %v", attrs.Attributes)
	}
	var handles []sqstypes.DeleteMessageBatchRequestEntry
	var vis []sqstypes.ChangeMessageVisibilityBatchRequestEntry
	deadline := time.Now().Add(5 * time.Second)
	for len(handles) < 3 && time.Now().Before(deadline) {
		r, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10, WaitTimeSeconds: 2,
			MessageAttributeNames: []string{"All"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.Messages {
			id := "m" + strconv.Itoa(len(handles))
			handles = append(handles, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(id), ReceiptHandle: m.ReceiptHandle})
			vis = append(vis, sqstypes.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(id), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 60})
		}
	}
	if len(handles) != 3 {
		t.Fatalf("received %d of 3", len(handles))
	}
	vis = append(vis, sqstypes.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String("bad"), ReceiptHandle: aws.String("nope")})
	cv, err := c.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &url, Entries: vis})
	if err != nil || len(cv.Successful) != 3 || len(cv.Failed) != 1 || *cv.Failed[0].Code != "ReceiptHandleIsInvalid" {
		t.Fatalf("visibility batch %+v %v", cv, err)
	}
	del, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: handles})
	if err != nil || len(del.Successful) != 3 || len(del.Failed) != 0 {
		t.Fatalf("delete batch %+v %v", del, err)
	}
	attrs, _ = c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url, AttributeNames: []sqstypes.QueueAttributeName{"All"}})
	for _, k := range []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"} {
		if attrs.Attributes[k] != "0" {
			t.Fatalf("%s = %s after deleting everything", k, attrs.Attributes[k])
		}
	}

	// Purge, once a minute.
	c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("p")})
	if _, err := c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: &url}); err != nil {
		t.Fatal(err)
	}
	_, err = c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: &url})
	wantSQSError(t, err, "AWS.SimpleQueueService.PurgeQueueInProgress")
	if r, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url}); len(r.Messages) != 0 {
		t.Fatal("purged message received")
	}

	// Permissions are stored in the policy as AWS writes them.
	if _, err := c.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: &url, Label: aws.String("cross"),
		AWSAccountIds: []string{"123456789012"}, Actions: []string{"SendMessage"}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: &url, Label: aws.String("cross"),
		AWSAccountIds: []string{"123456789012"}, Actions: []string{"SendMessage"}})
	wantSQSError(t, err, "InvalidParameterValue")
	pol, _ := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url, AttributeNames: []sqstypes.QueueAttributeName{"Policy"}})
	if !strings.Contains(pol.Attributes["Policy"], `"Sid":"cross"`) || !strings.Contains(pol.Attributes["Policy"], `arn:aws:iam::123456789012:root`) {
		t.Fatalf("policy %s", pol.Attributes["Policy"])
	}
	if _, err := c.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: &url, Label: aws.String("cross")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: &url, Label: aws.String("cross")})
	wantSQSError(t, err, "InvalidParameterValue")
}

func TestSQSBadInput(t *testing.T) {
	srv := servertest.Start(t)
	c := sqsClient(t, srv, "test")
	ctx := context.Background()
	url := createQueue(t, c, "bad", nil)
	send := func(body string, attrs map[string]sqstypes.MessageAttributeValue) error {
		_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(body), MessageAttributes: attrs})
		return err
	}
	if err := send(strings.Repeat("a", 262144), nil); err != nil {
		t.Fatalf("256 KB exactly: %v", err)
	}
	wantSQSError(t, send(strings.Repeat("a", 262145), nil), "InvalidParameterValue")
	wantSQSError(t, send(strings.Repeat("a", 262000), map[string]sqstypes.MessageAttributeValue{
		"big": {DataType: aws.String("String"), StringValue: aws.String(strings.Repeat("b", 200))}}), "InvalidParameterValue")
	wantSQSError(t, send("nul \x00 inside", nil), "InvalidMessageContents")
	wantSQSError(t, send("\uFFFE", nil), "InvalidMessageContents")
	for name, a := range map[string]sqstypes.MessageAttributeValue{
		"bad name!": {DataType: aws.String("String"), StringValue: aws.String("v")},
		"AWS.x":     {DataType: aws.String("String"), StringValue: aws.String("v")},
		"typ":       {DataType: aws.String("Text"), StringValue: aws.String("v")},
		"empty":     {DataType: aws.String("String"), StringValue: aws.String("")},
		"num":       {DataType: aws.String("Number"), StringValue: aws.String("abc")},
	} {
		wantSQSError(t, send("x", map[string]sqstypes.MessageAttributeValue{name: a}), "InvalidParameterValue")
	}
	_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"), DelaySeconds: 901})
	wantSQSError(t, err, "InvalidParameterValue")
	_, err = c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 11})
	wantSQSError(t, err, "InvalidParameterValue")
	_, err = c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 21})
	wantSQSError(t, err, "InvalidParameterValue")

	// Batches.
	_, err = c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []sqstypes.SendMessageBatchRequestEntry{}})
	wantSQSError(t, err, "AWS.SimpleQueueService.EmptyBatchRequest")
	var eleven []sqstypes.SendMessageBatchRequestEntry
	for i := range 11 {
		eleven = append(eleven, sqstypes.SendMessageBatchRequestEntry{Id: aws.String("e" + strconv.Itoa(i)), MessageBody: aws.String("x")})
	}
	_, err = c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: eleven})
	wantSQSError(t, err, "AWS.SimpleQueueService.TooManyEntriesInBatchRequest")
	_, err = c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: eleven[:2:2]})
	if err != nil {
		t.Fatal(err)
	}
	dup := []sqstypes.SendMessageBatchRequestEntry{eleven[0], eleven[0]}
	_, err = c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: dup})
	wantSQSError(t, err, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct")
	_, err = c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []sqstypes.SendMessageBatchRequestEntry{
		{Id: aws.String("bad id"), MessageBody: aws.String("x")}}})
	wantSQSError(t, err, "AWS.SimpleQueueService.InvalidBatchEntryId")
	_, err = c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []sqstypes.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String(strings.Repeat("a", 200000))},
		{Id: aws.String("b"), MessageBody: aws.String(strings.Repeat("b", 200000))}}})
	wantSQSError(t, err, "AWS.SimpleQueueService.BatchRequestTooLong")
	_, err = c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: []sqstypes.DeleteMessageBatchRequestEntry{}})
	wantSQSError(t, err, "AWS.SimpleQueueService.EmptyBatchRequest")

	// Handles of another queue, forged or truncated.
	other := createQueue(t, c, "other", nil)
	c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &other, MessageBody: aws.String("o")})
	r, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &other})
	if len(r.Messages) != 1 {
		t.Fatal("no message in other")
	}
	for _, h := range []string{*r.Messages[0].ReceiptHandle, (*r.Messages[0].ReceiptHandle)[:20], "%%%", "aDEgeA=="} {
		_, err = c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: aws.String(h)})
		wantSQSError(t, err, "ReceiptHandleIsInvalid")
	}
	for _, u := range []string{"http://x/000000000000/nope", "nope", "http://x/", "http://x/a/b/c"} {
		_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(u), MessageBody: aws.String("x")})
		wantSQSError(t, err, "AWS.SimpleQueueService.NonExistentQueue")
	}

	// Nothing accepted was lost: the two batch messages and the 256 KB one.
	attrs, _ := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url, AttributeNames: []sqstypes.QueueAttributeName{"ApproximateNumberOfMessages"}})
	if attrs.Attributes["ApproximateNumberOfMessages"] != "3" {
		t.Fatalf("messages %v", attrs.Attributes)
	}

	// Malformed JSON bodies get a 4xx.
	for _, body := range []string{`{`, `{"QueueUrl": 5}`, `[]`} {
		req, _ := http.NewRequest("POST", srv.URL+"/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Fatalf("%s: status %d", body, resp.StatusCode)
		}
	}
}

func TestSQSLongPolling(t *testing.T) {
	srv := servertest.Start(t)
	c := sqsClient(t, srv, "test")
	ctx := context.Background()
	url := createQueue(t, c, "poll", nil)

	var lat []time.Duration
	for range 10 {
		var wg sync.WaitGroup
		var got time.Time
		var n int
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 10})
			got = time.Now()
			if err != nil {
				t.Error(err)
				return
			}
			n = len(r.Messages)
			for _, m := range r.Messages {
				c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: m.ReceiptHandle})
			}
		}()
		time.Sleep(30 * time.Millisecond)
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("wake")}); err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		wg.Wait()
		if n != 1 {
			t.Fatalf("long poll got %d messages", n)
		}
		lat = append(lat, got.Sub(sent))
	}
	worst := time.Duration(0)
	for _, d := range lat {
		worst = max(worst, d)
	}
	// Measured from the send's answer: the receive answers with it or
	// just after.
	if worst > 50*time.Millisecond {
		t.Fatalf("worst wake-up %v (%v)", worst, lat)
	}
	t.Logf("wake-up after the send's answer: worst %v of %v", worst, lat)

	start := time.Now()
	r, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 1})
	if err != nil || len(r.Messages) != 0 {
		t.Fatalf("empty poll %v %v", r, err)
	}
	if d := time.Since(start); d < time.Second || d > 2*time.Second {
		t.Fatalf("empty poll took %v", d)
	}
	// The queue's ReceiveMessageWaitTimeSeconds applies when the request has none.
	c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: &url, Attributes: map[string]string{"ReceiveMessageWaitTimeSeconds": "1"}})
	start = time.Now()
	c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url})
	if d := time.Since(start); d < time.Second {
		t.Fatalf("queue wait time ignored: %v", d)
	}
}

func TestSQSVisibilityAndRedrive(t *testing.T) {
	srv := servertest.Start(t)
	c := sqsClient(t, srv, "test")
	ctx := context.Background()
	dlq := createQueue(t, c, "dead", nil)
	url := createQueue(t, c, "work", map[string]string{"VisibilityTimeout": "1",
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dead","maxReceiveCount":2}`})
	attrs, _ := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url, AttributeNames: []sqstypes.QueueAttributeName{"RedrivePolicy"}})
	if attrs.Attributes["RedrivePolicy"] != `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dead","maxReceiveCount":2}` {
		t.Fatalf("redrive policy %q", attrs.Attributes["RedrivePolicy"])
	}
	c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("poison")})
	var handles []string
	for i := range 2 {
		r, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 3,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"ApproximateReceiveCount"}})
		if err != nil || len(r.Messages) != 1 || r.Messages[0].Attributes["ApproximateReceiveCount"] != strconv.Itoa(i+1) {
			t.Fatalf("receive %d: %+v %v", i+1, r, err)
		}
		handles = append(handles, *r.Messages[0].ReceiptHandle)
		if i == 0 {
			// Not visible until its visibility timeout ends.
			if r, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url}); len(r.Messages) != 0 {
				t.Fatal("received while in flight")
			}
		}
	}
	if handles[0] == handles[1] {
		t.Fatal("the same receipt handle twice")
	}
	// The third receive exceeds maxReceiveCount: the message moves.
	r, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 2})
	if len(r.Messages) != 0 {
		t.Fatalf("received a third time: %+v", r.Messages)
	}
	r, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &dlq, WaitTimeSeconds: 2,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"All"}})
	if err != nil || len(r.Messages) != 1 || *r.Messages[0].Body != "poison" ||
		r.Messages[0].Attributes["DeadLetterQueueSourceArn"] != "arn:aws:sqs:us-east-1:000000000000:work" {
		t.Fatalf("dead-letter queue: %+v %v", r, err)
	}
	src, err := c.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: &dlq})
	if err != nil || len(src.QueueUrls) != 1 || src.QueueUrls[0] != url {
		t.Fatalf("sources %+v %v", src, err)
	}

	// A move task redrives the dead-letter queue's messages to their source.
	if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &dlq, ReceiptHandle: r.Messages[0].ReceiptHandle, VisibilityTimeout: 0}); err != nil {
		t.Fatal(err)
	}
	_, err = c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:000000000000:work")})
	wantSQSError(t, err, "InvalidParameterValue")
	_, err = c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:000000000000:none")})
	wantSQSError(t, err, "ResourceNotFoundException")
	task, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:000000000000:dead")})
	if err != nil || task.TaskHandle == nil {
		t.Fatalf("start move task %v %v", task, err)
	}
	tasks, err := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:000000000000:dead")})
	if err != nil || len(tasks.Results) != 1 || *tasks.Results[0].Status != "COMPLETED" || tasks.Results[0].ApproximateNumberOfMessagesMoved != 1 {
		t.Fatalf("move tasks %+v %v", tasks, err)
	}
	_, err = c.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: task.TaskHandle})
	wantSQSError(t, err, "ResourceNotFoundException")
	back, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 2,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"All"}})
	if err != nil || len(back.Messages) != 1 || *back.Messages[0].Body != "poison" || back.Messages[0].Attributes["DeadLetterQueueSourceArn"] != "" {
		t.Fatalf("redriven %+v %v", back, err)
	}
}

func TestSQSFIFO(t *testing.T) {
	srv := servertest.Start(t)
	c := sqsClient(t, srv, "test")
	ctx := context.Background()
	_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("nofifo.fifo")})
	wantSQSError(t, err, "InvalidParameterValue")
	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("nosuffix"), Attributes: map[string]string{"FifoQueue": "true"}})
	wantSQSError(t, err, "InvalidParameterValue")
	url := createQueue(t, c, "jobs.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})

	send := func(body, group string) *sqs.SendMessageOutput {
		t.Helper()
		out, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(body), MessageGroupId: aws.String(group)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a1 := send("a1", "a")
	if dup := send("a1", "a"); *dup.MessageId != *a1.MessageId || *dup.SequenceNumber != *a1.SequenceNumber {
		t.Fatalf("content deduplication: %v vs %v", *dup.MessageId, *a1.MessageId)
	}
	a2 := send("a2", "a")
	send("b1", "b")
	if *a2.SequenceNumber <= *a1.SequenceNumber {
		t.Fatalf("sequence numbers %s then %s", *a1.SequenceNumber, *a2.SequenceNumber)
	}
	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x")})
	wantSQSError(t, err, "MissingParameter")
	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"), MessageGroupId: aws.String("g"), DelaySeconds: 2})
	wantSQSError(t, err, "InvalidParameterValue")

	r, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, ReceiveRequestAttemptId: aws.String("try1"),
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"All"}})
	if len(r.Messages) != 1 || *r.Messages[0].Body != "a1" || r.Messages[0].Attributes["MessageGroupId"] != "a" || r.Messages[0].Attributes["SequenceNumber"] != *a1.SequenceNumber {
		t.Fatalf("first %+v", r.Messages)
	}
	// A retried attempt gets the same message and handle.
	again, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, ReceiveRequestAttemptId: aws.String("try1")})
	if len(again.Messages) != 1 || *again.Messages[0].ReceiptHandle != *r.Messages[0].ReceiptHandle {
		t.Fatalf("retried attempt %+v", again.Messages)
	}
	// Group a is blocked while a1 is in flight.
	r2, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10})
	if len(r2.Messages) != 1 || *r2.Messages[0].Body != "b1" {
		t.Fatalf("second %+v", r2.Messages)
	}
	if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: r.Messages[0].ReceiptHandle}); err != nil {
		t.Fatal(err)
	}
	r3, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10})
	if len(r3.Messages) != 1 || *r3.Messages[0].Body != "a2" {
		t.Fatalf("after deleting a1: %+v", r3.Messages)
	}
	// Visible again, a FIFO handle has expired.
	c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &url, ReceiptHandle: r3.Messages[0].ReceiptHandle, VisibilityTimeout: 0})
	_, err = c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: r3.Messages[0].ReceiptHandle})
	wantSQSError(t, err, "InvalidParameterValue")

	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs.fifo"), Attributes: map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "false"}})
	wantSQSError(t, err, "QueueAlreadyExists")
	attrs, _ := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url, AttributeNames: []sqstypes.QueueAttributeName{"All"}})
	if attrs.Attributes["FifoQueue"] != "true" || attrs.Attributes["DeduplicationScope"] != "queue" || attrs.Attributes["FifoThroughputLimit"] != "perQueue" {
		t.Fatalf("fifo attributes %v", attrs.Attributes)
	}
}

func TestSQSPersistence(t *testing.T) {
	dir := t.TempDir()
	srv := servertest.Start(t, servertest.WithPersistence(dir))
	c := sqsClient(t, srv, "test")
	ctx := context.Background()
	url := createQueue(t, c, "keep", map[string]string{"VisibilityTimeout": "300"})
	fifo := createQueue(t, c, "keep.fifo", map[string]string{"FifoQueue": "true"})
	c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: &url, Tags: map[string]string{"k": "v"}})
	for _, b := range []string{"one", "two", "three"} {
		if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	fsent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &fifo, MessageBody: aws.String("f"), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d")})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url})
	if len(r.Messages) != 1 || *r.Messages[0].Body != "one" {
		t.Fatalf("receive %+v", r.Messages)
	}
	inflight := *r.Messages[0].ReceiptHandle
	r2, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url})
	c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: r2.Messages[0].ReceiptHandle})

	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Emulator.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}

	srv2 := servertest.Start(t, servertest.WithPersistence(dir))
	c2 := sqsClient(t, srv2, "test")
	url2 := strings.Replace(url, srv.Addr[strings.LastIndexByte(srv.Addr, ':'):], srv2.Addr[strings.LastIndexByte(srv2.Addr, ':'):], 1)
	attrs, err := c2.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url2, AttributeNames: []sqstypes.QueueAttributeName{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	// one is still in flight (its deadline kept), two was deleted, three waits.
	if attrs.Attributes["VisibilityTimeout"] != "300" || attrs.Attributes["ApproximateNumberOfMessages"] != "1" || attrs.Attributes["ApproximateNumberOfMessagesNotVisible"] != "1" {
		t.Fatalf("restored attributes %v", attrs.Attributes)
	}
	tags, _ := c2.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: &url2})
	if tags.Tags["k"] != "v" {
		t.Fatalf("tags %v", tags.Tags)
	}
	r3, _ := c2.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url2, MaxNumberOfMessages: 10})
	if len(r3.Messages) != 1 || *r3.Messages[0].Body != "three" {
		t.Fatalf("after restart %+v", r3.Messages)
	}
	// The in-flight message's handle still deletes it.
	if _, err := c2.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url2, ReceiptHandle: &inflight}); err != nil {
		t.Fatal(err)
	}
	fr, _ := c2.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String("http://x/000000000000/keep.fifo")})
	if len(fr.Messages) != 1 || *fr.Messages[0].Body != "f" {
		t.Fatalf("fifo after restart %+v", fr.Messages)
	}
	// New messages continue the sequence.
	out, err := c2.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url2, MessageBody: aws.String("four")})
	if err != nil || out.MessageId == nil {
		t.Fatal(err)
	}
	c2.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String("http://x/000000000000/keep.fifo"), ReceiptHandle: fr.Messages[0].ReceiptHandle})
	fout, err := c2.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String("http://x/000000000000/keep.fifo"),
		MessageBody: aws.String("f2"), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d2")})
	if err != nil || *fout.SequenceNumber <= *fsent.SequenceNumber || len(*fout.SequenceNumber) != 20 {
		t.Fatalf("sequence numbers %s then, after the restart, %v (%v)", *fsent.SequenceNumber, fout, err)
	}
}

// sqsQuery posts a query-protocol form to path and returns the status and
// body.
func sqsQuery(t *testing.T, srv *servertest.Server, path string, form url.Values) (int, []byte) {
	t.Helper()
	form.Set("Version", "2012-11-05")
	req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestSQSQueryProtocol(t *testing.T) {
	srv := servertest.Start(t)
	status, body := sqsQuery(t, srv, "/", url.Values{"Action": {"CreateQueue"}, "QueueName": {"legacy"},
		"Attribute.1.Name": {"VisibilityTimeout"}, "Attribute.1.Value": {"40"}})
	var created struct {
		QueueURL string `xml:"CreateQueueResult>QueueUrl"`
	}
	if status != 200 || xml.Unmarshal(body, &created) != nil || !strings.HasSuffix(created.QueueURL, "/000000000000/legacy") {
		t.Fatalf("CreateQueue %d %s", status, body)
	}
	status, body = sqsQuery(t, srv, "/", url.Values{"Action": {"SendMessage"}, "QueueUrl": {created.QueueURL},
		"MessageBody": {"via query"}, "MessageAttribute.1.Name": {"color"}, "MessageAttribute.1.Value.DataType": {"String"},
		"MessageAttribute.1.Value.StringValue": {"red"}})
	var sent struct {
		MD5Body  string `xml:"SendMessageResult>MD5OfMessageBody"`
		MD5Attrs string `xml:"SendMessageResult>MD5OfMessageAttributes"`
		ID       string `xml:"SendMessageResult>MessageId"`
	}
	if status != 200 || xml.Unmarshal(body, &sent) != nil || sent.ID == "" || sent.MD5Body != md5Of("via query") || sent.MD5Attrs == "" {
		t.Fatalf("SendMessage %d %s", status, body)
	}
	// Posted to the queue's path, without QueueUrl.
	status, body = sqsQuery(t, srv, "/000000000000/legacy", url.Values{"Action": {"ReceiveMessage"},
		"AttributeName.1": {"All"}, "MessageAttributeName.1": {"All"}})
	var recv struct {
		Messages []struct {
			Body   string `xml:"Body"`
			Handle string `xml:"ReceiptHandle"`
			Attrs  []struct {
				Name  string `xml:"Name"`
				Value string `xml:"Value"`
			} `xml:"Attribute"`
			MsgAttrs []struct {
				Name  string `xml:"Name"`
				Value struct {
					StringValue string `xml:"StringValue"`
				} `xml:"Value"`
			} `xml:"MessageAttribute"`
		} `xml:"ReceiveMessageResult>Message"`
	}
	if status != 200 || xml.Unmarshal(body, &recv) != nil || len(recv.Messages) != 1 || recv.Messages[0].Body != "via query" ||
		len(recv.Messages[0].Attrs) < 4 || len(recv.Messages[0].MsgAttrs) != 1 || recv.Messages[0].MsgAttrs[0].Value.StringValue != "red" {
		t.Fatalf("ReceiveMessage %d %s", status, body)
	}
	status, body = sqsQuery(t, srv, "/000000000000/legacy", url.Values{"Action": {"DeleteMessage"}, "ReceiptHandle": {recv.Messages[0].Handle}})
	if status != 200 {
		t.Fatalf("DeleteMessage %d %s", status, body)
	}
	status, body = sqsQuery(t, srv, "/", url.Values{"Action": {"GetQueueAttributes"}, "QueueUrl": {created.QueueURL}, "AttributeName.1": {"VisibilityTimeout"}})
	var ga struct {
		Attrs []struct {
			Name  string `xml:"Name"`
			Value string `xml:"Value"`
		} `xml:"GetQueueAttributesResult>Attribute"`
	}
	if status != 200 || xml.Unmarshal(body, &ga) != nil || len(ga.Attrs) != 1 || ga.Attrs[0].Value != "40" {
		t.Fatalf("GetQueueAttributes %d %s", status, body)
	}
	// Errors in the query shape, with the query codes.
	status, body = sqsQuery(t, srv, "/", url.Values{"Action": {"GetQueueUrl"}, "QueueName": {"missing"}})
	var qe struct {
		Code string `xml:"Error>Code"`
		Type string `xml:"Error>Type"`
	}
	if status != 400 || xml.Unmarshal(body, &qe) != nil || qe.Code != "AWS.SimpleQueueService.NonExistentQueue" || qe.Type != "Sender" {
		t.Fatalf("error %d %s", status, body)
	}
	status, body = sqsQuery(t, srv, "/000000000000/legacy", url.Values{"Action": {"SendMessage"}, "MessageBody": {strings.Repeat("x", 262145)}})
	if status != 400 || xml.Unmarshal(body, &qe) != nil || qe.Code != "InvalidParameterValue" {
		t.Fatalf("oversized %d %.300s", status, body)
	}
	status, body = sqsQuery(t, srv, "/", url.Values{"Action": {"ListQueues"}})
	var lq struct {
		URLs []string `xml:"ListQueuesResult>QueueUrl"`
	}
	if status != 200 || xml.Unmarshal(body, &lq) != nil || len(lq.URLs) != 1 {
		t.Fatalf("ListQueues %d %s", status, body)
	}
	status, _ = sqsQuery(t, srv, "/", url.Values{"Action": {"DeleteQueue"}, "QueueUrl": {created.QueueURL}})
	if status != 200 {
		t.Fatalf("DeleteQueue %d", status)
	}
}

// attributesMD5 is AWS's digest of message attributes: in name order, each
// length-prefixed name and type, a transport byte (1 string, 2 binary) and
// the length-prefixed value.
func attributesMD5(attrs map[string]sqstypes.MessageAttributeValue) string {
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	var buf []byte
	field := func(b []byte) {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(b)))
		buf = append(buf, b...)
	}
	for _, k := range names {
		a := attrs[k]
		field([]byte(k))
		field([]byte(aws.ToString(a.DataType)))
		if strings.HasPrefix(aws.ToString(a.DataType), "Binary") {
			buf = append(buf, 2)
			field(a.BinaryValue)
		} else {
			buf = append(buf, 1)
			field([]byte(aws.ToString(a.StringValue)))
		}
	}
	return md5Of(string(buf))
}

func md5Of(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestSQSPeek(t *testing.T) {
	srv := servertest.Start(t)
	c := sqsClient(t, srv, "test")
	ctx := context.Background()
	url := createQueue(t, c, "peeked", nil)
	c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("first"),
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("v")}}})
	c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("later"), DelaySeconds: 60})
	r, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url})
	if len(r.Messages) != 1 {
		t.Fatal("nothing received")
	}
	peek := func() map[string]any {
		resp, err := http.Get(srv.URL + "/_emulator/sqs/messages?QueueUrl=" + url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&out) != nil {
			t.Fatalf("peek status %d", resp.StatusCode)
		}
		return out
	}
	got := peek()
	msgs, _ := got["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("peek %v", got)
	}
	first, second := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if first["state"] != "inflight" || first["receiptHandle"] != *r.Messages[0].ReceiptHandle || first["receiveCount"] != 1.0 ||
		first["md5OfMessageAttributes"] == nil || second["state"] != "delayed" {
		t.Fatalf("peeked %v", msgs)
	}
	// Peeking counts no receive.
	if again := peek()["messages"].([]any)[0].(map[string]any); again["receiveCount"] != 1.0 {
		t.Fatalf("peek counted a receive: %v", again)
	}
}

// TestSQSLongPollClientGoesAway: a client that closes its connection during
// a long poll leaves no waiter behind to take the next message.
func TestSQSLongPollClientGoesAway(t *testing.T) {
	srv := servertest.Start(t)
	c := sqsClient(t, srv, "test")
	ctx := context.Background()
	url := createQueue(t, c, "leaving", nil)
	for range 3 {
		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		body := `{"QueueUrl":"` + url + `","WaitTimeSeconds":20}`
		req := "POST / HTTP/1.1\r\nHost: " + srv.Addr + "\r\nContent-Type: application/x-amz-json-1.0\r\n" +
			"X-Amz-Target: AmazonSQS.ReceiveMessage\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		if _, err := conn.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		conn.Close()
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("for whoever stays")}); err != nil {
		t.Fatal(err)
	}
	r, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 1})
	if err != nil || len(r.Messages) != 1 {
		t.Fatalf("the message went to a client that left: %+v %v", r, err)
	}
	// A poll still open on a live connection is served as usual.
	done := make(chan int, 1)
	go func() {
		r, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 5})
		done <- len(r.Messages)
	}()
	time.Sleep(50 * time.Millisecond)
	c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("second")})
	if n := <-done; n != 1 {
		t.Fatalf("live poll got %d", n)
	}
}

// TestSQSNoServerErrors sends every operation empty, with wrong types and
// with garbage, in both protocols: each answer is a 2xx or a shaped 4xx.
func TestSQSNoServerErrors(t *testing.T) {
	srv := servertest.Start(t)
	c := sqsClient(t, srv, "test")
	queue := createQueue(t, c, "target", nil)
	fifo := createQueue(t, c, "target.fifo", map[string]string{"FifoQueue": "true"})
	ops := []string{"AddPermission", "CancelMessageMoveTask", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch",
		"CreateQueue", "DeleteMessage", "DeleteMessageBatch", "GetQueueAttributes", "GetQueueUrl",
		"ListDeadLetterSourceQueues", "ListMessageMoveTasks", "ListQueueTags", "ListQueues", "PurgeQueue", "ReceiveMessage",
		"RemovePermission", "SendMessage", "SendMessageBatch", "SetQueueAttributes", "StartMessageMoveTask", "TagQueue",
		"UntagQueue", "DeleteQueue"}
	bodies := []string{`{}`, `{"QueueUrl":"` + queue + `"}`, `{"QueueUrl":"` + fifo + `"}`,
		`{"QueueUrl":"` + queue + `","Entries":[{}],"Attributes":{"":""},"Tags":{"":""},"MessageBody":"","ReceiptHandle":"","VisibilityTimeout":-1,"MaxNumberOfMessages":0,"AttributeNames":["x"],"TagKeys":[""],"Label":"","AWSAccountIds":[],"Actions":[""]}`,
		`{"QueueUrl":"` + fifo + `","Entries":[{"Id":"a","MessageBody":"x","ReceiptHandle":"x"},{"Id":"a"}],"MessageBody":"x","MessageGroupId":"","WaitTimeSeconds":0,"ReceiveRequestAttemptId":"\u0000"}`,
		`{"QueueUrl":5}`, `{"QueueName":"` + strings.Repeat("n", 100) + `","Attributes":{"RedrivePolicy":"{\"maxReceiveCount\":\"x\"}"}}`,
		`{"SourceArn":"arn:aws:sqs:us-east-1:000000000000:target","TaskHandle":"eyJ9"}`, `null`, `{"QueueUrl":"/000000000000/target","MessageAttributes":{"a":{"DataType":"Binary"}}}`}
	for _, op := range ops {
		for _, body := range bodies {
			req, _ := http.NewRequest("POST", srv.URL+"/", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			req.Header.Set("X-Amz-Target", "AmazonSQS."+op)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode >= 500 {
				t.Errorf("JSON %s %s: %d %s", op, body, resp.StatusCode, b)
			}
		}
		for _, form := range []url.Values{{}, {"QueueUrl": {queue}, "Entries.member.1.Id": {"x"}},
			{"QueueUrl": {fifo}, "MessageBody": {"\x01"}, "SendMessageBatchRequestEntry.1.Id": {"a"}, "SendMessageBatchRequestEntry.2.Id": {"a"}},
			{"QueueUrl": {queue}, "MaxNumberOfMessages": {"x"}, "Attribute.1.Name": {"DelaySeconds"}, "Attribute.1.Value": {"-1"}}} {
			form.Set("Action", op)
			status, b := sqsQuery(t, srv, "/", form)
			if status >= 500 {
				t.Errorf("query %s %v: %d %s", op, form, status, b)
			}
		}
	}
}

// TestSQSReset: a reset forgets every queue and answers waiting polls.
func TestSQSReset(t *testing.T) {
	srv := servertest.Start(t, servertest.WithPersistence(t.TempDir()))
	c := sqsClient(t, srv, "test")
	ctx := context.Background()
	url := createQueue(t, c, "before", nil)
	c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x")})
	c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url})
	done := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 20})
		done <- time.Since(start)
	}()
	time.Sleep(50 * time.Millisecond)
	resp, err := http.Post(srv.URL+"/_emulator/reset", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("reset %d", resp.StatusCode)
	}
	select {
	case d := <-done:
		if d > 5*time.Second {
			t.Fatalf("the poll waited %v across a reset", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the poll outlived the reset")
	}
	_, err = c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("before")})
	wantSQSError(t, err, "AWS.SimpleQueueService.NonExistentQueue")
	again := createQueue(t, c, "before", nil)
	if r, _ := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &again}); len(r.Messages) != 0 {
		t.Fatal("a message survived the reset")
	}
}

// TestSQSDeliveryFromSNSOverQueueLimit: SNS takes a 255 KiB publish; its
// envelope (with the body's quotes escaped) is larger than 256 KiB, and
// the queue gets it all the same, as AWS's 1 MiB SQS does.
func TestSQSDeliveryFromSNSOverQueueLimit(t *testing.T) {
	srv := servertest.Start(t)
	ctx := context.Background()
	q, n := sqsClient(t, srv, "test"), snsClient(srv)
	url := createQueue(t, q, "big-deliveries", nil)
	a, err := q.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	topic, err := n.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("big")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"),
		Endpoint: aws.String(a.Attributes["QueueArn"])}); err != nil {
		t.Fatal(err)
	}
	msg := strings.Repeat(`say "hi" `, 255*1024/10)
	if _, err := n.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String(msg)}); err != nil {
		t.Fatal(err)
	}
	got, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 || len(*got.Messages[0].Body) <= 256*1024 {
		t.Fatalf("got %d messages", len(got.Messages))
	}
	var env struct{ Message string }
	if err := json.Unmarshal([]byte(*got.Messages[0].Body), &env); err != nil || env.Message != msg {
		t.Fatalf("envelope: %v", err)
	}
	// SendMessage keeps the queue's limit.
	_, err = q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(strings.Repeat("x", 256*1024+1))})
	wantSQSError(t, err, "InvalidParameterValue")
}
