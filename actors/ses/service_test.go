package ses

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/store"
)

var scope = actorstest.Scope

func newService(t testing.TB, opts Options, envOpts ...actorstest.Option) *Service {
	t.Helper()
	env := actorstest.New(t, envOpts...)
	s := New(env.Sys, env.Store, env.Now, env.Log, opts)
	t.Cleanup(s.Detach)
	return s
}

// wantCode fails unless err is an *awswire.Error with code (and message,
// when msg is not empty), of the status its service's model declares.
func wantCode(t testing.TB, err error, code, msg string) {
	t.Helper()
	awswiretest.WantError(t, err, code, msg)
	var we *awswire.Error
	if errors.As(err, &we) && we.Status != 400 && we.Status != 404 {
		t.Fatalf("%s: status %d", code, we.Status)
	}
}

func TestIdentities(t *testing.T) {
	s := newService(t, Options{RequireVerified: true})
	if err := s.VerifyEmail(scope, "a@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := s.VerifyEmail(scope, "a@example.com"); err != nil {
		t.Fatalf("verifying again: %v", err)
	}
	tok, err := s.VerifyDomain(scope, "Example.ORG")
	if err != nil || len(tok) != 44 {
		t.Fatalf("domain token %q, %v", tok, err)
	}
	if again, _ := s.VerifyDomain(scope, "example.org"); again != tok {
		t.Fatalf("a verified domain keeps its token: %q then %q", tok, again)
	}
	if _, err := s.CreateIdentity(scope, "example.org", nil); err == nil {
		t.Fatal("v2 create of an existing identity succeeded")
	} else {
		wantCode(t, err, codeAlreadyExists, "")
	}
	for _, bad := range []string{"not-an-address", "Name <a@example.com>", ""} {
		wantCode(t, s.VerifyEmail(scope, bad), codeInvalidParameterValue, "")
	}
	_, err = s.VerifyDomain(scope, "bad domain")
	wantCode(t, err, codeInvalidParameterValue, "")

	for addr, want := range map[string]bool{
		"a@example.com": true, "a@EXAMPLE.com": true, "A@example.com": false, "b@example.com": false,
		"x@example.org": true, "x@mail.example.org": true, "x@notexample.org": false,
	} {
		if got := s.Verified(scope, addr); got != want {
			t.Errorf("Verified(%s) = %v, want %v", addr, got, want)
		}
	}
	if _, err := s.CreateIdentity(scope, "c@example.net", []Tag{{"k", "v"}}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Identities(scope, V1, "", "", 2)
	if err != nil || len(p.Items) != 2 || p.Items[0].Name != "a@example.com" || p.Items[1].Name != "example.org" || p.Next == "" {
		t.Fatalf("first page %+v, %v", p, err)
	}
	p, err = s.Identities(scope, V1, "", p.Next, 2)
	if err != nil || len(p.Items) != 1 || p.Items[0].Name != "c@example.net" || p.Next != "" {
		t.Fatalf("second page %+v, %v", p, err)
	}
	p, _ = s.Identities(scope, V1, TypeDomain, "", 10)
	if len(p.Items) != 1 || p.Items[0].Type != TypeDomain || len(p.Items[0].DkimTokens) != 3 {
		t.Fatalf("domains %+v", p.Items)
	}
	_, err = s.Identities(scope, V2, "", "garbage", 10)
	wantCode(t, err, codeBadRequest, "")

	if err := s.DeleteIdentity(scope, V1, "nobody@example.com"); err != nil {
		t.Fatalf("v1 delete of a missing identity: %v", err)
	}
	wantCode(t, s.DeleteIdentity(scope, V2, "nobody@example.com"), codeNotFound, "")
	if err := s.DeleteIdentity(scope, V1, "EXAMPLE.org"); err != nil {
		t.Fatal(err)
	}
	if s.Verified(scope, "x@example.org") {
		t.Fatal("a deleted domain still verifies")
	}
}

func TestTemplates(t *testing.T) {
	s := newService(t, Options{})
	c := TemplateContent{Subject: "Hi {{name}}", Text: "Dear {{name}}", HTML: "<p>{{name}}</p>"}
	if _, err := s.CreateTemplate(scope, V1, "t1", c, nil); err != nil {
		t.Fatal(err)
	}
	_, err := s.CreateTemplate(scope, V1, "t1", c, nil)
	wantCode(t, err, codeAlreadyExists, "Template t1 already exists.")
	_, err = s.CreateTemplate(scope, V1, "bad name", c, nil)
	wantCode(t, err, codeInvalidParameterValue, "")
	_, err = s.CreateTemplate(scope, V1, "t2", TemplateContent{Subject: "{{oops"}, nil)
	wantCode(t, err, codeInvalidTemplate, "")
	_, err = s.CreateTemplate(scope, V2, "t2", TemplateContent{Subject: "{{oops"}, nil)
	wantCode(t, err, codeBadRequest, "")
	if _, err := s.CreateTemplate(scope, V2, "t2", c, []Tag{{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateTemplate(scope, V1, "t2", TemplateContent{Subject: "new"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Template(scope, "t2"); got.Subject != "new" || got.Text != "" || len(got.Tags) != 1 {
		t.Fatalf("updated %+v", got)
	}
	wantCode(t, s.UpdateTemplate(scope, V1, "nope", c), codeTemplateDoesNotExist, "Template nope does not exist.")
	wantCode(t, s.UpdateTemplate(scope, V2, "nope", c), codeNotFound, "")
	p, err := s.Templates(scope, V1, "", 1)
	if err != nil || len(p.Items) != 1 || p.Items[0].Name != "t1" {
		t.Fatalf("page %+v %v", p, err)
	}
	p, _ = s.Templates(scope, V1, p.Next, 1)
	if len(p.Items) != 1 || p.Items[0].Name != "t2" || p.Next != "" {
		t.Fatalf("page 2 %+v", p)
	}
	if err := s.DeleteTemplate(scope, V1, "nope"); err != nil {
		t.Fatalf("v1 delete of a missing template: %v", err)
	}
	wantCode(t, s.DeleteTemplate(scope, V2, "nope"), codeNotFound, "")
	if err := s.DeleteTemplate(scope, V2, "t1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Template(scope, "t1"); ok {
		t.Fatal("deleted template still readable")
	}

	out, err := s.TestRender(scope, V1, "t2", `{"name":"x"}`)
	if err != nil || !strings.Contains(out, "Subject: new") {
		t.Fatalf("rendered %q, %v", out, err)
	}
	_, err = s.TestRender(scope, V1, "nope", `{}`)
	wantCode(t, err, codeTemplateDoesNotExist, "")
	_, err = s.TestRender(scope, V1, "t2", `{bad`)
	wantCode(t, err, codeInvalidRendering, "")
	if _, err := s.CreateTemplate(scope, V1, "t3", c, nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.TestRender(scope, V1, "t3", `{}`)
	wantCode(t, err, codeMissingRendering, "Attribute 'name' is not present in the rendering data.")

	// A rendering that would pass the bound is refused as too large, not
	// as a missing attribute.
	if _, err := s.CreateTemplate(scope, V1, "loop", TemplateContent{Subject: "s", Text: "{{#each a}}{{../s}}{{/each}}"}, nil); err != nil {
		t.Fatal(err)
	}
	data := `{"s":"` + strings.Repeat("x", 1<<20) + `","a":[` + strings.Repeat("0,", 20) + `0]}`
	_, err = s.TestRender(scope, V1, "loop", data)
	wantCode(t, err, awswire.CodeInvalidParameterValueQuery, "The rendered message is larger than 10485760 bytes.")
	_, err = s.TestRender(scope, V2, "loop", data)
	wantCode(t, err, codeBadRequest, "The rendered message is larger than 10485760 bytes.")
}

func TestSend(t *testing.T) {
	box := inbox.New(0)
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s := newService(t, Options{Inbox: box, RequireVerified: true}, actorstest.WithClock(func() time.Time { return now }))
	simple := Message{Content: Simple, Source: "a@example.com", To: []string{"to@x.com"}, Cc: []string{"cc@x.com"},
		Bcc: []string{"bcc@x.com"}, ReplyTo: []string{"r@x.com"}, Subject: "S", Text: "T", HTML: "<b>H</b>"}

	_, err := s.Send(scope, V1, simple)
	wantCode(t, err, codeMessageRejected,
		"Email address is not verified. The following identities failed the check in region US-EAST-1: a@example.com")
	if len(box.List(inbox.Filter{})) != 0 {
		t.Fatal("a rejected message reached the inbox")
	}
	if _, err := s.VerifyDomain(scope, "example.com"); err != nil {
		t.Fatal(err)
	}
	id, err := s.Send(scope, V1, simple)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("0100%012x-", now.UnixMilli()); !strings.HasPrefix(id, want) || !strings.HasSuffix(id, "-000000") || len(id) != 16+1+36+7 {
		t.Fatalf("MessageId %q", id)
	}
	got := box.List(inbox.Filter{ID: id})
	if len(got) != 1 {
		t.Fatalf("inbox holds %d entries for %s", len(got), id)
	}
	e := got[0]
	if e.Kind != inbox.Email || e.Service != "ses" || e.Source != "a@example.com" || e.Subject != "S" || e.Text != "T" ||
		e.HTML != "<b>H</b>" || e.Destinations.To[0] != "to@x.com" || e.Destinations.Cc[0] != "cc@x.com" ||
		e.Destinations.Bcc[0] != "bcc@x.com" || e.ReplyTo[0] != "r@x.com" || !e.Timestamp.Equal(now) ||
		e.Account != scope.Account || e.Region != scope.Region {
		t.Fatalf("entry %+v", e)
	}

	raw := "From: Alice <alice@example.com>\r\nTo: b@x.com\r\nSubject: =?UTF-8?B?w6ljb2xl?=\r\n\r\nbody\r\n"
	id, err = s.Send(scope, V2, Message{Content: Raw, Raw: []byte(raw), Destinations: []string{"b@x.com", "env@x.com"}})
	if err != nil {
		t.Fatal(err)
	}
	e = box.List(inbox.Filter{ID: id})[0]
	if e.Service != "sesv2" || e.Source != "Alice <alice@example.com>" || e.Subject != "école" || e.Text != "body\r\n" ||
		e.Raw != raw || len(e.Destinations.To) != 1 || len(e.Destinations.Bcc) != 1 || e.Destinations.Bcc[0] != "env@x.com" {
		t.Fatalf("raw entry %+v %+v", e, e.Destinations)
	}
	_, err = s.Send(scope, V1, Message{Content: Raw, Raw: []byte("From: Bob <bob@other.com>\nTo: b@x.com\n\nhi")})
	wantCode(t, err, codeMessageRejected,
		"Email address is not verified. The following identities failed the check in region US-EAST-1: Bob <bob@other.com>, bob@other.com")

	if _, err := s.CreateTemplate(scope, V1, "greet", TemplateContent{Subject: "Hi {{name}}", Text: "{{a.b}}!", HTML: "<i>{{{name}}}</i>"}, nil); err != nil {
		t.Fatal(err)
	}
	data := `{"name":"Ann","a":{"b":3}}`
	id, err = s.Send(scope, V1, Message{Content: Templated, Source: "a@example.com", To: []string{"t@x.com"}, Template: "greet", TemplateData: data})
	if err != nil {
		t.Fatal(err)
	}
	e = box.List(inbox.Filter{ID: id})[0]
	if e.Subject != "Hi Ann" || e.Text != "3!" || e.HTML != "<i>Ann</i>" || e.Template != "greet" || e.TemplateData != data {
		t.Fatalf("templated entry %+v", e)
	}
	before := len(box.List(inbox.Filter{}))
	id, err = s.Send(scope, V1, Message{Content: Templated, Source: "a@example.com", To: []string{"t@x.com"}, Template: "greet", TemplateData: `{"name":"x"}`})
	if err != nil || id == "" {
		t.Fatalf("a rendering failure is accepted: %q %v", id, err)
	}
	if len(box.List(inbox.Filter{})) != before {
		t.Fatal("a rendering failure reached the inbox")
	}
	if n := s.SentLast24Hours(scope); n != 4 {
		t.Fatalf("SentLast24Hours = %d, want 4", n)
	}
	if pts := s.SendStatistics(scope); len(pts) != 1 || pts[0].Sent != 4 || !pts[0].Start.Equal(now.Truncate(15*time.Minute)) {
		t.Fatalf("statistics %+v", pts)
	}
}

func TestSendErrors(t *testing.T) {
	s := newService(t, Options{Inbox: inbox.New(0), RequireVerified: true})
	if err := s.VerifyEmail(scope, "a@example.com"); err != nil {
		t.Fatal(err)
	}
	many := make([]string, 51)
	for i := range many {
		many[i] = fmt.Sprintf("r%d@x.com", i)
	}
	base := Message{Content: Simple, Source: "a@example.com", To: []string{"t@x.com"}, Subject: "s", Text: "t"}
	with := func(f func(*Message)) Message { m := base; f(&m); return m }
	cases := []struct {
		name string
		api  API
		m    Message
		code string
		msg  string
	}{
		{"no source", V1, with(func(m *Message) { m.Source = "" }), codeInvalidParameterValue, "Missing required header 'From'."},
		{"no recipient", V1, with(func(m *Message) { m.To = nil }), codeInvalidParameterValue, ""},
		{"51 recipients", V1, with(func(m *Message) { m.To = many[:26]; m.Bcc = many[26:] }), codeInvalidParameterValue, "Recipient count exceeds 50."},
		{"malformed recipient", V1, with(func(m *Message) { m.To = []string{"nobody"} }), codeInvalidParameterValue, "Missing final '@domain'"},
		{"malformed recipient v2", V2, with(func(m *Message) { m.Cc = []string{"a@b@c"} }), codeBadRequest, ""},
		{"malformed source", V1, with(func(m *Message) { m.Source = "<<" }), codeInvalidParameterValue, ""},
		{"unknown template", V1, Message{Content: Templated, Source: "a@example.com", To: []string{"t@x.com"}, Template: "nope", TemplateData: "{}"}, codeTemplateDoesNotExist, "Template nope does not exist."},
		{"unknown template v2", V2, Message{Content: Templated, Source: "a@example.com", To: []string{"t@x.com"}, Template: "nope", TemplateData: "{}"}, codeNotFound, ""},
		{"bad template data", V1, Message{Content: Templated, Source: "a@example.com", To: []string{"t@x.com"}, TemplateContent: &TemplateContent{Subject: "x"}, TemplateData: "{oops"}, codeInvalidParameterValue, ""},
		{"template data not an object", V2, Message{Content: Templated, Source: "a@example.com", To: []string{"t@x.com"}, TemplateContent: &TemplateContent{Subject: "x"}, TemplateData: "[1]"}, codeBadRequest, ""},
		{"raw too large v1", V1, Message{Content: Raw, Raw: make([]byte, MaxRawBytesV1+1)}, codeInvalidParameterValue, fmt.Sprintf("Message length is more than 10485760 bytes long: '%d'.", MaxRawBytesV1+1)},
		{"raw malformed", V1, Message{Content: Raw, Raw: []byte("no headers here")}, codeInvalidParameterValue, ""},
		{"raw without from", V1, Message{Content: Raw, Raw: []byte("To: a@x.com\n\nhi")}, codeInvalidParameterValue, "Missing required header 'From'."},
		{"raw bad to", V1, Message{Content: Raw, Raw: []byte("From: a@example.com\nTo: ,,<<\n\nhi")}, codeInvalidParameterValue, ""},
		{"empty tag", V1, with(func(m *Message) { m.Tags = []MessageTag{{"", ""}} }), codeInvalidParameterValue, "The tag name must be specified."},
		{"tag name", V1, with(func(m *Message) { m.Tags = []MessageTag{{"test_invalid_name@123", strings.Repeat("v", 300)}} }), codeInvalidParameterValue,
			"Invalid tag name <test_invalid_name@123>: only alphanumeric ASCII characters, '_',  '-' are allowed."},
		{"tag value", V1, with(func(m *Message) { m.Tags = []MessageTag{{"ses:feedback-id-a", "a:b"}} }), codeInvalidParameterValue,
			"Invalid tag value <a:b>: only alphanumeric ASCII characters, '_',  '-' , '.', '@' are allowed."},
		{"long tag value", V1, with(func(m *Message) { m.Tags = []MessageTag{{"n", strings.Repeat("v", 256)}} }), codeInvalidParameterValue, "Tag value cannot exceed 255 characters."},
		{"unverified with good tags", V1, with(func(m *Message) {
			m.Source = "z@nowhere.test"
			m.Tags = []MessageTag{{"ses:feedback-id-a", "this-campaign"}}
		}), codeMessageRejected, ""},
		{"raw bad multipart", V1, Message{Content: Raw, Raw: []byte("From: a@example.com\nTo: b@x.com\nContent-Type: multipart/mixed\n\nhi")}, codeInvalidParameterValue, ""},
	}
	for _, tc := range cases {
		t.Run("case="+tc.name, func(t *testing.T) {
			_, err := s.Send(scope, tc.api, tc.m)
			wantCode(t, err, tc.code, tc.msg)
		})
	}
	if n := s.SentLast24Hours(scope); n != 0 {
		t.Fatalf("refused sends counted: %d", n)
	}
}

func TestSendUnverifiedAllowed(t *testing.T) {
	box := inbox.New(0)
	s := newService(t, Options{Inbox: box, RequireVerified: false})
	id, err := s.Send(scope, V1, Message{Content: Simple, Source: "anyone@nowhere.test", To: []string{"t@x.com"}, Subject: "s"})
	if err != nil || len(box.List(inbox.Filter{ID: id})) != 1 {
		t.Fatalf("send without verification: %q %v", id, err)
	}
}

func TestRestore(t *testing.T) {
	dir := t.TempDir()
	open := func() store.Store {
		st, err := store.OpenBolt(dir, store.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := open()
	s := newService(t, Options{}, actorstest.WithStore(st))
	if err := s.VerifyEmail(scope, "a@example.com"); err != nil {
		t.Fatal(err)
	}
	tok, _ := s.VerifyDomain(scope, "example.org")
	if _, err := s.CreateTemplate(scope, V1, "t", TemplateContent{Subject: "s"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTemplate(scope, V1, "gone", TemplateContent{Subject: "s"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTemplate(scope, V1, "gone"); err != nil {
		t.Fatal(err)
	}
	s.Detach()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = open()
	t.Cleanup(func() { _ = st.Close() })
	r := newService(t, Options{}, actorstest.WithStore(st))
	if err := st.Load(r.Restore); err != nil {
		t.Fatal(err)
	}
	if err := r.RestoreDone(); err != nil {
		t.Fatal(err)
	}
	if !r.Verified(scope, "a@example.com") || !r.Verified(scope, "z@example.org") {
		t.Fatal("identities not restored")
	}
	if d, _ := r.Identity(scope, "example.org"); d.Token != tok {
		t.Fatalf("token %q, want %q", d.Token, tok)
	}
	if _, ok := r.Template(scope, "t"); !ok {
		t.Fatal("template not restored")
	}
	if _, ok := r.Template(scope, "gone"); ok {
		t.Fatal("deleted template restored")
	}
	// New resources list after the restored ones.
	if _, err := r.CreateTemplate(scope, V1, "u", TemplateContent{Subject: "s"}, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := r.Templates(scope, V1, "", 10)
	if len(p.Items) != 2 || p.Items[1].Name != "u" {
		t.Fatalf("after restore %+v", p.Items)
	}
	if c := r.Counts()[scope]; c["identities"] != 2 || c["templates"] != 2 {
		t.Fatalf("counts %v", c)
	}
}

// TestConcurrent: sends racing from many goroutines are all counted (the
// counter is lock-free), and verifications of one domain racing each
// other create one identity, whose token every caller gets.
func TestConcurrent(t *testing.T) {
	box := inbox.New(0)
	s := newService(t, Options{Inbox: box, RequireVerified: true})
	const workers, each = 8, 25
	tokens := make([]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := s.VerifyDomain(scope, "example.com")
			if err != nil {
				t.Error(err)
				return
			}
			tokens[w] = tok
			for i := range each {
				if _, err := s.Send(scope, V1, Message{Content: Simple, Source: fmt.Sprintf("w%d@example.com", w),
					To: []string{fmt.Sprintf("r%d@x.com", i)}, Subject: "s"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, tok := range tokens {
		if tok != tokens[0] {
			t.Fatalf("tokens differ: %v", tokens)
		}
	}
	if p, _ := s.Identities(scope, V1, "", "", 10); len(p.Items) != 1 {
		t.Fatalf("%d identities, want 1", len(p.Items))
	}
	if n := s.SentLast24Hours(scope); n != workers*each {
		t.Fatalf("SentLast24Hours = %d, want %d", n, workers*each)
	}
	if n := len(box.List(inbox.Filter{})); n != workers*each {
		t.Fatalf("inbox holds %d, want %d", n, workers*each)
	}
}

// TestSendCounterWindow: intervals older than 24 hours are not counted,
// and a slot reused by a later interval starts again from one.
func TestSendCounterWindow(t *testing.T) {
	var c sendCounter
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.add(t0)
	c.add(t0.Add(time.Minute))
	c.add(t0.Add(23 * time.Hour))
	if pts := c.points(t0.Add(23 * time.Hour)); len(pts) != 2 || pts[0].Sent != 2 || pts[1].Sent != 1 {
		t.Fatalf("within a day: %+v", pts)
	}
	if pts := c.points(t0.Add(24 * time.Hour)); len(pts) != 1 || pts[0].Sent != 1 {
		t.Fatalf("a day later: %+v", pts)
	}
	c.add(t0.Add(24 * time.Hour)) // the first interval's slot
	if pts := c.points(t0.Add(24 * time.Hour)); len(pts) != 2 || pts[1].Sent != 1 {
		t.Fatalf("slot reused: %+v", pts)
	}
}
