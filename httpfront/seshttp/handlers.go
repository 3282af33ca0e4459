package seshttp

import (
	"strings"
	"time"

	"github.com/cloudemu/emulator/actors/ses"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
)

// Handlers returns the handler of every supported SES v1 operation, by
// operation name.
func Handlers(svc *ses.Service) map[string]awsrpc.Handler {
	h := &handlers{svc: svc}
	return map[string]awsrpc.Handler{
		"VerifyEmailIdentity":               h.verifyEmailIdentity,
		"VerifyEmailAddress":                h.verifyEmailAddress,
		"VerifyDomainIdentity":              h.verifyDomainIdentity,
		"ListIdentities":                    h.listIdentities,
		"ListVerifiedEmailAddresses":        h.listVerifiedEmailAddresses,
		"DeleteIdentity":                    h.deleteIdentity,
		"DeleteVerifiedEmailAddress":        h.deleteVerifiedEmailAddress,
		"GetIdentityVerificationAttributes": h.getIdentityVerificationAttributes,
		"SendEmail":                         h.sendEmail,
		"SendRawEmail":                      h.sendRawEmail,
		"SendTemplatedEmail":                h.sendTemplatedEmail,
		"CreateTemplate":                    h.createTemplate,
		"GetTemplate":                       h.getTemplate,
		"UpdateTemplate":                    h.updateTemplate,
		"ListTemplates":                     h.listTemplates,
		"DeleteTemplate":                    h.deleteTemplate,
		"TestRenderTemplate":                h.testRenderTemplate,
		"GetSendQuota":                      h.getSendQuota,
		"GetSendStatistics":                 h.getSendStatistics,
	}
}

// Partial lists the supported operations that are emulated only in part
// (docs/ses.md); the others are fully supported.
var Partial = []string{"SendEmail", "SendRawEmail", "SendTemplatedEmail", "GetSendStatistics"}

type handlers struct {
	svc *ses.Service
}

// required is the wire's check of the model's required members: the first
// one absent is AWS's ValidationError, naming it as the service does.
func required(members ...any) error {
	for i := 0; i+1 < len(members); i += 2 {
		name, v := members[i].(string), members[i+1]
		absent := false
		switch x := v.(type) {
		case string:
			absent = x == ""
		case []string:
			absent = x == nil
		case bool:
			absent = !x
		}
		if absent {
			return awswire.Errorf(awswire.SES, awswire.CodeValidationError,
				"1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null",
				strings.ToLower(name[:1])+name[1:])
		}
	}
	return nil
}

// ---- identities ----

type emailAddressInput struct {
	EmailAddress string `json:"EmailAddress"`
}

func (h *handlers) verifyEmailIdentity(c *awsrpc.Call) error {
	var in emailAddressInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("EmailAddress", in.EmailAddress); err != nil {
		return err
	}
	if err := h.svc.VerifyEmail(c.Scope, in.EmailAddress); err != nil {
		return err
	}
	return c.Reply(&struct{}{})
}

