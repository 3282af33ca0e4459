package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/server/servertest"
)

// inboxCall requests path and decodes a 200's JSON answer into v,
// returning the status.
func inboxCall(t *testing.T, srv *servertest.Server, method, path string, v any) int {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if v != nil && resp.StatusCode == 200 {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}

func fillInbox(b *inbox.Inbox) {
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	b.Add(inbox.Entry{ID: "m1", Kind: inbox.Email, Timestamp: at, Account: "000000000000", Region: "us-east-1",
		Service: "ses", Source: "from@example.com", Destinations: &inbox.Destinations{To: []string{"to@example.com"}},
		Subject: "Hi", Text: "text body", HTML: "<b>html</b>", Raw: "raw mime"})
	b.Add(inbox.Entry{ID: "s1", Kind: inbox.SMS, Timestamp: at, Account: "000000000000", Region: "us-east-1",
		Service: "sns", PhoneNumber: "+15555550100", Message: "code 1234",
		MessageAttributes: map[string]inbox.Attribute{"k": {DataType: "String", StringValue: "v"}}})
	b.Add(inbox.Entry{ID: "p1", Kind: inbox.Push, Timestamp: at, Account: "000000000000", Region: "us-east-1",
		Service: "sns", TargetArn: "arn:aws:sns:us-east-1:000000000000:endpoint/GCM/app/e1", Message: "ping"})
	b.Add(inbox.Entry{ID: "s2", Kind: inbox.SMS, Timestamp: at, Account: "111111111111", Region: "eu-west-1",
		Service: "sns", PhoneNumber: "+15555550101", Message: "elsewhere"})
}

func TestInboxEndpoints(t *testing.T) {
	srv := servertest.Start(t)
	fillInbox(srv.Emulator.Inbox())

	var own struct{ Messages []inbox.Entry }
	if st := inboxCall(t, srv, "GET", "/_emulator/ses/inbox/messages", &own); st != 200 || len(own.Messages) != 4 {
		t.Fatalf("own inbox: %d %+v", st, own)
	}
	if m := own.Messages[0]; m.Kind != inbox.Email || m.Raw != "raw mime" || m.Region != "us-east-1" || m.Destinations.To[0] != "to@example.com" {
		t.Errorf("own mail entry %+v", m)
	}
	own.Messages = nil
	inboxCall(t, srv, "GET", "/_emulator/ses/inbox/messages?kind=sms&region=us-east-1", &own)
	if len(own.Messages) != 1 || own.Messages[0].ID != "s1" || own.Messages[0].MessageAttributes["k"].StringValue != "v" {
		t.Errorf("kind=sms in us-east-1: %+v", own.Messages)
	}
	own.Messages = nil
	inboxCall(t, srv, "GET", "/_emulator/ses/inbox/messages?email=TO@example.com", &own)
	if len(own.Messages) != 1 || own.Messages[0].ID != "m1" {
		t.Errorf("email filter (a recipient, any case): %+v", own.Messages)
	}
	if st := inboxCall(t, srv, "GET", "/_emulator/ses/inbox/messages?kind=fax", nil); st != 400 {
		t.Errorf("kind=fax: status %d, want 400", st)
	}

	// The mail alias, in every spelling: no Region, no RawData.
	for _, p := range []string{"/_cloud/ses", "/_aws/ses", "/_compat/ses", "/_localstack/ses"} {
		var legacy struct{ Messages []map[string]any }
		if st := inboxCall(t, srv, "GET", p, &legacy); st != 200 || len(legacy.Messages) != 1 {
			t.Fatalf("%s: %d %+v", p, st, legacy)
		}
		m := legacy.Messages[0]
		if m["Id"] != "m1" || m["Source"] != "from@example.com" || m["Timestamp"] != "2026-11-26T10:00:00" {
			t.Errorf("%s: %v", p, m)
		}
		if _, ok := m["Region"]; ok {
			t.Errorf("%s: Region present: %v", p, m)
		}
		if _, ok := m["RawData"]; ok {
			t.Errorf("%s: RawData present: %v", p, m)
		}
		body := m["Body"].(map[string]any)
		if body["text_part"] != "text body" || body["html_part"] != "<b>html</b>" {
			t.Errorf("%s: body %v", p, body)
		}
		if to := m["Destination"].(map[string]any)["ToAddresses"].([]any); to[0] != "to@example.com" {
			t.Errorf("%s: destination %v", p, m["Destination"])
		}
	}
	var legacy struct{ Messages []map[string]any }
	inboxCall(t, srv, "GET", "/_aws/ses?email=nobody@example.com", &legacy)
	if len(legacy.Messages) != 0 {
		t.Errorf("email filter on the source: %v", legacy.Messages)
	}

	// SMS and push aliases: grouped by phone number and endpoint, one
	// account and region.
	var sms struct {
		SMS    map[string][]map[string]any `json:"sms_messages"`
		Region string
	}
	if st := inboxCall(t, srv, "GET", "/_aws/sns/sms-messages", &sms); st != 200 || sms.Region != "us-east-1" ||
		len(sms.SMS) != 1 || sms.SMS["+15555550100"][0]["Message"] != "code 1234" {
		t.Fatalf("sms alias: %d %+v", st, sms)
	}
	sms.SMS = nil
	inboxCall(t, srv, "GET", "/_cloud/sns/sms-messages?accountId=111111111111&region=eu-west-1", &sms)
	if len(sms.SMS["+15555550101"]) != 1 {
		t.Errorf("sms alias of another account: %+v", sms)
	}
	var push struct {
		Push map[string][]map[string]any `json:"platform_endpoint_messages"`
	}
	arn := "arn:aws:sns:us-east-1:000000000000:endpoint/GCM/app/e1"
	if st := inboxCall(t, srv, "GET", "/_compat/sns/platform-endpoint-messages?endpointArn="+arn, &push); st != 200 ||
		push.Push[arn][0]["Message"] != "ping" || push.Push[arn][0]["TargetArn"] != arn {
		t.Fatalf("push alias: %d %+v", st, push)
	}

	// Deletes: by id through the alias (204), by kind through the own path.
	if st := inboxCall(t, srv, "DELETE", "/_aws/ses?id=m1", nil); st != 204 {
		t.Errorf("delete mail by id: %d", st)
	}
	var deleted struct{ Deleted int }
	if st := inboxCall(t, srv, "DELETE", "/_emulator/ses/inbox/messages?kind=sms", &deleted); st != 200 || deleted.Deleted != 2 {
		t.Errorf("delete sms: %d %+v", st, deleted)
	}
	own.Messages = nil
	inboxCall(t, srv, "GET", "/_emulator/ses/inbox/messages", &own)
	if len(own.Messages) != 1 || own.Messages[0].ID != "p1" {
		t.Errorf("left after deletes: %+v", own.Messages)
	}
	// A reset empties it.
	if st := inboxCall(t, srv, "POST", "/_emulator/reset", nil); st != 200 {
		t.Fatalf("reset: %d", st)
	}
	own.Messages = nil
	inboxCall(t, srv, "GET", "/_emulator/ses/inbox/messages", &own)
	if len(own.Messages) != 0 {
		t.Errorf("after reset: %+v", own.Messages)
	}
}

// TestInboxAndPeekPages reads the inbox and a queue a page at a time.
func TestInboxAndPeekPages(t *testing.T) {
	srv := servertest.Start(t)
	for i := range 5 {
		srv.Emulator.Inbox().Add(inbox.Entry{ID: string(rune('a' + i)), Kind: inbox.SMS, PhoneNumber: "+15555550100"})
	}
	var page struct {
		Messages  []inbox.Entry
		NextToken string
	}
	var seen []string
	for token, n := "", 0; n < 5; n++ {
		page.Messages, page.NextToken = nil, ""
		if st := inboxCall(t, srv, "GET", "/_emulator/ses/inbox/messages?limit=2&nextToken="+token, &page); st != 200 {
			t.Fatalf("status %d", st)
		}
		for _, m := range page.Messages {
			seen = append(seen, m.ID)
		}
		if token = page.NextToken; token == "" {
			break
		}
	}
	if strings.Join(seen, "") != "abcde" {
		t.Fatalf("pages gave %v", seen)
	}
	if st := inboxCall(t, srv, "GET", "/_emulator/ses/inbox/messages?limit=0", nil); st != 400 {
		t.Errorf("limit=0: status %d, want 400", st)
	}

	ctx := context.Background()
	q := sqsClient(t, srv, "test")
	cq, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("paged")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: cq.QueueUrl, MessageBody: aws.String(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	var peek struct {
		Messages []struct {
			MessageID string `json:"messageId"`
			Body      string `json:"body"`
		}
		NextToken string
	}
	var bodies []string
	for token, n := "", 0; n < 5; n++ {
		peek.Messages, peek.NextToken = nil, ""
		if st := inboxCall(t, srv, "GET", "/000000000000/paged?limit=2&nextToken="+token, &peek); st != 200 {
			t.Fatalf("peek status %d", st)
		}
		for _, m := range peek.Messages {
			bodies = append(bodies, m.Body)
		}
		if token = peek.NextToken; token == "" {
			break
		}
	}
	if strings.Join(bodies, "") != "01234" {
		t.Fatalf("peek pages gave %v", bodies)
	}
}
