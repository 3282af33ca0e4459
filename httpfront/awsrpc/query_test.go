package awsrpc_test

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
)

func queryCall(svc awswire.Service, op, form string) *awsrpc.Call {
	ctx := new(fasthttp.RequestCtx)
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.Header.SetContentType("application/x-www-form-urlencoded")
	ctx.Request.SetBodyString(form)
	ctx.Response.Header.Set("x-amzn-RequestId", "req-1")
	return &awsrpc.Call{Ctx: ctx, Service: svc, Op: op, Protocol: awsrpc.Query, Path: "/", Form: ctx.PostArgs()}
}

// Input structures as the services' handlers write them: json tags are
// the model's member names.
type sqsAttr struct {
	DataType         string   `json:"DataType"`
	StringValue      *string  `json:"StringValue,omitempty"`
	BinaryValue      []byte   `json:"BinaryValue,omitempty"`
	StringListValues []string `json:"StringListValues,omitempty"`
}

type sqsBatchEntry struct {
	ID                string             `json:"Id"`
	MessageBody       string             `json:"MessageBody"`
	DelaySeconds      *int32             `json:"DelaySeconds,omitempty"`
	MessageAttributes map[string]sqsAttr `json:"MessageAttributes,omitempty"`
	MessageGroupID    *string            `json:"MessageGroupId,omitempty"`
}

type sqsSendMessageBatchInput struct {
	QueueURL string          `json:"QueueUrl"`
	Entries  []sqsBatchEntry `json:"Entries"`
}

type sqsCreateQueueInput struct {
	QueueName  string            `json:"QueueName"`
	Attributes map[string]string `json:"Attributes"`
	Tags       map[string]string `json:"tags"`
}

type sqsReceiveMessageInput struct {
	QueueURL              string   `json:"QueueUrl"`
	AttributeNames        []string `json:"AttributeNames"`
	MessageAttributeNames []string `json:"MessageAttributeNames"`
	MaxNumberOfMessages   *int32   `json:"MaxNumberOfMessages"`
}

type snsAttr struct {
	DataType    string  `json:"DataType"`
	StringValue *string `json:"StringValue,omitempty"`
	BinaryValue []byte  `json:"BinaryValue,omitempty"`
}

type snsPublishInput struct {
	TopicArn          string             `json:"TopicArn"`
	Message           string             `json:"Message"`
	Subject           *string            `json:"Subject"`
	MessageAttributes map[string]snsAttr `json:"MessageAttributes"`
}

type snsSetTopicAttributesInput struct {
	TopicArn       string  `json:"TopicArn"`
	AttributeName  string  `json:"AttributeName"`
	AttributeValue *string `json:"AttributeValue"`
}

type snsCreateTopicInput struct {
	Name       string            `json:"Name"`
	Attributes map[string]string `json:"Attributes"`
	Tags       []struct {
		Key   string `json:"Key"`
		Value string `json:"Value"`
	} `json:"Tags"`
}

type sesContent struct {
	Data    string  `json:"Data"`
	Charset *string `json:"Charset,omitempty"`
}

type sesSendEmailInput struct {
	Source      string `json:"Source"`
	Destination struct {
		ToAddresses  []string `json:"ToAddresses"`
		CcAddresses  []string `json:"CcAddresses"`
		BccAddresses []string `json:"BccAddresses"`
	} `json:"Destination"`
	Message struct {
		Subject sesContent `json:"Subject"`
		Body    struct {
			Text *sesContent `json:"Text"`
			Html *sesContent `json:"Html"`
		} `json:"Body"`
	} `json:"Message"`
	ReplyToAddresses []string `json:"ReplyToAddresses"`
	Tags             []struct {
		Name  string `json:"Name"`
		Value string `json:"Value"`
	} `json:"Tags"`
}

func ptr[T any](v T) *T { return &v }

