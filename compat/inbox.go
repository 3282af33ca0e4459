package compat

import (
	"net/http"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/inbox"
)

// The inbox: /_emulator/ses/inbox/messages serves every captured entry in
// the emulator's own shape; the compatibility paths serve one kind each in
// the shape other emulators' clients parse.

const pathInbox = "/_emulator/ses/inbox/messages"

// inboxRoutes serve the inbox and its compatibility paths in every
// spelling.
func (h *endpoints) inboxRoutes() []Route {
	var rs []Route
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		rs = append(rs, Route{m, pathInbox, h.inbox})
		for _, base := range []string{"/_cloud/ses", "/_compat/ses"} {
			for _, p := range Spellings(base) {
				rs = append(rs, Route{m, p, h.mailAlias})
			}
		}
		for _, base := range []string{"/_cloud/sns/sms-messages", "/_compat/sns/sms-messages"} {
			for _, p := range Spellings(base) {
				rs = append(rs, Route{m, p, h.smsAlias})
			}
		}
		for _, base := range []string{"/_cloud/sns/platform-endpoint-messages", "/_compat/sns/platform-endpoint-messages"} {
			for _, p := range Spellings(base) {
				rs = append(rs, Route{m, p, h.pushAlias})
			}
		}
	}
	return rs
}

// query returns a query parameter, empty when absent.
func query(c *restjson.Call, name string) string {
	v, _ := c.Query(name)
	return v
}

// inbox answers GET with the entries the query selects ({"messages":[…]},
// oldest first, a page of limit entries, with nextToken when more follow)
// and DELETE by removing them ({"deleted":n}). Parameters: id, kind, email
// (a mail's source or any recipient), account, region, phoneNumber,
// targetArn; limit and nextToken for GET.
func (h *endpoints) inbox(c *restjson.Call) error {
	f := inbox.Filter{ID: query(c, "id"), Kind: inbox.Kind(query(c, "kind")), Email: query(c, "email"),
		Account: query(c, "account"), Region: query(c, "region"),
		PhoneNumber: query(c, "phoneNumber"), TargetArn: query(c, "targetArn")}
	switch f.Kind {
	case "", inbox.Email, inbox.SMS, inbox.Push:
	default:
		return awswire.New(awswire.ServiceNone, awswire.CodeBadRequest,
			"kind must be email, sms or push, not "+string(f.Kind)+".")
	}
	if h.d.Inbox == nil {
		return c.JSON(http.StatusOK, struct {
			Messages []*inbox.Entry `json:"messages"`
		}{[]*inbox.Entry{}})
	}
	if string(c.Ctx.Method()) == http.MethodDelete {
		return c.JSON(http.StatusOK, struct {
			Deleted int `json:"deleted"`
		}{h.d.Inbox.Delete(f)})
	}
	limit, present, err := c.QueryInt("limit", 1, maxPage)
	if err != nil {
		return err
	}
	if !present {
		limit = defaultPage
	}
	entries, more := h.d.Inbox.Page(f, query(c, "nextToken"), limit)
	out := struct {
		Messages  []*inbox.Entry `json:"messages"`
		NextToken string         `json:"nextToken,omitempty"`
	}{Messages: entries}
	if out.Messages == nil {
		out.Messages = []*inbox.Entry{}
	}
	if more {
		out.NextToken = entries[len(entries)-1].ID
	}
	return c.JSON(http.StatusOK, out)
}

// Pages of the emulator's own inbox and peek endpoints: limit, at most
// maxPage, defaultPage when not given.
const (
	defaultPage = 1000
	maxPage     = 10000
)

// mailAlias answers as other emulators' mail endpoint: GET
// {"messages":[…]} of the mail whose id and source (exactly) match the
// id and email parameters; DELETE removes the mail with that id, or all
// mail, and answers 204. Region and RawData are not in the entries.
func (h *endpoints) mailAlias(c *restjson.Call) error {
	id, source := query(c, "id"), query(c, "email")
	if string(c.Ctx.Method()) == http.MethodDelete {
		if h.d.Inbox != nil {
			h.d.Inbox.Delete(inbox.Filter{Kind: inbox.Email, ID: id})
		}
		c.Empty(http.StatusNoContent)
		return nil
	}
	out := []legacyMail{}
	if h.d.Inbox != nil {
		for _, e := range h.d.Inbox.List(inbox.Filter{Kind: inbox.Email, ID: id}) {
			if source != "" && e.Source != source {
				continue
			}
			out = append(out, newLegacyMail(e))
		}
	}
	return c.JSON(http.StatusOK, struct {
		Messages []legacyMail `json:"messages"`
	}{out})
}

type legacyDestination struct {
	ToAddresses  []string `json:"ToAddresses,omitempty"`
	CcAddresses  []string `json:"CcAddresses,omitempty"`
	BccAddresses []string `json:"BccAddresses,omitempty"`
}

type legacyBody struct {
	TextPart *string `json:"text_part"`
	HTMLPart *string `json:"html_part"`
}

type legacyMail struct {
	ID           string             `json:"Id"`
	Timestamp    string             `json:"Timestamp"`
	Destination  *legacyDestination `json:"Destination,omitempty"`
	Source       string             `json:"Source"`
	Subject      string             `json:"Subject,omitempty"`
	Template     string             `json:"Template,omitempty"`
	TemplateData string             `json:"TemplateData,omitempty"`
	Body         *legacyBody        `json:"Body,omitempty"`
}

