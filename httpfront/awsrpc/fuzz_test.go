package awsrpc_test

import (
	"errors"
	"testing"

	"github.com/cloudemu/emulator/awswire"
)

// FuzzQueryDecode feeds arbitrary forms to a few operations of each query
// model: Decode never panics, and its only errors are shaped 4xx.
func FuzzQueryDecode(f *testing.F) {
	for _, s := range []string{
		"SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=n&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringListValue.1=x",
		"Attribute.1.Name=a&Attribute.1.Value=b&Tag.1.Key=k",
		"MessageAttributes.entry.1.Name=a&MessageAttributes.entry.1.Value.BinaryValue=AA==",
		"Destination.ToAddresses.member.1=a&Message.Body.Html.Data=%3C",
		"AttributeName.1000=x&MaxNumberOfMessages=-1",
		"a.b.c.d.e.f=1&..=2&.=3&=4",
	} {
		for op := range 4 {
			f.Add(uint8(op), s)
		}
	}
	ops := []struct {
		svc awswire.Service
		op  string
	}{
		{awswire.SQS, "SendMessageBatch"}, {awswire.SQS, "CreateQueue"}, {awswire.SQS, "ReceiveMessage"},
		{awswire.SNS, "Publish"}, {awswire.SNS, "CreateTopic"}, {awswire.SES, "SendEmail"}, {awswire.SES, "UpdateReceiptRule"},
		{awswire.SES, "SendBulkTemplatedEmail"},
	}
	f.Fuzz(func(t *testing.T, which uint8, form string) {
		o := ops[int(which)%len(ops)]
		var in map[string]any
		err := queryCall(o.svc, o.op, form).Decode(&in)
		if err == nil {
			return
		}
		var we *awswire.Error
		if !errors.As(err, &we) || we.Status < 400 || we.Status >= 500 {
			t.Fatalf("%s %q: %v", o.op, form, err)
		}
	})
}
