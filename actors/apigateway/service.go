package apigateway

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
	"github.com/cloudemu/emulator/store"
	"github.com/cloudemu/emulator/throttle"
	"github.com/puzpuzpuz/xsync/v3"
)

// storeService is the service segment of this package's store keys.
const storeService = "apigateway"

// Store kinds.
const (
	kindRestAPI = "restapi"
	kindAPIKey  = "apikey"
	kindPlan    = "usageplan"
	kindDomain  = "domainname"
	kindLink    = "vpclink"
)

// dirs are the directories and indexes of one account and region.
type dirs struct {
	apis    *actors.Directory[RestAPI]
	keys    *actors.Directory[KeyState]
	plans   *actors.Directory[PlanState]
	domains *actors.Directory[DomainState]
	links   *actors.Directory[LinkState]
	// refs: who refers to each API stage (refs.go).
	refs actors.Refs
	// keyPlans: the plans holding each API key (target key id, referrer
	// plan id), kept by the plans' owners.
	keyPlans actors.Refs
	// keyValues: API key value → key id ("" while the key is being
	// created), kept by the keys' owners.
	keyValues *xsync.MapOf[string, string]
	// limits: the throttles and quota of each (plan, key) link, kept by
	// the plans' owners and read by the data plane (limits.go).
	limits *keyLimits
	// stageLimits: the stages' method throttling, one bucket per
	// (API, stage, resource path, method).
	stageLimits *xsync.MapOf[MethodRef, *throttle.Bucket]
	// account is the account's limit in the region, made on first use.
	account atomic.Pointer[throttle.Bucket]
}

func newDirs() *dirs {
	return &dirs{
		apis:      actors.NewDirectory[RestAPI](),
		keys:      actors.NewDirectory[KeyState](),
		plans:     actors.NewDirectory[PlanState](),
		domains:   actors.NewDirectory[DomainState](),
		links:     actors.NewDirectory[LinkState](),
		keyValues: xsync.NewMapOf[string, string](),
		limits: xsync.NewMapOfWithHasher[limitsKey, *KeyLimits](func(k limitsKey, seed uint64) uint64 {
			return awswire.HashStrings(seed, k.plan, k.key)
		}),
		stageLimits: xsync.NewMapOfWithHasher[MethodRef, *throttle.Bucket](func(m MethodRef, seed uint64) uint64 {
			return awswire.HashStrings(seed, m.APIID, m.Stage, m.Path, m.Method)
		}),
	}
}

// Service is the API Gateway (v1) facade: reads come from published states,
// writes run as mutations inside the owning actor.
type Service struct {
	sys    *actors.System
	store  store.Store
	now    func() time.Time
	log    *slog.Logger
	seq    actors.Seq
	scopes *actors.Scopes[dirs]
	// ids finds REST APIs by id in every scope, for the data plane.
	ids *actors.IDs[RestAPI]

	restoring map[string]*restoreAPI // REST APIs being restored, by store key
}

// New returns an empty service. Restore what the store holds before serving.
func New(sys *actors.System, st store.Store, now func() time.Time, log *slog.Logger) *Service {
	return &Service{sys: sys, store: st, now: now, log: log.With("component", "apigateway"),
		scopes: actors.NewScopes(newDirs), ids: actors.NewIDs[RestAPI]()}
}

// Errors as API Gateway words them.
func notFound(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.APIGateway, awswire.CodeNotFound, format, args...)
}

// BadRequest is API Gateway's error for invalid input.
func BadRequest(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.APIGateway, awswire.CodeBadRequest, format, args...)
}

// Conflict is API Gateway's error for a clash with existing state.
func Conflict(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.APIGateway, awswire.CodeConflict, format, args...)
}

// APINotFound is the error for an unknown REST API id.
func APINotFound(sc awswire.Scope, id string) *awswire.Error {
	return notFound("Invalid API identifier specified %s:%s", sc.Account, id)
}

// apiKey is the store key of a REST API, or of one of its records.
func apiKey(sc awswire.Scope, id string, sub ...string) string {
	return store.Key(sc.Account, sc.Region, storeService, kindRestAPI, id, sub...)
}

// apiRecord is the RestApi record as it is persisted.
type apiRecord struct {
	API API    `json:"api"`
	Seq uint64 `json:"seq"`
}

// ask maps the actor errors: an owner gone is the resource gone, an owner
// too slow is the service busy.
func ask[R any](s *Service, run func() (any, error), gone func() *awswire.Error) (R, error) {
	v, err := run()
	return actors.Result[R](v, err, errFn(gone), s.records().Busy)
}

// ---- REST APIs ----

// API returns the published REST API with id.
func (s *Service) API(sc awswire.Scope, id string) (*RestAPI, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.apis.Get(id)
}

// APIs returns every REST API of the scope in creation order.
func (s *Service) APIs(sc awswire.Scope) []*RestAPI {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.apis.Snapshots(func(a, b *RestAPI) int { return cmp.Compare(a.Seq, b.Seq) })
}

