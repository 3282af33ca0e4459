package apigatewayv2

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Deployments and stages. A deployment freezes the API's configuration
// (routes, integrations, their responses, authorizers, models) when it is
// made: Tx.Deploy shares the immutable state, copying nothing, and the Tx
// copies a collection before changing it, so no later change reaches a
// deployment. A stage names a deployment; one with autoDeploy gets a new
// deployment whenever the configuration changes (Tx.autoDeploy), when it
// is created and when autoDeploy is switched on.

// Messages. R marks a real AWS v2 response (docs/apigatewayv2-evidence.md),
// v1 API Gateway REST's words for the same rule; the others are worded in
// AWS's style, no real one being known.
const (
	depMsgNoRoutesHTTP    = "Unable to deploy API because no routes exist in this API"           // R
	depMsgNoRoutesWS      = "At least one route is required before deploying the Api"            // R
	depMsgInUse           = "Active stages pointing to this deployment must be moved or deleted" // v1
	depMsgStageExists     = "Stage already exists"                                               // v1
	depMsgStageName       = "Stage name only allows a-zA-Z0-9_- or $default"
	depMsgExecutionLogs   = "Execution logs are not supported on protocolType HTTP"            // R
	depMsgRouteSettings   = "Unable to find Route by key %s within the provided RouteSettings" // R
	depMsgAutoDeployID    = "Deployment id cannot be updated when autoDeploy is enabled"
	depMsgVariableName    = "Invalid stage variable name: %s.  Please use names with only word characters."                                                                          // v1
	depMsgVariableValue   = "Invalid stage variable value: %s.  Please use values with alphanumeric characters and the symbols ' ', -', '.', '_', ':', '/', '?', '&', '=', and ','." // v1
	depMsgLogFormatLine   = "Access Log format must be single line, new line character is allowed only at end of the format"                                                         // R (v1)
	depMsgLogFormatID     = "Access Log format must include at least one of $context.requestId and $context.extendedRequestId"
	depMsgLogDestination  = "Invalid destination ARN specified in the request: %s"
	depMsgLoggingLevel    = "Invalid logging level specified: %s. Valid options are ERROR, INFO, OFF"
	depMsgThrottle        = "Throttle limits should be non-negative" // v1
	depMsgDescription     = "Description must be at most 1024 characters"
	depMsgNoRouteSettings = "No RouteSettings found for route key %s"

	// depAutoDescription is the description of the deployments autoDeploy
	// makes (tx.go words it the same).
	depAutoDescription = "Automatic deployment triggered by changes to the Api configuration"
)

// Limits from the model's shape names and API Gateway's quotas.
const (
	depMaxDescription   = 1024
	depMaxVariableName  = 64
	depMaxVariableValue = 512
)

var (
	stagesNameRe     = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
	stagesVarNameRe  = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	stagesVarValueRe = regexp.MustCompile(`^[A-Za-z0-9 \-._~:/?#&=,]+$`)
	depLoggingLevels = []string{"ERROR", "INFO", "OFF"}
)

// StageNotFound is the error for an unknown stage.
func StageNotFound() *awswire.Error { return NotFound("Stage", "Invalid stage identifier specified") }

// DeploymentNotFound is the error for an unknown deployment.
func DeploymentNotFound() *awswire.Error {
	return NotFound("Deployment", "Invalid Deployment identifier specified")
}

// depDeployable refuses to deploy an API without routes, in each protocol's
// words.
func depDeployable(api *HTTPAPI) error {
	if api.Routes.Len() > 0 {
		return nil
	}
	if api.API.ProtocolType == "WEBSOCKET" {
		return BadRequest(depMsgNoRoutesWS)
	}
	return BadRequest(depMsgNoRoutesHTTP)
}

func depCheckDescription(d *string) error {
	if d != nil && len(*d) > depMaxDescription {
		return BadRequest(depMsgDescription)
	}
	return nil
}

// ---- deployments ----

// Deployments returns the API's deployments in creation order.
func (s *Service) Deployments(sc awswire.Scope, apiID string) ([]*Deployment, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	out := slices.Collect(api.Deployments.Values())
	slices.SortFunc(out, func(a, b *Deployment) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

// Deployment returns one deployment of the API.
func (s *Service) Deployment(sc awswire.Scope, apiID, id string) (*Deployment, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	d, ok := api.Deployments.Get(id)
	if !ok {
		return nil, DeploymentNotFound()
	}
	return d, nil
}

// CreateDeployment deploys the API's configuration as it stands and, when
// in names a stage, points that stage at the new deployment.
func (s *Service) CreateDeployment(sc awswire.Scope, apiID string, in CreateDeploymentInput) (*Deployment, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Deployment, error) {
		api := t.State()
		var stage *Stage
		if in.StageName != nil && *in.StageName != "" {
			cur, ok := api.Stages.Get(*in.StageName)
			if !ok {
				return nil, StageNotFound()
			}
			stage = cur
		}
		if err := depCheckDescription(in.Description); err != nil {
			return nil, err
		}
		if err := depDeployable(api); err != nil {
			return nil, err
		}
		d := t.Deploy(depDeref(in.Description), false)
		if stage != nil {
			next := *stage
			next.DeploymentID = d.DeploymentID
			if next.AutoDeploy {
				next.LastDeploymentStatusMessage = DeployedMessage(d.DeploymentID)
			}
			next.LastUpdatedDate = t.Stamp()
			t.PutStage(&next)
		}
		return d, nil
	})
}