// legacyTime is the legacy endpoints' timestamp: UTC to the second, no zone.
const legacyTime = "2006-01-02T15:04:05"

func newLegacyMail(e *inbox.Entry) legacyMail {
	m := legacyMail{ID: e.ID, Timestamp: e.Timestamp.UTC().Format(legacyTime), Source: e.Source,
		Subject: e.Subject, Template: e.Template, TemplateData: e.TemplateData}
	if d := e.Destinations; d != nil {
		m.Destination = &legacyDestination{ToAddresses: d.To, CcAddresses: d.Cc, BccAddresses: d.Bcc}
	}
	if e.Raw == "" || e.Text != "" || e.HTML != "" {
		b := &legacyBody{}
		if e.Text != "" {
			b.TextPart = &e.Text
		}
		if e.HTML != "" {
			b.HTMLPart = &e.HTML
		}
		m.Body = b
	}
	return m
}

// legacyAttribute is a message attribute as published.
type legacyAttribute struct {
	DataType    string `json:"DataType"`
	StringValue string `json:"StringValue,omitempty"`
	BinaryValue []byte `json:"BinaryValue,omitempty"`
}

// legacySNSMessage is a short message or a push as other emulators list
// them; TargetArn only for pushes, PhoneNumber and SubscriptionArn only
// for short messages.
type legacySNSMessage struct {
	PhoneNumber       string                     `json:"PhoneNumber,omitempty"`
	TargetArn         string                     `json:"TargetArn,omitempty"`
	TopicArn          string                     `json:"TopicArn,omitempty"`
	SubscriptionArn   string                     `json:"SubscriptionArn,omitempty"`
	MessageID         string                     `json:"MessageId"`
	Message           string                     `json:"Message"`
	MessageAttributes map[string]legacyAttribute `json:"MessageAttributes,omitempty"`
	MessageStructure  string                     `json:"MessageStructure,omitempty"`
	Subject           string                     `json:"Subject,omitempty"`
}

func newLegacySNSMessage(e *inbox.Entry) legacySNSMessage {
	m := legacySNSMessage{PhoneNumber: e.PhoneNumber, TopicArn: e.TopicArn, MessageID: e.ID,
		Message: e.Message, MessageStructure: e.MessageStructure, Subject: e.Subject}
	if e.Kind == inbox.Push {
		m.PhoneNumber, m.TargetArn = "", e.TargetArn
	} else {
		m.SubscriptionArn = e.SubscriptionArn
	}
	if len(e.MessageAttributes) > 0 {
		m.MessageAttributes = make(map[string]legacyAttribute, len(e.MessageAttributes))
		for k, a := range e.MessageAttributes {
			m.MessageAttributes[k] = legacyAttribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: a.BinaryValue}
		}
	}
	return m
}

// snsScope is the account and region a legacy SNS endpoint reads:
// accountId and region parameters, else the default account and the
// emulator's default region; an endpoint ARN names both.
func (h *endpoints) snsScope(c *restjson.Call, arn string) (account, region string) {
	account, region = query(c, "accountId"), query(c, "region")
	if a, ok := awswire.ParseARN(arn); ok {
		account, region = a.Account, a.Region
	}
	if account == "" {
		account = awswire.DefaultAccount
	}
	if region == "" {
		region = h.d.Config.DefaultRegion
	}
	return account, region
}

// smsAlias answers as other emulators' SMS endpoint: GET
// {"sms_messages":{phone:[…]},"region":…} for one account and region
// (accountId, region, phoneNumber parameters); DELETE removes them, 204.
func (h *endpoints) smsAlias(c *restjson.Call) error {
	phone := query(c, "phoneNumber")
	account, region := h.snsScope(c, "")
	return h.snsAlias(c, inbox.Filter{Kind: inbox.SMS, Account: account, Region: region, PhoneNumber: phone},
		"sms_messages", phone, func(e *inbox.Entry) string { return e.PhoneNumber })
}

// pushAlias answers as other emulators' platform endpoint messages:
// GET {"platform_endpoint_messages":{arn:[…]},"region":…} (accountId,
// region, endpointArn parameters); DELETE removes them, 204.
func (h *endpoints) pushAlias(c *restjson.Call) error {
	arn := query(c, "endpointArn")
	account, region := h.snsScope(c, arn)
	return h.snsAlias(c, inbox.Filter{Kind: inbox.Push, Account: account, Region: region, TargetArn: arn},
		"platform_endpoint_messages", arn, func(e *inbox.Entry) string { return e.TargetArn })
}

func (h *endpoints) snsAlias(c *restjson.Call, f inbox.Filter, member, only string, key func(*inbox.Entry) string) error {
	if string(c.Ctx.Method()) == http.MethodDelete {
		if h.d.Inbox != nil {
			h.d.Inbox.Delete(f)
		}
		c.Empty(http.StatusNoContent)
		return nil
	}
	groups := map[string][]legacySNSMessage{}
	if only != "" {
		groups[only] = []legacySNSMessage{}
	}
	if h.d.Inbox != nil {
		for _, e := range h.d.Inbox.List(f) {
			groups[key(e)] = append(groups[key(e)], newLegacySNSMessage(e))
		}
	}
	return c.JSON(http.StatusOK, map[string]any{member: groups, "region": f.Region})
}
