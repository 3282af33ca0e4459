package apigateway

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
			Seq:         t.Svc().seq.Add(1),
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

// ---- stages ----

// CreateStage creates a stage pointing at an existing deployment.
func (s *Service) CreateStage(sc awswire.Scope, apiID string, in CreateStageInput) (*Stage, error) {
	var v Validation
	if in.CacheClusterSize != nil {
		v.Enum("createStageInput.cacheClusterSize", *in.CacheClusterSize, cacheClusterSizes...)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*Stage, error) {
		st := t.State()
		name, depID := "", ""
		if in.StageName != nil {
			name = *in.StageName
		}
		if in.DeploymentID != nil {
			depID = *in.DeploymentID
		}
		if !stageNameRe.MatchString(name) {
			return nil, BadRequest(msgStageName)
		}
		if err := checkVariables(in.Variables); err != nil {
			return nil, err
		}
		if _, ok := st.Deployments.Get(depID); !ok {
			return nil, deploymentNotFound()
		}
		if _, ok := st.Stages.Get(name); ok {
			return nil, Conflict(msgStageExists)
		}
		sg := newStage(name, depID, epochOf(t))
		if c := in.CanarySettings; c != nil {
			cs := &CanarySettings{DeploymentID: depID, UseStageCache: c.UseStageCache}
			if c.DeploymentID != "" {
				if _, ok := st.Deployments.Get(c.DeploymentID); !ok {
					return nil, BadRequest(msgNoSuchDeployment)
				}
				cs.DeploymentID = c.DeploymentID
			}
			if c.PercentTraffic != nil {
				if err := checkPercent(*c.PercentTraffic); err != nil {
					return nil, err
				}
				cs.PercentTraffic = *c.PercentTraffic
			}
			if err := checkVariables(c.StageVariableOverrides); err != nil {
				return nil, err
			}
			cs.StageVariableOverrides = maps.Clone(c.StageVariableOverrides)
			sg.CanarySettings = cs
		}
		sg.Description = in.Description
		sg.DocumentationVersion = in.DocumentationVersion
		sg.TracingEnabled = in.TracingEnabled
		if len(in.Variables) > 0 {
			sg.Variables = maps.Clone(in.Variables)
		}
		if len(in.Tags) > 0 {
			sg.Tags = maps.Clone(in.Tags)
		}
		if in.CacheClusterSize != nil {
			sg.CacheClusterSize = *in.CacheClusterSize
		}
		setCache(sg, in.CacheClusterEnabled)
		t.PutStage(sg)
		return sg, nil
	})
}

// DeleteStage deletes a stage, then drops the references usage plans and
// base path mappings hold to it (outside the API's owner, which must not
// wait on others).
func (s *Service) DeleteStage(sc awswire.Scope, apiID, name string) error {
	// The owner tells the usage plans and domains that refer to the stage
	// once its deletion is durable; DeleteStage returns when they have
	// dropped the references.
	var pending []actors.Pending
	_, err := Mutate(s, sc, apiID, func(t *Tx) (bool, error) {
		if _, ok := t.State().Stages.Get(name); !ok {
			return false, stageNotFound()
		}
		t.DeleteStage(name)
		d := s.scopes.Get(sc)
		t.After(func() { pending = s.tellStageGone(sc, d, apiID, name) })
		return true, nil
	})
	if err != nil {
		return err
	}
	s.settle(pending)
	return nil
}

// UpdateStage applies patch operations to a stage, in order; if one fails
// nothing changes.
func (s *Service) UpdateStage(sc awswire.Scope, apiID, name string, ops []PatchOp) (*Stage, error) {
	var v Validation
	v.PatchOps("updateStageInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*Stage, error) {
		st := t.State()
		cur, ok := st.Stages.Get(name)
		if !ok {
			return nil, stageNotFound()
		}
		sg := cloneStage(cur)
		for _, o := range ops {
			if err := patchStage(st, sg, o); err != nil {
				return nil, err
			}
		}
		if len(sg.Variables) == 0 {
			sg.Variables = nil
		}
		sg.LastUpdatedDate = epochOf(t)
		t.PutStage(sg)
		return sg, nil
	})
}