func TestQueryDecode(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  awswire.Service
		op   string
		form string
		got  any // a pointer to a zero input
		want any
	}{
		{name: "sqs/send-message-batch", svc: awswire.SQS, op: "SendMessageBatch",
			form: "Action=SendMessageBatch&Version=2012-11-05&QueueUrl=http%3A%2F%2Fq%2F000000000000%2Fa" +
				"&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=hi%20%3C%26%3E" +
				"&SendMessageBatchRequestEntry.1.DelaySeconds=5" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=color" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType=String" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue=blue" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.2.Name=bin" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.2.Value.DataType=Binary" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.2.Value.BinaryValue=AAEC" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.3.Name=list" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.3.Value.DataType=String" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.3.Value.StringListValue.1=x" +
				"&SendMessageBatchRequestEntry.1.MessageAttribute.3.Value.StringListValue.2=y" +
				"&SendMessageBatchRequestEntry.2.Id=b&SendMessageBatchRequestEntry.2.MessageBody=yo" +
				"&SendMessageBatchRequestEntry.2.MessageGroupId=g" +
				// After a gap: not read.
				"&SendMessageBatchRequestEntry.4.Id=d&SendMessageBatchRequestEntry.4.MessageBody=lost" +
				"&X-Amz-Date=20261125T000000Z&AWSAccessKeyId=test&Signature=x&Timestamp=now",
			got: new(sqsSendMessageBatchInput),
			want: &sqsSendMessageBatchInput{QueueURL: "http://q/000000000000/a", Entries: []sqsBatchEntry{
				{ID: "a", MessageBody: "hi <&>", DelaySeconds: ptr(int32(5)), MessageAttributes: map[string]sqsAttr{
					"color": {DataType: "String", StringValue: ptr("blue")},
					"bin":   {DataType: "Binary", BinaryValue: []byte{0, 1, 2}},
					"list":  {DataType: "String", StringListValues: []string{"x", "y"}},
				}},
				{ID: "b", MessageBody: "yo", MessageGroupID: ptr("g")},
			}}},
		{name: "sqs/create-queue", svc: awswire.SQS, op: "CreateQueue",
			form: "QueueName=q&Attribute.1.Name=VisibilityTimeout&Attribute.1.Value=40&Attribute.2.Name=DelaySeconds&Attribute.2.Value=1" +
				"&Tag.1.Key=team&Tag.1.Value=core",
			got: new(sqsCreateQueueInput),
			want: &sqsCreateQueueInput{QueueName: "q", Attributes: map[string]string{"VisibilityTimeout": "40", "DelaySeconds": "1"},
				Tags: map[string]string{"team": "core"}}},
		{name: "sqs/receive-message", svc: awswire.SQS, op: "ReceiveMessage",
			form: "QueueUrl=u&AttributeName.1=All&AttributeName.2=SentTimestamp&MessageAttributeName.1=.*&MaxNumberOfMessages=10",
			got:  new(sqsReceiveMessageInput),
			want: &sqsReceiveMessageInput{QueueURL: "u", AttributeNames: []string{"All", "SentTimestamp"},
				MessageAttributeNames: []string{".*"}, MaxNumberOfMessages: ptr(int32(10))}},
		{name: "sqs/empty-list", svc: awswire.SQS, op: "ReceiveMessage", form: "QueueUrl=u&AttributeName=",
			got: new(sqsReceiveMessageInput), want: &sqsReceiveMessageInput{QueueURL: "u", AttributeNames: []string{}}},
		{name: "sns/publish", svc: awswire.SNS, op: "Publish",
			form: "TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A000000000000%3At&Message=m%C3%A9&Subject=s" +
				"&MessageAttributes.entry.1.Name=a&MessageAttributes.entry.1.Value.DataType=String&MessageAttributes.entry.1.Value.StringValue=v" +
				"&MessageAttributes.entry.2.Name=n&MessageAttributes.entry.2.Value.DataType=Number&MessageAttributes.entry.2.Value.StringValue=1.5" +
				"&MessageAttributes.entry.3.Name=b&MessageAttributes.entry.3.Value.DataType=Binary&MessageAttributes.entry.3.Value.BinaryValue=aGk%3D",
			got: new(snsPublishInput),
			want: &snsPublishInput{TopicArn: "arn:aws:sns:us-east-1:000000000000:t", Message: "mé", Subject: ptr("s"),
				MessageAttributes: map[string]snsAttr{
					"a": {DataType: "String", StringValue: ptr("v")},
					"n": {DataType: "Number", StringValue: ptr("1.5")},
					"b": {DataType: "Binary", BinaryValue: []byte("hi")},
				}}},
		{name: "sns/set-topic-attributes", svc: awswire.SNS, op: "SetTopicAttributes",
			form: "TopicArn=t&AttributeName=DisplayName&AttributeValue=",
			got:  new(snsSetTopicAttributesInput),
			want: &snsSetTopicAttributesInput{TopicArn: "t", AttributeName: "DisplayName", AttributeValue: ptr("")}},
		{name: "sns/create-topic", svc: awswire.SNS, op: "CreateTopic",
			form: "Name=t&Attributes.entry.1.key=FifoTopic&Attributes.entry.1.value=true&Tags.member.1.Key=k&Tags.member.1.Value=v",
			got:  new(snsCreateTopicInput),
			want: &snsCreateTopicInput{Name: "t", Attributes: map[string]string{"FifoTopic": "true"},
				Tags: []struct {
					Key   string `json:"Key"`
					Value string `json:"Value"`
				}{{"k", "v"}}}},
		{name: "ses/send-email", svc: awswire.SES, op: "SendEmail",
			form: "Source=a%40example.com&Destination.ToAddresses.member.1=b%40example.com&Destination.ToAddresses.member.2=c%40example.com" +
				"&Destination.BccAddresses.member.1=d%40example.com" +
				"&Message.Subject.Data=Hi&Message.Subject.Charset=UTF-8&Message.Body.Html.Data=%3Cb%3Ehi%3C%2Fb%3E" +
				"&Message.Body.Text.Data=hi&ReplyToAddresses.member.1=r%40example.com&Tags.member.1.Name=n&Tags.member.1.Value=v",
			got: new(sesSendEmailInput),
			want: func() *sesSendEmailInput {
				in := &sesSendEmailInput{Source: "a@example.com", ReplyToAddresses: []string{"r@example.com"}}
				in.Destination.ToAddresses = []string{"b@example.com", "c@example.com"}
				in.Destination.BccAddresses = []string{"d@example.com"}
				in.Message.Subject = sesContent{Data: "Hi", Charset: ptr("UTF-8")}
				in.Message.Body.Html = &sesContent{Data: "<b>hi</b>"}
				in.Message.Body.Text = &sesContent{Data: "hi"}
				in.Tags = []struct {
					Name  string `json:"Name"`
					Value string `json:"Value"`
				}{{"n", "v"}}
				return in
			}()},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			if err := queryCall(tc.svc, tc.op, tc.form).Decode(tc.got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tc.got, tc.want) {
				g, _ := json.Marshal(tc.got)
				w, _ := json.Marshal(tc.want)
				t.Fatalf("got  %s\nwant %s", g, w)
			}
		})
	}
}

