package httpfront_test

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/server/servertest"
)

// rpcSeen records what the fake handlers saw.
type rpcSeen struct {
	mu    sync.Mutex
	calls []awsrpc.Call
}

func (s *rpcSeen) note(c *awsrpc.Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp := *c
	cp.Ctx, cp.Form = nil, nil
	cp.Path = strings.Clone(c.Path)
	s.calls = append(s.calls, cp)
}

func (s *rpcSeen) last(t *testing.T) awsrpc.Call {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) == 0 {
		t.Fatal("no handler was called")
	}
	return s.calls[len(s.calls)-1]
}

type fakeSendMessageInput struct {
	QueueURL          string `json:"QueueUrl"`
	MessageBody       string `json:"MessageBody"`
	DelaySeconds      *int32 `json:"DelaySeconds"`
	MessageAttributes map[string]struct {
		DataType    string `json:"DataType"`
		StringValue string `json:"StringValue"`
		BinaryValue []byte `json:"BinaryValue"`
	} `json:"MessageAttributes"`
}

type fakeSendMessageOutput struct {
	MessageID        string `json:"MessageId"`
	MD5OfMessageBody string `json:"MD5OfMessageBody"`
	SequenceNumber   string `json:"SequenceNumber,omitempty"`
}

// fakeRPC starts a front whose SQS has a few fake handlers and a queue
// peek.
func fakeRPC(t *testing.T) (string, *rpcSeen) {
	seen := &rpcSeen{}
	sqsHandlers := map[string]awsrpc.Handler{
		"SendMessage": func(c *awsrpc.Call) error {
			seen.note(c)
			var in fakeSendMessageInput
			if err := c.Decode(&in); err != nil {
				return err
			}
			if in.QueueURL == "" {
				return awswire.New(awswire.SQS, awswire.CodeMissingParameter, "The request must contain the parameter QueueUrl.")
			}
			attr := in.MessageAttributes["a"]
			return c.Reply(&fakeSendMessageOutput{MessageID: in.MessageBody + "|" + attr.StringValue + "|" + string(attr.BinaryValue),
				MD5OfMessageBody: fmt.Sprintf("%x", md5.Sum([]byte(in.MessageBody))), SequenceNumber: in.QueueURL})
		},
		"GetQueueUrl": func(c *awsrpc.Call) error {
			seen.note(c)
			return awswire.New(awswire.SQS, "QueueDoesNotExist", "The specified queue does not exist.")
		},
		"DeleteQueue": func(c *awsrpc.Call) error {
			seen.note(c)
			return c.Reply(nil)
		},
		"PurgeQueue": func(c *awsrpc.Call) error {
			panic("boom")
		},
		"TagQueue": func(c *awsrpc.Call) error {
			return errors.New("disk on fire")
		},
	}
	url := startFront(t, httpfront.ServerOptions{
		RPC: map[awswire.Service]map[string]awsrpc.Handler{awswire.SQS: sqsHandlers},
		QueuePeek: func(c *restjson.Call) error {
			account, _ := c.Label("account")
			queue, _ := c.Label("queue")
			return c.JSON(200, map[string]string{"account": account, "queue": queue, "region": c.Scope.Region})
		},
	})
	return url, seen
}

func sqsClient(base string) *sqs.Client {
	return sqs.NewFromConfig(servertest.AWSConfig("eu-west-1", "test"), func(o *sqs.Options) {
		o.BaseEndpoint = aws.String(base)
	})
}

