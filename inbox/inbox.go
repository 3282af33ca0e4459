package inbox

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Kind says what an entry is.
type Kind string

// The kinds of entries.
const (
	Email Kind = "email"
	SMS   Kind = "sms"
	Push  Kind = "push"
)

// DefaultLimit is how many entries an inbox keeps unless told otherwise.
const DefaultLimit = 10000

// MaxBytes bounds what an inbox's entries hold together (bodies, raw MIME,
// messages): past it the oldest go first, so that a few large raw mails
// cannot fill the memory.
const MaxBytes = 128 << 20

// Destinations are a mail's recipients.
type Destinations struct {
	To  []string `json:"to,omitempty"`
	Cc  []string `json:"cc,omitempty"`
	Bcc []string `json:"bcc,omitempty"`
}

// Attribute is an SNS message attribute as published.
type Attribute struct {
	DataType    string `json:"dataType"`
	StringValue string `json:"stringValue,omitempty"`
	BinaryValue []byte `json:"binaryValue,omitempty"`
}

// Entry is one captured message. Mail fills Source to HTML (and Raw for a
// raw send); a short message PhoneNumber and Message; a push TargetArn and
// Message. Entries are never changed once added: readers share them.
type Entry struct {
	ID        string    `json:"id"`
	Kind      Kind      `json:"kind"`
	Timestamp time.Time `json:"timestamp"`
	Account   string    `json:"account"`
	Region    string    `json:"region"`
	// Service is the service that sent it (ses, sesv2, sns).
	Service string `json:"service"`

	Source       string        `json:"source,omitempty"`
	Destinations *Destinations `json:"destinations,omitempty"`
	ReplyTo      []string      `json:"replyTo,omitempty"`
	Subject      string        `json:"subject,omitempty"`
	Text         string        `json:"text,omitempty"`
	HTML         string        `json:"html,omitempty"`
	// Raw is the MIME message of a raw send.
	Raw string `json:"raw,omitempty"`
	// Template and TemplateData name what a templated send rendered.
	Template     string `json:"template,omitempty"`
	TemplateData string `json:"templateData,omitempty"`

	PhoneNumber       string               `json:"phoneNumber,omitempty"`
	TargetArn         string               `json:"targetArn,omitempty"`
	TopicArn          string               `json:"topicArn,omitempty"`
	SubscriptionArn   string               `json:"subscriptionArn,omitempty"`
	Message           string               `json:"message,omitempty"`
	MessageStructure  string               `json:"messageStructure,omitempty"`
	MessageAttributes map[string]Attribute `json:"messageAttributes,omitempty"`
}

// Filter selects entries; zero members select everything.
type Filter struct {
	ID      string
	Kind    Kind
	Account string
	Region  string
	// Email matches a mail's source or any of its recipients, ignoring
	// case.
	Email string
	// PhoneNumber and TargetArn match short messages and pushes.
	PhoneNumber string
	TargetArn   string
}

// Match reports whether e is selected by f.
func (f Filter) Match(e *Entry) bool {
	switch {
	case f.ID != "" && e.ID != f.ID,
		f.Kind != "" && e.Kind != f.Kind,
		f.Account != "" && e.Account != f.Account,
		f.Region != "" && e.Region != f.Region,
		f.PhoneNumber != "" && e.PhoneNumber != f.PhoneNumber,
		f.TargetArn != "" && e.TargetArn != f.TargetArn:
		return false
	}
	if f.Email == "" {
		return true
	}
	if strings.EqualFold(e.Source, f.Email) {
		return true
	}
	if d := e.Destinations; d != nil {
		for _, l := range [][]string{d.To, d.Cc, d.Bcc} {
			for _, a := range l {
				if strings.EqualFold(a, f.Email) {
					return true
				}
			}
		}
	}
	return false
}

// size is about what e holds: its texts (the other members are small).
func (e *Entry) size() int {
	n := 256 + len(e.Raw) + len(e.Text) + len(e.HTML) + len(e.Subject) + len(e.Message) + len(e.TemplateData)
	for k, a := range e.MessageAttributes {
		n += len(k) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}

// Inbox is a bounded log of entries in the order they were added. One
// mutex guards it: an add is an append and the critical sections are
// short; nothing else waits on it.
type Inbox struct {
	mu      sync.Mutex
	entries []*Entry // oldest first; entries[head:] are live
	head    int
	limit   int
	bytes   int    // what the live entries hold
	epoch   uint64 // how many resets so far
}

// New returns an inbox keeping at most limit entries (DefaultLimit when
// limit <= 0).
func New(limit int) *Inbox {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Inbox{limit: limit}
}

// Add appends e; past the limit of entries or MaxBytes the oldest entries
// are dropped (the newest is always kept).
func (b *Inbox) Add(e Entry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.add(e)
}

// Epoch names the inbox's contents since the last reset. A capture that
// checks state before it adds (SES's verified sender) reads it first and
// adds with AddSince, so that a reset in between drops the entry rather
// than let it outlive the state it was checked against.
func (b *Inbox) Epoch() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.epoch
}

// AddSince adds e if no reset came since epoch, and reports whether it did.
func (b *Inbox) AddSince(epoch uint64, e Entry) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.epoch != epoch {
		return false
	}
	b.add(e)
	return true
}

func (b *Inbox) add(e Entry) {
	b.entries = append(b.entries, &e)
	b.bytes += e.size()
	for n := len(b.entries) - b.head; n > 1 && (n > b.limit || b.bytes > MaxBytes); n-- {
		b.bytes -= b.entries[b.head].size()
		b.entries[b.head] = nil
		b.head++
	}
	// Compact once the dropped prefix is as long as what is kept.
	if b.head > 0 && b.head >= len(b.entries)-b.head {
		b.entries = append([]*Entry(nil), b.entries[b.head:]...)
		b.head = 0
	}
}

// List returns the entries f selects, oldest first. The entries are
// shared: callers must not change them.
func (b *Inbox) List(f Filter) []*Entry {
	out, _ := b.Page(f, "", 0)
	return out
}

// Page returns at most limit (all when limit <= 0) of the entries f
// selects that were added after the entry with id after (from the oldest
// when after is empty or no longer kept), oldest first, and whether more
// follow.
func (b *Inbox) Page(f Filter, after string, limit int) (out []*Entry, more bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	live := b.entries[b.head:]
	if after != "" {
		for i, e := range live {
			if e.ID == after {
				live = live[i+1:]
				break
			}
		}
	}
	for _, e := range live {
		if !f.Match(e) {
			continue
		}
		if limit > 0 && len(out) == limit {
			return out, true
		}
		out = append(out, e)
	}
	return out, false
}

// Delete removes the entries f selects and reports how many it removed.
func (b *Inbox) Delete(f Filter) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	live := b.entries[b.head:]
	kept := slices.DeleteFunc(slices.Clone(live), f.Match)
	n := len(live) - len(kept)
	b.entries, b.head, b.bytes = kept, 0, 0
	for _, e := range kept {
		b.bytes += e.size()
	}
	return n
}

// Reset removes every entry.
func (b *Inbox) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.entries, b.head, b.bytes = nil, 0, 0
	b.epoch++
}