// UpdateDeployment changes a deployment's description; what it froze never
// changes.
func (s *Service) UpdateDeployment(sc awswire.Scope, apiID, id string, in UpdateDeploymentInput) (*Deployment, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Deployment, error) {
		cur, ok := t.State().Deployments.Get(id)
		if !ok {
			return nil, DeploymentNotFound()
		}
		if err := depCheckDescription(in.Description); err != nil {
			return nil, err
		}
		if in.Description == nil {
			return cur, nil
		}
		next := *cur
		next.Description = *in.Description
		t.PutDeployment(&next)
		return &next, nil
	})
}

// DeleteDeployment deletes a deployment no stage points at.
func (s *Service) DeleteDeployment(sc awswire.Scope, apiID, id string) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		api := t.State()
		if _, ok := api.Deployments.Get(id); !ok {
			return struct{}{}, DeploymentNotFound()
		}
		for _, st := range api.Stages.All() {
			if st.DeploymentID == id {
				return struct{}{}, BadRequest(depMsgInUse)
			}
		}
		t.DeleteDeployment(id)
		return struct{}{}, nil
	})
	return err
}

// ---- stages ----

// NewStage returns a stage called name of an API of protocol, as AWS
// creates one: the protocol's default route settings, empty maps (sent as
// {}), created and updated at now.
func NewStage(protocol, name string, now awswire.ISOTime) *Stage {
	return &Stage{
		StageName:            name,
		CreatedDate:          now,
		LastUpdatedDate:      now,
		DefaultRouteSettings: DefaultRouteSettings(protocol, nil),
		RouteSettings:        map[string]*RouteSettings{},
		StageVariables:       map[string]string{},
		Tags:                 map[string]string{},
	}
}

// DefaultRouteSettings completes a stage's default route settings with
// AWS's defaults: detailed metrics off; on WebSocket APIs data trace off
// and logging OFF too. rs is not changed.
func DefaultRouteSettings(protocol string, rs *RouteSettings) *RouteSettings {
	var out RouteSettings
	if rs != nil {
		out = *rs
	}
	if out.DetailedMetricsEnabled == nil {
		out.DetailedMetricsEnabled = new(bool)
	}
	if protocol == "WEBSOCKET" {
		if out.DataTraceEnabled == nil {
			out.DataTraceEnabled = new(bool)
		}
		if out.LoggingLevel == nil {
			off := "OFF"
			out.LoggingLevel = &off
		}
	}
	return &out
}

// Stages returns the API's stages by name.
func (s *Service) Stages(sc awswire.Scope, apiID string) ([]*Stage, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	out := slices.Collect(api.Stages.Values())
	slices.SortFunc(out, func(a, b *Stage) int { return strings.Compare(a.StageName, b.StageName) })
	return out, nil
}

// Stage returns one stage of the API.
func (s *Service) Stage(sc awswire.Scope, apiID, name string) (*Stage, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	st, ok := api.Stages.Get(name)
	if !ok {
		return nil, StageNotFound()
	}
	return st, nil
}

// CreateStage creates a stage. With autoDeploy it is deployed at once
// when the API has routes.
func (s *Service) CreateStage(sc awswire.Scope, apiID string, in StageInput) (*Stage, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Stage, error) {
		api := t.State()
		name := depDeref(in.StageName)
		if name != "$default" && !stagesNameRe.MatchString(name) {
			return nil, BadRequest(depMsgStageName)
		}
		if _, ok := api.Stages.Get(name); ok {
			return nil, Conflict(depMsgStageExists)
		}
		st := NewStage(api.API.ProtocolType, name, t.Stamp())
		if err := depApplyStage(t, st, in, false); err != nil {
			return nil, err
		}
		if in.Tags != nil {
			if err := CheckTags(in.Tags); err != nil {
				return nil, err
			}
			st.Tags = maps.Clone(in.Tags)
		}
		if st.AutoDeploy {
			depAutoDeployStage(t, st)
		}
		t.PutStage(st)
		return st, nil
	})
}

