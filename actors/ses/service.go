package ses

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/store"
)

// storeService is the service segment of this package's store keys.
const storeService = "ses"

// Record kinds, the kind segment of the store keys.
const (
	kindIdentity = "identity"
	kindTemplate = "template"
)

// dirs are the directories of one account and region, each in creation
// order (actors.SeqKey), the order of the listings.
type dirs struct {
	identities *actors.Directory[Identity]
	templates  *actors.Directory[Template]
	sent       sendCounter
}

func newDirs() *dirs {
	return &dirs{identities: actors.NewDirectory[Identity](), templates: actors.NewDirectory[Template]()}
}

// Options are the service's settings.
type Options struct {
	// Inbox captures every message sent; nil drops them.
	Inbox *inbox.Inbox
	// RequireVerified refuses a send whose sender is not a verified
	// identity, as AWS's sandbox does (EMULATOR_SES_REQUIRE_VERIFIED).
	RequireVerified bool
}

// Service is the SES facade of both APIs: reads and sends come from
// published snapshots, writes run inside the owning actor.
type Service struct {
	sys    *actors.System
	store  store.Store
	now    func() time.Time
	log    *slog.Logger
	opts   Options
	seq    actors.Seq // creation order, for listings
	scopes *actors.Scopes[dirs]
}

// New returns an empty service. Call Restore before serving to load what
// the store holds.
func New(sys *actors.System, st store.Store, now func() time.Time, log *slog.Logger, opts Options) *Service {
	return &Service{sys: sys, store: st, now: now, log: log.With("component", "ses"), opts: opts,
		scopes: actors.NewScopes(newDirs)}
}

// API is the SES API a call came through. Both share every resource; they
// differ in their errors.
type API uint8

// The APIs.
const (
	V1 API = iota + 1 // the query API, 2010-12-01
	V2                // the REST-JSON API, 2019-09-27
)

// Wire is the API's service in awswire.
func (a API) Wire() awswire.Service {
	if a == V2 {
		return awswire.SESv2
	}
	return awswire.SES
}

// service is the name the inbox records (ses, sesv2).
func (a API) service() string { return a.Wire().String() }

// Error codes. V1's codes are the query API's common InvalidParameterValue
// and the model's shape names; V2's are its model's shape names.
const (
	codeInvalidParameterValue = awswire.CodeInvalidParameterValueQuery
	codeMessageRejected       = "MessageRejected"
	codeAlreadyExists         = "AlreadyExistsException"
	codeTemplateDoesNotExist  = "TemplateDoesNotExistException"
	codeInvalidTemplate       = "InvalidTemplateException"
	codeInvalidRendering      = "InvalidRenderingParameterException"
	codeMissingRendering      = "MissingRenderingAttributeException"
	codeBadRequest            = "BadRequestException"
	codeNotFound              = "NotFoundException"
)

// Invalid is the API's error for a value it refuses: InvalidParameterValue
// (v1), BadRequestException (v2).
func (a API) Invalid(format string, args ...any) *awswire.Error {
	if a == V2 {
		return awswire.Errorf(awswire.SESv2, codeBadRequest, format, args...)
	}
	return awswire.Errorf(awswire.SES, codeInvalidParameterValue, format, args...)
}

// Rejected is MessageRejected, the error of a message SES refuses to send.
func (a API) Rejected(format string, args ...any) *awswire.Error {
	return awswire.Errorf(a.Wire(), codeMessageRejected, format, args...)
}

func (a API) alreadyExists(format string, args ...any) *awswire.Error {
	return awswire.Errorf(a.Wire(), codeAlreadyExists, format, args...)
}

// TemplateNotFound is the error for a template that does not exist:
// TemplateDoesNotExist (v1), NotFoundException (v2).
func (a API) TemplateNotFound(name string) *awswire.Error {
	if a == V2 {
		return awswire.Errorf(awswire.SESv2, codeNotFound, "Template %s does not exist.", name)
	}
	return awswire.Errorf(awswire.SES, codeTemplateDoesNotExist, "Template %s does not exist.", name)
}

// IdentityNotFound is v2's error for an identity that does not exist (v1
// has none: its deletes succeed and its reads omit the identity).
func IdentityNotFound(name string) *awswire.Error {
	return awswire.Errorf(awswire.SESv2, codeNotFound, "Email identity %s does not exist.", name)
}

