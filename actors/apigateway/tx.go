package apigateway

import (
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// Tx is one mutation of a REST API in progress. It starts from the
// published state; each change replaces one entry of a persistent map, so
// the published state (and every deployment sharing it) never changes and
// a write copies only what it touches. It records the store writes that
// make the change durable.
type Tx struct {
	svc   *Service
	scope awswire.Scope
	cur   *RestAPI // nil while the API is being created
	next  *RestAPI
	recs  []actors.Record
	now   time.Time
	after []func()
}

func newTx(svc *Service, sc awswire.Scope, cur *RestAPI) *Tx {
	t := &Tx{svc: svc, scope: sc, cur: cur, now: svc.now(), next: new(RestAPI)}
	if cur != nil {
		*t.next = *cur
	}
	t.next.Memo = nil // ResourcesMemo stays: commit renews it if resources change
	return t
}

// Now is the time of the mutation.
func (t *Tx) Now() time.Time { return t.now }

// Scope is the account and region of the API.
func (t *Tx) Scope() awswire.Scope { return t.scope }

// Svc is the service, for ids and read-only lookups of other owners.
func (t *Tx) Svc() *Service { return t.svc }

// State is the API as the mutation has made it so far. Its collections
// MUST be changed only through the Tx.
func (t *Tx) State() *RestAPI { return t.next }

// Cur is the API as published before this mutation (nil on creation).
func (t *Tx) Cur() *RestAPI { return t.cur }

// After runs fn inside the owner once the mutation is durable and
// published (see actors.Change.After).
func (t *Tx) After(fn func()) { t.after = append(t.after, fn) }

func (t *Tx) key(sub ...string) string {
	return apiKey(t.scope, t.next.API.ID, sub...)
}

// SetAPI replaces the RestApi resource itself.
func (t *Tx) SetAPI(a API) {
	t.next.API = a
	t.recs = append(t.recs, actors.Put(t.key(), apiRecord{API: a, Seq: t.next.Seq}))
}

// The collections of a REST API.
var (
	resources = actors.Collection[RestAPI, *Resource]{Kind: "resource",
		Of: func(a *RestAPI) *pmap.Map[*Resource] { return &a.Resources }, ID: func(r *Resource) string { return r.ID },
		Changed: func(a *RestAPI, old, new *Resource) {
			if old != nil && old.ParentID != "" {
				a.Children = a.Children.Delete(childKey(old.ParentID, old.PathPart))
			}
			if new != nil && new.ParentID != "" {
				a.Children = a.Children.Set(childKey(new.ParentID, new.PathPart), new.ID)
			}
		}}
	models = actors.Collection[RestAPI, *Model]{Kind: "model",
		Of: func(a *RestAPI) *pmap.Map[*Model] { return &a.Models }, ID: func(m *Model) string { return m.Name }}
	authorizers = actors.Collection[RestAPI, *Authorizer]{Kind: "authorizer",
		Of: func(a *RestAPI) *pmap.Map[*Authorizer] { return &a.Authorizers }, ID: func(a *Authorizer) string { return a.ID }}
	validators = actors.Collection[RestAPI, *RequestValidator]{Kind: "validator",
		Of: func(a *RestAPI) *pmap.Map[*RequestValidator] { return &a.Validators }, ID: func(v *RequestValidator) string { return v.ID }}
	gatewayResponses = actors.Collection[RestAPI, *GatewayResponse]{Kind: "gatewayresponse",
		Of: func(a *RestAPI) *pmap.Map[*GatewayResponse] { return &a.GatewayResponses }, ID: func(g *GatewayResponse) string { return g.ResponseType }}
	deployments = actors.Collection[RestAPI, *Deployment]{Kind: "deployment",
		Of: func(a *RestAPI) *pmap.Map[*Deployment] { return &a.Deployments }, ID: func(d *Deployment) string { return d.ID },
		Record: func(d *Deployment) any { return DeploymentRecord{Deployment: *d, Frozen: d.Frozen, Seq: d.Seq} }}
	stages = actors.Collection[RestAPI, *Stage]{Kind: "stage",
		Of: func(a *RestAPI) *pmap.Map[*Stage] { return &a.Stages }, ID: func(s *Stage) string { return s.StageName }}
)

// put adds or replaces an entry of a collection.
func put[V any](t *Tx, c actors.Collection[RestAPI, V], v V) {
	t.recs = append(t.recs, c.Put(t.next, v, t.recordKey))
}

// del removes an entry of a collection.
func del[V any](t *Tx, c actors.Collection[RestAPI, V], id string) {
	t.recs = append(t.recs, c.Delete(t.next, id, t.recordKey))
}

func (t *Tx) recordKey(kind, id string) string { return t.key(kind, id) }

// PutResource adds or replaces a resource (with its methods).
func (t *Tx) PutResource(r *Resource) { put(t, resources, r) }

// DeleteResource removes one resource (not its children: the caller does).
func (t *Tx) DeleteResource(id string) { del(t, resources, id) }

// PutModel adds or replaces a model.
func (t *Tx) PutModel(m *Model) { put(t, models, m) }

// DeleteModel removes a model.
func (t *Tx) DeleteModel(name string) { del(t, models, name) }

// PutAuthorizer adds or replaces an authorizer.
func (t *Tx) PutAuthorizer(a *Authorizer) { put(t, authorizers, a) }

// DeleteAuthorizer removes an authorizer.
func (t *Tx) DeleteAuthorizer(id string) { del(t, authorizers, id) }

// PutValidator adds or replaces a request validator.
func (t *Tx) PutValidator(v *RequestValidator) { put(t, validators, v) }

// DeleteValidator removes a request validator.
func (t *Tx) DeleteValidator(id string) { del(t, validators, id) }

// PutGatewayResponse adds or replaces a gateway response.
func (t *Tx) PutGatewayResponse(g *GatewayResponse) { put(t, gatewayResponses, g) }

// DeleteGatewayResponse removes a gateway response (back to the default).
func (t *Tx) DeleteGatewayResponse(responseType string) { del(t, gatewayResponses, responseType) }

// PutDeployment adds or replaces a deployment.
func (t *Tx) PutDeployment(d *Deployment) { put(t, deployments, d) }

// DeleteDeployment removes a deployment.
func (t *Tx) DeleteDeployment(id string) { del(t, deployments, id) }

// PutStage adds or replaces a stage.
func (t *Tx) PutStage(s *Stage) { put(t, stages, s) }

// DeleteStage removes a stage.
func (t *Tx) DeleteStage(name string) { del(t, stages, name) }

// childKey is where a resource sits in Config.Children: under its parent,
// by path part. Variable parts ("{id}") sort after the literal ones, so a
// parent's variable child is found by its prefix.
func childKey(parentID, pathPart string) string { return parentID + "/" + pathPart }

// childrenOf returns the ids of a resource's children, by path part.
func childrenOf(c *Config, parentID string) []string {
	var out []string
	for _, id := range c.Children.Prefix(parentID + "/") {
		out = append(out, id)
	}
	return out
}

// indexChildren builds Config.Children from the resources (restores).
func indexChildren(c *Config) {
	var kids pmap.Map[string]
	for _, r := range c.Resources.All() {
		if r.ParentID != "" {
			kids = kids.Set(childKey(r.ParentID, r.PathPart), r.ID)
		}
	}
	c.Children = kids
}

// Freeze returns the configuration as it stands in this mutation. It shares
// everything with the state, which copy-on-write keeps unchanged.
func (t *Tx) Freeze() *Config {
	c := t.next.Config
	return &c
}

// NewID returns an id of n characters not used by taken.
func NewID(n int, taken func(string) bool) string {
	for {
		id := awswire.ShortID(n)
		if taken == nil || !taken(id) {
			return id
		}
	}
}
