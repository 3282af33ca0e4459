package apigatewayv2

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
	"github.com/cloudemu/emulator/store"
)

// storeService is the service segment of this package's store keys.
const storeService = "apigatewayv2"

// Store kinds.
const (
	kindAPI    = "api"
	kindDomain = "domainname"
	kindLink   = "vpclink"
)

// dirs are the directories of one account and region.
type dirs struct {
	apis    *actors.Directory[HTTPAPI]
	domains *actors.Directory[DomainState]
	links   *actors.Directory[LinkState]
	// refs: which domains' API mappings refer to each API stage (refs.go).
	refs actors.Refs
}

func newDirs() *dirs {
	return &dirs{
		apis:    actors.NewDirectory[HTTPAPI](),
		domains: actors.NewDirectory[DomainState](),
		links:   actors.NewDirectory[LinkState](),
	}
}

// Service is the API Gateway v2 facade: reads come from published states,
// writes run as mutations inside the owning actor.
type Service struct {
	sys    *actors.System
	store  store.Store
	now    func() time.Time
	log    *slog.Logger
	seq    actors.Seq
	scopes *actors.Scopes[dirs]
	// ids finds APIs by id in every scope, for the data plane.
	ids *actors.IDs[HTTPAPI]
	// endpoint is where execute-api requests reach this emulator: a
	// scheme-less "host:port" template with "{id}" for the API id, set once
	// the server listens.
	endpoint atomic.Pointer[string]
	// resetAuth forgets a stage's cached authorizer answers.
	resetAuth atomic.Pointer[func(account, apiID, stage string)]

	restoring map[string]*restoreAPI // APIs being restored, by store key
}

// New returns an empty service. Restore what the store holds before serving.
func New(sys *actors.System, st store.Store, now func() time.Time, log *slog.Logger) *Service {
	return &Service{sys: sys, store: st, now: now, log: log.With("component", "apigatewayv2"),
		scopes: actors.NewScopes(newDirs), ids: actors.NewIDs[HTTPAPI]()}
}

// SetEndpoint sets the address template of APIs' apiEndpoint: host and port
// with "{id}" standing for the API id, e.g.
// "{id}.execute-api.localhost.localstack.cloud:4566".
func (s *Service) SetEndpoint(template string) { s.endpoint.Store(&template) }

// APIEndpoint is the apiEndpoint of an API of protocol p.
func (s *Service) APIEndpoint(id, protocol string) string {
	tmpl := "{id}.execute-api.localhost.localstack.cloud:4566"
	if p := s.endpoint.Load(); p != nil {
		tmpl = *p
	}
	scheme := "http://"
	if protocol == "WEBSOCKET" {
		scheme = "ws://"
	}
	return scheme + strings.ReplaceAll(tmpl, "{id}", id)
}

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.now() }

// Errors as API Gateway v2 words them.

// NotFound is the error for a missing resource of resourceType.
func NotFound(resourceType, format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.APIGatewayV2, awswire.CodeNotFound, format, args...).With("resourceType", resourceType)
}

// BadRequest is the error for invalid input.
func BadRequest(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.APIGatewayV2, awswire.CodeBadRequest, format, args...)
}

// Conflict is the error for a clash with existing state.
func Conflict(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.APIGatewayV2, awswire.CodeConflict, format, args...)
}

// APINotFound is the error for an unknown API id.
func APINotFound(sc awswire.Scope, id string) *awswire.Error {
	return NotFound("Api", "Invalid API identifier specified %s:%s", sc.Account, id)
}

// apiKey is the store key of an API, or of one of its records.
func apiKey(sc awswire.Scope, id string, sub ...string) string {
	return store.Key(sc.Account, sc.Region, storeService, kindAPI, id, sub...)
}

// apiRecord is the Api record as it is persisted.
type apiRecord struct {
	API API    `json:"api"`
	Seq uint64 `json:"seq"`
}

func (s *Service) records() actors.Records {
	return actors.Records{Sys: s.sys, Store: s.store, Busy: func() error { return awswire.Unavailable(awswire.APIGatewayV2) }}
}

func errFn(f func() *awswire.Error) func() error { return func() error { return f() } }

// ---- APIs ----

// API returns the published API with id.
func (s *Service) API(sc awswire.Scope, id string) (*HTTPAPI, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.apis.Get(id)
}

// APIs returns every API of the scope in creation order.
func (s *Service) APIs(sc awswire.Scope) []*HTTPAPI {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.apis.Snapshots(func(a, b *HTTPAPI) int { return cmp.Compare(a.Seq, b.Seq) })
}

