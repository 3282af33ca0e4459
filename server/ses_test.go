package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ses"
	sestypes "github.com/aws/aws-sdk-go-v2/service/ses/types"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	v2types "github.com/aws/aws-sdk-go-v2/service/sesv2/types"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/server/servertest"
)

func sesClient(srv *servertest.Server) *ses.Client {
	return ses.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *ses.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
}

func TestSESIdentities(t *testing.T) {
	srv := servertest.Start(t)
	c := sesClient(srv)
	ctx := context.Background()

	if _, err := c.VerifyEmailIdentity(ctx, &ses.VerifyEmailIdentityInput{EmailAddress: aws.String("a@example.com")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.VerifyEmailAddress(ctx, &ses.VerifyEmailAddressInput{EmailAddress: aws.String("b@example.com")}); err != nil {
		t.Fatal(err)
	}
	dom, err := c.VerifyDomainIdentity(ctx, &ses.VerifyDomainIdentityInput{Domain: aws.String("example.org")})
	if err != nil {
		t.Fatal(err)
	}
	if len(*dom.VerificationToken) != 44 {
		t.Fatalf("VerificationToken %q", *dom.VerificationToken)
	}
	_, err = c.VerifyEmailIdentity(ctx, &ses.VerifyEmailIdentityInput{EmailAddress: aws.String("not an address")})
	servertest.WantAPIError(t, err, "InvalidParameterValue", "")

	var all []string
	pages := ses.NewListIdentitiesPaginator(c, &ses.ListIdentitiesInput{MaxItems: aws.Int32(2)})
	n := 0
	for pages.HasMorePages() {
		p, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n++
		all = append(all, p.Identities...)
	}
	if n != 2 || strings.Join(all, ",") != "a@example.com,b@example.com,example.org" {
		t.Fatalf("%d pages: %v", n, all)
	}
	doms, err := c.ListIdentities(ctx, &ses.ListIdentitiesInput{IdentityType: sestypes.IdentityTypeDomain})
	if err != nil || len(doms.Identities) != 1 || doms.Identities[0] != "example.org" {
		t.Fatalf("domains %v, %v", doms, err)
	}
	addrs, err := c.ListVerifiedEmailAddresses(ctx, &ses.ListVerifiedEmailAddressesInput{})
	if err != nil || strings.Join(addrs.VerifiedEmailAddresses, ",") != "a@example.com,b@example.com" {
		t.Fatalf("verified addresses %v, %v", addrs, err)
	}

	attrs, err := c.GetIdentityVerificationAttributes(ctx, &ses.GetIdentityVerificationAttributesInput{
		Identities: []string{"a@example.com", "example.org", "unknown@example.net"}})
	if err != nil {
		t.Fatal(err)
	}
	va := attrs.VerificationAttributes
	if len(va) != 2 || va["a@example.com"].VerificationStatus != sestypes.VerificationStatusSuccess ||
		va["a@example.com"].VerificationToken != nil || va["example.org"].VerificationStatus != sestypes.VerificationStatusSuccess ||
		aws.ToString(va["example.org"].VerificationToken) != *dom.VerificationToken {
		t.Fatalf("verification attributes %+v", va)
	}

	if _, err := c.DeleteIdentity(ctx, &ses.DeleteIdentityInput{Identity: aws.String("example.org")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteIdentity(ctx, &ses.DeleteIdentityInput{Identity: aws.String("example.org")}); err != nil {
		t.Fatalf("deleting a missing identity succeeds on AWS: %v", err)
	}
	if _, err := c.DeleteVerifiedEmailAddress(ctx, &ses.DeleteVerifiedEmailAddressInput{EmailAddress: aws.String("b@example.com")}); err != nil {
		t.Fatal(err)
	}
	left, err := c.ListIdentities(ctx, &ses.ListIdentitiesInput{})
	if err != nil || strings.Join(left.Identities, ",") != "a@example.com" {
		t.Fatalf("after deletes %v, %v", left, err)
	}

	// One service behind both APIs: v2 sees what v1 verified.
	v2 := sesv2Client(srv)
	if _, err := v2.GetEmailIdentity(ctx, &sesv2.GetEmailIdentityInput{EmailIdentity: aws.String("a@example.com")}); err != nil {
		t.Fatalf("v2 reading a v1 identity: %v", err)
	}
}

func TestSESTemplates(t *testing.T) {
	srv := servertest.Start(t)
	c := sesClient(srv)
	ctx := context.Background()
	tpl := func(name string) *sestypes.Template {
		return &sestypes.Template{TemplateName: aws.String(name), SubjectPart: aws.String("Hi {{name}}"),
			TextPart: aws.String("Dear {{name}},"), HtmlPart: aws.String("<h1>{{name}}</h1>")}
	}
	for _, name := range []string{"a", "b", "c"} {
		if _, err := c.CreateTemplate(ctx, &ses.CreateTemplateInput{Template: tpl(name)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.CreateTemplate(ctx, &ses.CreateTemplateInput{Template: tpl("a")})
	servertest.WantAPIError(t, err, "AlreadyExists", "Template a already exists.")
	_, err = c.CreateTemplate(ctx, &ses.CreateTemplateInput{Template: &sestypes.Template{TemplateName: aws.String("x"), SubjectPart: aws.String("{{x")}})
	servertest.WantAPIError(t, err, "InvalidTemplate", "")

	got, err := c.GetTemplate(ctx, &ses.GetTemplateInput{TemplateName: aws.String("b")})
	if err != nil || *got.Template.TemplateName != "b" || *got.Template.SubjectPart != "Hi {{name}}" ||
		*got.Template.TextPart != "Dear {{name}}," || *got.Template.HtmlPart != "<h1>{{name}}</h1>" {
		t.Fatalf("GetTemplate %+v, %v", got, err)
	}
	_, err = c.GetTemplate(ctx, &ses.GetTemplateInput{TemplateName: aws.String("nope")})
	servertest.WantAPIError(t, err, "TemplateDoesNotExist", "Template nope does not exist.")

	if _, err := c.UpdateTemplate(ctx, &ses.UpdateTemplateInput{Template: &sestypes.Template{TemplateName: aws.String("b"),
		SubjectPart: aws.String("New {{x}}")}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateTemplate(ctx, &ses.UpdateTemplateInput{Template: tpl("nope")})
	servertest.WantAPIError(t, err, "TemplateDoesNotExist", "")

	l, err := c.ListTemplates(ctx, &ses.ListTemplatesInput{MaxItems: aws.Int32(2)})
	if err != nil || len(l.TemplatesMetadata) != 2 || l.NextToken == nil || *l.TemplatesMetadata[0].Name != "a" ||
		l.TemplatesMetadata[0].CreatedTimestamp == nil || time.Since(*l.TemplatesMetadata[0].CreatedTimestamp) > time.Minute {
		t.Fatalf("first page %+v, %v", l, err)
	}
	l, err = c.ListTemplates(ctx, &ses.ListTemplatesInput{MaxItems: aws.Int32(2), NextToken: l.NextToken})
	if err != nil || len(l.TemplatesMetadata) != 1 || *l.TemplatesMetadata[0].Name != "c" || l.NextToken != nil {
		t.Fatalf("second page %+v, %v", l, err)
	}

	r, err := c.TestRenderTemplate(ctx, &ses.TestRenderTemplateInput{TemplateName: aws.String("a"), TemplateData: aws.String(`{"name":"Ann"}`)})
	if err != nil || !strings.Contains(*r.RenderedTemplate, "Subject: Hi Ann") || !strings.Contains(*r.RenderedTemplate, "Dear Ann,") {
		t.Fatalf("TestRenderTemplate %v, %v", r, err)
	}
	_, err = c.TestRenderTemplate(ctx, &ses.TestRenderTemplateInput{TemplateName: aws.String("a"), TemplateData: aws.String(`{}`)})
	servertest.WantAPIError(t, err, "MissingRenderingAttribute", "Attribute 'name' is not present in the rendering data.")
	_, err = c.TestRenderTemplate(ctx, &ses.TestRenderTemplateInput{TemplateName: aws.String("a"), TemplateData: aws.String(`{oops`)})
	servertest.WantAPIError(t, err, "InvalidRenderingParameter", "")
	_, err = c.TestRenderTemplate(ctx, &ses.TestRenderTemplateInput{TemplateName: aws.String("nope"), TemplateData: aws.String(`{}`)})
	servertest.WantAPIError(t, err, "TemplateDoesNotExist", "")

	// v2 shares the templates.
	v2 := sesv2Client(srv)
	g2, err := v2.GetEmailTemplate(ctx, &sesv2.GetEmailTemplateInput{TemplateName: aws.String("b")})
	if err != nil || *g2.TemplateContent.Subject != "New {{x}}" {
		t.Fatalf("v2 reading a v1 template: %+v, %v", g2, err)
	}
	if _, err := v2.CreateEmailTemplate(ctx, &sesv2.CreateEmailTemplateInput{TemplateName: aws.String("v2made"),
		TemplateContent: &v2types.EmailTemplateContent{Subject: aws.String("s")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTemplate(ctx, &ses.GetTemplateInput{TemplateName: aws.String("v2made")}); err != nil {
		t.Fatalf("v1 reading a v2 template: %v", err)
	}

	for _, name := range []string{"a", "a", "b"} {
		if _, err := c.DeleteTemplate(ctx, &ses.DeleteTemplateInput{TemplateName: aws.String(name)}); err != nil {
			t.Fatalf("DeleteTemplate %s: %v", name, err)
		}
	}
	l, err = c.ListTemplates(ctx, &ses.ListTemplatesInput{})
	if err != nil || len(l.TemplatesMetadata) != 2 {
		t.Fatalf("after deletes %+v, %v", l, err)
	}
}

func TestSESSend(t *testing.T) {
	srv := servertest.Start(t)
	c := sesClient(srv)
	ctx := context.Background()
	msg := &sestypes.Message{Subject: &sestypes.Content{Data: aws.String("Subject")},
		Body: &sestypes.Body{Text: &sestypes.Content{Data: aws.String("text")}, Html: &sestypes.Content{Data: aws.String("<p>html</p>")}}}
	send := &ses.SendEmailInput{Source: aws.String("sender@example.com"),
		Destination:      &sestypes.Destination{ToAddresses: []string{"to@x.com"}, CcAddresses: []string{"cc@x.com"}, BccAddresses: []string{"bcc@x.com"}},
		ReplyToAddresses: []string{"reply@x.com"}, Message: msg,
		Tags: []sestypes.MessageTag{{Name: aws.String("campaign"), Value: aws.String("spring-1")}}}

	_, err := c.SendEmail(ctx, send)
	servertest.WantAPIError(t, err, "MessageRejected",
		"Email address is not verified. The following identities failed the check in region US-EAST-1: sender@example.com")
	if len(srv.Emulator.Inbox().List(inbox.Filter{})) != 0 {
		t.Fatal("a refused message reached the inbox")
	}
	if _, err := c.VerifyDomainIdentity(ctx, &ses.VerifyDomainIdentityInput{Domain: aws.String("example.com")}); err != nil {
		t.Fatal(err)
	}
	out, err := c.SendEmail(ctx, send)
	if err != nil {
		t.Fatal(err)
	}
	if id := *out.MessageId; len(id) != 60 || !strings.HasPrefix(id, "0100") || !strings.HasSuffix(id, "-000000") {
		t.Fatalf("MessageId %q", id)
	}
	e := mail(t, srv, *out.MessageId)
	if e.Kind != inbox.Email || e.Service != "ses" || e.Source != "sender@example.com" || e.Subject != "Subject" ||
		e.Text != "text" || e.HTML != "<p>html</p>" || e.Destinations.To[0] != "to@x.com" || e.Destinations.Cc[0] != "cc@x.com" ||
		e.Destinations.Bcc[0] != "bcc@x.com" || e.ReplyTo[0] != "reply@x.com" || e.Region != "us-east-1" ||
		e.Account != "000000000000" || time.Since(e.Timestamp) > time.Minute {
		t.Fatalf("SendEmail entry %+v", e)
	}

	raw := strings.Join([]string{
		"From: Sender <sender@example.com>",
		"To: to@x.com",
		"Cc: cc@x.com",
		"Subject: =?UTF-8?B?UmFwcG9ydCDDqXTDqQ==?=",
		"MIME-Version: 1.0",
		`Content-Type: multipart/mixed; boundary="mixed"`,
		"",
		"--mixed",
		`Content-Type: multipart/alternative; boundary="alt"`,
		"",
		"--alt",
		"Content-Type: text/plain; charset=UTF-8",
		"Content-Transfer-Encoding: quoted-printable",
		"",
		"r=C3=A9sum=C3=A9",
		"--alt",
		"Content-Type: text/html; charset=UTF-8",
		"",
		"<p>html part</p>",
		"--alt--",
		"--mixed",
		"Content-Type: text/plain",
		`Content-Disposition: attachment; filename="a.txt"`,
		"",
		"not the body",
		"--mixed--",
		"",
	}, "\r\n")
	rout, err := c.SendRawEmail(ctx, &ses.SendRawEmailInput{RawMessage: &sestypes.RawMessage{Data: []byte(raw)},
		Destinations: []string{"to@x.com", "hidden@x.com"}})
	if err != nil {
		t.Fatal(err)
	}
	e = mail(t, srv, *rout.MessageId)
	if e.Source != "Sender <sender@example.com>" || e.Subject != "Rapport été" || e.Text != "résumé" || e.HTML != "<p>html part</p>" ||
		e.Raw != raw || e.Destinations.To[0] != "to@x.com" || e.Destinations.Cc[0] != "cc@x.com" ||
		len(e.Destinations.Bcc) != 1 || e.Destinations.Bcc[0] != "hidden@x.com" {
		t.Fatalf("SendRawEmail entry %+v %+v", e, e.Destinations)
	}
	_, err = c.SendRawEmail(ctx, &ses.SendRawEmailInput{RawMessage: &sestypes.RawMessage{
		Data: []byte("From: origin@elsewhere.com\nTo: destination@example.com\nSubject: test\n\nThis is the message body.\n\n")}})
	servertest.WantAPIError(t, err, "MessageRejected",
		"Email address is not verified. The following identities failed the check in region US-EAST-1: origin@elsewhere.com")

	if _, err := c.CreateTemplate(ctx, &ses.CreateTemplateInput{Template: &sestypes.Template{TemplateName: aws.String("order"),
		SubjectPart: aws.String("Order {{order.id}}"), TextPart: aws.String("Hello {{name}}"),
		HtmlPart: aws.String("<p>{{name}}: {{order.total}}</p>")}}); err != nil {
		t.Fatal(err)
	}
	data := `{"name":"Ann","order":{"id":"A-1","total":12.5}}`
	tout, err := c.SendTemplatedEmail(ctx, &ses.SendTemplatedEmailInput{Source: aws.String("sender@example.com"),
		Destination: &sestypes.Destination{ToAddresses: []string{"to@x.com"}}, Template: aws.String("order"), TemplateData: aws.String(data)})
	if err != nil {
		t.Fatal(err)
	}
	e = mail(t, srv, *tout.MessageId)
	if e.Subject != "Order A-1" || e.Text != "Hello Ann" || e.HTML != "<p>Ann: 12.5</p>" || e.Template != "order" || e.TemplateData != data {
		t.Fatalf("SendTemplatedEmail entry %+v", e)
	}

	many := make([]string, 51)
	for i := range many {
		many[i] = fmt.Sprintf("r%d@x.com", i)
	}
	for _, tc := range []struct {
		name string
		call func() error
		code string
		msg  string
	}{
		{"51 recipients", func() error {
			_, err := c.SendEmail(ctx, &ses.SendEmailInput{Source: aws.String("sender@example.com"),
				Destination: &sestypes.Destination{ToAddresses: many}, Message: msg})
			return err
		}, "InvalidParameterValue", "Recipient count exceeds 50."},
		{"malformed address", func() error {
			_, err := c.SendEmail(ctx, &ses.SendEmailInput{Source: aws.String("sender@example.com"),
				Destination: &sestypes.Destination{ToAddresses: []string{"nobody"}}, Message: msg})
			return err
		}, "InvalidParameterValue", "Missing final '@domain'"},
		{"bad tag", func() error {
			_, err := c.SendEmail(ctx, &ses.SendEmailInput{Source: aws.String("sender@example.com"),
				Destination: &sestypes.Destination{ToAddresses: []string{"to@x.com"}}, Message: msg,
				Tags: []sestypes.MessageTag{{Name: aws.String("test_invalid_name:123"), Value: aws.String("test")}}})
			return err
		}, "InvalidParameterValue", "Invalid tag name <test_invalid_name:123>: only alphanumeric ASCII characters, '_',  '-' are allowed."},
		{"unknown template", func() error {
			_, err := c.SendTemplatedEmail(ctx, &ses.SendTemplatedEmailInput{Source: aws.String("sender@example.com"),
				Destination: &sestypes.Destination{ToAddresses: []string{"to@x.com"}}, Template: aws.String("nope"), TemplateData: aws.String("{}")})
			return err
		}, "TemplateDoesNotExist", "Template nope does not exist."},
		{"template data not JSON", func() error {
			_, err := c.SendTemplatedEmail(ctx, &ses.SendTemplatedEmailInput{Source: aws.String("sender@example.com"),
				Destination: &sestypes.Destination{ToAddresses: []string{"to@x.com"}}, Template: aws.String("order"), TemplateData: aws.String("{oops")})
			return err
		}, "InvalidParameterValue", ""},
		{"malformed raw", func() error {
			_, err := c.SendRawEmail(ctx, &ses.SendRawEmailInput{RawMessage: &sestypes.RawMessage{Data: []byte("garbage without headers")}})
			return err
		}, "InvalidParameterValue", ""},
		{"raw without from", func() error {
			_, err := c.SendRawEmail(ctx, &ses.SendRawEmailInput{RawMessage: &sestypes.RawMessage{Data: []byte("To: a@x.com\n\nbody")}})
			return err
		}, "InvalidParameterValue", "Missing required header 'From'."},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			servertest.WantAPIError(t, tc.call(), tc.code, tc.msg)
		})
	}

	// A template whose data lacks a variable is accepted but not delivered.
	before := len(srv.Emulator.Inbox().List(inbox.Filter{}))
	if _, err := c.SendTemplatedEmail(ctx, &ses.SendTemplatedEmailInput{Source: aws.String("sender@example.com"),
		Destination: &sestypes.Destination{ToAddresses: []string{"to@x.com"}}, Template: aws.String("order"), TemplateData: aws.String(`{"name":"x"}`)}); err != nil {
		t.Fatalf("a rendering failure is accepted: %v", err)
	}
	if n := len(srv.Emulator.Inbox().List(inbox.Filter{})); n != before {
		t.Fatalf("a rendering failure reached the inbox (%d entries, was %d)", n, before)
	}

	q, err := c.GetSendQuota(ctx, &ses.GetSendQuotaInput{})
	if err != nil || q.Max24HourSend != 200 || q.MaxSendRate != 1 || q.SentLast24Hours != 4 {
		t.Fatalf("GetSendQuota %+v, %v", q, err)
	}
	st, err := c.GetSendStatistics(ctx, &ses.GetSendStatisticsInput{})
	if err != nil || len(st.SendDataPoints) != 1 || st.SendDataPoints[0].DeliveryAttempts != 4 || st.SendDataPoints[0].Timestamp == nil {
		t.Fatalf("GetSendStatistics %+v, %v", st, err)
	}

	// A reset forgets identities, templates, counts and mail.
	if err := srv.Emulator.Reset(); err != nil {
		t.Fatal(err)
	}
	ids, err := c.ListIdentities(ctx, &ses.ListIdentitiesInput{})
	if err != nil || len(ids.Identities) != 0 {
		t.Fatalf("identities after a reset %v, %v", ids, err)
	}
	if _, err := c.GetTemplate(ctx, &ses.GetTemplateInput{TemplateName: aws.String("order")}); err == nil {
		t.Fatal("a template survived a reset")
	}
	if q, err := c.GetSendQuota(ctx, &ses.GetSendQuotaInput{}); err != nil || q.SentLast24Hours != 0 {
		t.Fatalf("GetSendQuota after a reset %+v, %v", q, err)
	}
	if n := len(srv.Emulator.Inbox().List(inbox.Filter{})); n != 0 {
		t.Fatalf("%d inbox entries after a reset", n)
	}
	_, err = c.SendEmail(ctx, send)
	servertest.WantAPIError(t, err, "MessageRejected", "")
}

// TestSESNotImplemented: an operation without a handler answers 501 in
// each API's shape, naming it.
func TestSESNotImplemented(t *testing.T) {
	srv := servertest.Start(t)
	ctx := context.Background()
	_, err := sesClient(srv).ListConfigurationSets(ctx, &ses.ListConfigurationSetsInput{})
	servertest.WantAPIError(t, err, "NotImplemented", "")
	_, err = sesv2Client(srv).GetDedicatedIps(ctx, &sesv2.GetDedicatedIpsInput{})
	servertest.WantAPIError(t, err, "NotImplementedException", "")
}

// TestSESOversizeRaw: a raw message past 10 MB is refused with AWS's
// message (the body limit raised so that the request reaches SES).
func TestSESOversizeRaw(t *testing.T) {
	srv := servertest.Start(t, servertest.WithMaxBody(20<<20))
	c := sesClient(srv)
	raw := append([]byte("From: a@example.com\r\nTo: b@x.com\r\n\r\n"), make([]byte, 10<<20)...)
	_, err := c.SendRawEmail(context.Background(), &ses.SendRawEmailInput{RawMessage: &sestypes.RawMessage{Data: raw}})
	servertest.WantAPIError(t, err, "InvalidParameterValue", fmt.Sprintf("Message length is more than 10485760 bytes long: '%d'.", len(raw)))
}

// TestSESUnverifiedAllowed: EMULATOR_SES_REQUIRE_VERIFIED=false sends from
// any address, through both APIs.
func TestSESUnverifiedAllowed(t *testing.T) {
	srv := servertest.Start(t, servertest.WithConfig(func(c *config.Config) { c.SESRequireVerified = false }))
	ctx := context.Background()
	out, err := sesClient(srv).SendEmail(ctx, &ses.SendEmailInput{Source: aws.String("anyone@nowhere.test"),
		Destination: &sestypes.Destination{ToAddresses: []string{"to@x.com"}},
		Message:     &sestypes.Message{Subject: &sestypes.Content{Data: aws.String("s")}, Body: &sestypes.Body{Text: &sestypes.Content{Data: aws.String("t")}}}})
	if err != nil {
		t.Fatal(err)
	}
	mail(t, srv, *out.MessageId)
	o2, err := sesv2Client(srv).SendEmail(ctx, &sesv2.SendEmailInput{FromEmailAddress: aws.String("anyone@nowhere.test"),
		Destination: &v2types.Destination{ToAddresses: []string{"to@x.com"}},
		Content:     &v2types.EmailContent{Simple: &v2types.Message{Subject: &v2types.Content{Data: aws.String("s")}, Body: &v2types.Body{}}}})
	if err != nil {
		t.Fatal(err)
	}
	mail(t, srv, *o2.MessageId)
}

// TestSESPersistence: identities and templates survive a restart; the
// inbox does not.
func TestSESPersistence(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var token string
	func() {
		srv := servertest.Start(t, servertest.WithPersistence(dir))
		c := sesClient(srv)
		if _, err := c.VerifyEmailIdentity(ctx, &ses.VerifyEmailIdentityInput{EmailAddress: aws.String("a@example.com")}); err != nil {
			t.Fatal(err)
		}
		d, err := c.VerifyDomainIdentity(ctx, &ses.VerifyDomainIdentityInput{Domain: aws.String("example.org")})
		if err != nil {
			t.Fatal(err)
		}
		token = *d.VerificationToken
		if _, err := sesv2Client(srv).CreateEmailTemplate(ctx, &sesv2.CreateEmailTemplateInput{TemplateName: aws.String("kept"),
			TemplateContent: &v2types.EmailTemplateContent{Subject: aws.String("Hi {{n}}")}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.SendEmail(ctx, &ses.SendEmailInput{Source: aws.String("a@example.com"), Destination: &sestypes.Destination{ToAddresses: []string{"b@x.com"}},
			Message: &sestypes.Message{Subject: &sestypes.Content{Data: aws.String("s")}, Body: &sestypes.Body{}}}); err != nil {
			t.Fatal(err)
		}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := srv.Emulator.Shutdown(sctx); err != nil {
			t.Fatal(err)
		}
	}()

	srv := servertest.Start(t, servertest.WithPersistence(dir))
	c := sesClient(srv)
	l, err := c.ListIdentities(ctx, &ses.ListIdentitiesInput{})
	if err != nil || strings.Join(l.Identities, ",") != "a@example.com,example.org" {
		t.Fatalf("identities after restart %v, %v", l, err)
	}
	attrs, err := c.GetIdentityVerificationAttributes(ctx, &ses.GetIdentityVerificationAttributesInput{Identities: []string{"example.org"}})
	if err != nil || aws.ToString(attrs.VerificationAttributes["example.org"].VerificationToken) != token {
		t.Fatalf("domain token after restart %+v, %v", attrs, err)
	}
	g, err := c.GetTemplate(ctx, &ses.GetTemplateInput{TemplateName: aws.String("kept")})
	if err != nil || *g.Template.SubjectPart != "Hi {{n}}" {
		t.Fatalf("template after restart %+v, %v", g, err)
	}
	if n := len(srv.Emulator.Inbox().List(inbox.Filter{})); n != 0 {
		t.Fatalf("the inbox is memory only, yet holds %d entries after a restart", n)
	}
	// The restored identity still verifies its sender.
	if _, err := c.SendEmail(ctx, &ses.SendEmailInput{Source: aws.String("x@example.org"), Destination: &sestypes.Destination{ToAddresses: []string{"b@x.com"}},
		Message: &sestypes.Message{Subject: &sestypes.Content{Data: aws.String("s")}, Body: &sestypes.Body{}}}); err != nil {
		t.Fatalf("send from a restored domain: %v", err)
	}
}

// TestSESBadForm: query forms the SDK would not send get SES's 4xx
// (required members, values that do not fit the model), never a 5xx.
func TestSESBadForm(t *testing.T) {
	srv := servertest.Start(t)
	for _, tc := range []struct {
		form url.Values
		code string
	}{
		{url.Values{"Action": {"SendEmail"}}, "ValidationError"},
		{url.Values{"Action": {"SendEmail"}, "Source": {"a@x.com"}, "Message.Subject.Data": {"s"}}, "ValidationError"},
		{url.Values{"Action": {"SendEmail"}, "Source": {"a@x.com"}, "Destination.ToAddresses.member.1": {"b@x.com"},
			"Message.Subject.Data": {"s"}, "Message.Body.Text.Data": {"t"}}, "MessageRejected"},
		{url.Values{"Action": {"SendRawEmail"}, "RawMessage.Data": {"!!notbase64"}}, "ValidationError"},
		{url.Values{"Action": {"SendRawEmail"}}, "ValidationError"},
		{url.Values{"Action": {"ListIdentities"}, "MaxItems": {"abc"}}, "ValidationError"},
		{url.Values{"Action": {"ListIdentities"}, "MaxItems": {"0"}}, "InvalidParameterValue"},
		{url.Values{"Action": {"ListIdentities"}, "IdentityType": {"Bogus"}}, "InvalidParameterValue"},
		{url.Values{"Action": {"ListIdentities"}, "NextToken": {"forged"}}, "InvalidParameterValue"},
		{url.Values{"Action": {"GetTemplate"}}, "ValidationError"},
		{url.Values{"Action": {"CreateTemplate"}, "Template.TemplateName": {"no spaces allowed"}}, "InvalidParameterValue"},
		{url.Values{"Action": {"GetIdentityVerificationAttributes"}}, "ValidationError"},
		{url.Values{"Action": {"VerifyDomainIdentity"}, "Domain": {"not a domain"}}, "InvalidParameterValue"},
	} {
		tc.form.Set("Version", "2010-12-01")
		t.Run("form="+tc.form.Encode(), func(t *testing.T) {
			req, _ := http.NewRequest("POST", srv.URL+"/", strings.NewReader(tc.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/ses/aws4_request, SignedHeaders=host, Signature=x")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || !strings.Contains(string(b), "<Code>"+tc.code+"</Code>") {
				t.Fatalf("%d %s, want 400 %s", resp.StatusCode, b, tc.code)
			}
		})
	}
}