// CreateRestAPI creates an API from api (its id set or empty) with its root
// resource, and whatever init adds in the same write.
func (s *Service) CreateRestAPI(sc awswire.Scope, api API, init func(t *Tx) error) (*RestAPI, error) {
	d := s.scopes.Get(sc)
	o := actors.NewStateOwner[RestAPI](s.store)
	e := actors.SpawnState(s.sys, "apigateway.restapi", o, nil)
	id, ok := actors.ReserveNew(d.apis, api.ID, func() string { return awswire.ShortID(10) }, e)
	if !ok {
		s.sys.StopAsync(e.Ref())
		return nil, Conflict("API with id %s already exists", id)
	}
	api.ID = id
	s.track(sc, d, o, id, e)
	seq := s.seq.Next()
	r, err := ask[*RestAPI](s, func() (any, error) {
		return actors.Init(s.sys, e, func(cur *RestAPI) (actors.Change[RestAPI], error) {
			t := newTx(s, sc, nil)
			t.next.Seq = seq
			root := &Resource{ID: awswire.ShortID(10), Path: "/"}
			api.RootResourceID = root.ID
			t.SetAPI(api)
			t.PutResource(root)
			if init != nil {
				if err := init(t); err != nil {
					return actors.Change[RestAPI]{}, err
				}
			}
			return t.commit()
		})
	}, func() *awswire.Error { return APINotFound(sc, id) })
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
func (s *Service) track(sc awswire.Scope, d *dirs, o *actors.StateOwner[RestAPI], id string, e *actors.Entry[RestAPI]) {
	s.ids.Add(id, sc, e)
	o.OnEnd = func(*RestAPI) {
		d.apis.Release(id, e)
		s.ids.Remove(id, e)
	}
}

// APIByID finds a REST API by id alone, in whichever account and region
// holds it: an execute-api request carries no credential scope. Custom ids
// may repeat across scopes; then the API in region wins (when region is
// not ""), else the one created first.
func (s *Service) APIByID(id, region string) (*RestAPI, awswire.Scope, bool) {
	var prefer func(awswire.Scope) bool
	if region != "" {
		prefer = func(sc awswire.Scope) bool { return sc.Region == region }
	}
	return s.ids.Lookup(id, prefer)
}

// commit ends a mutation: the new state is published, the records written.
func (t *Tx) commit() (actors.Change[RestAPI], error) {
	next := t.next
	next.Memo = new(StateCache)
	// A change of the resources (a new map) renews the GetResources memo.
	if t.cur == nil || next.Resources != t.cur.Resources || next.ResourcesMemo == nil {
		next.ResourcesMemo = new(actors.Memo)
	}
	ch := actors.Change[RestAPI]{Next: next, Records: t.recs, Reply: next}
	if len(t.after) > 0 {
		after := t.after
		ch.After = func() {
			for _, fn := range after {
				fn()
			}
		}
	}
	return ch, nil
}

// Mutate runs fn as a mutation of the REST API id and returns what fn
// returns. If fn fails nothing changes.
func Mutate[R any](s *Service, sc awswire.Scope, id string, fn func(t *Tx) (R, error)) (R, error) {
	return mutateOr(s, sc, id, func() *awswire.Error { return APINotFound(sc, id) }, fn)
}

// mutateOr is Mutate whose error for a missing API (or one deleted while
// the mutation waited) is gone: AWS reports a missing API as the missing
// item under it for most operations on an item.
func mutateOr[R any](s *Service, sc awswire.Scope, id string, gone func() *awswire.Error, fn func(t *Tx) (R, error)) (R, error) {
	var zero R
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return zero, gone()
	}
	e, _, ok := d.apis.Entry(id)
	if !ok {
		return zero, gone()
	}
	return ask[R](s, func() (any, error) {
		return actors.Update(s.sys, e, func(cur *RestAPI) (actors.Change[RestAPI], error) {
			t := newTx(s, sc, cur)
			r, err := fn(t)
			if err != nil {
				return actors.Change[RestAPI]{}, err
			}
			ch, err := t.commit()
			ch.Reply = r
			return ch, err
		})
	}, gone)
}

// DeleteRestAPI deletes the API and everything it owns, its tags included,
// in one write.
func (s *Service) DeleteRestAPI(sc awswire.Scope, id string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return APINotFound(sc, id)
	}
	e, _, ok := d.apis.Entry(id)
	if !ok {
		return APINotFound(sc, id)
	}
	// The owner tells the usage plans and domain names that refer to the
	// API once its delete is durable; DeleteRestAPI returns when they
	// have dropped the references, so that the caller reads its write.
	var pending []actors.Pending
	_, err := ask[any](s, func() (any, error) {
		return actors.Update(s.sys, e, func(cur *RestAPI) (actors.Change[RestAPI], error) {
			return actors.Change[RestAPI]{End: true, Records: []actors.Record{
				actors.Del(apiKey(sc, id)), actors.DelPrefix(apiKey(sc, id) + "/"),
			}, After: func() {
				dropStageLimits(d, id, "")
				pending = s.tellStageGone(sc, d, id, "")
			}}, nil
		})
	}, func() *awswire.Error { return APINotFound(sc, id) })
	if err != nil {
		return err
	}
	s.settle(pending)
	return nil
}