// TestRPCJSON drives fake SQS handlers with the Go SDK's SQS client, which
// speaks JSON 1.0.
func TestRPCJSON(t *testing.T) {
	base, seen := fakeRPC(t)
	cl := sqsClient(base)
	ctx := context.Background()

	out, err := cl.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String("http://x/000000000000/q"),
		MessageBody: aws.String("héllo <&>"), DelaySeconds: 3,
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{
			"a": {DataType: aws.String("String"), StringValue: aws.String("v"), BinaryValue: []byte("bin")}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := aws.ToString(out.MessageId), "héllo <&>|v|bin"; got != want {
		t.Errorf("MessageId = %q, want %q", got, want)
	}
	if got := aws.ToString(out.SequenceNumber); got != "http://x/000000000000/q" {
		t.Errorf("SequenceNumber = %q", got)
	}
	c := seen.last(t)
	if c.Service != awswire.SQS || c.Op != "SendMessage" || c.Protocol != awsrpc.JSON || c.Path != "/" ||
		c.Scope.Region != "eu-west-1" || c.Scope.Account != awswire.DefaultAccount {
		t.Errorf("call %+v", c)
	}

	if _, err := cl.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String("q")}); err != nil {
		t.Fatalf("DeleteQueue: %v", err)
	}

	// A model shape: typed by the SDK, coded by x-amzn-query-error.
	_, err = cl.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("nope")})
	var qdne *sqstypes.QueueDoesNotExist
	if !errors.As(err, &qdne) {
		t.Fatalf("GetQueueUrl: want QueueDoesNotExist, got %v", err)
	}
	servertest.WantAPIError(t, err, "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist.")

	// A common code.
	_, err = cl.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(""), MessageBody: aws.String("x")})
	servertest.WantAPIError(t, err, "MissingParameter", "The request must contain the parameter QueueUrl.")

	// An operation of the model without a handler.
	_, err = cl.ListQueues(ctx, &sqs.ListQueuesInput{})
	servertest.WantAPIError(t, err, "NotImplemented", "The operation ListQueues of service sqs is not implemented by this emulator.")
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorFault() != smithy.FaultClient && ae.ErrorFault() != smithy.FaultServer {
		t.Errorf("fault %v", ae.ErrorFault())
	}

	// A panic and a Go error are the service's internal error.
	_, err = cl.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String("q")})
	servertest.WantAPIError(t, err, "InternalFailure", "An internal error occurred.")
	_, err = cl.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String("q"), Tags: map[string]string{"a": "b"}})
	servertest.WantAPIError(t, err, "InternalFailure", "An internal error occurred.")
}

type rawReply struct {
	status int
	header http.Header
	body   string
}

func rawDo(t *testing.T, method, url, body string, hdr ...string) rawReply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawReply{resp.StatusCode, resp.Header, string(b)}
}

const formType = "application/x-www-form-urlencoded; charset=utf-8"

// TestRPCRecognition checks what reaches the query and JSON services, and
// the shaped answers to what cannot be served.
func TestRPCRecognition(t *testing.T) {
	base, _ := fakeRPC(t)
	sqsAuth := "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0f"
	for _, tc := range []struct {
		name, method, path, body string
		hdr                      []string
		status                   int
		contains                 []string
	}{
		{name: "json/unknown-operation", method: "POST", path: "/", body: "{}",
			hdr: []string{"X-Amz-Target", "AmazonSQS.Nope", "Content-Type", "application/x-amz-json-1.0"}, status: 400,
			contains: []string{`"__type":"com.amazon.coral.service#UnknownOperationException"`, "The action Nope is not valid"}},
		{name: "json/hostile-operation", method: "POST", path: "/", body: "{}",
			hdr: []string{"X-Amz-Target", "AmazonSQS.<x>", "Content-Type", "application/x-amz-json-1.0"}, status: 400,
			contains: []string{`"The action is not valid for this web service."`}},
		{name: "json/not-json", method: "POST", path: "/", body: "Action=SendMessage",
			hdr: []string{"X-Amz-Target", "AmazonSQS.SendMessage", "Content-Type", "application/x-amz-json-1.0"}, status: 400,
			contains: []string{`SerializationException`}},
		{name: "json/wrong-type", method: "POST", path: "/", body: `{"QueueUrl":"q","DelaySeconds":"x"}`,
			hdr: []string{"X-Amz-Target", "AmazonSQS.SendMessage", "Content-Type", "application/x-amz-json-1.0"}, status: 400,
			contains: []string{`SerializationException`, "DelaySeconds"}},
		{name: "query/no-action", method: "POST", path: "/", body: "Version=2012-11-05",
			hdr: []string{"Content-Type", formType}, status: 400,
			contains: []string{"<Code>MissingParameter</Code>", "parameter Action", "<Type>Sender</Type>", `xmlns="http://queue.amazonaws.com/doc/2012-11-05/"`}},
		{name: "query/no-version-signed", method: "POST", path: "/", body: "Action=SendMessage",
			hdr: []string{"Content-Type", formType, "Authorization", sqsAuth}, status: 400,
			contains: []string{"<Code>MissingParameter</Code>", "parameter Version"}},
		{name: "query/other-version-signed", method: "POST", path: "/", body: "Action=SendMessage&Version=2010-03-31",
			hdr: []string{"Content-Type", formType, "Authorization", sqsAuth}, status: 400,
			contains: []string{"<Code>InvalidParameterValue</Code>", "Version 2010-03-31 is not a version of this service; it is 2012-11-05."}},
		{name: "query/unknown-action", method: "POST", path: "/", body: "Action=Nope&Version=2012-11-05",
			hdr: []string{"Content-Type", formType}, status: 400,
			contains: []string{"<Code>InvalidAction</Code>", "The action Nope is not valid"}},
		{name: "query/not-implemented", method: "POST", path: "/", body: "Action=ListQueues&Version=2012-11-05",
			hdr: []string{"Content-Type", formType}, status: 501,
			contains: []string{"<Code>NotImplemented</Code>", "ListQueues"}},
		{name: "query/get-not-implemented", method: "GET", path: "/?Action=ListQueues&Version=2012-11-05", status: 501,
			contains: []string{"<Code>NotImplemented</Code>"}},
		{name: "query/malformed-escape", method: "POST", path: "/", body: "Action=ListQueues&Version=2012-11-05&QueueNamePrefix=%zz",
			hdr: []string{"Content-Type", formType}, status: 404,
			contains: []string{"<Code>MalformedQueryString</Code>"}},
		{name: "query/queue-path-malformed", method: "POST", path: "/000000000000/q", body: "Action=SendMessage&Version=2012-11-05&MessageBody=%4",
			hdr: []string{"Content-Type", formType}, status: 404,
			contains: []string{"<Code>MalformedQueryString</Code>"}},
		{name: "peek", method: "GET", path: "/123456789012/my-queue", status: 200,
			contains: []string{`"account":"123456789012"`, `"queue":"my-queue"`, `"region":"us-east-1"`}},
		{name: "peek-trailing-slash", method: "GET", path: "/123456789012/my-queue/", status: 200,
			contains: []string{`"queue":"my-queue"`}},
		// Not a queue path: routed as before.
		{name: "not-a-queue-path", method: "GET", path: "/12345678901/my-queue", status: 404,
			contains: []string{"UnknownOperationException"}},
		// Another service's Version is not SQS's.
		{name: "query/other-version", method: "POST", path: "/", body: "Action=ListTopics&Version=2010-03-31",
			hdr: []string{"Content-Type", formType}, status: 404, contains: []string{"UnknownOperationException"}},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			r := rawDo(t, tc.method, base+tc.path, tc.body, tc.hdr...)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			for _, c := range tc.contains {
				if !strings.Contains(r.body, c) {
					t.Errorf("body lacks %q: %s", c, r.body)
				}
			}
			if r.header.Get("x-amzn-RequestId") == "" {
				t.Error("no request id")
			}
		})
	}
}

