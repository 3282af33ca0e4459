package ses

import (
	"fmt"
	"net/mail"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/inbox"
)

// Message size limits: v1's SendRawEmail takes 10 MB, v2's SendEmail 40 MB
// (after base64 decoding).
const (
	MaxRawBytesV1 = 10 << 20
	MaxRawBytesV2 = 40 << 20
)

// MaxRecipients is how many To, Cc and Bcc addresses one message may have.
const MaxRecipients = 50

// Content says what a Message carries.
type Content uint8

// The contents.
const (
	Simple    Content = iota + 1 // a subject and text and HTML bodies
	Raw                          // a MIME message
	Templated                    // a stored or inline template and its data
)

// Message is one message to send, as either API describes it.
type Message struct {
	Content Content
	// Source is the sender (v1 Source, v2 FromEmailAddress); a raw
	// message without one is sent from its From header.
	Source      string
	To, Cc, Bcc []string
	ReplyTo     []string
	// Simple.
	Subject, Text, HTML string
	// Raw: the MIME message, and the call's Destinations (which, when
	// given, replace the headers' recipients).
	Raw          []byte
	Destinations []string
	// Templated: the template's name, or (v2) its inline content, and the
	// JSON data it is rendered with.
	Template        string
	TemplateContent *TemplateContent
	TemplateData    string
	// Tags are the message's tags (v1 Tags, v2 EmailTags).
	Tags []MessageTag
}

// MessageTag is a tag on one message, for event publishing.
type MessageTag struct {
	Name, Value string
}

// checkMessageTags applies AWS's rules to message tags, with its recorded
// messages: names of ASCII letters, digits, _ and - (or AWS's own ses:
// tags), values also . and @, each 1 to 255 characters.
func checkMessageTags(a API, tags []MessageTag) error {
	for _, t := range tags {
		name := strings.TrimPrefix(t.Name, "ses:")
		switch {
		case t.Name == "":
			return a.Invalid("The tag name must be specified.")
		case len(t.Name) > 255:
			return a.Invalid("Tag name cannot exceed 255 characters.")
		case !tagChars(name, ""):
			return a.Invalid("Invalid tag name <%s>: only alphanumeric ASCII characters, '_',  '-' are allowed.", t.Name)
		case t.Value == "":
			return a.Invalid("The tag value must be specified.")
		case len(t.Value) > 255:
			return a.Invalid("Tag value cannot exceed 255 characters.")
		case !tagChars(t.Value, ".@"):
			return a.Invalid("Invalid tag value <%s>: only alphanumeric ASCII characters, '_',  '-' , '.', '@' are allowed.", t.Value)
		}
	}
	return nil
}

