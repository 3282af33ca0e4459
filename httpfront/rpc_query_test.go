package httpfront_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ses"
	sestypes "github.com/aws/aws-sdk-go-v2/service/ses/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
	"github.com/cloudemu/emulator/server/servertest"
)

// Inputs and outputs as the services' handlers would declare them.
type qSNSAttr struct {
	DataType    string  `json:"DataType"`
	StringValue *string `json:"StringValue,omitempty"`
	BinaryValue []byte  `json:"BinaryValue,omitempty"`
}

type qPublishInput struct {
	TopicArn          string              `json:"TopicArn"`
	Message           string              `json:"Message"`
	Subject           *string             `json:"Subject"`
	MessageAttributes map[string]qSNSAttr `json:"MessageAttributes"`
}

type qSetTopicAttributesInput struct {
	TopicArn       string  `json:"TopicArn"`
	AttributeName  string  `json:"AttributeName"`
	AttributeValue *string `json:"AttributeValue"`
}

type qSESContent struct {
	Data    string  `json:"Data"`
	Charset *string `json:"Charset,omitempty"`
}

type qSendEmailInput struct {
	Source      string `json:"Source"`
	Destination struct {
		ToAddresses  []string `json:"ToAddresses"`
		CcAddresses  []string `json:"CcAddresses"`
		BccAddresses []string `json:"BccAddresses"`
	} `json:"Destination"`
	Message struct {
		Subject qSESContent `json:"Subject"`
		Body    struct {
			Text *qSESContent `json:"Text"`
			Html *qSESContent `json:"Html"`
		} `json:"Body"`
	} `json:"Message"`
}

type qVerification struct {
	VerificationStatus string  `json:"VerificationStatus"`
	VerificationToken  *string `json:"VerificationToken,omitempty"`
}

// queryFake is a front whose SNS, SES and SQS have fake handlers that
// record what they decoded.
type queryFake struct {
	url  string
	mu   sync.Mutex
	seen []any
	path string
	// paths are every SendMessage's Path as the handler got it: a handler
	// may keep it (as a QueueUrl) past the request.
	paths []string
}

func (f *queryFake) note(v any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, v)
}

func (f *queryFake) last(t *testing.T) any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) == 0 {
		t.Fatal("nothing decoded")
	}
	return f.seen[len(f.seen)-1]
}