// CreateAPI creates an API from api (its id set or empty), with whatever
// init adds in the same write (quick create's integration, route, stage).
func (s *Service) CreateAPI(sc awswire.Scope, api API, init func(t *Tx) error) (*HTTPAPI, error) {
	d := s.scopes.Get(sc)
	o := actors.NewStateOwner[HTTPAPI](s.store)
	e := actors.SpawnState(s.sys, "apigatewayv2.api", o, nil)
	id, ok := actors.ReserveNew(d.apis, api.APIID, func() string { return awswire.ShortID(10) }, e)
	if !ok {
		s.sys.StopAsync(e.Ref())
		return nil, Conflict("API with id %s already exists", id)
	}
	api.APIID = id
	s.track(sc, d, o, id, e)
	api.APIEndpoint = s.APIEndpoint(id, api.ProtocolType)
	seq := s.seq.Next()
	v, err := actors.Init(s.sys, e, func(*HTTPAPI) (actors.Change[HTTPAPI], error) {
		t := newTx(s, sc, nil)
		t.next.Seq = seq
		t.SetAPI(api)
		if init != nil {
			if err := init(t); err != nil {
				return actors.Change[HTTPAPI]{}, err
			}
		}
		return t.commit()
	})
	r, err := actors.Result[*HTTPAPI](v, err, errFn(func() *awswire.Error { return APINotFound(sc, id) }), s.records().Busy)
	if err != nil {
		d.apis.Release(id, e)
		s.ids.Remove(id, e)
		s.sys.StopAsync(e.Ref())
		return nil, err
	}
	return r, nil
}

// track lists an API's owner in the global id index, and has it leave its
// directory and the index when it ends.
func (s *Service) track(sc awswire.Scope, d *dirs, o *actors.StateOwner[HTTPAPI], id string, e *actors.Entry[HTTPAPI]) {
	s.ids.Add(id, sc, e)
	o.OnEnd = func(*HTTPAPI) {
		d.apis.Release(id, e)
		s.ids.Remove(id, e)
	}
}

// APIByID finds an API by id alone, in whichever account and region holds
// it: an execute-api request carries no credential scope. Custom ids may
// repeat across scopes; then the API in region wins (when region is not
// ""), else the one created first.
func (s *Service) APIByID(id, region string) (*HTTPAPI, awswire.Scope, bool) {
	var prefer func(awswire.Scope) bool
	if region != "" {
		prefer = func(sc awswire.Scope) bool { return sc.Region == region }
	}
	return s.ids.Lookup(id, prefer)
}

// Mutate runs fn as a mutation of the API id and returns what fn returns.
// If fn fails nothing changes.
func Mutate[R any](s *Service, sc awswire.Scope, id string, fn func(t *Tx) (R, error)) (R, error) {
	var zero R
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return zero, APINotFound(sc, id)
	}
	e, _, ok := d.apis.Entry(id)
	if !ok {
		return zero, APINotFound(sc, id)
	}
	v, err := actors.Update(s.sys, e, func(cur *HTTPAPI) (actors.Change[HTTPAPI], error) {
		t := newTx(s, sc, cur)
		r, err := fn(t)
		if err != nil {
			return actors.Change[HTTPAPI]{}, err
		}
		ch, err := t.commit()
		ch.Reply = r
		return ch, err
	})
	return actors.Result[R](v, err, errFn(func() *awswire.Error { return APINotFound(sc, id) }), s.records().Busy)
}

// DeleteAPI deletes the API and everything it owns, its tags included, in
// one write; API mappings pointing at it go too.
func (s *Service) DeleteAPI(sc awswire.Scope, id string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return APINotFound(sc, id)
	}
	e, _, ok := d.apis.Entry(id)
	if !ok {
		return APINotFound(sc, id)
	}
	// The owner tells the domains whose mappings refer to the API once its
	// delete is durable; DeleteAPI returns when they have dropped them.
	var pending []actors.Pending
	v, err := actors.Update(s.sys, e, func(*HTTPAPI) (actors.Change[HTTPAPI], error) {
		return actors.Change[HTTPAPI]{End: true, Records: []actors.Record{
			actors.Del(apiKey(sc, id)), actors.DelPrefix(apiKey(sc, id) + "/"),
		}, After: func() { pending = s.tellStageGone(sc, d, id, "") }}, nil
	})
	if _, err := actors.Result[any](v, err, errFn(func() *awswire.Error { return APINotFound(sc, id) }), s.records().Busy); err != nil {
		return err
	}
	s.settle(pending)
	return nil
}

// ---- restore and reset ----

// StoreService is the service segment of the keys Restore accepts.
func (s *Service) StoreService() string { return storeService }

type restoreAPI struct {
	scope awswire.Scope
	state HTTPAPI
	seen  bool
}

// Restore takes one persisted record. API records are gathered and their
// owners re-created by RestoreDone; the others are re-created at once.
func (s *Service) Restore(key string, value []byte) error {
	account, region, service, kind, id, sub, ok := store.ParseKey(key)
	if !ok || service != storeService {
		return fmt.Errorf("apigatewayv2: restore: foreign key %q", key)
	}
	sc := awswire.Scope{Account: account, Region: region}
	var err error
	switch kind {
	case kindAPI:
		err = s.restoreAPIRecord(sc, id, sub, value)
	case kindDomain:
		d := s.scopes.Get(sc)
		var st *DomainState
		st, err = actors.RestoreRecord(s.records(), "apigatewayv2."+kind, d.domains, value,
			func(st *DomainState) string {
				for id, m := range st.Mappings {
					d.refs.Add(stageTarget(m.APIID, m.Stage), mappingReferrer(st.Domain.DomainName, id))
				}
				return st.Domain.DomainName
			})
		if err == nil {
			s.seq.Restored(st.Seq)
		}
	case kindLink:
		d := s.scopes.Get(sc)
		var st *LinkState
		st, err = actors.RestoreRecord(s.records(), "apigatewayv2."+kind, d.links, value,
			func(st *LinkState) string { return st.Link.VpcLinkID })
		if err == nil {
			s.seq.Restored(st.Seq)
		}
	default:
		err = fmt.Errorf("unknown kind %q", kind)
	}
	if err != nil {
		return fmt.Errorf("apigatewayv2: restore %s: %w", key, err)
	}
	return nil
}

