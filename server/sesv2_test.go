package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	v2types "github.com/aws/aws-sdk-go-v2/service/sesv2/types"

	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/server/servertest"
)

func sesv2Client(srv *servertest.Server) *sesv2.Client {
	return sesv2.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *sesv2.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
}

// mail returns the inbox entry with id, failing the test when there is
// none.
func mail(t *testing.T, srv *servertest.Server, id string) *inbox.Entry {
	t.Helper()
	got := srv.Emulator.Inbox().List(inbox.Filter{ID: id})
	if len(got) != 1 {
		t.Fatalf("the inbox holds %d entries with id %s", len(got), id)
	}
	return got[0]
}

func TestSESv2Identities(t *testing.T) {
	srv := servertest.Start(t)
	c := sesv2Client(srv)
	ctx := context.Background()

	dom, err := c.CreateEmailIdentity(ctx, &sesv2.CreateEmailIdentityInput{EmailIdentity: aws.String("example.com"),
		Tags: []v2types.Tag{{Key: aws.String("team"), Value: aws.String("mail")}}})
	if err != nil {
		t.Fatal(err)
	}
	if dom.IdentityType != v2types.IdentityTypeDomain || !dom.VerifiedForSendingStatus || dom.DkimAttributes == nil ||
		dom.DkimAttributes.Status != v2types.DkimStatusSuccess || len(dom.DkimAttributes.Tokens) != 3 || !dom.DkimAttributes.SigningEnabled {
		t.Fatalf("domain identity %+v %+v", dom, dom.DkimAttributes)
	}
	addr, err := c.CreateEmailIdentity(ctx, &sesv2.CreateEmailIdentityInput{EmailIdentity: aws.String("a@other.com")})
	if err != nil {
		t.Fatal(err)
	}
	if addr.IdentityType != v2types.IdentityTypeEmailAddress || !addr.VerifiedForSendingStatus {
		t.Fatalf("address identity %+v", addr)
	}
	_, err = c.CreateEmailIdentity(ctx, &sesv2.CreateEmailIdentityInput{EmailIdentity: aws.String("a@other.com")})
	servertest.WantAPIError(t, err, "AlreadyExistsException", "")
	_, err = c.CreateEmailIdentity(ctx, &sesv2.CreateEmailIdentityInput{EmailIdentity: aws.String("bad@@x")})
	servertest.WantAPIError(t, err, "BadRequestException", "")

	got, err := c.GetEmailIdentity(ctx, &sesv2.GetEmailIdentityInput{EmailIdentity: aws.String("example.com")})
	if err != nil {
		t.Fatal(err)
	}
	if got.IdentityType != v2types.IdentityTypeDomain || got.VerificationStatus != v2types.VerificationStatusSuccess ||
		!got.VerifiedForSendingStatus || len(got.Tags) != 1 || *got.Tags[0].Key != "team" ||
		got.DkimAttributes.LastKeyGenerationTimestamp == nil {
		t.Fatalf("GetEmailIdentity %+v", got)
	}
	_, err = c.GetEmailIdentity(ctx, &sesv2.GetEmailIdentityInput{EmailIdentity: aws.String("nobody@x.com")})
	servertest.WantAPIError(t, err, "NotFoundException", "")

	if _, err := c.CreateEmailIdentity(ctx, &sesv2.CreateEmailIdentityInput{EmailIdentity: aws.String("third.org")}); err != nil {
		t.Fatal(err)
	}
	// The model's GET /v2/email/identities (botocore and the AWS CLI; the
	// Go SDK's current model POSTs to /v2/email/list-identities, which the
	// operation table does not route yet).
	var names []string
	token, n := "", 0
	for {
		var page struct {
			EmailIdentities []struct {
				IdentityType, IdentityName, VerificationStatus string
				SendingEnabled                                 bool
			}
			NextToken string
		}
		q := "?PageSize=2"
		if token != "" {
			q += "&NextToken=" + url.QueryEscape(token)
		}
		if st := sesv2Raw(t, srv, "GET", "/v2/email/identities"+q, "", &page); st != 200 {
			t.Fatalf("ListEmailIdentities: %d", st)
		}
		n++
		for _, id := range page.EmailIdentities {
			if !id.SendingEnabled || id.VerificationStatus != "SUCCESS" {
				t.Errorf("identity info %+v", id)
			}
			names = append(names, id.IdentityName)
		}
		if token = page.NextToken; token == "" {
			break
		}
	}
	if n != 2 || strings.Join(names, ",") != "example.com,a@other.com,third.org" {
		t.Fatalf("%d pages listed %v", n, names)
	}
	if st := sesv2Raw(t, srv, "GET", "/v2/email/identities?NextToken=forged", "", nil); st != 400 {
		t.Fatalf("forged token: %d", st)
	}

	if _, err := c.DeleteEmailIdentity(ctx, &sesv2.DeleteEmailIdentityInput{EmailIdentity: aws.String("third.org")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteEmailIdentity(ctx, &sesv2.DeleteEmailIdentityInput{EmailIdentity: aws.String("third.org")})
	servertest.WantAPIError(t, err, "NotFoundException", "Email identity third.org does not exist.")
}

func TestSESv2Templates(t *testing.T) {
	srv := servertest.Start(t)
	c := sesv2Client(srv)
	ctx := context.Background()
	content := &v2types.EmailTemplateContent{Subject: aws.String("Hi {{name}}"), Text: aws.String("Dear {{name}}"),
		Html: aws.String("<p>{{name}}</p>")}
	for _, name := range []string{"one", "two", "three"} {
		if _, err := c.CreateEmailTemplate(ctx, &sesv2.CreateEmailTemplateInput{TemplateName: aws.String(name), TemplateContent: content}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.CreateEmailTemplate(ctx, &sesv2.CreateEmailTemplateInput{TemplateName: aws.String("one"), TemplateContent: content})
	servertest.WantAPIError(t, err, "AlreadyExistsException", "")
	_, err = c.CreateEmailTemplate(ctx, &sesv2.CreateEmailTemplateInput{TemplateName: aws.String("bad"),
		TemplateContent: &v2types.EmailTemplateContent{Subject: aws.String("{{unclosed")}})
	servertest.WantAPIError(t, err, "BadRequestException", "")

	got, err := c.GetEmailTemplate(ctx, &sesv2.GetEmailTemplateInput{TemplateName: aws.String("two")})
	if err != nil || *got.TemplateName != "two" || *got.TemplateContent.Subject != "Hi {{name}}" || *got.TemplateContent.Html != "<p>{{name}}</p>" {
		t.Fatalf("GetEmailTemplate %+v, %v", got, err)
	}
	_, err = c.GetEmailTemplate(ctx, &sesv2.GetEmailTemplateInput{TemplateName: aws.String("nope")})
	servertest.WantAPIError(t, err, "NotFoundException", "Template nope does not exist.")

	if _, err := c.UpdateEmailTemplate(ctx, &sesv2.UpdateEmailTemplateInput{TemplateName: aws.String("two"),
		TemplateContent: &v2types.EmailTemplateContent{Subject: aws.String("New {{x}}")}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateEmailTemplate(ctx, &sesv2.UpdateEmailTemplateInput{TemplateName: aws.String("nope"), TemplateContent: content})
	servertest.WantAPIError(t, err, "NotFoundException", "")

	r, err := c.TestRenderEmailTemplate(ctx, &sesv2.TestRenderEmailTemplateInput{TemplateName: aws.String("two"), TemplateData: aws.String(`{"x":"y"}`)})
	if err != nil || !strings.Contains(*r.RenderedTemplate, "Subject: New y") {
		t.Fatalf("rendered %v, %v", r, err)
	}
	_, err = c.TestRenderEmailTemplate(ctx, &sesv2.TestRenderEmailTemplateInput{TemplateName: aws.String("two"), TemplateData: aws.String(`{}`)})
	servertest.WantAPIError(t, err, "BadRequestException", "Attribute 'x' is not present in the rendering data.")

	l, err := c.ListEmailTemplates(ctx, &sesv2.ListEmailTemplatesInput{PageSize: aws.Int32(2)})
	if err != nil || len(l.TemplatesMetadata) != 2 || l.NextToken == nil || *l.TemplatesMetadata[0].TemplateName != "one" ||
		l.TemplatesMetadata[0].CreatedTimestamp == nil || l.TemplatesMetadata[0].CreatedTimestamp.IsZero() {
		t.Fatalf("first page %+v, %v", l, err)
	}
	l, err = c.ListEmailTemplates(ctx, &sesv2.ListEmailTemplatesInput{PageSize: aws.Int32(2), NextToken: l.NextToken})
	if err != nil || len(l.TemplatesMetadata) != 1 || l.NextToken != nil || *l.TemplatesMetadata[0].TemplateName != "three" {
		t.Fatalf("second page %+v, %v", l, err)
	}
	if _, err := c.DeleteEmailTemplate(ctx, &sesv2.DeleteEmailTemplateInput{TemplateName: aws.String("one")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteEmailTemplate(ctx, &sesv2.DeleteEmailTemplateInput{TemplateName: aws.String("one")})
	servertest.WantAPIError(t, err, "NotFoundException", "")
}

func TestSESv2Send(t *testing.T) {
	srv := servertest.Start(t)
	c := sesv2Client(srv)
	ctx := context.Background()
	simple := &sesv2.SendEmailInput{
		FromEmailAddress: aws.String("sender@example.com"),
		Destination: &v2types.Destination{ToAddresses: []string{"to@x.com"}, CcAddresses: []string{"cc@x.com"},
			BccAddresses: []string{"bcc@x.com"}},
		ReplyToAddresses: []string{"reply@x.com"},
		Content: &v2types.EmailContent{Simple: &v2types.Message{
			Subject: &v2types.Content{Data: aws.String("Subject")},
			Body:    &v2types.Body{Text: &v2types.Content{Data: aws.String("text")}, Html: &v2types.Content{Data: aws.String("<p>html</p>")}},
		}},
	}
	_, err := c.SendEmail(ctx, simple)
	servertest.WantAPIError(t, err, "MessageRejected",
		"Email address is not verified. The following identities failed the check in region US-EAST-1: sender@example.com")

	if _, err := c.CreateEmailIdentity(ctx, &sesv2.CreateEmailIdentityInput{EmailIdentity: aws.String("example.com")}); err != nil {
		t.Fatal(err)
	}
	out, err := c.SendEmail(ctx, simple)
	if err != nil {
		t.Fatal(err)
	}
	e := mail(t, srv, *out.MessageId)
	if e.Kind != inbox.Email || e.Service != "sesv2" || e.Source != "sender@example.com" || e.Subject != "Subject" ||
		e.Text != "text" || e.HTML != "<p>html</p>" || e.Destinations.To[0] != "to@x.com" || e.Destinations.Cc[0] != "cc@x.com" ||
		e.Destinations.Bcc[0] != "bcc@x.com" || e.ReplyTo[0] != "reply@x.com" || e.Account != "000000000000" || e.Region != "us-east-1" {
		t.Fatalf("simple entry %+v", e)
	}

	raw := "From: Sender <sender@example.com>\r\nTo: to@x.com\r\nSubject: =?UTF-8?B?w6l0w6k=?=\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/alternative; boundary=b1\r\n\r\n--b1\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\nplain\r\n" +
		"--b1\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		base64.StdEncoding.EncodeToString([]byte("<b>rich</b>")) + "\r\n--b1--\r\n"
	out, err = c.SendEmail(ctx, &sesv2.SendEmailInput{Content: &v2types.EmailContent{Raw: &v2types.RawMessage{Data: []byte(raw)}}})
	if err != nil {
		t.Fatal(err)
	}
	e = mail(t, srv, *out.MessageId)
	if e.Source != "Sender <sender@example.com>" || e.Subject != "été" || e.Text != "plain" || e.HTML != "<b>rich</b>" ||
		e.Raw != raw || e.Destinations.To[0] != "to@x.com" {
		t.Fatalf("raw entry %+v", e)
	}

	if _, err := c.CreateEmailTemplate(ctx, &sesv2.CreateEmailTemplateInput{TemplateName: aws.String("welcome"),
		TemplateContent: &v2types.EmailTemplateContent{Subject: aws.String("Welcome {{user.name}}"), Text: aws.String("Hi {{user.name}}{{#each items}}, {{this}}{{/each}}{{#if vip}}!{{/if}}")}}); err != nil {
		t.Fatal(err)
	}
	data := `{"user":{"name":"Ann"},"items":["a","b"],"vip":true}`
	out, err = c.SendEmail(ctx, &sesv2.SendEmailInput{FromEmailAddress: aws.String("sender@example.com"),
		Destination: &v2types.Destination{ToAddresses: []string{"to@x.com"}},
		Content:     &v2types.EmailContent{Template: &v2types.Template{TemplateName: aws.String("welcome"), TemplateData: aws.String(data)}}})
	if err != nil {
		t.Fatal(err)
	}
	e = mail(t, srv, *out.MessageId)
	if e.Subject != "Welcome Ann" || e.Text != "Hi Ann, a, b!" || e.Template != "welcome" || e.TemplateData != data {
		t.Fatalf("templated entry %+v", e)
	}
	// An inline template.
	out, err = c.SendEmail(ctx, &sesv2.SendEmailInput{FromEmailAddress: aws.String("sender@example.com"),
		Destination: &v2types.Destination{ToAddresses: []string{"to@x.com"}},
		Content: &v2types.EmailContent{Template: &v2types.Template{TemplateContent: &v2types.EmailTemplateContent{
			Subject: aws.String("Inline {{n}}")}, TemplateData: aws.String(`{"n":7}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if e = mail(t, srv, *out.MessageId); e.Subject != "Inline 7" {
		t.Fatalf("inline template entry %+v", e)
	}

	for name, in := range map[string]*sesv2.SendEmailInput{
		"unknown template": {FromEmailAddress: aws.String("sender@example.com"), Destination: &v2types.Destination{ToAddresses: []string{"to@x.com"}},
			Content: &v2types.EmailContent{Template: &v2types.Template{TemplateName: aws.String("nope"), TemplateData: aws.String("{}")}}},
		"template data not JSON": {FromEmailAddress: aws.String("sender@example.com"), Destination: &v2types.Destination{ToAddresses: []string{"to@x.com"}},
			Content: &v2types.EmailContent{Template: &v2types.Template{TemplateName: aws.String("welcome"), TemplateData: aws.String("{nope")}}},
		"malformed recipient": {FromEmailAddress: aws.String("sender@example.com"), Destination: &v2types.Destination{ToAddresses: []string{"nobody"}},
			Content: simple.Content},
		"malformed raw": {Content: &v2types.EmailContent{Raw: &v2types.RawMessage{Data: []byte("not a message")}}},
		"no content":    {FromEmailAddress: aws.String("sender@example.com"), Destination: simple.Destination, Content: &v2types.EmailContent{}},
	} {
		t.Run("case="+name, func(t *testing.T) {
			_, err := c.SendEmail(ctx, in)
			want := "BadRequestException"
			if name == "unknown template" {
				want = "NotFoundException"
			}
			servertest.WantAPIError(t, err, want, "")
		})
	}

	acct, err := c.GetAccount(ctx, &sesv2.GetAccountInput{})
	if err != nil {
		t.Fatal(err)
	}
	if !acct.SendingEnabled || acct.ProductionAccessEnabled || acct.SendQuota == nil || acct.SendQuota.Max24HourSend != 200 ||
		acct.SendQuota.MaxSendRate != 1 || acct.SendQuota.SentLast24Hours != 4 {
		t.Fatalf("GetAccount %+v %+v", acct, acct.SendQuota)
	}
}

// sesv2Raw sends one SES v2 request signed for us-east-1 and decodes a
// 200's JSON answer into v; it returns the status.
func sesv2Raw(t *testing.T, srv *servertest.Server, method, path, body string, v any) int {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/ses/aws4_request, SignedHeaders=host, Signature=x")
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
	if resp.StatusCode >= 400 && resp.Header.Get("X-Amzn-Errortype") == "" {
		t.Errorf("%s %s: %d without x-amzn-ErrorType: %s", method, path, resp.StatusCode, b)
	}
	return resp.StatusCode
}

// TestSESv2BadInput: bodies that are not the operation's JSON get
// BadRequestException, never a 5xx.
func TestSESv2BadInput(t *testing.T) {
	srv := servertest.Start(t)
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v2/email/outbound-emails", "{not json"},
		{"POST", "/v2/email/outbound-emails", `{"Content":{"Raw":{"Data":"%%%"}}}`},
		{"POST", "/v2/email/identities", `{"EmailIdentity":7}`},
		{"POST", "/v2/email/templates", `[]`},
		{"GET", "/v2/email/templates?PageSize=1000", ""},
		{"GET", "/v2/email/identities?PageSize=x", ""},
	} {
		t.Run("req="+tc.method+" "+tc.path+" "+tc.body, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/ses/aws4_request, SignedHeaders=host, Signature=x")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || resp.Header.Get("X-Amzn-Errortype") != "BadRequestException" {
				t.Fatalf("status %d, type %q: %s", resp.StatusCode, resp.Header.Get("X-Amzn-Errortype"), b)
			}
		})
	}
}
