package apigatewayv2

import (
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// Tx is one mutation of an API in progress. It starts from the published
// state; each change replaces one entry of a persistent map, so the
// published state (and every deployment sharing it) never changes and a
// write copies only what it touches. It records the store writes that make
// the change durable. When the
// configuration changes, every stage with autoDeploy gets a new deployment
// of it as the mutation commits.
type Tx struct {
	svc   *Service
	scope awswire.Scope
	cur   *HTTPAPI // nil while the API is being created
	next  *HTTPAPI
	recs  []actors.Record
	now   time.Time
	// after runs once the mutation is durable (see Tx.After).
	after []func()
	// configChanged: routes, integrations, their responses, authorizers,
	// models or the API changed, so auto-deploying stages redeploy.
	configChanged bool
}

func newTx(svc *Service, sc awswire.Scope, cur *HTTPAPI) *Tx {
	t := &Tx{svc: svc, scope: sc, cur: cur, now: svc.now(), next: new(HTTPAPI)}
	if cur != nil {
		*t.next = *cur
	}
	t.next.Memo = nil
	return t
}

// Now is the time of the mutation.
func (t *Tx) Now() time.Time { return t.now }

// Stamp is the time of the mutation as a wire timestamp.
func (t *Tx) Stamp() awswire.ISOTime { return awswire.ISOTime(t.now.UnixMilli()) }

// Scope is the account and region of the API.
func (t *Tx) Scope() awswire.Scope { return t.scope }

// Svc is the service, for ids and read-only lookups of other owners.
func (t *Tx) Svc() *Service { return t.svc }

// State is the API as the mutation has made it so far. Its maps MUST be
// changed only through the Tx.
func (t *Tx) State() *HTTPAPI { return t.next }

// After runs fn inside the owner once the mutation is durable and
// published (see actors.Change.After).
func (t *Tx) After(fn func()) { t.after = append(t.after, fn) }

// Cur is the API as published before this mutation (nil on creation).
func (t *Tx) Cur() *HTTPAPI { return t.cur }

func (t *Tx) key(sub ...string) string { return apiKey(t.scope, t.next.API.APIID, sub...) }

// SetAPI replaces the Api resource itself.
func (t *Tx) SetAPI(a API) {
	t.next.API = a
	t.configChanged = true
	t.recs = append(t.recs, actors.Put(t.key(), apiRecord{API: a, Seq: t.next.Seq}))
}

// SetAPITags replaces the API's tags. Tags are not configuration, so no
// auto-deploying stage redeploys for them.
func (t *Tx) SetAPITags(tags map[string]string) {
	a := t.next.API
	a.Tags = tags
	t.next.API = a
	t.recs = append(t.recs, actors.Put(t.key(), apiRecord{API: a, Seq: t.next.Seq}))
}

// The collections of an API; configKinds are those whose change is a change
// of configuration, which auto-deploying stages follow.
var (
	routes = actors.Collection[HTTPAPI, *Route]{Kind: "route",
		Of: func(a *HTTPAPI) *pmap.Map[*Route] { return &a.Routes }, ID: func(r *Route) string { return r.RouteID },
		Changed: func(a *HTTPAPI, old, new *Route) { a.RouteIndex = a.RouteIndex.update(old, new) }}
	integrations = actors.Collection[HTTPAPI, *Integration]{Kind: "integration",
		Of: func(a *HTTPAPI) *pmap.Map[*Integration] { return &a.Integrations }, ID: func(i *Integration) string { return i.IntegrationID }}
	authorizers = actors.Collection[HTTPAPI, *Authorizer]{Kind: "authorizer",
		Of: func(a *HTTPAPI) *pmap.Map[*Authorizer] { return &a.Authorizers }, ID: func(a *Authorizer) string { return a.AuthorizerID }}
	models = actors.Collection[HTTPAPI, *Model]{Kind: "model",
		Of: func(a *HTTPAPI) *pmap.Map[*Model] { return &a.Models }, ID: func(m *Model) string { return m.ModelID }}
	deployments = actors.Collection[HTTPAPI, *Deployment]{Kind: "deployment",
		Of: func(a *HTTPAPI) *pmap.Map[*Deployment] { return &a.Deployments }, ID: func(d *Deployment) string { return d.DeploymentID },
		Record: func(d *Deployment) any { return DeploymentRecord{Deployment: *d, Frozen: d.Frozen, Seq: d.Seq} }}
	stages = actors.Collection[HTTPAPI, *Stage]{Kind: "stage",
		Of: func(a *HTTPAPI) *pmap.Map[*Stage] { return &a.Stages }, ID: func(s *Stage) string { return s.StageName }}

	configKinds = map[string]bool{"route": true, "integration": true, "authorizer": true, "model": true}
)

// put adds or replaces an entry of a collection.
func put[V any](t *Tx, c actors.Collection[HTTPAPI, V], v V) {
	t.recs = append(t.recs, c.Put(t.next, v, t.recordKey))
	t.configChanged = t.configChanged || configKinds[c.Kind]
}

// del removes an entry of a collection.
func del[V any](t *Tx, c actors.Collection[HTTPAPI, V], id string) {
	t.recs = append(t.recs, c.Delete(t.next, id, t.recordKey))
	t.configChanged = t.configChanged || configKinds[c.Kind]
}

func (t *Tx) recordKey(kind, id string) string { return t.key(kind, id) }

// putNested adds or replaces an entry of a collection kept per parent
// (route responses by route, integration responses by integration).
func putNested[V any](t *Tx, m *pmap.Map[pmap.Map[V]], kind, parent, id string, v V) {
	inner, _ := m.Get(parent)
	*m = m.Set(parent, inner.Set(id, v))
	t.configChanged = true
	t.recs = append(t.recs, actors.Put(t.key(kind, parent, id), v))
}

// delNested removes an entry of a collection kept per parent.
func delNested[V any](t *Tx, m *pmap.Map[pmap.Map[V]], kind, parent, id string) {
	inner, _ := m.Get(parent)
	if inner = inner.Delete(id); inner.Len() == 0 {
		*m = m.Delete(parent)
	} else {
		*m = m.Set(parent, inner)
	}
	t.configChanged = true
	t.recs = append(t.recs, actors.Del(t.key(kind, parent, id)))
}

// delParent removes every entry kept under parent.
func delParent[V any](t *Tx, m *pmap.Map[pmap.Map[V]], kind, parent string) {
	if !m.Has(parent) {
		return
	}
	*m = m.Delete(parent)
	t.recs = append(t.recs, actors.DelPrefix(t.key(kind, parent)+"/"))
}

// PutRoute adds or replaces a route.
func (t *Tx) PutRoute(r *Route) { put(t, routes, r) }

// DeleteRoute removes a route and its route responses.
func (t *Tx) DeleteRoute(id string) {
	delParent(t, &t.next.RouteResponses, "routeresponse", id)
	del(t, routes, id)
}

// PutRouteResponse adds or replaces a route response of route routeID.
func (t *Tx) PutRouteResponse(routeID string, rr *RouteResponse) {
	putNested(t, &t.next.RouteResponses, "routeresponse", routeID, rr.RouteResponseID, rr)
}

// DeleteRouteResponse removes a route response.
func (t *Tx) DeleteRouteResponse(routeID, id string) {
	delNested(t, &t.next.RouteResponses, "routeresponse", routeID, id)
}

// PutIntegration adds or replaces an integration.
func (t *Tx) PutIntegration(i *Integration) { put(t, integrations, i) }

// DeleteIntegration removes an integration and its integration responses.
func (t *Tx) DeleteIntegration(id string) {
	delParent(t, &t.next.IntegrationResponses, "integrationresponse", id)
	del(t, integrations, id)
}

// PutIntegrationResponse adds or replaces an integration response.
func (t *Tx) PutIntegrationResponse(integrationID string, ir *IntegrationResponse) {
	putNested(t, &t.next.IntegrationResponses, "integrationresponse", integrationID, ir.IntegrationResponseID, ir)
}

// DeleteIntegrationResponse removes an integration response.
func (t *Tx) DeleteIntegrationResponse(integrationID, id string) {
	delNested(t, &t.next.IntegrationResponses, "integrationresponse", integrationID, id)
}

// PutAuthorizer adds or replaces an authorizer.
func (t *Tx) PutAuthorizer(a *Authorizer) { put(t, authorizers, a) }

// DeleteAuthorizer removes an authorizer.
func (t *Tx) DeleteAuthorizer(id string) { del(t, authorizers, id) }

// PutModel adds or replaces a model.
func (t *Tx) PutModel(m *Model) { put(t, models, m) }

// DeleteModel removes a model.
func (t *Tx) DeleteModel(id string) { del(t, models, id) }

// PutDeployment adds or replaces a deployment.
func (t *Tx) PutDeployment(d *Deployment) { put(t, deployments, d) }

// DeleteDeployment removes a deployment.
func (t *Tx) DeleteDeployment(id string) { del(t, deployments, id) }

// PutStage adds or replaces a stage.
func (t *Tx) PutStage(s *Stage) { put(t, stages, s) }

// DeleteStage removes a stage.
func (t *Tx) DeleteStage(name string) { del(t, stages, name) }

// Freeze returns the configuration as it stands in this mutation. It shares
// everything with the state, whose persistent maps never change.
func (t *Tx) Freeze() *Config {
	c := t.next.Config
	return &c
}

// Deploy makes a deployment of the configuration as it stands.
func (t *Tx) Deploy(description string, auto bool) *Deployment {
	d := &Deployment{
		AutoDeployed:     auto,
		CreatedDate:      t.Stamp(),
		DeploymentID:     NewID(6, t.next.Deployments.Has),
		DeploymentStatus: "DEPLOYED",
		Description:      description,
		Frozen:           t.Freeze(),
		Seq:              t.svc.seq.Next(),
		Exec:             new(actors.Lazy),
	}
	t.PutDeployment(d)
	return d
}

// DeployedMessage is a stage's lastDeploymentStatusMessage after a
// deployment.
func DeployedMessage(id string) string {
	return "Successfully deployed stage with deployment ID '" + id + "'"
}

// autoDeploy gives every auto-deploying stage a new deployment of the
// changed configuration.
func (t *Tx) autoDeploy() {
	// AWS cannot deploy an API without routes: the stages keep what they had.
	if !t.configChanged || t.next.Routes.Len() == 0 {
		return
	}
	var auto []*Stage // in name order
	for _, s := range t.next.Stages.All() {
		if s.AutoDeploy {
			auto = append(auto, s)
		}
	}
	if len(auto) == 0 {
		return
	}
	d := t.Deploy("Automatic deployment triggered by changes to the Api configuration", true)
	for _, cur := range auto {
		s := *cur
		s.DeploymentID = d.DeploymentID
		s.LastDeploymentStatusMessage = DeployedMessage(d.DeploymentID)
		s.LastUpdatedDate = t.Stamp()
		t.PutStage(&s)
	}
}

// commit ends a mutation: stages that auto-deploy follow the change, the new
// state is published and the records written.
func (t *Tx) commit() (actors.Change[HTTPAPI], error) {
	t.autoDeploy()
	next := t.next
	next.Memo = new(actors.Memo)
	ch := actors.Change[HTTPAPI]{Next: next, Records: t.recs, Reply: next}
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

// NewID returns an id of n lowercase alphanumerics not used by taken.
func NewID(n int, taken func(string) bool) string {
	for {
		id := awswire.ShortID(n)
		if taken == nil || !taken(id) {
			return id
		}
	}
}