func startQueryFake(t *testing.T) *queryFake {
	f := &queryFake{}
	snsHandlers := map[string]awsrpc.Handler{
		"Publish": func(c *awsrpc.Call) error {
			var in qPublishInput
			if err := c.Decode(&in); err != nil {
				return err
			}
			f.note(&in)
			return c.Reply(&struct {
				MessageID string `json:"MessageId"`
			}{"id-" + in.Message})
		},
		"SetTopicAttributes": func(c *awsrpc.Call) error {
			var in qSetTopicAttributesInput
			if err := c.Decode(&in); err != nil {
				return err
			}
			f.note(&in)
			return c.Reply(nil)
		},
		"ListTopics": func(c *awsrpc.Call) error {
			type topic struct {
				TopicArn string `json:"TopicArn"`
			}
			return c.Reply(&struct {
				NextToken *string `json:"NextToken,omitempty"`
				Topics    []topic `json:"Topics"`
			}{aws.String("next <&>"), []topic{{"arn:aws:sns:us-east-1:000000000000:a"}, {"arn:aws:sns:us-east-1:000000000000:b"}}})
		},
		"GetTopicAttributes": func(c *awsrpc.Call) error {
			return c.Reply(&struct {
				Attributes map[string]string `json:"Attributes"`
			}{map[string]string{"DisplayName": "d \"q\" <x>", "Policy": `{"Version":"2012-10-17"}`}})
		},
		"DeleteTopic": func(c *awsrpc.Call) error {
			return awswire.New(awswire.SNS, "NotFoundException", "Topic does not exist")
		},
	}
	sesHandlers := map[string]awsrpc.Handler{
		"SendEmail": func(c *awsrpc.Call) error {
			var in qSendEmailInput
			if err := c.Decode(&in); err != nil {
				return err
			}
			f.note(&in)
			return c.Reply(&struct {
				MessageID string `json:"MessageId"`
			}{"mail-1"})
		},
		"GetIdentityVerificationAttributes": func(c *awsrpc.Call) error {
			return c.Reply(&struct {
				VerificationAttributes map[string]qVerification `json:"VerificationAttributes"`
			}{map[string]qVerification{
				"example.com": {VerificationStatus: "Success", VerificationToken: aws.String("tok")},
				"a@b.c":       {VerificationStatus: "Pending"},
			}})
		},
		"GetSendStatistics": func(c *awsrpc.Call) error {
			type point struct {
				Timestamp        time.Time `json:"Timestamp"`
				DeliveryAttempts int64     `json:"DeliveryAttempts"`
			}
			return c.Reply(&struct {
				SendDataPoints []point `json:"SendDataPoints"`
			}{[]point{{time.Date(2024, 1, 2, 3, 4, 5, 678e6, time.UTC), 7}}})
		},
		"VerifyEmailIdentity": func(c *awsrpc.Call) error {
			return awswire.New(awswire.SES, "MessageRejected", "Email address is not verified.")
		},
	}
	sqsHandlers := map[string]awsrpc.Handler{
		"SendMessage": func(c *awsrpc.Call) error {
			var in struct {
				QueueURL    string `json:"QueueUrl"`
				MessageBody string `json:"MessageBody"`
			}
			if err := c.Decode(&in); err != nil {
				return err
			}
			f.mu.Lock()
			f.path = strings.Clone(c.Path)
			f.paths = append(f.paths, c.Path)
			f.mu.Unlock()
			return c.Reply(&struct {
				MessageID string `json:"MessageId"`
			}{in.MessageBody + "@" + in.QueueURL})
		},
	}
	f.url = startFront(t, httpfront.ServerOptions{RPC: map[awswire.Service]map[string]awsrpc.Handler{
		awswire.SNS: snsHandlers, awswire.SES: sesHandlers, awswire.SQS: sqsHandlers}})
	return f
}

