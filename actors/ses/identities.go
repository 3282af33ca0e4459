package ses

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/mail"
	"runtime"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Identity types, as v1 names them (v2: EMAIL_ADDRESS, DOMAIN).
const (
	TypeEmail  = "EmailAddress"
	TypeDomain = "Domain"
)

// Tag is a v2 resource tag.
type Tag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// Identity is a verified email address or domain as its owner keeps,
// persists and publishes it. A published identity never changes.
type Identity struct {
	Seq  uint64 `json:"seq"`
	Name string `json:"name"` // as created (a domain in lower case)
	Type string `json:"type"`
	// Token is a domain's verification token (the TXT record AWS asks for).
	Token string `json:"token,omitempty"`
	// DkimTokens are a domain's Easy DKIM tokens.
	DkimTokens []string `json:"dkimTokens,omitempty"`
	Created    int64    `json:"created"` // Unix milliseconds
	Tags       []Tag    `json:"tags,omitempty"`
}

// identityKey is the directory id of an identity: a domain ignores case;
// an address keeps its local part's (which mail servers may distinguish).
func identityKey(name string) string {
	at := strings.LastIndexByte(name, '@')
	if at < 0 {
		return strings.ToLower(name)
	}
	return name[:at+1] + strings.ToLower(name[at+1:])
}

// CheckEmail refuses what is not a bare email address.
func CheckEmail(a API, addr string) error {
	p, err := mail.ParseAddress(addr)
	if err != nil || p.Name != "" || p.Address != addr || len(addr) > 320 {
		return a.Invalid("Invalid email address <%s>.", addr)
	}
	return nil
}

// CheckDomain refuses what is not a domain name.
func CheckDomain(a API, d string) error {
	if !validDomain(d) {
		return a.Invalid("Invalid domain name <%s>.", d)
	}
	return nil
}