func invalidStagePath(path string) error {
	return BadRequest("Invalid method setting path: %s. Must be one of: %s", path, stagePaths)
}

// patchStage applies one operation to sg (a private copy).
func patchStage(api *RestAPI, sg *Stage, o PatchOp) error {
	switch {
	case o.Op == "copy":
		return promoteCanary(sg, o)
	case o.Path == "/canarySettings" || strings.HasPrefix(o.Path, "/canarySettings/"):
		return patchCanary(api, sg, o)
	}
	switch o.Op {
	case "replace":
		return replaceStage(api, sg, o)
	case "add":
		// Only variables can be added; everything else is replaced.
		if name, ok := strings.CutPrefix(o.Path, "/variables/"); ok {
			return setVariable(sg, PathKey(name, ""), o.Val())
		}
	case "remove":
		return removeStage(sg, o)
	}
	return BadRequest(msgBadOp, o.Op, o.Path)
}

func setVariable(sg *Stage, name, value string) error {
	if err := checkVariable(name, value); err != nil {
		return err
	}
	if sg.Variables == nil {
		sg.Variables = map[string]string{}
	}
	sg.Variables[name] = value
	return nil
}

// removeStage removes a variable, the access-log settings, or a method's
// settings ("/{resourcePath}/{httpMethod}", "/*/*"). AWS reads any other
// path as a method's settings, which do not exist.
func removeStage(sg *Stage, o PatchOp) error {
	if name, ok := strings.CutPrefix(o.Path, "/variables/"); ok {
		delete(sg.Variables, PathKey(name, ""))
		return nil
	}
	if o.Path == "/accessLogSettings" {
		sg.AccessLogSettings = nil
		return nil
	}
	key := strings.TrimPrefix(o.Path, "/")
	if _, ok := sg.MethodSettings[key]; !ok {
		return BadRequest(msgRemoveSetting, key)
	}
	delete(sg.MethodSettings, key)
	return nil
}

// lenientBool reads a boolean patch value as API Gateway does: anything
// but "true" is false.
func lenientBool(o PatchOp) bool { return strings.EqualFold(o.Val(), "true") }

func replaceStage(api *RestAPI, sg *Stage, o PatchOp) error {
	switch o.Path {
	case "/deploymentId":
		if _, ok := api.Deployments.Get(o.Val()); !ok {
			return BadRequest(msgNoSuchDeployment)
		}
		sg.DeploymentID = o.Val()
	case "/description":
		sg.Description = o.Val()
	case "/cacheClusterEnabled":
		setCache(sg, lenientBool(o))
	case "/cacheClusterSize":
		if !slices.Contains(cacheClusterSizes, o.Val()) {
			return BadRequest("Invalid cache cluster size specified. Valid options are %s", strings.Join(cacheClusterSizes, ","))
		}
		sg.CacheClusterSize = o.Val()
	case "/clientCertificateId":
		sg.ClientCertificateID = o.Val()
	case "/documentationVersion":
		// Not in AWS's list, but accepted: Terraform sends it.
		sg.DocumentationVersion = o.Val()
	case "/tracingEnabled":
		sg.TracingEnabled = lenientBool(o)
	case "/accessLogSettings/destinationArn", "/accessLogSettings/format":
		a := AccessLogSettings{}
		if sg.AccessLogSettings != nil {
			a = *sg.AccessLogSettings
		}
		if o.Path == "/accessLogSettings/format" {
			a.Format = o.Val()
		} else {
			a.DestinationARN = o.Val()
		}
		sg.AccessLogSettings = &a
		if a == (AccessLogSettings{}) {
			sg.AccessLogSettings = nil
		}
	default:
		if name, ok := strings.CutPrefix(o.Path, "/variables/"); ok {
			return setVariable(sg, PathKey(name, ""), o.Val())
		}
		return replaceMethodSetting(sg, o)
	}
	return nil
}

