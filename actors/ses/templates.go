package ses

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Template is an email template as its owner keeps, persists and
// publishes it. A published template never changes.
type Template struct {
	Seq     uint64 `json:"seq"`
	Name    string `json:"name"`
	Subject string `json:"subject,omitempty"`
	Text    string `json:"text,omitempty"`
	HTML    string `json:"html,omitempty"`
	Created int64  `json:"created"` // Unix milliseconds
	Tags    []Tag  `json:"tags,omitempty"`
}

// TemplateContent is what a template renders: its subject and bodies.
type TemplateContent struct {
	Subject, Text, HTML string
}

// checkTemplate refuses a name AWS refuses and content that does not
// parse.
func checkTemplate(a API, name string, c TemplateContent) error {
	if err := CheckTemplateName(a, name); err != nil {
		return err
	}
	for _, part := range []string{c.Subject, c.Text, c.HTML} {
		if _, err := parseTemplate(part); err != nil {
			return a.invalidTemplate(name, err.Error())
		}
	}
	return nil
}

// CheckTemplateName refuses a template name that is not 1 to 64 ASCII
// letters, digits, underscores and dashes.
func CheckTemplateName(a API, name string) error {
	ok := name != "" && len(name) <= 64
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if !ok {
		return a.Invalid("Invalid template name <%s>: a name has 1 to 64 ASCII letters, digits, underscores or dashes.", name)
	}
	return nil
}

// CreateTemplate creates a template; a name in use is AlreadyExists.
func (s *Service) CreateTemplate(sc awswire.Scope, a API, name string, c TemplateContent, tags []Tag) (*Template, error) {
	if err := checkTemplate(a, name, c); err != nil {
		return nil, err
	}
	if a == V2 {
		if err := checkTags(tags); err != nil {
			return nil, err
		}
	}
	seq := s.seq.Next()
	t := &Template{Seq: seq, Name: name, Subject: c.Subject, Text: c.Text, HTML: c.HTML,
		Created: s.now().UnixMilli(), Tags: tags}
	return actors.Create(s.records(a), actors.NewRecord[Template]{
		Kind: "ses." + kindTemplate, Key: recordKey(sc, kindTemplate, name), Dir: s.scopes.Get(sc).templates,
		ID: name, Order: actors.SeqKey(seq),
		Taken: func() error { return a.alreadyExists("Template %s already exists.", name) },
		Build: func() (*Template, error) { return t, nil },
	})
}

// UpdateTemplate replaces a template's content.
func (s *Service) UpdateTemplate(sc awswire.Scope, a API, name string, c TemplateContent) error {
	if err := checkTemplate(a, name, c); err != nil {
		return err
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return a.TemplateNotFound(name)
	}
	_, err := actors.MutateRecord(s.records(a), recordKey(sc, kindTemplate, name), d.templates, name,
		func() error { return a.TemplateNotFound(name) },
		func(cur *Template) (*Template, struct{}, error) {
			next := *cur
			next.Subject, next.Text, next.HTML = c.Subject, c.Text, c.HTML
			return &next, struct{}{}, nil
		})
	return err
}

// Template returns the published template called name.
func (s *Service) Template(sc awswire.Scope, name string) (*Template, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.templates.Get(name)
}

// Templates returns up to n templates of the scope in creation order,
// after the page token.
func (s *Service) Templates(sc awswire.Scope, a API, token string, n int) (Page[Template], error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return page(a, actors.NewDirectory[Template](), token, n, templateSeq, nil)
	}
	return page(a, d.templates, token, n, templateSeq, nil)
}

func templateSeq(t *Template) uint64 { return t.Seq }

// DeleteTemplate deletes a template. v1 answers success for one that does
// not exist, v2 NotFoundException.
func (s *Service) DeleteTemplate(sc awswire.Scope, a API, name string) error {
	gone := func() error {
		if a == V2 {
			return a.TemplateNotFound(name)
		}
		return nil
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return gone()
	}
	_, err := actors.DeleteRecord(s.records(a), recordKey(sc, kindTemplate, name), d.templates, name, gone)
	return err
}

// TestRender renders the template called name with data (a JSON object),
// as TestRenderTemplate does: into the MIME message it would send.
func (s *Service) TestRender(sc awswire.Scope, a API, name, data string) (string, error) {
	t, ok := s.Template(sc, name)
	if !ok {
		return "", a.TemplateNotFound(name)
	}
	vars, err := parseTemplateData(a, data, true)
	if err != nil {
		return "", err
	}
	r, missing := render(TemplateContent{t.Subject, t.Text, t.HTML}, vars)
	if missing == renderTooLarge {
		if a == V2 {
			return "", V2.Invalid("The rendered message is larger than %d bytes.", maxRenderedBytes)
		}
		return "", awswire.Errorf(awswire.SES, awswire.CodeInvalidParameterValueQuery,
			"The rendered message is larger than %d bytes.", maxRenderedBytes)
	}
	if missing != "" {
		if a == V2 {
			return "", V2.Invalid("Attribute '%s' is not present in the rendering data.", missing)
		}
		return "", awswire.Errorf(awswire.SES, codeMissingRendering, "Attribute '%s' is not present in the rendering data.", missing).
			With("TemplateName", name)
	}
	return buildMIME("", nil, r), nil
}