// UpdateStage changes the members in sends. Stage variables sent with ""
// are removed; route settings are replaced per route key (DeleteRouteSettings
// removes a key). Switching autoDeploy on deploys at once.
func (s *Service) UpdateStage(sc awswire.Scope, apiID, name string, in StageInput) (*Stage, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Stage, error) {
		cur, ok := t.State().Stages.Get(name)
		if !ok {
			return nil, StageNotFound()
		}
		st := *cur
		wasAuto := st.AutoDeploy
		if err := depApplyStage(t, &st, in, true); err != nil {
			return nil, err
		}
		if st.AutoDeploy && !wasAuto {
			depAutoDeployStage(t, &st)
		}
		st.LastUpdatedDate = t.Stamp()
		t.PutStage(&st)
		return &st, nil
	})
}

// depApplyStage sets the members of in on st (a copy the mutation owns),
// validating each as AWS does.
func depApplyStage(t *Tx, st *Stage, in StageInput, update bool) error {
	api := t.State()
	protocol := api.API.ProtocolType
	if err := depCheckDescription(in.Description); err != nil {
		return err
	}
	if in.Description != nil {
		st.Description = *in.Description
	}
	if in.ClientCertificateID != nil {
		st.ClientCertificateID = *in.ClientCertificateID
	}
	if in.StageVariables != nil {
		vars, err := depMergeVariables(st.StageVariables, in.StageVariables, update)
		if err != nil {
			return err
		}
		st.StageVariables = vars
	}
	if in.AccessLogSettings != nil {
		als, err := depAccessLogSettings(in.AccessLogSettings)
		if err != nil {
			return err
		}
		st.AccessLogSettings = als
	}
	if in.DefaultRouteSettings != nil {
		if err := depCheckRouteSettings(protocol, in.DefaultRouteSettings); err != nil {
			return err
		}
		st.DefaultRouteSettings = DefaultRouteSettings(protocol, in.DefaultRouteSettings)
	}
	if in.RouteSettings != nil {
		rs, err := depMergeRouteSettings(api, st.RouteSettings, in.RouteSettings)
		if err != nil {
			return err
		}
		st.RouteSettings = rs
	}
	if in.AutoDeploy != nil {
		st.AutoDeploy = *in.AutoDeploy
	}
	if in.DeploymentID != nil {
		// AWS: "Can't be updated if autoDeploy is enabled".
		if update && st.AutoDeploy {
			return BadRequest(depMsgAutoDeployID)
		}
		if _, ok := api.Deployments.Get(*in.DeploymentID); !ok {
			return DeploymentNotFound()
		}
		st.DeploymentID = *in.DeploymentID
	}
	return nil
}

// depAutoDeployStage points an auto-deploying stage at a new automatic
// deployment of the configuration, when there is something to deploy.
func depAutoDeployStage(t *Tx, st *Stage) {
	if depDeployable(t.State()) != nil {
		return
	}
	d := t.Deploy(depAutoDescription, true)
	st.DeploymentID = d.DeploymentID
	st.LastDeploymentStatusMessage = DeployedMessage(d.DeploymentID)
}

// depMergeVariables returns cur with vars applied; on update a variable sent
// as "" is removed (Terraform removes variables so).
func depMergeVariables(cur, vars map[string]string, update bool) (map[string]string, error) {
	next := maps.Clone(cur)
	if next == nil {
		next = map[string]string{}
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		v := vars[k]
		if len(k) > depMaxVariableName || !stagesVarNameRe.MatchString(k) {
			return nil, BadRequest(depMsgVariableName, k)
		}
		if update && v == "" {
			delete(next, k)
			continue
		}
		if len(v) > depMaxVariableValue || !stagesVarValueRe.MatchString(v) {
			return nil, BadRequest(depMsgVariableValue, v)
		}
		next[k] = v
	}
	return next, nil
}

// depAccessLogSettings checks access-log settings; empty ones (Terraform
// sends {} when they are removed) turn access logging off.
func depAccessLogSettings(in *AccessLogSettings) (*AccessLogSettings, error) {
	if in.DestinationARN == "" && in.Format == "" {
		return nil, nil
	}
	out := *in
	// AWS stores a log group ARN without the trailing ":*" the console
	// and CloudFormation give it.
	out.DestinationARN = strings.TrimSuffix(out.DestinationARN, ":*")
	if _, ok := awswire.ParseARN(out.DestinationARN); !ok {
		return nil, BadRequest(depMsgLogDestination, depNullIfEmpty(in.DestinationARN))
	}
	if strings.Contains(strings.TrimSuffix(out.Format, "\n"), "\n") {
		return nil, BadRequest(depMsgLogFormatLine)
	}
	if !strings.Contains(out.Format, "$context.requestId") && !strings.Contains(out.Format, "$context.extendedRequestId") {
		return nil, BadRequest(depMsgLogFormatID)
	}
	return &out, nil
}

