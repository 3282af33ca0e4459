package apigateway

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

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
		t.After(func() {
			dropStageLimits(d, apiID, name)
			pending = s.tellStageGone(sc, d, apiID, name)
		})
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
		// The method throttling takes the new settings before the
		// caller's next request.
		d := s.scopes.Get(sc)
		t.After(func() { resizeStage(d, apiID, sg, s.now()) })
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