func TestQueryDecodeBad(t *testing.T) {
	for _, tc := range []struct {
		name   string
		svc    awswire.Service
		op     string
		form   string
		code   string
		status int
	}{
		{"sqs/non-numeric-integer", awswire.SQS, "ReceiveMessage", "QueueUrl=u&MaxNumberOfMessages=ten", "InvalidParameterValue", 400},
		{"sqs/integer-overflow", awswire.SQS, "ReceiveMessage", "QueueUrl=u&MaxNumberOfMessages=99999999999", "InvalidParameterValue", 400},
		{"sqs/index-0", awswire.SQS, "ReceiveMessage", "QueueUrl=u&AttributeName.0=All", "InvalidParameterValue", 400},
		{"sqs/index-1001", awswire.SQS, "ReceiveMessage", "QueueUrl=u&AttributeName.1001=All", "InvalidParameterValue", 400},
		{"sqs/index-leading-zero", awswire.SQS, "ReceiveMessage", "QueueUrl=u&AttributeName.01=All", "InvalidParameterValue", 400},
		{"sqs/index-huge", awswire.SQS, "ReceiveMessage", "QueueUrl=u&AttributeName.99999999999999999999=All", "InvalidParameterValue", 400},
		{"sqs/bad-base64", awswire.SQS, "SendMessage",
			"QueueUrl=u&MessageBody=b&MessageAttribute.1.Name=a&MessageAttribute.1.Value.DataType=Binary&MessageAttribute.1.Value.BinaryValue=%%%", "InvalidParameterValue", 400},
		{"sns/map-without-key", awswire.SNS, "CreateTopic", "Name=t&Attributes.entry.1.value=x", "ValidationError", 400},
		{"ses/bad-boolean", awswire.SES, "SetIdentityDkimEnabled", "Identity=i&DkimEnabled=yes", "ValidationError", 400},
		{"ses/nested-bad-boolean", awswire.SES, "UpdateReceiptRule", "RuleSetName=r&Rule.Name=n&Rule.Enabled=maybe", "ValidationError", 400},
		{"ses/bad-timestamp", awswire.SES, "ListCustomVerificationEmailTemplates", "MaxResults=x", "ValidationError", 400},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			var in map[string]any
			err := queryCall(tc.svc, tc.op, tc.form).Decode(&in)
			var we *awswire.Error
			if !errors.As(err, &we) || we.Code != tc.code || we.Status != tc.status {
				t.Fatalf("got %v, want %s %d", err, tc.code, tc.status)
			}
		})
	}
}