func tagChars(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' ||
			strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

// Send checks m as AWS does, counts it, captures it in the inbox and
// returns its MessageId. A sender that is not verified is MessageRejected
// unless the service does not require verification. A templated message
// whose data lacks a variable is accepted but not delivered (AWS's
// rendering failure): it is counted and logged, not captured.
func (s *Service) Send(sc awswire.Scope, a API, m Message) (string, error) {
	// Before the sender's check: a reset after it drops the mail.
	var epoch uint64
	if s.opts.Inbox != nil {
		epoch = s.opts.Inbox.Epoch()
	}
	if err := checkMessageTags(a, m.Tags); err != nil {
		return "", err
	}
	e := inbox.Entry{Kind: inbox.Email, Account: sc.Account, Region: sc.Region, Service: a.service()}
	failed := m.Source // the identities a rejection names
	var recipients int
	switch m.Content {
	case Raw:
		limit := MaxRawBytesV1
		if a == V2 {
			limit = MaxRawBytesV2
		}
		if len(m.Raw) > limit {
			return "", a.Invalid("Message length is more than %d bytes long: '%d'.", limit, len(m.Raw))
		}
		p, err := ParseRaw(a, m.Raw)
		if err != nil {
			return "", err
		}
		e.Source, e.ReplyTo, e.Subject, e.Text, e.HTML, e.Raw = m.Source, p.ReplyTo, p.Subject, p.Text, p.HTML, string(m.Raw)
		if e.Source == "" {
			e.Source, failed = p.From, p.From
			if p.FromAddress != "" && p.FromAddress != p.From {
				failed = p.From + ", " + p.FromAddress
			}
		}
		d := &inbox.Destinations{To: p.To, Cc: p.Cc, Bcc: p.Bcc}
		recipients = len(p.To) + len(p.Cc) + len(p.Bcc)
		if len(m.Destinations) > 0 {
			if err := checkAddresses(a, m.Destinations); err != nil {
				return "", err
			}
			// The call's Destinations are the envelope: those the headers
			// do not name are blind copies.
			recipients = len(m.Destinations)
			for _, r := range m.Destinations {
				if !names(d, r) {
					d.Bcc = append(d.Bcc, r)
				}
			}
		}
		e.Destinations = d
	default:
		if err := checkAddresses(a, m.To, m.Cc, m.Bcc, m.ReplyTo); err != nil {
			return "", err
		}
		recipients = len(m.To) + len(m.Cc) + len(m.Bcc)
		e.Source, e.ReplyTo = m.Source, m.ReplyTo
		e.Destinations = &inbox.Destinations{To: m.To, Cc: m.Cc, Bcc: m.Bcc}
		e.Subject, e.Text, e.HTML = m.Subject, m.Text, m.HTML
		if a == V2 && len(m.Subject)+len(m.Text)+len(m.HTML) > MaxRawBytesV2 {
			return "", a.Invalid("Message length is more than %d bytes long: '%d'.", MaxRawBytesV2,
				len(m.Subject)+len(m.Text)+len(m.HTML))
		}
	}
	if e.Source == "" {
		return "", a.Invalid("Missing required header 'From'.")
	}
	from, err := mail.ParseAddress(e.Source)
	if err != nil {
		return "", a.Invalid("%s", addressProblem(e.Source))
	}
	if recipients == 0 {
		return "", a.Invalid("Missing required header 'To'.")
	}
	if recipients > MaxRecipients {
		return "", a.Invalid("Recipient count exceeds %d.", MaxRecipients)
	}

	var missing string
	if m.Content == Templated {
		c := m.TemplateContent
		if c == nil {
			t, ok := s.Template(sc, m.Template)
			if !ok {
				return "", a.TemplateNotFound(m.Template)
			}
			c = &TemplateContent{t.Subject, t.Text, t.HTML}
		} else {
			for _, part := range []string{c.Subject, c.Text, c.HTML} {
				if _, err := parseTemplate(part); err != nil {
					return "", a.Invalid("Invalid template content: %s", err.Error())
				}
			}
		}
		vars, err := parseTemplateData(a, m.TemplateData, false)
		if err != nil {
			return "", err
		}
		var r TemplateContent
		r, missing = render(*c, vars)
		e.Subject, e.Text, e.HTML = r.Subject, r.Text, r.HTML
		e.Template, e.TemplateData = m.Template, m.TemplateData
	}

	if s.opts.RequireVerified && !s.Verified(sc, from.Address) {
		return "", a.Rejected("Email address is not verified. The following identities failed the check in region %s: %s",
			strings.ToUpper(sc.Region), failed)
	}

	now := s.now()
	e.ID, e.Timestamp = MessageID(now.UnixMilli()), now.UTC()
	s.scopes.Get(sc).sent.add(now)
	if missing != "" {
		reason := "missing"
		if missing == renderTooLarge {
			reason, missing = "tooLarge", ""
		}
		s.log.Warn("templated email not delivered: rendering failure", "messageId", e.ID, "template", m.Template,
			"reason", reason, "missing", missing, "account", sc.Account, "region", sc.Region)
		return e.ID, nil
	}
	if s.opts.Inbox != nil {
		s.opts.Inbox.AddSince(epoch, e)
	}
	return e.ID, nil
}

// names reports whether d lists addr.
func names(d *inbox.Destinations, addr string) bool {
	for _, l := range [][]string{d.To, d.Cc, d.Bcc} {
		for _, x := range l {
			if strings.EqualFold(x, addr) {
				return true
			}
		}
	}
	return false
}

// checkAddresses refuses an address that does not parse, as AWS words it.
func checkAddresses(a API, lists ...[]string) error {
	for _, l := range lists {
		for _, addr := range l {
			if _, err := mail.ParseAddress(addr); err != nil {
				return a.Invalid("%s", addressProblem(addr))
			}
		}
	}
	return nil
}

func addressProblem(addr string) string {
	if !strings.Contains(addr, "@") {
		return "Missing final '@domain'"
	}
	return fmt.Sprintf("Illegal address: %s", addr)
}

// MessageID returns a MessageId in AWS's form: "0100", the send time in
// Unix milliseconds as 12 hex digits, a UUID, and "-000000".
func MessageID(unixMilli int64) string {
	return fmt.Sprintf("0100%012x-%s-000000", unixMilli, awswire.UUID())
}