// depCheckRouteSettings refuses settings AWS refuses: execution logging
// (data trace, logging level) on HTTP APIs, unknown logging levels,
// negative throttling limits.
func depCheckRouteSettings(protocol string, rs *RouteSettings) error {
	if rs == nil {
		return nil
	}
	if protocol != "WEBSOCKET" && (rs.DataTraceEnabled != nil || rs.LoggingLevel != nil) {
		return BadRequest(depMsgExecutionLogs)
	}
	if l := rs.LoggingLevel; l != nil && !slices.Contains(depLoggingLevels, *l) {
		return BadRequest(depMsgLoggingLevel, *l)
	}
	if (rs.ThrottlingBurstLimit != nil && *rs.ThrottlingBurstLimit < 0) ||
		(rs.ThrottlingRateLimit != nil && !(*rs.ThrottlingRateLimit >= 0)) {
		return BadRequest(depMsgThrottle)
	}
	return nil
}

// depMergeRouteSettings returns cur with each route key's settings replaced
// by in's; every key must be a route key of the API.
func depMergeRouteSettings(api *HTTPAPI, cur, in map[string]*RouteSettings) (map[string]*RouteSettings, error) {
	keys := map[string]bool{}
	for _, r := range api.Routes.All() {
		keys[r.RouteKey] = true
	}
	next := maps.Clone(cur)
	if next == nil {
		next = map[string]*RouteSettings{}
	}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		if !keys[k] {
			return nil, NotFound("Route", depMsgRouteSettings, k)
		}
		rs := in[k]
		if rs == nil {
			rs = &RouteSettings{}
		}
		if err := depCheckRouteSettings(api.API.ProtocolType, rs); err != nil {
			return nil, err
		}
		next[k] = rs
	}
	return next, nil
}

// DeleteStage deletes a stage; API mappings that point at it go too.
func (s *Service) DeleteStage(sc awswire.Scope, apiID, name string) error {
	// The owner tells the domains whose mappings refer to the stage once
	// its deletion is durable; DeleteStage returns when they have.
	var pending []actors.Pending
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		if _, ok := t.State().Stages.Get(name); !ok {
			return struct{}{}, StageNotFound()
		}
		t.DeleteStage(name)
		d := s.scopes.Get(sc)
		t.After(func() { pending = s.tellStageGone(sc, d, apiID, name) })
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	s.settle(pending)
	return nil
}

// DeleteRouteSettings removes a stage's settings for one route key.
func (s *Service) DeleteRouteSettings(sc awswire.Scope, apiID, name, routeKey string) error {
	return s.depChangeStage(sc, apiID, name, func(st *Stage) error {
		if _, ok := st.RouteSettings[routeKey]; !ok {
			return NotFound("RouteSettings", depMsgNoRouteSettings, routeKey)
		}
		st.RouteSettings = maps.Clone(st.RouteSettings)
		delete(st.RouteSettings, routeKey)
		return nil
	})
}

// DeleteAccessLogSettings turns a stage's access logging off.
func (s *Service) DeleteAccessLogSettings(sc awswire.Scope, apiID, name string) error {
	return s.depChangeStage(sc, apiID, name, func(st *Stage) error {
		st.AccessLogSettings = nil
		return nil
	})
}

// depChangeStage runs change on a copy of a stage and stores the result.
func (s *Service) depChangeStage(sc awswire.Scope, apiID, name string, change func(st *Stage) error) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		cur, ok := t.State().Stages.Get(name)
		if !ok {
			return struct{}{}, StageNotFound()
		}
		st := *cur
		if err := change(&st); err != nil {
			return struct{}{}, err
		}
		st.LastUpdatedDate = t.Stamp()
		t.PutStage(&st)
		return struct{}{}, nil
	})
	return err
}

// ResetAuthorizersCache resets a stage's authorizer cache (the data
// plane's, through the hook SetAuthorizersCacheReset gave); the API and
// the stage must exist.
func (s *Service) ResetAuthorizersCache(sc awswire.Scope, apiID, name string) error {
	if _, err := s.Stage(sc, apiID, name); err != nil {
		return err
	}
	if reset := s.resetAuth.Load(); reset != nil {
		(*reset)(sc.Account, apiID, name)
	}
	return nil
}

// SetAuthorizersCacheReset gives the function that forgets a stage's
// cached authorizer answers (the HTTP API executor's).
func (s *Service) SetAuthorizersCacheReset(reset func(account, apiID, stage string)) {
	s.resetAuth.Store(&reset)
}

func depDeref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func depNullIfEmpty(s string) string {
	if s == "" {
		return "null"
	}
	return s
}
