package apigateway

import (
	"maps"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Tx is one mutation of a REST API in progress. It starts from the
// published state and copies each collection the first time it changes, so
// that the published state (and every deployment sharing it) never changes;
// it records the store writes that make the change durable.
type Tx struct {
	svc   *Service
	scope awswire.Scope
	cur   *RestAPI // nil while the API is being created
	next  RestAPI
	recs  []actors.Record
	now   time.Time
	// which collections next already owns
	ownResources, ownModels, ownAuthorizers, ownValidators, ownGateway, ownDeployments, ownStages bool
}

func newTx(svc *Service, sc awswire.Scope, cur *RestAPI) *Tx {
	t := &Tx{svc: svc, scope: sc, cur: cur, now: svc.now()}
	if cur != nil {
		t.next = *cur
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

// State is the API as the mutation has made it so far. Its maps MUST be
// changed only through the Tx.
func (t *Tx) State() *RestAPI { return &t.next }

// Cur is the API as published before this mutation (nil on creation).
func (t *Tx) Cur() *RestAPI { return t.cur }

func (t *Tx) key(sub ...string) string {
	return apiKey(t.scope, t.next.API.ID, sub...)
}

// SetAPI replaces the RestApi resource itself.
func (t *Tx) SetAPI(a API) {
	t.next.API = a
	t.recs = append(t.recs, actors.Put(t.key(), apiRecord{API: a, Seq: t.next.Seq}))
}

// PutResource adds or replaces a resource (with its methods).
func (t *Tx) PutResource(r *Resource) {
	t.next.Resources = own(t.next.Resources, &t.ownResources)
	t.next.Resources[r.ID] = r
	t.recs = append(t.recs, actors.Put(t.key("resource", r.ID), r))
}

// DeleteResource removes one resource (not its children: the caller does).
func (t *Tx) DeleteResource(id string) {
	t.next.Resources = own(t.next.Resources, &t.ownResources)
	delete(t.next.Resources, id)
	t.recs = append(t.recs, actors.Del(t.key("resource", id)))
}

// PutModel adds or replaces a model.
func (t *Tx) PutModel(m *Model) {
	t.next.Models = own(t.next.Models, &t.ownModels)
	t.next.Models[m.Name] = m
	t.recs = append(t.recs, actors.Put(t.key("model", m.Name), m))
}

// DeleteModel removes a model.
func (t *Tx) DeleteModel(name string) {
	t.next.Models = own(t.next.Models, &t.ownModels)
	delete(t.next.Models, name)
	t.recs = append(t.recs, actors.Del(t.key("model", name)))
}

// PutAuthorizer adds or replaces an authorizer.
func (t *Tx) PutAuthorizer(a *Authorizer) {
	t.next.Authorizers = own(t.next.Authorizers, &t.ownAuthorizers)
	t.next.Authorizers[a.ID] = a
	t.recs = append(t.recs, actors.Put(t.key("authorizer", a.ID), a))
}

// DeleteAuthorizer removes an authorizer.
func (t *Tx) DeleteAuthorizer(id string) {
	t.next.Authorizers = own(t.next.Authorizers, &t.ownAuthorizers)
	delete(t.next.Authorizers, id)
	t.recs = append(t.recs, actors.Del(t.key("authorizer", id)))
}

// PutValidator adds or replaces a request validator.
func (t *Tx) PutValidator(v *RequestValidator) {
	t.next.Validators = own(t.next.Validators, &t.ownValidators)
	t.next.Validators[v.ID] = v
	t.recs = append(t.recs, actors.Put(t.key("validator", v.ID), v))
}

// DeleteValidator removes a request validator.
func (t *Tx) DeleteValidator(id string) {
	t.next.Validators = own(t.next.Validators, &t.ownValidators)
	delete(t.next.Validators, id)
	t.recs = append(t.recs, actors.Del(t.key("validator", id)))
}

// PutGatewayResponse adds or replaces a gateway response.
func (t *Tx) PutGatewayResponse(g *GatewayResponse) {
	t.next.GatewayResponses = own(t.next.GatewayResponses, &t.ownGateway)
	t.next.GatewayResponses[g.ResponseType] = g
	t.recs = append(t.recs, actors.Put(t.key("gatewayresponse", g.ResponseType), g))
}

// DeleteGatewayResponse removes a gateway response (back to the default).
func (t *Tx) DeleteGatewayResponse(responseType string) {
	t.next.GatewayResponses = own(t.next.GatewayResponses, &t.ownGateway)
	delete(t.next.GatewayResponses, responseType)
	t.recs = append(t.recs, actors.Del(t.key("gatewayresponse", responseType)))
}

// PutDeployment adds or replaces a deployment.
func (t *Tx) PutDeployment(d *Deployment) {
	t.next.Deployments = own(t.next.Deployments, &t.ownDeployments)
	t.next.Deployments[d.ID] = d
	t.recs = append(t.recs, actors.Put(t.key("deployment", d.ID), DeploymentRecord{Deployment: *d, Frozen: d.Frozen, Seq: d.Seq}))
}

// DeleteDeployment removes a deployment.
func (t *Tx) DeleteDeployment(id string) {
	t.next.Deployments = own(t.next.Deployments, &t.ownDeployments)
	delete(t.next.Deployments, id)
	t.recs = append(t.recs, actors.Del(t.key("deployment", id)))
}

// PutStage adds or replaces a stage.
func (t *Tx) PutStage(s *Stage) {
	t.next.Stages = own(t.next.Stages, &t.ownStages)
	t.next.Stages[s.StageName] = s
	t.recs = append(t.recs, actors.Put(t.key("stage", s.StageName), s))
}

// DeleteStage removes a stage.
func (t *Tx) DeleteStage(name string) {
	t.next.Stages = own(t.next.Stages, &t.ownStages)
	delete(t.next.Stages, name)
	t.recs = append(t.recs, actors.Del(t.key("stage", name)))
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

func own[V any](m map[string]V, owned *bool) map[string]V {
	if *owned {
		return m
	}
	*owned = true
	c := maps.Clone(m)
	if c == nil {
		c = map[string]V{}
	}
	return c
}