// methodSettingKeys are the last segments of a method's path that name a
// setting.
var methodSettingKeys = map[string]bool{
	"metrics/enabled": true, "logging/dataTrace": true, "logging/loglevel": true,
	"throttling/burstLimit": true, "throttling/rateLimit": true,
	"caching/ttlInSeconds": true, "caching/enabled": true, "caching/dataEncrypted": true,
	"caching/requireAuthorizationForCacheControl": true, "caching/unauthorizedCacheControlHeaderStrategy": true,
}

var settingMethods = map[string]bool{
	"GET": true, "PUT": true, "POST": true, "DELETE": true, "PATCH": true, "OPTIONS": true, "HEAD": true,
	"ANY": true, "*": true,
}

// defaultMethodSetting is a new method setting as AWS fills it.
func defaultMethodSetting() MethodSetting {
	return MethodSetting{
		ThrottlingBurstLimit:                   5000,
		ThrottlingRateLimit:                    10000,
		CacheTTLInSeconds:                      300,
		RequireAuthorizationForCacheControl:    true,
		UnauthorizedCacheControlHeaderStrategy: "SUCCEED_WITH_RESPONSE_HEADER",
	}
}

// replaceMethodSetting sets one setting of "/{resourcePath}/{httpMethod}/
// {group}/{setting}". The settings are kept under the path as written,
// without its leading slash ("*/*", "test/GET", "~1a~1b/GET"). A method's
// new entry starts from the "*/*" entry's values, if any.
func replaceMethodSetting(sg *Stage, o PatchOp) error {
	segs := strings.Split(strings.TrimPrefix(o.Path, "/"), "/")
	if !strings.HasPrefix(o.Path, "/") || len(segs) < 4 || slices.Contains(segs, "") ||
		!settingMethods[segs[len(segs)-3]] {
		return invalidStagePath(o.Path)
	}
	key := strings.Join(segs[:len(segs)-2], "/")
	setting := segs[len(segs)-2] + "/" + segs[len(segs)-1]
	if !methodSettingKeys[setting] {
		return BadRequest("Invalid method setting path: %s. Must be one of: %s", setting, settingPaths)
	}
	ms := sg.MethodSettings[key]
	if ms == nil {
		base := defaultMethodSetting()
		if all := sg.MethodSettings["*/*"]; all != nil {
			base = *all
		}
		ms = &base
	}
	switch setting {
	case "metrics/enabled":
		ms.MetricsEnabled = lenientBool(o)
	case "logging/dataTrace":
		ms.DataTraceEnabled = lenientBool(o)
	case "logging/loglevel":
		switch o.Val() {
		case "OFF", "ERROR", "INFO":
			ms.LoggingLevel = o.Val()
		default:
			return BadRequest("Invalid logging level specified. Valid options are OFF,ERROR,INFO")
		}
	case "throttling/burstLimit":
		n, err := ParseInt(o)
		if err != nil {
			return err
		}
		ms.ThrottlingBurstLimit = n
	case "throttling/rateLimit":
		f, err := strconv.ParseFloat(o.Val(), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			// JSON has no NaN or infinity to send back.
			return BadRequest("Invalid double value specified for %s: %s", o.Path, o.Val())
		}
		ms.ThrottlingRateLimit = f
	case "caching/ttlInSeconds":
		n, err := ParseInt(o)
		if err != nil {
			return err
		}
		ms.CacheTTLInSeconds = n
	case "caching/enabled":
		ms.CachingEnabled = lenientBool(o)
	case "caching/dataEncrypted":
		ms.CacheDataEncrypted = lenientBool(o)
	case "caching/requireAuthorizationForCacheControl":
		ms.RequireAuthorizationForCacheControl = lenientBool(o)
	case "caching/unauthorizedCacheControlHeaderStrategy":
		switch o.Val() {
		case "FAIL_WITH_403", "SUCCEED_WITH_RESPONSE_HEADER", "SUCCEED_WITHOUT_RESPONSE_HEADER":
			ms.UnauthorizedCacheControlHeaderStrategy = o.Val()
		default:
			return BadRequest("Invalid unauthorizedCacheControlHeaderStrategy specified. Valid options are FAIL_WITH_403,SUCCEED_WITH_RESPONSE_HEADER,SUCCEED_WITHOUT_RESPONSE_HEADER")
		}
	}
	sg.MethodSettings[key] = ms
	return nil
}