func (h *handlers) verifyEmailAddress(c *awsrpc.Call) error {
	var in emailAddressInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("EmailAddress", in.EmailAddress); err != nil {
		return err
	}
	if err := h.svc.VerifyEmail(c.Scope, in.EmailAddress); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h *handlers) verifyDomainIdentity(c *awsrpc.Call) error {
	var in struct {
		Domain string `json:"Domain"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("Domain", in.Domain); err != nil {
		return err
	}
	tok, err := h.svc.VerifyDomain(c.Scope, in.Domain)
	if err != nil {
		return err
	}
	return c.Reply(&struct {
		VerificationToken string `json:"VerificationToken"`
	}{tok})
}

func (h *handlers) listIdentities(c *awsrpc.Call) error {
	var in struct {
		IdentityType string `json:"IdentityType"`
		NextToken    string `json:"NextToken"`
		MaxItems     *int   `json:"MaxItems"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	n := 1000
	if in.MaxItems != nil {
		if *in.MaxItems < 1 || *in.MaxItems > 1000 {
			return ses.V1.Invalid("MaxItems must be between 1 and 1000.")
		}
		n = *in.MaxItems
	}
	p, err := h.svc.Identities(c.Scope, ses.V1, in.IdentityType, in.NextToken, n)
	if err != nil {
		return err
	}
	out := struct {
		Identities []string `json:"Identities"`
		NextToken  string   `json:"NextToken,omitempty"`
	}{Identities: make([]string, 0, len(p.Items)), NextToken: p.Next}
	for _, id := range p.Items {
		out.Identities = append(out.Identities, id.Name)
	}
	return c.Reply(&out)
}

func (h *handlers) listVerifiedEmailAddresses(c *awsrpc.Call) error {
	out := struct {
		VerifiedEmailAddresses []string `json:"VerifiedEmailAddresses"`
	}{VerifiedEmailAddresses: []string{}}
	token := ""
	for {
		p, err := h.svc.Identities(c.Scope, ses.V1, ses.TypeEmail, token, 1000)
		if err != nil {
			return err
		}
		for _, id := range p.Items {
			out.VerifiedEmailAddresses = append(out.VerifiedEmailAddresses, id.Name)
		}
		if token = p.Next; token == "" {
			break
		}
	}
	return c.Reply(&out)
}

func (h *handlers) deleteIdentity(c *awsrpc.Call) error {
	var in struct {
		Identity string `json:"Identity"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("Identity", in.Identity); err != nil {
		return err
	}
	if err := h.svc.DeleteIdentity(c.Scope, ses.V1, in.Identity); err != nil {
		return err
	}
	return c.Reply(&struct{}{})
}

func (h *handlers) deleteVerifiedEmailAddress(c *awsrpc.Call) error {
	var in emailAddressInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("EmailAddress", in.EmailAddress); err != nil {
		return err
	}
	if err := h.svc.DeleteIdentity(c.Scope, ses.V1, in.EmailAddress); err != nil {
		return err
	}
	return c.Reply(nil)
}

type verificationAttributes struct {
	VerificationStatus string `json:"VerificationStatus"`
	VerificationToken  string `json:"VerificationToken,omitempty"`
}

func (h *handlers) getIdentityVerificationAttributes(c *awsrpc.Call) error {
	var in struct {
		Identities []string `json:"Identities"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("Identities", in.Identities); err != nil {
		return err
	}
	if len(in.Identities) > 100 {
		return ses.V1.Invalid("At most 100 identities may be given.")
	}
	// Identities never verified are left out, as AWS does.
	attrs := map[string]verificationAttributes{}
	for _, name := range in.Identities {
		if id, ok := h.svc.Identity(c.Scope, name); ok {
			attrs[name] = verificationAttributes{VerificationStatus: "Success", VerificationToken: id.Token}
		}
	}
	return c.Reply(&struct {
		VerificationAttributes map[string]verificationAttributes `json:"VerificationAttributes"`
	}{attrs})
}

// ---- sending ----

type destination struct {
	ToAddresses  []string `json:"ToAddresses"`
	CcAddresses  []string `json:"CcAddresses"`
	BccAddresses []string `json:"BccAddresses"`
}

type content struct {
	Data    string `json:"Data"`
	Charset string `json:"Charset"`
}

type messageTag struct {
	Name  string `json:"Name"`
	Value string `json:"Value"`
}

func tags(in []messageTag) []ses.MessageTag {
	out := make([]ses.MessageTag, len(in))
	for i, t := range in {
		out[i] = ses.MessageTag{Name: t.Name, Value: t.Value}
	}
	return out
}

// sendHeader are the members SendEmail and SendTemplatedEmail share.
type sendHeader struct {
	Source               string       `json:"Source"`
	Destination          *destination `json:"Destination"`
	ReplyToAddresses     []string     `json:"ReplyToAddresses"`
	ReturnPath           string       `json:"ReturnPath"`
	Tags                 []messageTag `json:"Tags"`
	ConfigurationSetName string       `json:"ConfigurationSetName"`
}

func (s sendHeader) message(kind ses.Content) ses.Message {
	m := ses.Message{Content: kind, Source: s.Source, ReplyTo: s.ReplyToAddresses, Tags: tags(s.Tags)}
	if d := s.Destination; d != nil {
		m.To, m.Cc, m.Bcc = d.ToAddresses, d.CcAddresses, d.BccAddresses
	}
	return m
}

type messageIDOutput struct {
	MessageID string `json:"MessageId"`
}

func (h *handlers) sendEmail(c *awsrpc.Call) error {
	var in struct {
		sendHeader
		Message *struct {
			Subject *content `json:"Subject"`
			Body    *struct {
				Text *content `json:"Text"`
				HTML *content `json:"Html"`
			} `json:"Body"`
		} `json:"Message"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("Source", in.Source, "Destination", in.Destination != nil, "Message", in.Message != nil); err != nil {
		return err
	}
	m := in.message(ses.Simple)
	if msg := in.Message; msg != nil {
		if msg.Subject != nil {
			m.Subject = msg.Subject.Data
		}
		if b := msg.Body; b != nil {
			if b.Text != nil {
				m.Text = b.Text.Data
			}
			if b.HTML != nil {
				m.HTML = b.HTML.Data
			}
		}
	}
	id, err := h.svc.Send(c.Scope, ses.V1, m)
	if err != nil {
		return err
	}
	return c.Reply(&messageIDOutput{id})
}

func (h *handlers) sendRawEmail(c *awsrpc.Call) error {
	var in struct {
		Source       string   `json:"Source"`
		Destinations []string `json:"Destinations"`
		RawMessage   *struct {
			Data []byte `json:"Data"`
		} `json:"RawMessage"`
		Tags                 []messageTag `json:"Tags"`
		ConfigurationSetName string       `json:"ConfigurationSetName"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("RawMessage", in.RawMessage != nil); err != nil {
		return err
	}
	m := ses.Message{Content: ses.Raw, Source: in.Source, Destinations: in.Destinations, Tags: tags(in.Tags)}
	if in.RawMessage != nil {
		m.Raw = in.RawMessage.Data
	}
	id, err := h.svc.Send(c.Scope, ses.V1, m)
	if err != nil {
		return err
	}
	return c.Reply(&messageIDOutput{id})
}

func (h *handlers) sendTemplatedEmail(c *awsrpc.Call) error {
	var in struct {
		sendHeader
		Template     string `json:"Template"`
		TemplateData string `json:"TemplateData"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("Source", in.Source, "Destination", in.Destination != nil, "Template", in.Template, "TemplateData", in.TemplateData); err != nil {
		return err
	}
	m := in.message(ses.Templated)
	m.Template, m.TemplateData = in.Template, in.TemplateData
	id, err := h.svc.Send(c.Scope, ses.V1, m)
	if err != nil {
		return err
	}
	return c.Reply(&messageIDOutput{id})
}

func (h *handlers) getSendQuota(c *awsrpc.Call) error {
	return c.Reply(&struct {
		Max24HourSend   float64 `json:"Max24HourSend"`
		MaxSendRate     float64 `json:"MaxSendRate"`
		SentLast24Hours float64 `json:"SentLast24Hours"`
	}{ses.Max24HourSend, ses.MaxSendRate, float64(h.svc.SentLast24Hours(c.Scope))})
}

type sendDataPoint struct {
	Timestamp        time.Time `json:"Timestamp"`
	DeliveryAttempts int64     `json:"DeliveryAttempts"`
	Bounces          int64     `json:"Bounces"`
	Complaints       int64     `json:"Complaints"`
	Rejects          int64     `json:"Rejects"`
}

func (h *handlers) getSendStatistics(c *awsrpc.Call) error {
	out := struct {
		SendDataPoints []sendDataPoint `json:"SendDataPoints"`
	}{SendDataPoints: []sendDataPoint{}}
	for _, p := range h.svc.SendStatistics(c.Scope) {
		out.SendDataPoints = append(out.SendDataPoints, sendDataPoint{Timestamp: p.Start, DeliveryAttempts: p.Sent})
	}
	return c.Reply(&out)
}

// ---- templates ----

type template struct {
	TemplateName string `json:"TemplateName"`
	SubjectPart  string `json:"SubjectPart,omitempty"`
	TextPart     string `json:"TextPart,omitempty"`
	HTMLPart     string `json:"HtmlPart,omitempty"`
}

type templateInput struct {
	Template *template `json:"Template"`
}

func (t *templateInput) content() (string, ses.TemplateContent) {
	if t.Template == nil {
		return "", ses.TemplateContent{}
	}
	return t.Template.TemplateName, ses.TemplateContent{Subject: t.Template.SubjectPart,
		Text: t.Template.TextPart, HTML: t.Template.HTMLPart}
}

func (h *handlers) createTemplate(c *awsrpc.Call) error {
	var in templateInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("Template", in.Template != nil); err != nil {
		return err
	}
	name, tc := in.content()
	if _, err := h.svc.CreateTemplate(c.Scope, ses.V1, name, tc, nil); err != nil {
		return err
	}
	return c.Reply(&struct{}{})
}

func (h *handlers) updateTemplate(c *awsrpc.Call) error {
	var in templateInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("Template", in.Template != nil); err != nil {
		return err
	}
	name, tc := in.content()
	if err := h.svc.UpdateTemplate(c.Scope, ses.V1, name, tc); err != nil {
		return err
	}
	return c.Reply(&struct{}{})
}

type templateNameInput struct {
	TemplateName string `json:"TemplateName"`
}

func (h *handlers) getTemplate(c *awsrpc.Call) error {
	var in templateNameInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("TemplateName", in.TemplateName); err != nil {
		return err
	}
	t, ok := h.svc.Template(c.Scope, in.TemplateName)
	if !ok {
		return ses.V1.TemplateNotFound(in.TemplateName)
	}
	return c.Reply(&struct {
		Template template `json:"Template"`
	}{template{TemplateName: t.Name, SubjectPart: t.Subject, TextPart: t.Text, HTMLPart: t.HTML}})
}

func (h *handlers) listTemplates(c *awsrpc.Call) error {
	var in struct {
		NextToken string `json:"NextToken"`
		MaxItems  *int   `json:"MaxItems"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	// AWS's default page is 10; past 100 it gives 100.
	n := 10
	if in.MaxItems != nil {
		if *in.MaxItems < 1 {
			return ses.V1.Invalid("MaxItems must be at least 1.")
		}
		n = min(*in.MaxItems, 100)
	}
	p, err := h.svc.Templates(c.Scope, ses.V1, in.NextToken, n)
	if err != nil {
		return err
	}
	type metadata struct {
		Name             string    `json:"Name"`
		CreatedTimestamp time.Time `json:"CreatedTimestamp"`
	}
	out := struct {
		TemplatesMetadata []metadata `json:"TemplatesMetadata"`
		NextToken         string     `json:"NextToken,omitempty"`
	}{TemplatesMetadata: make([]metadata, 0, len(p.Items)), NextToken: p.Next}
	for _, t := range p.Items {
		out.TemplatesMetadata = append(out.TemplatesMetadata, metadata{t.Name, time.UnixMilli(t.Created).UTC()})
	}
	return c.Reply(&out)
}

func (h *handlers) deleteTemplate(c *awsrpc.Call) error {
	var in templateNameInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("TemplateName", in.TemplateName); err != nil {
		return err
	}
	if err := h.svc.DeleteTemplate(c.Scope, ses.V1, in.TemplateName); err != nil {
		return err
	}
	return c.Reply(&struct{}{})
}

func (h *handlers) testRenderTemplate(c *awsrpc.Call) error {
	var in struct {
		TemplateName string `json:"TemplateName"`
		TemplateData string `json:"TemplateData"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := required("TemplateName", in.TemplateName, "TemplateData", in.TemplateData); err != nil {
		return err
	}
	out, err := h.svc.TestRender(c.Scope, ses.V1, in.TemplateName, in.TemplateData)
	if err != nil {
		return err
	}
	return c.Reply(&struct {
		RenderedTemplate string `json:"RenderedTemplate"`
	}{out})
}