func (s *Service) restoreAPIRecord(sc awswire.Scope, id string, sub []string, value []byte) error {
	if s.restoring == nil {
		s.restoring = map[string]*restoreAPI{}
	}
	k := apiKey(sc, id)
	r := s.restoring[k]
	if r == nil {
		r = &restoreAPI{scope: sc}
		s.restoring[k] = r
	}
	st := &r.state
	if len(sub) == 0 {
		var rec apiRecord
		if err := json.Unmarshal(value, &rec); err != nil {
			return err
		}
		st.API, st.Seq, r.seen = rec.API, rec.Seq, true
		return nil
	}
	// Integrations, their responses and models carry the sequence that
	// orders their lists; new ones after a restart must sort after them.
	var probe struct {
		Seq uint64 `json:"seq"`
	}
	if json.Unmarshal(value, &probe) == nil {
		s.seq.Restored(probe.Seq)
	}
	switch {
	case len(sub) == 2 && sub[0] == "route":
		return restoreInto(&st.Routes, sub[1], value)
	case len(sub) == 2 && sub[0] == "integration":
		return restoreInto(&st.Integrations, sub[1], value)
	case len(sub) == 2 && sub[0] == "authorizer":
		return restoreInto(&st.Authorizers, sub[1], value)
	case len(sub) == 2 && sub[0] == "model":
		return restoreInto(&st.Models, sub[1], value)
	case len(sub) == 2 && sub[0] == "stage":
		return restoreInto(&st.Stages, sub[1], value)
	case len(sub) == 3 && sub[0] == "routeresponse":
		m := st.RouteResponses.At(sub[1])
		err := restoreInto(&m, sub[2], value)
		st.RouteResponses = st.RouteResponses.Set(sub[1], m)
		return err
	case len(sub) == 3 && sub[0] == "integrationresponse":
		m := st.IntegrationResponses.At(sub[1])
		err := restoreInto(&m, sub[2], value)
		st.IntegrationResponses = st.IntegrationResponses.Set(sub[1], m)
		return err
	case len(sub) == 2 && sub[0] == "deployment":
		var rec DeploymentRecord
		if err := json.Unmarshal(value, &rec); err != nil {
			return err
		}
		dep := rec.Deployment
		dep.Frozen, dep.Seq, dep.Exec = rec.Frozen, rec.Seq, new(actors.Lazy)
		s.seq.Restored(rec.Seq)
		if dep.Frozen != nil {
			indexRoutes(dep.Frozen)
		}
		st.Deployments = st.Deployments.Set(sub[1], &dep)
		return nil
	}
	return fmt.Errorf("unknown record %v", sub)
}

func restoreInto[V any](m *pmap.Map[*V], name string, value []byte) error {
	var v V
	if err := json.Unmarshal(value, &v); err != nil {
		return err
	}
	*m = m.Set(name, &v)
	return nil
}

// RestoreDone re-creates the owners of the APIs Restore gathered.
func (s *Service) RestoreDone() error {
	for k, r := range s.restoring {
		if !r.seen {
			return fmt.Errorf("apigatewayv2: restore: records of %s without the API record", k)
		}
		st := r.state
		st.Memo = new(actors.Memo)
		indexRoutes(&st.Config)
		d := s.scopes.Get(r.scope)
		o := actors.NewStateOwner[HTTPAPI](s.store)
		e := actors.SpawnState(s.sys, "apigatewayv2.api", o, &st)
		id := st.API.APIID
		s.track(r.scope, d, o, id, e)
		d.apis.Reserve(id, e)
		s.seq.Restored(st.Seq)
	}
	s.restoring = nil
	return s.reconcile()
}

// Detach forgets every owner and retires them all. The caller wipes the
// store afterwards.
func (s *Service) Detach() {
	var refs []actors.Ref
	s.scopes.Drain(func(_ awswire.Scope, d *dirs) bool {
		refs = append(refs, d.apis.Drain()...)
		refs = append(refs, d.domains.Drain()...)
		refs = append(refs, d.links.Drain()...)
		d.refs.Reset()
		return true
	})
	s.ids.Reset()
	s.sys.Stop(refs)
}

// validName reports whether a name has 1 to max characters and no control
// character (NUL included): the model's StringWithLengthBetween1And128
// shapes, and what no name of AWS's holds.
func validName(name string, max int) bool {
	n := utf8.RuneCountInString(name)
	return n >= 1 && n <= max && !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