// canaryLeaf reports whether path names one canary setting that replace
// accepts.
func canaryLeaf(path string) bool {
	switch path {
	case "/canarySettings/percentTraffic", "/canarySettings/deploymentId", "/canarySettings/useStageCache":
		return true
	}
	_, ok := overrideName(path)
	return ok
}

func overrideName(path string) (string, bool) {
	name, ok := strings.CutPrefix(path, "/canarySettings/stageVariableOverrides/")
	return PathKey(name, ""), ok && name != ""
}

// patchCanary applies an operation on "/canarySettings...". Only replace
// sets canary settings (creating the canary on the stage's deployment if
// there is none); remove drops the whole canary or one override.
func patchCanary(api *RestAPI, sg *Stage, o PatchOp) error {
	leaf := canaryLeaf(o.Path)
	switch {
	case o.Op == "remove" && o.Path == "/canarySettings":
		sg.CanarySettings = nil
		return nil
	case o.Op == "remove":
		if name, ok := overrideName(o.Path); ok {
			if sg.CanarySettings != nil {
				delete(sg.CanarySettings.StageVariableOverrides, name)
			}
			return nil
		}
		return BadRequest(msgRemoveSetting, strings.TrimPrefix(o.Path, "/"))
	case o.Op != "replace":
		return BadRequest(msgBadOp, o.Op, o.Path)
	case !leaf:
		return invalidStagePath(o.Path)
	}
	// Check the value before a missing canary is created.
	var pct float64
	switch o.Path {
	case "/canarySettings/deploymentId":
		if _, ok := api.Deployments.Get(o.Val()); !ok {
			return BadRequest(msgNoSuchDeployment)
		}
	case "/canarySettings/percentTraffic":
		f, err := strconv.ParseFloat(o.Val(), 64)
		if err != nil {
			return BadRequest(msgPercent)
		}
		if err := checkPercent(f); err != nil {
			return err
		}
		pct = f
	}
	if sg.CanarySettings == nil {
		sg.CanarySettings = &CanarySettings{DeploymentID: sg.DeploymentID}
	}
	cs := sg.CanarySettings
	switch o.Path {
	case "/canarySettings/deploymentId":
		cs.DeploymentID = o.Val()
	case "/canarySettings/percentTraffic":
		cs.PercentTraffic = pct
	case "/canarySettings/useStageCache":
		cs.UseStageCache = lenientBool(o)
	default:
		name, _ := overrideName(o.Path)
		if err := checkVariable(name, o.Val()); err != nil {
			return err
		}
		if cs.StageVariableOverrides == nil {
			cs.StageVariableOverrides = map[string]string{}
		}
		cs.StageVariableOverrides[name] = o.Val()
	}
	return nil
}

// promoteCanary applies a copy: AWS supports only promoting the canary,
// copying its deployment to the stage's and merging its overrides into
// the stage's variables. The canary stays.
func promoteCanary(sg *Stage, o PatchOp) error {
	from := "null"
	if o.From != nil {
		from = *o.From
	}
	switch {
	case o.Path == "/deploymentId" && from == "/canarySettings/deploymentId",
		o.Path == "/variables" && from == "/canarySettings/stageVariableOverrides":
	default:
		return BadRequest(msgBadCopy, o.Path, from)
	}
	cs := sg.CanarySettings
	if cs == nil {
		return BadRequest(msgNoCanary)
	}
	if o.Path == "/deploymentId" {
		sg.DeploymentID = cs.DeploymentID
		return nil
	}
	if len(cs.StageVariableOverrides) > 0 && sg.Variables == nil {
		sg.Variables = map[string]string{}
	}
	maps.Copy(sg.Variables, cs.StageVariableOverrides)
	return nil
}
