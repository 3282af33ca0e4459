package apigateway

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// Deployments and stages. A deployment freezes the API's configuration
// when it is made (Tx.Freeze shares the immutable state, copying nothing);
// a stage names a deployment, and the data plane serves the stage's
// frozen configuration, never the live one. Both live in the API's owner:
// RestAPI.Deployments by id, RestAPI.Stages by name.

func stageNotFound() *awswire.Error { return notFound("Invalid Stage identifier specified") }

func deploymentNotFound() *awswire.Error { return notFound("Invalid Deployment identifier specified") }

// Messages AWS answers with, verbatim (two spaces after the first period
// of the stage-variable ones are real).
const (
	msgDeploymentInUse    = "Active stages pointing to this deployment must be moved or deleted"
	msgNoMethods          = "The REST API doesn't contain any methods"
	msgNoIntegration      = "No integration defined for method"
	msgStageName          = "Stage name only allows a-zA-Z0-9_"
	msgStageExists        = "Stage already exists"
	msgNoSuchDeployment   = "Deployment id does not exist"
	msgNoCanary           = "Promotion not available. Canary does not exist."
	msgCanaryStage        = "Invalid deployment content specified.Non null and non empty stageName must be provided for canary deployment. Provided value is %s"
	msgCanaryStageMissing = "Invalid deployment content specified.Stage %s must already be created before making a canary release deployment"
	msgVariableName       = "Invalid stage variable name: %s.  Please use names with only word characters."
	msgVariableValue      = "Invalid stage variable value: %s.  Please use values with alphanumeric characters and the symbols ' ', -', '.', '_', ':', '/', '?', '&', '=', and ','."
	msgRemoveSetting      = "Cannot remove method setting %s because there is no method setting for this method "
	msgBadOp              = "Invalid %s operation with path: %s"
	msgPercent            = "Canary traffic percentage must be between 0.0 and 100.0"
	msgBadCopy            = "Invalid copy operation with path: %s and from %s. Valid copy:path are [/deploymentId, /variables] and valid copy:from are [/canarySettings/deploymentId, /canarySettings/stageVariableOverrides]"
	// stagePaths is UpdateStage's list of paths, as AWS prints it (two
	// commas are missing in AWS's text; they are missing here too).
	stagePaths = "[/deploymentId, /description, /cacheClusterEnabled, /cacheClusterSize, /clientCertificateId, /accessLogSettings, /accessLogSettings/destinationArn, /accessLogSettings/format, /{resourcePath}/{httpMethod}/metrics/enabled, /{resourcePath}/{httpMethod}/logging/dataTrace, /{resourcePath}/{httpMethod}/logging/loglevel, /{resourcePath}/{httpMethod}/throttling/burstLimit/{resourcePath}/{httpMethod}/throttling/rateLimit/{resourcePath}/{httpMethod}/caching/ttlInSeconds, /{resourcePath}/{httpMethod}/caching/enabled, /{resourcePath}/{httpMethod}/caching/dataEncrypted, /{resourcePath}/{httpMethod}/caching/requireAuthorizationForCacheControl, /{resourcePath}/{httpMethod}/caching/unauthorizedCacheControlHeaderStrategy, /*/*/metrics/enabled, /*/*/logging/dataTrace, /*/*/logging/loglevel, /*/*/throttling/burstLimit /*/*/throttling/rateLimit /*/*/caching/ttlInSeconds, /*/*/caching/enabled, /*/*/caching/dataEncrypted, /*/*/caching/requireAuthorizationForCacheControl, /*/*/caching/unauthorizedCacheControlHeaderStrategy, /variables/{variable_name}, /tracingEnabled]"
	// settingPaths is the list AWS prints for an unknown setting under
	// a method's path (the missing space before ".../throttling" is AWS's).
	settingPaths = "[.../metrics/enabled, .../logging/dataTrace, .../logging/loglevel,.../throttling/burstLimit, .../throttling/rateLimit, .../caching/ttlInSeconds, .../caching/enabled, .../caching/dataEncrypted, .../caching/requireAuthorizationForCacheControl, .../caching/unauthorizedCacheControlHeaderStrategy]"
)

// cacheClusterSizes is the CacheClusterSize enum, in the model's order.
var cacheClusterSizes = []string{"0.5", "1.6", "6.1", "13.5", "28.4", "58.2", "118", "237"}

// defaultCacheClusterSize is the size AWS gives a cache enabled without one.
const defaultCacheClusterSize = "0.5"

// Stage variable limits (API Gateway quotas: names up to 64 characters,
// values up to 512).
const (
	maxVariableName  = 64
	maxVariableValue = 512
)

var (
	stageNameRe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
	varNameRe   = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	// varValueRe is the documented [A-Za-z0-9-._~:/?#&=,]+ and the space
	// AWS's message also allows.
	varValueRe = regexp.MustCompile(`^[A-Za-z0-9 \-._~:/?#&=,]+$`)
)

func epochOf(t *Tx) awswire.Epoch { return awswire.Epoch(t.Now().UnixMilli()) }

