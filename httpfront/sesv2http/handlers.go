package sesv2http

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/actors/ses"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// Handlers returns the handler of every supported SES v2 operation, by
// operation name.
func Handlers(svc *ses.Service) map[string]restjson.Handler {
	h := &handlers{svc: svc}
	return map[string]restjson.Handler{
		"SendEmail":               h.sendEmail,
		"CreateEmailIdentity":     h.createEmailIdentity,
		"GetEmailIdentity":        h.getEmailIdentity,
		"ListEmailIdentities":     h.listEmailIdentities,
		"DeleteEmailIdentity":     h.deleteEmailIdentity,
		"CreateEmailTemplate":     h.createEmailTemplate,
		"GetEmailTemplate":        h.getEmailTemplate,
		"ListEmailTemplates":      h.listEmailTemplates,
		"DeleteEmailTemplate":     h.deleteEmailTemplate,
		"UpdateEmailTemplate":     h.updateEmailTemplate,
		"TestRenderEmailTemplate": h.testRenderEmailTemplate,
		"GetAccount":              h.getAccount,
	}
}

// Partial lists the supported operations that are emulated only in part
// (docs/ses.md); the others are fully supported.
var Partial = []string{"SendEmail", "CreateEmailIdentity", "GetEmailIdentity", "GetAccount"}

type handlers struct {
	svc *ses.Service
}

// decode decodes the JSON body into v; an empty body is {}. A body that is
// not the operation's JSON is BadRequestException.
func decode(c *restjson.Call, v any) error {
	body := bytes.TrimSpace(c.Ctx.PostBody())
	if len(body) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return ses.V2.Invalid("Invalid type for member %s: %s", te.Field, te.Value)
		}
		return ses.V2.Invalid("The request body is not valid JSON.")
	}
	return nil
}

// label is a required path label.
func label(c *restjson.Call, name string) (string, error) {
	v, err := c.Label(name)
	if err != nil || v == "" {
		return "", ses.V2.Invalid("Invalid or missing %s.", name)
	}
	return v, nil
}

// pageQuery reads NextToken and PageSize (1 to max; def when absent).
func pageQuery(c *restjson.Call, def, max int) (token string, n int, err error) {
	token, _ = c.Query("NextToken")
	n = def
	if v, ok := c.Query("PageSize"); ok {
		i, perr := strconv.Atoi(v)
		if perr != nil || i < 1 || i > max {
			return "", 0, ses.V2.Invalid("PageSize must be a number from 1 to %d.", max)
		}
		n = i
	}
	return token, n, nil
}

// ---- identities ----

type tag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

func toTags(in []tag) []ses.Tag {
	if len(in) == 0 {
		return nil
	}
	out := make([]ses.Tag, len(in))
	for i, t := range in {
		out[i] = ses.Tag{Key: t.Key, Value: t.Value}
	}
	return out
}

func fromTags(in []ses.Tag) []tag {
	out := make([]tag, len(in))
	for i, t := range in {
		out[i] = tag{t.Key, t.Value}
	}
	return out
}

func identityType(id *ses.Identity) string {
	if id.Type == ses.TypeDomain {
		return "DOMAIN"
	}
	return "EMAIL_ADDRESS"
}

type dkimAttributes struct {
	SigningEnabled             bool          `json:"SigningEnabled"`
	Status                     string        `json:"Status"`
	Tokens                     []string      `json:"Tokens,omitempty"`
	SigningAttributesOrigin    string        `json:"SigningAttributesOrigin"`
	NextSigningKeyLength       string        `json:"NextSigningKeyLength,omitempty"`
	CurrentSigningKeyLength    string        `json:"CurrentSigningKeyLength,omitempty"`
	LastKeyGenerationTimestamp awswire.Epoch `json:"LastKeyGenerationTimestamp,omitempty"`
}

// dkim is Easy DKIM as AWS reports it: a domain signs with three tokens,
// verified at once; an address does not sign.
func dkim(id *ses.Identity) dkimAttributes {
	if id.Type != ses.TypeDomain {
		return dkimAttributes{Status: "NOT_STARTED", SigningAttributesOrigin: "AWS_SES"}
	}
	return dkimAttributes{SigningEnabled: true, Status: "SUCCESS", Tokens: id.DkimTokens,
		SigningAttributesOrigin: "AWS_SES", NextSigningKeyLength: "RSA_2048_BIT",
		CurrentSigningKeyLength: "RSA_2048_BIT", LastKeyGenerationTimestamp: awswire.Epoch(id.Created)}
}

