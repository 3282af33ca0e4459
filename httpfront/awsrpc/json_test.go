package awsrpc_test

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

func jsonCall(body string) *awsrpc.Call {
	ctx := new(fasthttp.RequestCtx)
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetBodyString(body)
	ctx.Response.Header.Set("x-amzn-RequestId", "req-1")
	return &awsrpc.Call{Ctx: ctx, Service: awswire.SQS, Op: "SendMessage", Protocol: awsrpc.JSON, Path: "/"}
}

type sendMessageInput struct {
	QueueURL     string `json:"QueueUrl"`
	MessageBody  string `json:"MessageBody"`
	DelaySeconds *int32 `json:"DelaySeconds"`
}

func TestJSONDecode(t *testing.T) {
	var in sendMessageInput
	if err := jsonCall(`{"QueueUrl":"http://q/1/a","MessageBody":"hi <&>","DelaySeconds":5}`).Decode(&in); err != nil {
		t.Fatal(err)
	}
	if in.QueueURL != "http://q/1/a" || in.MessageBody != "hi <&>" || in.DelaySeconds == nil || *in.DelaySeconds != 5 {
		t.Fatalf("%+v", in)
	}
	var empty sendMessageInput
	if err := jsonCall("  ").Decode(&empty); err != nil || empty != (sendMessageInput{}) {
		t.Fatalf("empty body: %v %+v", err, empty)
	}
	for _, tc := range []struct{ name, body string }{
		{"not-json", "Action=SendMessage"},
		{"array", "[1]"},
		{"truncated", `{"QueueUrl":`},
		{"wrong-type", `{"DelaySeconds":"5"}`},
		{"overflow", `{"DelaySeconds":9999999999}`},
		{"string-for-object", `{"QueueUrl":{}}`},
	} {
		t.Run("bad="+tc.name, func(t *testing.T) {
			err := jsonCall(tc.body).Decode(new(sendMessageInput))
			var we *awswire.Error
			if !errors.As(err, &we) || we.Status != 400 || we.Code != awswire.CodeSerialization {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestJSONReply(t *testing.T) {
	c := jsonCall("{}")
	if err := c.Reply(nil); err != nil {
		t.Fatal(err)
	}
	if got := string(c.Ctx.Response.Body()); got != "{}" || c.Ctx.Response.StatusCode() != 200 ||
		string(c.Ctx.Response.Header.ContentType()) != "application/x-amz-json-1.0" {
		t.Fatalf("%d %s %s", c.Ctx.Response.StatusCode(), c.Ctx.Response.Header.ContentType(), got)
	}
	c = jsonCall("{}")
	out := struct {
		MessageID string `json:"MessageId"`
		MD5       string `json:"MD5OfMessageBody,omitempty"`
		Seq       string `json:"SequenceNumber,omitempty"`
	}{MessageID: "<id&>", MD5: "abc"}
	if err := c.Reply(&out); err != nil {
		t.Fatal(err)
	}
	if got, want := string(c.Ctx.Response.Body()), `{"MessageId":"<id&>","MD5OfMessageBody":"abc"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if err := jsonCall("{}").Reply(func() {}); err == nil {
		t.Fatal("a value encoding/json cannot encode did not fail")
	}
}

func TestJSONError(t *testing.T) {
	for _, tc := range []struct {
		name        string
		err         error
		status      int
		queryHeader string
		body        string
	}{
		{"shape", awswire.New(awswire.SQS, "QueueDoesNotExist", "The specified queue does not exist."), 400,
			"AWS.SimpleQueueService.NonExistentQueue;Sender",
			`{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified queue does not exist."}`},
		{"shape-404", awswire.New(awswire.SQS, "ReceiptHandleIsInvalid", "bad"), 404,
			"ReceiptHandleIsInvalid;Sender", `{"__type":"com.amazonaws.sqs#ReceiptHandleIsInvalid","message":"bad"}`},
		{"common", awswire.New(awswire.SQS, awswire.CodeInvalidParameterValueQuery, "Value 11 for parameter MaxNumberOfMessages is invalid."), 400,
			"InvalidParameterValue;Sender",
			`{"__type":"com.amazon.coral.service#InvalidParameterValueException","message":"Value 11 for parameter MaxNumberOfMessages is invalid."}`},
		{"missing", awswire.New(awswire.SQS, awswire.CodeMissingParameter, "The request must contain the parameter MessageGroupId."), 400,
			"MissingParameter;Sender",
			`{"__type":"com.amazon.coral.service#MissingRequiredParameterException","message":"The request must contain the parameter MessageGroupId."}`},
		{"go-error", errors.New("disk on fire"), 500, "InternalFailure;Receiver",
			`{"__type":"com.amazon.coral.service#InternalFailure","message":"An internal error occurred."}`},
		{"unavailable", awswire.Unavailable(awswire.SQS), 503, "ServiceUnavailable;Receiver",
			`{"__type":"com.amazon.coral.service#ServiceUnavailableException","message":"The service is busy. Retry the request."}`},
		{"invalid-utf8", awswire.New(awswire.SQS, "InvalidAddress", "bad \xff"), 404, "InvalidAddress;Sender",
			"{\"__type\":\"com.amazonaws.sqs#InvalidAddress\",\"message\":\"bad \uFFFD\"}"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			c := jsonCall("{}")
			awsrpc.WriteError(c, tc.err, discard)
			r := &c.Ctx.Response
			if r.StatusCode() != tc.status || string(r.Header.Peek("x-amzn-query-error")) != tc.queryHeader ||
				string(r.Header.ContentType()) != "application/x-amz-json-1.0" || string(r.Body()) != tc.body {
				t.Fatalf("got %d %q %s %s", r.StatusCode(), r.Header.Peek("x-amzn-query-error"), r.Header.ContentType(), r.Body())
			}
		})
	}
}