// Output structures.
type sqsMessage struct {
	MessageID         string             `json:"MessageId"`
	ReceiptHandle     string             `json:"ReceiptHandle"`
	MD5OfBody         string             `json:"MD5OfBody"`
	Body              string             `json:"Body"`
	Attributes        map[string]string  `json:"Attributes,omitempty"`
	MessageAttributes map[string]sqsAttr `json:"MessageAttributes,omitempty"`
}

func TestQueryReply(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  awswire.Service
		op   string
		out  any
		want string
	}{
		{name: "sqs/receive-message", svc: awswire.SQS, op: "ReceiveMessage",
			out: &struct {
				Messages []sqsMessage `json:"Messages"`
			}{Messages: []sqsMessage{
				// Struct order differs from the model's: the model's wins.
				{Body: "b1 <&>", MessageID: "m1", ReceiptHandle: "r1", MD5OfBody: "d1",
					Attributes:        map[string]string{"SentTimestamp": "1", "ApproximateReceiveCount": "2"},
					MessageAttributes: map[string]sqsAttr{"c": {DataType: "String", StringValue: ptr("v")}}},
				{MessageID: "m2", ReceiptHandle: "r2", MD5OfBody: "d2", Body: "b2"},
			}},
			want: `<ReceiveMessageResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><ReceiveMessageResult>` +
				`<Message><MessageId>m1</MessageId><ReceiptHandle>r1</ReceiptHandle><MD5OfBody>d1</MD5OfBody><Body>b1 &lt;&amp;&gt;</Body>` +
				`<Attribute><Name>ApproximateReceiveCount</Name><Value>2</Value></Attribute><Attribute><Name>SentTimestamp</Name><Value>1</Value></Attribute>` +
				`<MessageAttribute><Name>c</Name><Value><StringValue>v</StringValue><DataType>String</DataType></Value></MessageAttribute></Message>` +
				`<Message><MessageId>m2</MessageId><ReceiptHandle>r2</ReceiptHandle><MD5OfBody>d2</MD5OfBody><Body>b2</Body></Message>` +
				`</ReceiveMessageResult><ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></ReceiveMessageResponse>`},
		{name: "sqs/no-output", svc: awswire.SQS, op: "DeleteQueue", out: nil,
			want: `<DeleteQueueResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></DeleteQueueResponse>`},
		{name: "sqs/list-queues", svc: awswire.SQS, op: "ListQueues",
			out: map[string]any{"QueueUrls": []string{"u1", "u2"}},
			want: `<ListQueuesResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><ListQueuesResult><QueueUrl>u1</QueueUrl><QueueUrl>u2</QueueUrl></ListQueuesResult>` +
				`<ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></ListQueuesResponse>`},
		{name: "sns/list-topics", svc: awswire.SNS, op: "ListTopics",
			out: map[string]any{"NextToken": "n", "Topics": []map[string]string{{"TopicArn": "a1"}, {"TopicArn": "a2"}}},
			want: `<ListTopicsResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><ListTopicsResult><Topics>` +
				`<member><TopicArn>a1</TopicArn></member><member><TopicArn>a2</TopicArn></member></Topics><NextToken>n</NextToken></ListTopicsResult>` +
				`<ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></ListTopicsResponse>`},
		{name: "sns/get-topic-attributes", svc: awswire.SNS, op: "GetTopicAttributes",
			out: map[string]any{"Attributes": map[string]string{"Policy": `{"a":"b"}`, "DisplayName": "d\r\n"}},
			want: `<GetTopicAttributesResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><GetTopicAttributesResult><Attributes>` +
				`<entry><key>DisplayName</key><value>d&#xD;&#xA;</value></entry><entry><key>Policy</key><value>{&#34;a&#34;:&#34;b&#34;}</value></entry>` +
				`</Attributes></GetTopicAttributesResult><ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></GetTopicAttributesResponse>`},
		{name: "ses/get-identity-verification-attributes", svc: awswire.SES, op: "GetIdentityVerificationAttributes",
			out: map[string]any{"VerificationAttributes": map[string]any{
				"example.com": map[string]string{"VerificationToken": "tok", "VerificationStatus": "Success"},
				"a@b.c":       map[string]string{"VerificationStatus": "Pending"}}},
			want: `<GetIdentityVerificationAttributesResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><GetIdentityVerificationAttributesResult>` +
				`<VerificationAttributes><entry><key>a@b.c</key><value><VerificationStatus>Pending</VerificationStatus></value></entry>` +
				`<entry><key>example.com</key><value><VerificationStatus>Success</VerificationStatus><VerificationToken>tok</VerificationToken></value></entry>` +
				`</VerificationAttributes></GetIdentityVerificationAttributesResult><ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></GetIdentityVerificationAttributesResponse>`},
		{name: "ses/timestamps-and-numbers", svc: awswire.SES, op: "GetSendStatistics",
			out: map[string]any{"SendDataPoints": []map[string]any{{"Timestamp": time.Date(2024, 1, 2, 3, 4, 5, 678e6, time.UTC),
				"DeliveryAttempts": 3, "Bounces": 0}}},
			want: `<GetSendStatisticsResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><GetSendStatisticsResult><SendDataPoints><member>` +
				`<Timestamp>2024-01-02T03:04:05.678Z</Timestamp><DeliveryAttempts>3</DeliveryAttempts><Bounces>0</Bounces></member></SendDataPoints>` +
				`</GetSendStatisticsResult><ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></GetSendStatisticsResponse>`},
		{name: "ses/booleans-and-doubles", svc: awswire.SES, op: "GetSendQuota",
			out:  map[string]any{"Max24HourSend": 200.5, "MaxSendRate": 1, "SentLast24Hours": 0},
			want: `<GetSendQuotaResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><GetSendQuotaResult><Max24HourSend>200.5</Max24HourSend><MaxSendRate>1</MaxSendRate><SentLast24Hours>0</SentLast24Hours></GetSendQuotaResult><ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></GetSendQuotaResponse>`},
		{name: "ses/empty-output", svc: awswire.SES, op: "VerifyEmailIdentity", out: nil,
			want: `<VerifyEmailIdentityResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><VerifyEmailIdentityResult></VerifyEmailIdentityResult><ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></VerifyEmailIdentityResponse>`},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			c := queryCall(tc.svc, tc.op, "")
			if err := c.Reply(tc.out); err != nil {
				t.Fatal(err)
			}
			r := &c.Ctx.Response
			if got := string(r.Body()); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			if r.StatusCode() != 200 || string(r.Header.ContentType()) != "text/xml" {
				t.Fatalf("%d %s", r.StatusCode(), r.Header.ContentType())
			}
			var v any
			if err := xml.Unmarshal(r.Body(), &v); err != nil {
				t.Fatalf("not XML: %v", err)
			}
		})
	}
}