func (h *handlers) createEmailIdentity(c *restjson.Call) error {
	var in struct {
		EmailIdentity string `json:"EmailIdentity"`
		Tags          []tag  `json:"Tags"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	id, err := h.svc.CreateIdentity(c.Scope, in.EmailIdentity, toTags(in.Tags))
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, struct {
		IdentityType             string         `json:"IdentityType"`
		VerifiedForSendingStatus bool           `json:"VerifiedForSendingStatus"`
		DkimAttributes           dkimAttributes `json:"DkimAttributes"`
	}{identityType(id), true, dkim(id)})
}

func (h *handlers) getEmailIdentity(c *restjson.Call) error {
	name, err := label(c, "EmailIdentity")
	if err != nil {
		return err
	}
	id, ok := h.svc.Identity(c.Scope, name)
	if !ok {
		return ses.IdentityNotFound(name)
	}
	type mailFrom struct {
		MailFromDomain       string `json:"MailFromDomain"`
		MailFromDomainStatus string `json:"MailFromDomainStatus"`
		BehaviorOnMxFailure  string `json:"BehaviorOnMxFailure"`
	}
	type verificationInfo struct {
		LastCheckedTimestamp awswire.Epoch `json:"LastCheckedTimestamp"`
		LastSuccessTimestamp awswire.Epoch `json:"LastSuccessTimestamp"`
	}
	return c.JSON(c.Op.Status, struct {
		IdentityType             string            `json:"IdentityType"`
		FeedbackForwardingStatus bool              `json:"FeedbackForwardingStatus"`
		VerifiedForSendingStatus bool              `json:"VerifiedForSendingStatus"`
		DkimAttributes           dkimAttributes    `json:"DkimAttributes"`
		MailFromAttributes       mailFrom          `json:"MailFromAttributes"`
		Policies                 map[string]string `json:"Policies"`
		Tags                     []tag             `json:"Tags"`
		VerificationStatus       string            `json:"VerificationStatus"`
		VerificationInfo         verificationInfo  `json:"VerificationInfo"`
	}{
		IdentityType: identityType(id), FeedbackForwardingStatus: true, VerifiedForSendingStatus: true,
		DkimAttributes: dkim(id), MailFromAttributes: mailFrom{BehaviorOnMxFailure: "USE_DEFAULT_VALUE"},
		Policies: map[string]string{}, Tags: fromTags(id.Tags), VerificationStatus: "SUCCESS",
		VerificationInfo: verificationInfo{awswire.Epoch(id.Created), awswire.Epoch(id.Created)},
	})
}

func (h *handlers) listEmailIdentities(c *restjson.Call) error {
	token, n, err := pageQuery(c, 100, 1000)
	if err != nil {
		return err
	}
	if c.Ctx.IsPost() {
		// Current SDKs POST the page's members to /v2/email/list-identities.
		var in struct {
			NextToken string `json:"NextToken"`
			PageSize  *int   `json:"PageSize"`
		}
		if err := decode(c, &in); err != nil {
			return err
		}
		token = in.NextToken
		if in.PageSize != nil {
			if *in.PageSize < 1 || *in.PageSize > 1000 {
				return ses.V2.Invalid("PageSize must be a number from 1 to 1000.")
			}
			n = *in.PageSize
		}
	}
	p, err := h.svc.Identities(c.Scope, ses.V2, "", token, n)
	if err != nil {
		return err
	}
	type info struct {
		IdentityType       string `json:"IdentityType"`
		IdentityName       string `json:"IdentityName"`
		SendingEnabled     bool   `json:"SendingEnabled"`
		VerificationStatus string `json:"VerificationStatus"`
	}
	out := struct {
		EmailIdentities []info `json:"EmailIdentities"`
		NextToken       string `json:"NextToken,omitempty"`
	}{EmailIdentities: make([]info, 0, len(p.Items)), NextToken: p.Next}
	for _, id := range p.Items {
		out.EmailIdentities = append(out.EmailIdentities, info{identityType(id), id.Name, true, "SUCCESS"})
	}
	return c.JSON(c.Op.Status, out)
}

func (h *handlers) deleteEmailIdentity(c *restjson.Call) error {
	name, err := label(c, "EmailIdentity")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteIdentity(c.Scope, ses.V2, name); err != nil {
		return err
	}
	return c.JSON(c.Op.Status, struct{}{})
}

// ---- templates ----

type templateContent struct {
	Subject string `json:"Subject,omitempty"`
	Text    string `json:"Text,omitempty"`
	HTML    string `json:"Html,omitempty"`
}

func (t *templateContent) content() ses.TemplateContent {
	if t == nil {
		return ses.TemplateContent{}
	}
	return ses.TemplateContent{Subject: t.Subject, Text: t.Text, HTML: t.HTML}
}

func (h *handlers) createEmailTemplate(c *restjson.Call) error {
	var in struct {
		TemplateName    string           `json:"TemplateName"`
		TemplateContent *templateContent `json:"TemplateContent"`
		Tags            []tag            `json:"Tags"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.TemplateContent == nil {
		return ses.V2.Invalid("TemplateContent is required.")
	}
	if _, err := h.svc.CreateTemplate(c.Scope, ses.V2, in.TemplateName, in.TemplateContent.content(), toTags(in.Tags)); err != nil {
		return err
	}
	return c.JSON(c.Op.Status, struct{}{})
}

func (h *handlers) getEmailTemplate(c *restjson.Call) error {
	name, err := label(c, "TemplateName")
	if err != nil {
		return err
	}
	t, ok := h.svc.Template(c.Scope, name)
	if !ok {
		return ses.V2.TemplateNotFound(name)
	}
	return c.JSON(c.Op.Status, struct {
		TemplateName    string          `json:"TemplateName"`
		TemplateContent templateContent `json:"TemplateContent"`
		Tags            []tag           `json:"Tags"`
	}{t.Name, templateContent{t.Subject, t.Text, t.HTML}, fromTags(t.Tags)})
}

func (h *handlers) listEmailTemplates(c *restjson.Call) error {
	token, n, err := pageQuery(c, 10, 100)
	if err != nil {
		return err
	}
	p, err := h.svc.Templates(c.Scope, ses.V2, token, n)
	if err != nil {
		return err
	}
	type metadata struct {
		TemplateName     string        `json:"TemplateName"`
		CreatedTimestamp awswire.Epoch `json:"CreatedTimestamp"`
	}
	out := struct {
		TemplatesMetadata []metadata `json:"TemplatesMetadata"`
		NextToken         string     `json:"NextToken,omitempty"`
	}{TemplatesMetadata: make([]metadata, 0, len(p.Items)), NextToken: p.Next}
	for _, t := range p.Items {
		out.TemplatesMetadata = append(out.TemplatesMetadata, metadata{t.Name, awswire.Epoch(t.Created)})
	}
	return c.JSON(c.Op.Status, out)
}

func (h *handlers) deleteEmailTemplate(c *restjson.Call) error {
	name, err := label(c, "TemplateName")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteTemplate(c.Scope, ses.V2, name); err != nil {
		return err
	}
	return c.JSON(c.Op.Status, struct{}{})
}

func (h *handlers) updateEmailTemplate(c *restjson.Call) error {
	name, err := label(c, "TemplateName")
	if err != nil {
		return err
	}
	var in struct {
		TemplateContent *templateContent `json:"TemplateContent"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.TemplateContent == nil {
		return ses.V2.Invalid("TemplateContent is required.")
	}
	if err := h.svc.UpdateTemplate(c.Scope, ses.V2, name, in.TemplateContent.content()); err != nil {
		return err
	}
	return c.JSON(c.Op.Status, struct{}{})
}

func (h *handlers) testRenderEmailTemplate(c *restjson.Call) error {
	name, err := label(c, "TemplateName")
	if err != nil {
		return err
	}
	var in struct {
		TemplateData string `json:"TemplateData"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	out, err := h.svc.TestRender(c.Scope, ses.V2, name, in.TemplateData)
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, struct {
		RenderedTemplate string `json:"RenderedTemplate"`
	}{out})
}

// ---- sending ----

type content struct {
	Data    string `json:"Data"`
	Charset string `json:"Charset"`
}

func (h *handlers) sendEmail(c *restjson.Call) error {
	var in struct {
		FromEmailAddress string `json:"FromEmailAddress"`
		Destination      *struct {
			ToAddresses  []string `json:"ToAddresses"`
			CcAddresses  []string `json:"CcAddresses"`
			BccAddresses []string `json:"BccAddresses"`
		} `json:"Destination"`
		ReplyToAddresses []string `json:"ReplyToAddresses"`
		Content          *struct {
			Simple *struct {
				Subject *content `json:"Subject"`
				Body    *struct {
					Text *content `json:"Text"`
					HTML *content `json:"Html"`
				} `json:"Body"`
			} `json:"Simple"`
			Raw *struct {
				Data []byte `json:"Data"`
			} `json:"Raw"`
			Template *struct {
				TemplateName    string           `json:"TemplateName"`
				TemplateArn     string           `json:"TemplateArn"`
				TemplateContent *templateContent `json:"TemplateContent"`
				TemplateData    *string          `json:"TemplateData"`
			} `json:"Template"`
		} `json:"Content"`
		EmailTags []struct {
			Name  string `json:"Name"`
			Value string `json:"Value"`
		} `json:"EmailTags"`
		ConfigurationSetName string `json:"ConfigurationSetName"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	m := ses.Message{Source: in.FromEmailAddress, ReplyTo: in.ReplyToAddresses}
	for _, t := range in.EmailTags {
		m.Tags = append(m.Tags, ses.MessageTag{Name: t.Name, Value: t.Value})
	}
	if d := in.Destination; d != nil {
		m.To, m.Cc, m.Bcc = d.ToAddresses, d.CcAddresses, d.BccAddresses
	}
	ct := in.Content
	switch {
	case ct == nil || !oneOf(ct.Simple != nil, ct.Raw != nil, ct.Template != nil):
		return ses.V2.Invalid("Content must hold exactly one of Simple, Raw and Template.")
	case ct.Simple != nil:
		m.Content = ses.Simple
		if s := ct.Simple.Subject; s != nil {
			m.Subject = s.Data
		}
		if b := ct.Simple.Body; b != nil {
			if b.Text != nil {
				m.Text = b.Text.Data
			}
			if b.HTML != nil {
				m.HTML = b.HTML.Data
			}
		}
	case ct.Raw != nil:
		m.Content = ses.Raw
		m.Raw = ct.Raw.Data
		m.Destinations = append(append(append([]string(nil), m.To...), m.Cc...), m.Bcc...)
		m.To, m.Cc, m.Bcc = nil, nil, nil
	default:
		t := ct.Template
		m.Content = ses.Templated
		m.Template = t.TemplateName
		if m.Template == "" && t.TemplateArn != "" {
			// arn:aws:ses:region:account:template/name
			if _, name, ok := strings.Cut(t.TemplateArn, ":template/"); ok {
				m.Template = name
			}
		}
		if t.TemplateContent != nil {
			tc := t.TemplateContent.content()
			m.TemplateContent = &tc
		} else if m.Template == "" {
			return ses.V2.Invalid("Template must name a template or hold its content.")
		}
		if t.TemplateData == nil {
			return ses.V2.Invalid("TemplateData is required.")
		}
		m.TemplateData = *t.TemplateData
	}
	id, err := h.svc.Send(c.Scope, ses.V2, m)
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, struct {
		MessageID string `json:"MessageId"`
	}{id})
}

// oneOf reports whether exactly one of bs is true.
func oneOf(bs ...bool) bool {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n == 1
}

// ---- account ----

func (h *handlers) getAccount(c *restjson.Call) error {
	type quota struct {
		Max24HourSend   float64 `json:"Max24HourSend"`
		MaxSendRate     float64 `json:"MaxSendRate"`
		SentLast24Hours float64 `json:"SentLast24Hours"`
	}
	type suppression struct {
		SuppressedReasons []string `json:"SuppressedReasons"`
	}
	return c.JSON(c.Op.Status, struct {
		DedicatedIPAutoWarmupEnabled bool        `json:"DedicatedIpAutoWarmupEnabled"`
		EnforcementStatus            string      `json:"EnforcementStatus"`
		ProductionAccessEnabled      bool        `json:"ProductionAccessEnabled"`
		SendQuota                    quota       `json:"SendQuota"`
		SendingEnabled               bool        `json:"SendingEnabled"`
		SuppressionAttributes        suppression `json:"SuppressionAttributes"`
	}{
		EnforcementStatus: "HEALTHY",
		SendQuota:         quota{ses.Max24HourSend, ses.MaxSendRate, float64(h.svc.SentLast24Hours(c.Scope))},
		SendingEnabled:    true, SuppressionAttributes: suppression{SuppressedReasons: []string{}},
	})
}