// checkVariables refuses stage variables (or canary overrides) AWS
// refuses; it reports the first, in name order.
func checkVariables(vars map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		if err := checkVariable(k, vars[k]); err != nil {
			return err
		}
	}
	return nil
}

func checkVariable(name, value string) error {
	if len(name) > maxVariableName || !varNameRe.MatchString(name) {
		return BadRequest(msgVariableName, name)
	}
	if len(value) > maxVariableValue || !varValueRe.MatchString(value) {
		return BadRequest(msgVariableValue, value)
	}
	return nil
}

func checkPercent(p float64) error {
	if !(p >= 0 && p <= 100) { // NaN too
		return BadRequest(msgPercent)
	}
	return nil
}

// deployable refuses an API AWS would not deploy: one without methods, or
// with a method that has no integration.
func deployable(rs pmap.Map[*Resource]) error {
	methods := 0
	for _, r := range rs.All() {
		for _, m := range r.Methods {
			if m.Integration == nil {
				return BadRequest(msgNoIntegration)
			}
			methods++
		}
	}
	if methods == 0 {
		return BadRequest(msgNoMethods)
	}
	return nil
}

// setCache turns a stage's cache on or off. The cache is not emulated: an
// enabled one is AVAILABLE at once (AWS goes through CREATE_IN_PROGRESS).
func setCache(sg *Stage, enabled bool) {
	sg.CacheClusterEnabled = enabled
	if enabled && sg.CacheClusterSize == "" {
		sg.CacheClusterSize = defaultCacheClusterSize
	}
	sg.CacheClusterStatus = "NOT_AVAILABLE"
	if enabled {
		sg.CacheClusterStatus = "AVAILABLE"
	}
}

func newStage(name, deploymentID string, now awswire.Epoch) *Stage {
	return &Stage{
		StageName:          name,
		DeploymentID:       deploymentID,
		CacheClusterStatus: "NOT_AVAILABLE",
		MethodSettings:     map[string]*MethodSetting{},
		CreatedDate:        now,
		LastUpdatedDate:    now,
	}
}

// cloneStage copies a published stage deeply, so that a mutation may
// change the copy freely.
func cloneStage(s *Stage) *Stage {
	c := *s
	c.MethodSettings = make(map[string]*MethodSetting, len(s.MethodSettings))
	for k, v := range s.MethodSettings {
		ms := *v
		c.MethodSettings[k] = &ms
	}
	c.Variables = maps.Clone(s.Variables)
	c.Tags = maps.Clone(s.Tags)
	if s.AccessLogSettings != nil {
		a := *s.AccessLogSettings
		c.AccessLogSettings = &a
	}
	if s.CanarySettings != nil {
		cs := *s.CanarySettings
		cs.StageVariableOverrides = maps.Clone(s.CanarySettings.StageVariableOverrides)
		c.CanarySettings = &cs
	}
	return &c
}

// ---- reads ----