func (a API) invalidTemplate(name, why string) *awswire.Error {
	if a == V2 {
		return awswire.Errorf(awswire.SESv2, codeBadRequest, "Template %s is invalid: %s", name, why)
	}
	return awswire.Errorf(awswire.SES, codeInvalidTemplate, "Template %s is invalid: %s", name, why).
		With("TemplateName", name)
}

func (a API) busy() error { return awswire.Unavailable(a.Wire()) }

func (s *Service) records(a API) actors.Records {
	return actors.Records{Sys: s.sys, Store: s.store, Busy: a.busy}
}

func recordKey(sc awswire.Scope, kind, id string) string {
	return store.Key(sc.Account, sc.Region, storeService, kind, id)
}

// Page is one page of a listing in creation order: the items, and the
// token of the next page ("" on the last).
type Page[S any] struct {
	Items []*S
	Next  string
}

// page reads up to n items of dir after the token's item. A token carries
// the creation sequence of the last item its page held; a page costs its
// size, whatever the directory holds.
func page[S any](a API, dir *actors.Directory[S], token string, n int, seq func(*S) uint64, keep func(*S) bool) (Page[S], error) {
	from := ""
	if token != "" {
		key, ok := awswire.DecodeToken(token)
		after, err := strconv.ParseUint(key, 10, 64)
		if !ok || err != nil {
			return Page[S]{}, a.Invalid("Invalid NextToken: %s", token)
		}
		from = actors.SeqKey(after + 1)
	}
	var out Page[S]
	for _, st := range dir.Ordered(from) {
		if keep != nil && !keep(st) {
			continue
		}
		if len(out.Items) == n {
			out.Next = awswire.EncodeToken(strconv.FormatUint(seq(out.Items[n-1]), 10))
			break
		}
		out.Items = append(out.Items, st)
	}
	return out, nil
}

// ---- restore and reset ----

// Restore re-creates the owner of one persisted record. It is called at
// start, for every key of this service, before serving.
func (s *Service) Restore(key string, value []byte) error {
	account, region, service, kind, _, _, ok := store.ParseKey(key)
	if !ok || service != storeService {
		return fmt.Errorf("ses: restore: foreign key %q", key)
	}
	d := s.scopes.Get(awswire.Scope{Account: account, Region: region})
	r := s.records(V1)
	var err error
	switch kind {
	case kindIdentity:
		_, err = actors.Restore(r, "ses."+kind, d.identities, value, func(id *Identity) (string, string) {
			s.seq.Restored(id.Seq)
			return identityKey(id.Name), actors.SeqKey(id.Seq)
		})
	case kindTemplate:
		_, err = actors.Restore(r, "ses."+kind, d.templates, value, func(t *Template) (string, string) {
			s.seq.Restored(t.Seq)
			return t.Name, actors.SeqKey(t.Seq)
		})
	default:
		return fmt.Errorf("ses: restore: unknown kind in %q", key)
	}
	if err != nil {
		return fmt.Errorf("ses: restore %s: %w", key, err)
	}
	return nil
}

// RestoreDone implements the restore protocol: SES owners refer to no
// other owner, so nothing is left to do.
func (s *Service) RestoreDone() error { return nil }

// StoreService is the service segment of the keys Restore accepts.
func (s *Service) StoreService() string { return storeService }

// Detach forgets every owner and stops them all, and zeroes the send
// counters. The caller wipes the store afterwards.
func (s *Service) Detach() {
	var refs []actors.Ref
	s.scopes.Drain(func(_ awswire.Scope, d *dirs) bool {
		refs = append(refs, d.identities.Drain()...)
		refs = append(refs, d.templates.Drain()...)
		d.sent.reset()
		return true
	})
	s.sys.Stop(refs)
}

// Counts reports how many identities and templates exist, per scope.
func (s *Service) Counts() map[awswire.Scope]map[string]int {
	out := map[awswire.Scope]map[string]int{}
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		c := map[string]int{"identities": d.identities.Len(), "templates": d.templates.Len()}
		if c["identities"]+c["templates"] > 0 {
			out[sc] = c
		}
		return true
	})
	return out
}