func validDomain(d string) bool {
	if d == "" || len(d) > 253 {
		return false
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

var errTaken = errors.New("ses: identity exists")

// createIdentity creates the owner of a new identity; errTaken when the
// name is in use.
func (s *Service) createIdentity(sc awswire.Scope, a API, name, typ string, tags []Tag) (*Identity, error) {
	if typ == TypeDomain {
		name = strings.ToLower(name)
	}
	seq := s.seq.Next()
	id := &Identity{Seq: seq, Name: name, Type: typ, Created: s.now().UnixMilli(), Tags: tags}
	if typ == TypeDomain {
		id.Token = verificationToken()
		id.DkimTokens = []string{dkimToken(), dkimToken(), dkimToken()}
	}
	key := identityKey(name)
	return actors.Create(s.records(a), actors.NewRecord[Identity]{
		Kind: "ses." + kindIdentity, Key: recordKey(sc, kindIdentity, key), Dir: s.scopes.Get(sc).identities,
		ID: key, Order: actors.SeqKey(seq),
		Taken: func() error { return errTaken },
		Build: func() (*Identity, error) { return id, nil },
	})
}

// VerifyEmail verifies an email address (v1's VerifyEmailIdentity and
// VerifyEmailAddress): at once, and again without effect.
func (s *Service) VerifyEmail(sc awswire.Scope, addr string) error {
	if err := CheckEmail(V1, addr); err != nil {
		return err
	}
	_, err := s.createIdentity(sc, V1, addr, TypeEmail, nil)
	if errors.Is(err, errTaken) {
		return nil
	}
	return err
}

// VerifyDomain verifies a domain (v1's VerifyDomainIdentity) and returns
// its verification token; a domain verified before keeps its token.
func (s *Service) VerifyDomain(sc awswire.Scope, domain string) (string, error) {
	if err := CheckDomain(V1, domain); err != nil {
		return "", err
	}
	// Taken by an owner being created or deleted: try again, a few times.
	for range 100 {
		id, err := s.createIdentity(sc, V1, domain, TypeDomain, nil)
		if err == nil {
			return id.Token, nil
		}
		if !errors.Is(err, errTaken) {
			return "", err
		}
		if cur, ok := s.Identity(sc, domain); ok {
			return cur.Token, nil
		}
		runtime.Gosched()
	}
	return "", V1.busy()
}

// CreateIdentity creates an identity (v2's CreateEmailIdentity): an email
// address when name has an @, else a domain. A name in use is
// AlreadyExistsException.
func (s *Service) CreateIdentity(sc awswire.Scope, name string, tags []Tag) (*Identity, error) {
	typ := TypeDomain
	if strings.Contains(name, "@") {
		typ = TypeEmail
		if err := CheckEmail(V2, name); err != nil {
			return nil, err
		}
	} else if err := CheckDomain(V2, name); err != nil {
		return nil, err
	}
	if err := checkTags(tags); err != nil {
		return nil, err
	}
	id, err := s.createIdentity(sc, V2, name, typ, tags)
	if errors.Is(err, errTaken) {
		return nil, V2.alreadyExists("Email identity %s already exist.", name)
	}
	return id, err
}

func checkTags(tags []Tag) error {
	if len(tags) > 50 {
		return V2.Invalid("Tags: at most 50 tags are allowed.")
	}
	seen := map[string]bool{}
	for _, t := range tags {
		if t.Key == "" || len(t.Key) > 128 || len(t.Value) > 256 {
			return V2.Invalid("Invalid tag: a key has 1 to 128 characters, a value at most 256.")
		}
		if seen[t.Key] {
			return V2.Invalid("Duplicate tag key %s.", t.Key)
		}
		seen[t.Key] = true
	}
	return nil
}

// Identity returns the published identity called name.
func (s *Service) Identity(sc awswire.Scope, name string) (*Identity, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.identities.Get(identityKey(name))
}

// Identities returns up to n identities of the scope (of type typ, when
// not ""), in creation order after the page token.
func (s *Service) Identities(sc awswire.Scope, a API, typ, token string, n int) (Page[Identity], error) {
	if typ != "" && typ != TypeEmail && typ != TypeDomain {
		return Page[Identity]{}, a.Invalid("Invalid IdentityType <%s>: valid values are EmailAddress and Domain.", typ)
	}
	var keep func(*Identity) bool
	if typ != "" {
		keep = func(id *Identity) bool { return id.Type == typ }
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return page(a, actors.NewDirectory[Identity](), token, n, identitySeq, keep)
	}
	return page(a, d.identities, token, n, identitySeq, keep)
}

func identitySeq(id *Identity) uint64 { return id.Seq }

// DeleteIdentity deletes an identity. v1 answers success for one that does
// not exist, v2 NotFoundException.
func (s *Service) DeleteIdentity(sc awswire.Scope, a API, name string) error {
	gone := func() error {
		if a == V2 {
			return IdentityNotFound(name)
		}
		return nil
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return gone()
	}
	key := identityKey(name)
	_, err := actors.DeleteRecord(s.records(a), recordKey(sc, kindIdentity, key), d.identities, key, gone)
	return err
}

// Verified reports whether addr (a bare address) may send: it is a
// verified identity, or its domain or a parent domain is.
func (s *Service) Verified(sc awswire.Scope, addr string) bool {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return false
	}
	if _, ok := d.identities.Get(identityKey(addr)); ok {
		return true
	}
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return false
	}
	for dom := strings.ToLower(addr[at+1:]); dom != ""; {
		if id, ok := d.identities.Get(dom); ok && id.Type == TypeDomain {
			return true
		}
		dot := strings.IndexByte(dom, '.')
		if dot < 0 {
			break
		}
		dom = dom[dot+1:]
	}
	return false
}

// verificationToken is a domain's TXT record value: like AWS's, the base64
// text of 32 random bytes.
func verificationToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// dkimToken is an Easy DKIM token: 32 lowercase alphanumerics.
func dkimToken() string { return awswire.ShortID(32) }