// Deployments returns the API's deployments in creation order.
func (s *Service) Deployments(sc awswire.Scope, apiID string) ([]*Deployment, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	out := slices.Collect(api.Deployments.Values())
	slices.SortFunc(out, func(a, b *Deployment) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// DeploymentPosition is the pagination key of a deployment: it orders
// deployments as Deployments returns them.
func DeploymentPosition(d *Deployment) string {
	return fmt.Sprintf("%020d/%s", d.Seq, d.ID)
}

// Deployment returns one deployment of an API.
func (s *Service) Deployment(sc awswire.Scope, apiID, id string) (*Deployment, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	d, ok := api.Deployments.Get(id)
	if !ok {
		return nil, deploymentNotFound()
	}
	return d, nil
}

// APISummary is a deployment's apiSummary: each resource path with
// methods, and each method's authorization type and API key requirement,
// as the deployment froze them.
func APISummary(d *Deployment) map[string]map[string]*MethodSnapshot {
	out := map[string]map[string]*MethodSnapshot{}
	if d.Frozen == nil {
		return out
	}
	for _, r := range d.Frozen.Resources.All() {
		if len(r.Methods) == 0 {
			continue
		}
		ms := make(map[string]*MethodSnapshot, len(r.Methods))
		for name, m := range r.Methods {
			ms[name] = &MethodSnapshot{AuthorizationType: m.AuthorizationType, APIKeyRequired: m.APIKeyRequired}
		}
		out[r.Path] = ms
	}
	return out
}

// Stages returns the API's stages by name; only those pointing at
// deploymentID when it is not "".
func (s *Service) Stages(sc awswire.Scope, apiID, deploymentID string) ([]*Stage, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	out := make([]*Stage, 0, api.Stages.Len())
	for _, sg := range api.Stages.All() {
		if deploymentID == "" || sg.DeploymentID == deploymentID {
			out = append(out, sg)
		}
	}
	slices.SortFunc(out, func(a, b *Stage) int { return cmp.Compare(a.StageName, b.StageName) })
	return out, nil
}

// Stage returns one stage of an API.
func (s *Service) Stage(sc awswire.Scope, apiID, name string) (*Stage, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	sg, ok := api.Stages.Get(name)
	if !ok {
		return nil, stageNotFound()
	}
	return sg, nil
}

// ---- deployments ----

// CreateDeployment freezes the API's configuration as a new deployment
// and, with a stage name, creates that stage or points it at the new
// deployment (with canary settings, the stage's canary instead).
func (s *Service) CreateDeployment(sc awswire.Scope, apiID string, in CreateDeploymentInput) (*Deployment, error) {
	var v Validation
	if in.CacheClusterSize != nil {
		v.Enum("createDeploymentInput.cacheClusterSize", *in.CacheClusterSize, cacheClusterSizes...)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*Deployment, error) {
		st := t.State()
		name := ""
		if in.StageName != nil {
			name = *in.StageName
		}
		if c := in.CanarySettings; c != nil {
			switch {
			case in.StageName == nil:
				return nil, BadRequest(msgCanaryStage, "null")
			case name == "":
				return nil, BadRequest(msgCanaryStage, "")
			case !st.Stages.Has(name):
				return nil, BadRequest(msgCanaryStageMissing, name)
			}
			if c.PercentTraffic != nil {
				if err := checkPercent(*c.PercentTraffic); err != nil {
					return nil, err
				}
			}
			if err := checkVariables(c.StageVariableOverrides); err != nil {
				return nil, err
			}
		}
		if name != "" && !stageNameRe.MatchString(name) {
			return nil, BadRequest(msgStageName)
		}
		if err := checkVariables(in.Variables); err != nil {
			return nil, err
		}
		if err := deployable(st.Resources); err != nil {
			return nil, err
		}
		now := epochOf(t)
		d := &Deployment{
			ID:          NewID(6, func(id string) bool { _, taken := st.Deployments.Get(id); return taken }),
			Description: in.Description,
			CreatedDate: now,
			Frozen:      t.Freeze(),
			Seq:         t.Svc().seq.Next(),
			Exec:        new(actors.Lazy),
		}
		t.PutDeployment(d)
		if name == "" {
			return d, nil
		}
		var sg *Stage
		if cur, _ := st.Stages.Get(name); cur != nil {
			sg = cloneStage(cur)
			sg.LastUpdatedDate = now
		} else {
			sg = newStage(name, d.ID, now)
		}
		if c := in.CanarySettings; c != nil {
			// A canary release leaves the stage on its deployment.
			sg.CanarySettings = &CanarySettings{
				DeploymentID:           d.ID,
				StageVariableOverrides: maps.Clone(c.StageVariableOverrides),
				UseStageCache:          c.UseStageCache,
			}
			if c.PercentTraffic != nil {
				sg.CanarySettings.PercentTraffic = *c.PercentTraffic
			}
		} else {
			sg.DeploymentID = d.ID
			sg.CanarySettings = nil
		}
		if len(in.Variables) > 0 {
			sg.Variables = maps.Clone(in.Variables)
		}
		if in.StageDescription != "" {
			sg.Description = in.StageDescription
		}
		if in.CacheClusterSize != nil {
			sg.CacheClusterSize = *in.CacheClusterSize
		}
		if in.CacheClusterEnabled != nil {
			setCache(sg, *in.CacheClusterEnabled)
		}
		if in.TracingEnabled != nil {
			sg.TracingEnabled = *in.TracingEnabled
		}
		t.PutStage(sg)
		return d, nil
	})
}

// deploymentPatch are the paths UpdateDeployment accepts.
var deploymentPatch = Patchable{Style: ListPaths, Rules: []PatchRule{
	{"/description", []string{"replace"}},
}}

// UpdateDeployment patches a deployment's description; what it froze
// never changes.
func (s *Service) UpdateDeployment(sc awswire.Scope, apiID, id string, ops []PatchOp) (*Deployment, error) {
	var v Validation
	v.PatchOps("updateDeploymentInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := deploymentPatch.Check(ops); err != nil {
		return nil, err
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*Deployment, error) {
		cur, ok := t.State().Deployments.Get(id)
		if !ok {
			return nil, deploymentNotFound()
		}
		d := *cur
		for _, o := range ops {
			if o.Path == "/description" {
				d.Description = o.Val()
			}
		}
		t.PutDeployment(&d)
		return &d, nil
	})
}

// DeleteDeployment deletes a deployment no stage (nor stage canary)
// points at.
func (s *Service) DeleteDeployment(sc awswire.Scope, apiID, id string) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (bool, error) {
		st := t.State()
		if _, ok := st.Deployments.Get(id); !ok {
			return false, deploymentNotFound()
		}
		for _, sg := range st.Stages.All() {
			if sg.DeploymentID == id || (sg.CanarySettings != nil && sg.CanarySettings.DeploymentID == id) {
				return false, BadRequest(msgDeploymentInUse)
			}
		}
		t.DeleteDeployment(id)
		return true, nil
	})
	return err
}