func TestQueryError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    *awswire.Error
		status int
		want   string
	}{
		{"sqs/shape", awswire.New(awswire.SQS, "QueueDoesNotExist", "The specified queue does not exist for this wsdl version."), 400,
			`<ErrorResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><Error><Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code>` +
				`<Message>The specified queue does not exist for this wsdl version.</Message><Detail/></Error><RequestId>req-1</RequestId></ErrorResponse>`},
		{"sns/shape", awswire.New(awswire.SNS, "NotFoundException", "Topic does not exist"), 404,
			`<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type><Code>NotFound</Code>` +
				`<Message>Topic does not exist</Message></Error><RequestId>req-1</RequestId></ErrorResponse>`},
		{"sns/fault", awswire.Internal(awswire.SNS), 500,
			`<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Receiver</Type><Code>InternalError</Code>` +
				`<Message>An internal error occurred.</Message></Error><RequestId>req-1</RequestId></ErrorResponse>`},
		{"ses/common", awswire.New(awswire.SES, awswire.CodeMissingParameter, "A <b> & \x00"), 400,
			`<ErrorResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><Error><Type>Sender</Type><Code>MissingParameter</Code>` +
				"<Message>A &lt;b&gt; &amp; \uFFFD</Message></Error><RequestId>req-1</RequestId></ErrorResponse>"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			c := queryCall(tc.err.Service, "Op", "")
			awsrpc.WriteError(c, tc.err, discard)
			r := &c.Ctx.Response
			if got := string(r.Body()); got != tc.want || r.StatusCode() != tc.status || string(r.Header.ContentType()) != "text/xml" {
				t.Fatalf("got %d %s %s\nwant %s", r.StatusCode(), r.Header.ContentType(), got, tc.want)
			}
			if strings.Contains(string(r.Header.Peek("x-amzn-query-error")), ";") {
				t.Error("the query protocol carries no x-amzn-query-error")
			}
		})
	}
}