// ---- restore and reset ----

// StoreService is the service segment of the keys Restore accepts.
func (s *Service) StoreService() string { return storeService }

// restoreAPI gathers one REST API's records during a restore.
type restoreAPI struct {
	scope awswire.Scope
	state RestAPI
	seen  bool // the API record itself
}

// Restore takes one persisted record. REST API records are gathered and
// their owners re-created by RestoreDone; the others are re-created at once.
func (s *Service) Restore(key string, value []byte) error {
	account, region, service, kind, id, sub, ok := store.ParseKey(key)
	if !ok || service != storeService {
		return fmt.Errorf("apigateway: restore: foreign key %q", key)
	}
	sc := awswire.Scope{Account: account, Region: region}
	var err error
	switch kind {
	case kindRestAPI:
		err = s.restoreAPIRecord(sc, id, sub, value)
	default:
		err = s.restoreOther(sc, kind, value)
	}
	if err != nil {
		return fmt.Errorf("apigateway: restore %s: %w", key, err)
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
	if len(sub) != 2 {
		return fmt.Errorf("malformed key")
	}
	name := sub[1]
	switch sub[0] {
	case "resource":
		return restoreInto(&st.Resources, name, value)
	case "model":
		return restoreInto(&st.Models, name, value)
	case "authorizer":
		return restoreInto(&st.Authorizers, name, value)
	case "validator":
		return restoreInto(&st.Validators, name, value)
	case "gatewayresponse":
		return restoreInto(&st.GatewayResponses, name, value)
	case "stage":
		return restoreInto(&st.Stages, name, value)
	case "deployment":
		var rec DeploymentRecord
		if err := json.Unmarshal(value, &rec); err != nil {
			return err
		}
		d := rec.Deployment
		d.Frozen, d.Seq, d.Exec = rec.Frozen, rec.Seq, new(actors.Lazy)
		s.seq.Restored(rec.Seq)
		if d.Frozen != nil {
			computePaths(d.Frozen.Resources)
			indexChildren(d.Frozen)
		}
		st.Deployments = st.Deployments.Set(name, &d)
		return nil
	}
	return fmt.Errorf("unknown record kind %q", sub[0])
}

func restoreInto[V any](m *pmap.Map[*V], name string, value []byte) error {
	var v V
	if err := json.Unmarshal(value, &v); err != nil {
		return err
	}
	*m = m.Set(name, &v)
	return nil
}

// RestoreDone re-creates the owners of the REST APIs Restore gathered.
func (s *Service) RestoreDone() error {
	for k, r := range s.restoring {
		if !r.seen {
			return fmt.Errorf("apigateway: restore: records of %s without the API record", k)
		}
		st := r.state
		computePaths(st.Resources)
		indexChildren(&st.Config)
		st.Memo = new(StateCache)
		st.ResourcesMemo = new(actors.Memo)
		d := s.scopes.Get(r.scope)
		o := actors.NewStateOwner[RestAPI](s.store)
		e := actors.SpawnState(s.sys, "apigateway.restapi", o, &st)
		id := st.API.ID
		s.track(r.scope, d, o, id, e)
		d.apis.Reserve(id, e)
		s.seq.Restored(st.Seq)
	}
	s.restoring = nil
	if err := s.reconcile(); err != nil {
		return err
	}
	// Usage is not persisted: the restored links start with full buckets
	// and a fresh quota.
	now := s.now()
	s.scopes.Range(func(_ awswire.Scope, d *dirs) bool {
		for _, p := range d.plans.Snapshots(nil) {
			syncLimits(d, p, now)
		}
		return true
	})
	return nil
}

// Detach forgets every owner and retires them all. The caller wipes the
// store afterwards.
func (s *Service) Detach() {
	var refs []actors.Ref
	s.scopes.Drain(func(_ awswire.Scope, d *dirs) bool {
		refs = append(refs, d.apis.Drain()...)
		refs = append(refs, d.keys.Drain()...)
		refs = append(refs, d.plans.Drain()...)
		refs = append(refs, d.domains.Drain()...)
		refs = append(refs, d.links.Drain()...)
		d.refs.Reset()
		d.keyPlans.Reset()
		d.keyValues.Clear()
		d.limits.Clear()
		d.stageLimits.Clear()
		d.account.Store(nil)
		return true
	})
	s.ids.Reset()
	s.sys.Stop(refs)
}

// computePaths sets every resource's path from its parent chain. It is
// used on restore, where resources arrive unordered; it writes to resources
// no reader has seen yet.
func computePaths(rs pmap.Map[*Resource]) {
	var path func(r *Resource, depth int) string
	path = func(r *Resource, depth int) string {
		if r.ParentID == "" || depth > rs.Len() {
			return "/"
		}
		p, ok := rs.Get(r.ParentID)
		if !ok {
			return "/" + r.PathPart
		}
		pp := path(p, depth+1)
		return strings.TrimSuffix(pp, "/") + "/" + r.PathPart
	}
	for _, r := range rs.All() {
		r.Path = path(r, 0)
	}
}

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.now() }
