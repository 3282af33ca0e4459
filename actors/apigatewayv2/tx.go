package apigatewayv2

import (
	"maps"
	"slices"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Tx is one mutation of an API in progress. It starts from the published
// state and copies each collection the first time it changes, so that the
// published state (and every deployment sharing it) never changes; it
// records the store writes that make the change durable. When the
// configuration changes, every stage with autoDeploy gets a new deployment
// of it as the mutation commits.
type Tx struct {
	svc   *Service
	scope awswire.Scope
	cur   *HTTPAPI // nil while the API is being created
	next  HTTPAPI
	recs  []actors.Record
	now   time.Time
	owned map[string]bool // collections (and nested maps) next already owns
	// configChanged: routes, integrations, their responses, authorizers,
	// models or the API changed, so auto-deploying stages redeploy.
	configChanged bool
}

func newTx(svc *Service, sc awswire.Scope, cur *HTTPAPI) *Tx {
	t := &Tx{svc: svc, scope: sc, cur: cur, now: svc.now(), owned: map[string]bool{}}
	if cur != nil {
		t.next = *cur
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
func (t *Tx) State() *HTTPAPI { return &t.next }

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

// PutRoute adds or replaces a route.
func (t *Tx) PutRoute(r *Route) {
	t.next.Routes = own(t, "routes", t.next.Routes)
	t.next.Routes[r.RouteID] = r
	t.configChanged = true
	t.recs = append(t.recs, actors.Put(t.key("route", r.RouteID), r))
}

// DeleteRoute removes a route and its route responses.
func (t *Tx) DeleteRoute(id string) {
	t.next.Routes = own(t, "routes", t.next.Routes)
	delete(t.next.Routes, id)
	if _, ok := t.next.RouteResponses[id]; ok {
		t.next.RouteResponses = own(t, "routeResponses", t.next.RouteResponses)
		delete(t.next.RouteResponses, id)
		t.recs = append(t.recs, actors.DelPrefix(t.key("routeresponse", id)+"/"))
	}
	t.configChanged = true
	t.recs = append(t.recs, actors.Del(t.key("route", id)))
}

// PutRouteResponse adds or replaces a route response of route routeID.
func (t *Tx) PutRouteResponse(routeID string, rr *RouteResponse) {
	t.next.RouteResponses = own(t, "routeResponses", t.next.RouteResponses)
	inner := own(t, "routeResponses/"+routeID, t.next.RouteResponses[routeID])
	inner[rr.RouteResponseID] = rr
	t.next.RouteResponses[routeID] = inner
	t.configChanged = true
	t.recs = append(t.recs, actors.Put(t.key("routeresponse", routeID, rr.RouteResponseID), rr))
}

// DeleteRouteResponse removes a route response.
func (t *Tx) DeleteRouteResponse(routeID, id string) {
	t.next.RouteResponses = own(t, "routeResponses", t.next.RouteResponses)
	inner := own(t, "routeResponses/"+routeID, t.next.RouteResponses[routeID])
	delete(inner, id)
	t.next.RouteResponses[routeID] = inner
	t.configChanged = true
	t.recs = append(t.recs, actors.Del(t.key("routeresponse", routeID, id)))
}

// PutIntegration adds or replaces an integration.
func (t *Tx) PutIntegration(i *Integration) {
	t.next.Integrations = own(t, "integrations", t.next.Integrations)
	t.next.Integrations[i.IntegrationID] = i
	t.configChanged = true
	t.recs = append(t.recs, actors.Put(t.key("integration", i.IntegrationID), i))
}

// DeleteIntegration removes an integration and its integration responses.
func (t *Tx) DeleteIntegration(id string) {
	t.next.Integrations = own(t, "integrations", t.next.Integrations)
	delete(t.next.Integrations, id)
	if _, ok := t.next.IntegrationResponses[id]; ok {
		t.next.IntegrationResponses = own(t, "integrationResponses", t.next.IntegrationResponses)
		delete(t.next.IntegrationResponses, id)
		t.recs = append(t.recs, actors.DelPrefix(t.key("integrationresponse", id)+"/"))
	}
	t.configChanged = true
	t.recs = append(t.recs, actors.Del(t.key("integration", id)))
}

// PutIntegrationResponse adds or replaces an integration response.
func (t *Tx) PutIntegrationResponse(integrationID string, ir *IntegrationResponse) {
	t.next.IntegrationResponses = own(t, "integrationResponses", t.next.IntegrationResponses)
	inner := own(t, "integrationResponses/"+integrationID, t.next.IntegrationResponses[integrationID])
	inner[ir.IntegrationResponseID] = ir
	t.next.IntegrationResponses[integrationID] = inner
	t.configChanged = true
	t.recs = append(t.recs, actors.Put(t.key("integrationresponse", integrationID, ir.IntegrationResponseID), ir))
}

// DeleteIntegrationResponse removes an integration response.
func (t *Tx) DeleteIntegrationResponse(integrationID, id string) {
	t.next.IntegrationResponses = own(t, "integrationResponses", t.next.IntegrationResponses)
	inner := own(t, "integrationResponses/"+integrationID, t.next.IntegrationResponses[integrationID])
	delete(inner, id)
	t.next.IntegrationResponses[integrationID] = inner
	t.configChanged = true
	t.recs = append(t.recs, actors.Del(t.key("integrationresponse", integrationID, id)))
}

// PutAuthorizer adds or replaces an authorizer.
func (t *Tx) PutAuthorizer(a *Authorizer) {
	t.next.Authorizers = own(t, "authorizers", t.next.Authorizers)
	t.next.Authorizers[a.AuthorizerID] = a
	t.configChanged = true
	t.recs = append(t.recs, actors.Put(t.key("authorizer", a.AuthorizerID), a))
}

// DeleteAuthorizer removes an authorizer.
func (t *Tx) DeleteAuthorizer(id string) {
	t.next.Authorizers = own(t, "authorizers", t.next.Authorizers)
	delete(t.next.Authorizers, id)
	t.configChanged = true
	t.recs = append(t.recs, actors.Del(t.key("authorizer", id)))
}

// PutModel adds or replaces a model.
func (t *Tx) PutModel(m *Model) {
	t.next.Models = own(t, "models", t.next.Models)
	t.next.Models[m.ModelID] = m
	t.configChanged = true
	t.recs = append(t.recs, actors.Put(t.key("model", m.ModelID), m))
}

// DeleteModel removes a model.
func (t *Tx) DeleteModel(id string) {
	t.next.Models = own(t, "models", t.next.Models)
	delete(t.next.Models, id)
	t.configChanged = true
	t.recs = append(t.recs, actors.Del(t.key("model", id)))
}

// PutDeployment adds or replaces a deployment.
func (t *Tx) PutDeployment(d *Deployment) {
	t.next.Deployments = own(t, "deployments", t.next.Deployments)
	t.next.Deployments[d.DeploymentID] = d
	t.recs = append(t.recs, actors.Put(t.key("deployment", d.DeploymentID),
		DeploymentRecord{Deployment: *d, Frozen: d.Frozen, Seq: d.Seq}))
}

// DeleteDeployment removes a deployment.
func (t *Tx) DeleteDeployment(id string) {
	t.next.Deployments = own(t, "deployments", t.next.Deployments)
	delete(t.next.Deployments, id)
	t.recs = append(t.recs, actors.Del(t.key("deployment", id)))
}

// PutStage adds or replaces a stage.
func (t *Tx) PutStage(s *Stage) {
	t.next.Stages = own(t, "stages", t.next.Stages)
	t.next.Stages[s.StageName] = s
	t.recs = append(t.recs, actors.Put(t.key("stage", s.StageName), s))
}

// DeleteStage removes a stage.
func (t *Tx) DeleteStage(name string) {
	t.next.Stages = own(t, "stages", t.next.Stages)
	delete(t.next.Stages, name)
	t.recs = append(t.recs, actors.Del(t.key("stage", name)))
}

// Freeze returns the configuration as it stands in this mutation. It shares
// everything with the state, which copy-on-write keeps unchanged.
func (t *Tx) Freeze() *Config {
	c := t.next.Config
	// The deployment now shares what this mutation owned: a later write in
	// the same mutation must copy again.
	clear(t.owned)
	return &c
}

// Deploy makes a deployment of the configuration as it stands.
func (t *Tx) Deploy(description string, auto bool) *Deployment {
	d := &Deployment{
		AutoDeployed:     auto,
		CreatedDate:      t.Stamp(),
		DeploymentID:     NewID(6, func(id string) bool { _, taken := t.next.Deployments[id]; return taken }),
		DeploymentStatus: "DEPLOYED",
		Description:      description,
		Frozen:           t.Freeze(),
		Seq:              t.svc.seq.Add(1),
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
	if !t.configChanged || len(t.next.Routes) == 0 {
		return
	}
	var names []string
	for name, s := range t.next.Stages {
		if s.AutoDeploy {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return
	}
	slices.Sort(names)
	d := t.Deploy("Automatic deployment triggered by changes to the Api configuration", true)
	for _, name := range names {
		s := *t.next.Stages[name]
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
	return actors.Change[HTTPAPI]{Next: &next, Records: t.recs, Reply: &next}, nil
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

func own[V any](t *Tx, name string, m map[string]V) map[string]V {
	if t.owned[name] {
		return m
	}
	t.owned[name] = true
	c := maps.Clone(m)
	if c == nil {
		c = map[string]V{}
	}
	return c
}