// A form whose names no model member path could have is refused before it
// is read: a name longer than any path or with more dots than any path
// has, or more parameters than any request sends. Without the bounds, one
// long dotted name costs time quadratic in its length.
func TestQueryDecodeFormBounds(t *testing.T) {
	var many strings.Builder
	many.WriteString("QueueNamePrefix=q")
	for i := range 10_001 {
		many.WriteString("&p")
		many.WriteString(strings.Repeat("x", i%7))
		many.WriteString("=1")
	}
	for _, tc := range []struct {
		name string
		svc  awswire.Service
		form string
		code string
	}{
		{"sqs/long-dotted-name", awswire.SQS, "QueueNamePrefix=q&" + strings.Repeat("a.", 100_000) + "a=1", "InvalidParameterValue"},
		{"sqs/long-name", awswire.SQS, "QueueNamePrefix=q&" + strings.Repeat("a", 513) + "=1", "InvalidParameterValue"},
		{"sqs/many-dots", awswire.SQS, "QueueNamePrefix=q&" + strings.Repeat("a.", 17) + "a=1", "InvalidParameterValue"},
		{"sns/long-dotted-name", awswire.SNS, "NextToken=t&" + strings.Repeat("a.", 100_000) + "a=1", "ValidationError"},
		{"sqs/many-parameters", awswire.SQS, many.String(), "InvalidParameterValue"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			op := "ListQueues"
			if tc.svc == awswire.SNS {
				op = "ListTopics"
			}
			var in map[string]any
			err := queryCall(tc.svc, op, tc.form).Decode(&in)
			var we *awswire.Error
			if !errors.As(err, &we) || we.Code != tc.code || we.Status != 400 {
				t.Fatalf("got %v, want %s 400", err, tc.code)
			}
			if len(we.Message) > 1024 {
				t.Errorf("message of %d bytes repeats the name", len(we.Message))
			}
		})
	}
	// The deepest paths the models have still decode.
	var in sqsSendMessageBatchInput
	form := "QueueUrl=u&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=b" +
		"&SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=n" +
		"&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType=String" +
		"&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringListValue.1000=v"
	if err := queryCall(awswire.SQS, "SendMessageBatch", form).Decode(&in); err != nil {
		t.Fatal(err)
	}
	if len(in.Entries) != 1 || in.Entries[0].MessageAttributes["n"].DataType != "String" {
		t.Fatalf("got %+v", in)
	}
}