// TestRPCQuerySDK round-trips the Go SDK's SNS and SES clients, which
// speak the query protocol, through fake handlers.
func TestRPCQuerySDK(t *testing.T) {
	f := startQueryFake(t)
	ctx := context.Background()
	cfg := servertest.AWSConfig("us-east-1", "test")
	snsc := sns.NewFromConfig(cfg, func(o *sns.Options) { o.BaseEndpoint = aws.String(f.url) })
	sesc := ses.NewFromConfig(cfg, func(o *ses.Options) { o.BaseEndpoint = aws.String(f.url) })

	pub, err := snsc.Publish(ctx, &sns.PublishInput{TopicArn: aws.String("arn:aws:sns:us-east-1:000000000000:t"),
		Message: aws.String("hé <&>\n"), Subject: aws.String("s"),
		MessageAttributes: map[string]snstypes.MessageAttributeValue{
			"a": {DataType: aws.String("String"), StringValue: aws.String("v")},
			"b": {DataType: aws.String("Binary"), BinaryValue: []byte{0, 255}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(pub.MessageId); got != "id-hé <&>\n" {
		t.Errorf("MessageId = %q", got)
	}
	in := f.last(t).(*qPublishInput)
	if in.TopicArn != "arn:aws:sns:us-east-1:000000000000:t" || in.Message != "hé <&>\n" || aws.ToString(in.Subject) != "s" ||
		in.MessageAttributes["a"].DataType != "String" || aws.ToString(in.MessageAttributes["a"].StringValue) != "v" ||
		string(in.MessageAttributes["b"].BinaryValue) != "\x00\xff" {
		t.Errorf("decoded %+v", in)
	}

	if _, err := snsc.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: aws.String("t"),
		AttributeName: aws.String("DisplayName"), AttributeValue: aws.String("")}); err != nil {
		t.Fatal(err)
	}
	if in := f.last(t).(*qSetTopicAttributesInput); in.AttributeName != "DisplayName" || in.AttributeValue == nil || *in.AttributeValue != "" {
		t.Errorf("decoded %+v", in)
	}

	lt, err := snsc.ListTopics(ctx, &sns.ListTopicsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Topics) != 2 || aws.ToString(lt.Topics[1].TopicArn) != "arn:aws:sns:us-east-1:000000000000:b" || aws.ToString(lt.NextToken) != "next <&>" {
		t.Errorf("ListTopics %+v", lt)
	}
	ga, err := snsc.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String("t")})
	if err != nil {
		t.Fatal(err)
	}
	if ga.Attributes["DisplayName"] != "d \"q\" <x>" || ga.Attributes["Policy"] != `{"Version":"2012-10-17"}` {
		t.Errorf("GetTopicAttributes %q", ga.Attributes)
	}
	_, err = snsc.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String("t")})
	var nf *snstypes.NotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("DeleteTopic: want NotFoundException, got %v", err)
	}
	servertest.WantAPIError(t, err, "NotFound", "Topic does not exist")
	// An operation without a handler.
	_, err = snsc.ListSubscriptions(ctx, &sns.ListSubscriptionsInput{})
	servertest.WantAPIError(t, err, "NotImplemented", "")

	_, err = sesc.SendEmail(ctx, &ses.SendEmailInput{Source: aws.String("a@example.com"),
		Destination: &sestypes.Destination{ToAddresses: []string{"b@example.com", "c@example.com"}, BccAddresses: []string{"d@example.com"}},
		Message: &sestypes.Message{Subject: &sestypes.Content{Data: aws.String("Hi"), Charset: aws.String("UTF-8")},
			Body: &sestypes.Body{Html: &sestypes.Content{Data: aws.String("<b>hi</b>")}}}})
	if err != nil {
		t.Fatal(err)
	}
	se := f.last(t).(*qSendEmailInput)
	if se.Source != "a@example.com" || strings.Join(se.Destination.ToAddresses, ",") != "b@example.com,c@example.com" ||
		strings.Join(se.Destination.BccAddresses, ",") != "d@example.com" || se.Destination.CcAddresses != nil ||
		se.Message.Subject.Data != "Hi" || aws.ToString(se.Message.Subject.Charset) != "UTF-8" ||
		se.Message.Body.Html == nil || se.Message.Body.Html.Data != "<b>hi</b>" || se.Message.Body.Text != nil {
		t.Errorf("decoded %+v", se)
	}
	va, err := sesc.GetIdentityVerificationAttributes(ctx, &ses.GetIdentityVerificationAttributesInput{Identities: []string{"example.com", "a@b.c"}})
	if err != nil {
		t.Fatal(err)
	}
	if v := va.VerificationAttributes["example.com"]; v.VerificationStatus != sestypes.VerificationStatusSuccess || aws.ToString(v.VerificationToken) != "tok" {
		t.Errorf("example.com %+v", v)
	}
	if v := va.VerificationAttributes["a@b.c"]; v.VerificationStatus != sestypes.VerificationStatusPending || v.VerificationToken != nil {
		t.Errorf("a@b.c %+v", v)
	}
	st, err := sesc.GetSendStatistics(ctx, &ses.GetSendStatisticsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.SendDataPoints) != 1 || !aws.ToTime(st.SendDataPoints[0].Timestamp).Equal(time.Date(2024, 1, 2, 3, 4, 5, 678e6, time.UTC)) ||
		st.SendDataPoints[0].DeliveryAttempts != 7 {
		t.Errorf("GetSendStatistics %+v", st.SendDataPoints)
	}
	_, err = sesc.VerifyEmailIdentity(ctx, &ses.VerifyEmailIdentityInput{EmailAddress: aws.String("x@y.z")})
	var mr *sestypes.MessageRejected
	if !errors.As(err, &mr) {
		t.Fatalf("want MessageRejected, got %v", err)
	}
}