// TestRPCNotServedWithoutHandlers checks that a front without SQS handlers
// does not recognise SQS's requests.
func TestRPCNotServedWithoutHandlers(t *testing.T) {
	base := startFront(t, httpfront.ServerOptions{})
	r := rawDo(t, "POST", base+"/", "{}", "X-Amz-Target", "AmazonSQS.ListQueues", "Content-Type", "application/x-amz-json-1.0",
		"Authorization", "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0f")
	if r.status != 501 || !strings.Contains(r.body, "is not emulated") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r = rawDo(t, "GET", base+"/123456789012/q", "")
	if r.status != 404 {
		t.Fatalf("peek without a handler: %d %s", r.status, r.body)
	}
}

// TestRPCBodyTooLarge checks that a body over the limit is answered in the
// protocol of the service it was meant for.
func TestRPCBodyTooLarge(t *testing.T) {
	ok := func(c *awsrpc.Call) error { return c.Reply(nil) }
	base := startFront(t, httpfront.ServerOptions{MaxBodyBytes: 1024, RPC: map[awswire.Service]map[string]awsrpc.Handler{
		awswire.SQS: {"DeleteQueue": ok}, awswire.SNS: {"DeleteTopic": ok}}})
	big := strings.Repeat("a", 4096)
	r := rawDo(t, "POST", base+"/", `{"QueueUrl":"`+big+`"}`, "X-Amz-Target", "AmazonSQS.DeleteQueue",
		"Content-Type", "application/x-amz-json-1.0")
	if r.status != 413 || r.header.Get("x-amzn-query-error") != "RequestEntityTooLargeException;Sender" ||
		!strings.Contains(r.body, `"__type":"com.amazon.coral.service#RequestEntityTooLargeException"`) {
		t.Fatalf("json: %d %v %s", r.status, r.header, r.body)
	}
	r = rawDo(t, "POST", base+"/", "Action=DeleteTopic&Version=2010-03-31&TopicArn="+big, "Content-Type", formType,
		"Authorization", "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=0f")
	if r.status != 413 || !strings.Contains(r.body, "<Code>RequestEntityTooLargeException</Code>") ||
		!strings.Contains(r.body, `xmlns="http://sns.amazonaws.com/doc/2010-03-31/"`) {
		t.Fatalf("query: %d %s", r.status, r.body)
	}
}