// TestRPCQuerySQS posts SQS's query protocol to a queue URL's path, as the
// older SDKs do: the handler sees the path.
func TestRPCQuerySQS(t *testing.T) {
	f := startQueryFake(t)
	r := rawDo(t, "POST", f.url+"/000000000000/my-queue", "Action=SendMessage&Version=2012-11-05&MessageBody=hi%21",
		"Content-Type", formType)
	if r.status != 200 || r.header.Get("Content-Type") != "text/xml" ||
		r.body != `<SendMessageResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><SendMessageResult><MessageId>hi!@</MessageId>`+
			`</SendMessageResult><ResponseMetadata><RequestId>`+r.header.Get("x-amzn-RequestId")+`</RequestId></ResponseMetadata></SendMessageResponse>` {
		t.Fatalf("%d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	f.mu.Lock()
	path := f.path
	f.mu.Unlock()
	if path != "/000000000000/my-queue" {
		t.Errorf("Path = %q", path)
	}
	// A GET with the parameters in the query string.
	r = rawDo(t, "GET", f.url+"/?Action=SendMessage&Version=2012-11-05&QueueUrl=u&MessageBody=x", "")
	if r.status != 200 || !strings.Contains(r.body, "<MessageId>x@u</MessageId>") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	// Bad forms are shaped 4xx.
	for _, tc := range []struct{ name, body, code string }{
		{"index-0", "Action=SendMessage&Version=2012-11-05&MessageBody=x&MessageAttribute.0.Name=a", "InvalidParameterValue"},
		{"index-1001", "Action=SendMessage&Version=2012-11-05&MessageBody=x&MessageAttribute.1001.Name=a", "InvalidParameterValue"},
		{"non-numeric", "Action=SendMessage&Version=2012-11-05&MessageBody=x&DelaySeconds=soon", "InvalidParameterValue"},
		{"malformed-escape", "Action=SendMessage&Version=2012-11-05&MessageBody=%G1", "MalformedQueryString"},
		{"unknown-action", "Action=SendMessages&Version=2012-11-05", "InvalidAction"},
		{"long-dotted-name", "Action=SendMessage&Version=2012-11-05&MessageBody=x&" + strings.Repeat("a.", 200_000) + "a=1", "InvalidParameterValue"},
	} {
		t.Run("bad="+tc.name, func(t *testing.T) {
			r := rawDo(t, "POST", f.url+"/", tc.body, "Content-Type", formType)
			if r.status < 400 || r.status >= 500 || !strings.Contains(r.body, "<Code>"+tc.code+"</Code>") {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
	// The Path a handler kept is not overwritten by later requests on the
	// same connection.
	for _, q := range []string{"first-queue", "second-q-xx", "third-queue"} {
		if r := rawDo(t, "POST", f.url+"/000000000000/"+q, "Action=SendMessage&Version=2012-11-05&MessageBody=x",
			"Content-Type", formType); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	}
	f.mu.Lock()
	kept := slices.Clone(f.paths[len(f.paths)-3:])
	f.mu.Unlock()
	if want := []string{"/000000000000/first-queue", "/000000000000/second-q-xx", "/000000000000/third-queue"}; !slices.Equal(kept, want) {
		t.Errorf("kept paths %q, want %q", kept, want)
	}
	// A body that is not a form, signed for SQS without a target.
	r = rawDo(t, "POST", f.url+"/", "\x00\x01garbage", "Content-Type", formType,
		"Authorization", "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0f")
	if r.status != 400 || !strings.Contains(r.body, "<Code>MissingParameter</Code>") {
		t.Fatalf("garbage: %d %s", r.status, r.body)
	}
}
