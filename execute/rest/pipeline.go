package rest

import (
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/throttle"
)

// checkAPIKey is the API-key and usage-plan check point (§2.4): the key is
// the x-api-key header, or with apiKeySource AUTHORIZER the Lambda
// authorizer's usageIdentifierKey. A method that requires a key refuses a
// request whose key is missing, unknown, disabled or in no usage plan of
// the stage, with 403 Forbidden. A request that passes carries its key's
// limits under the plan to the throttle.
func (inv *invocation) checkAPIKey() *gatewayError {
	if !inv.m.apiKeyRequired {
		return nil
	}
	var value string
	if inv.api.API.APIKeySource == "AUTHORIZER" {
		// The key is the Lambda authorizer's usageIdentifierKey.
		if inv.auth != nil {
			value = inv.auth.usageKey
		}
	} else {
		value, _ = inv.req.Headers.Get("x-api-key")
	}
	if value == "" {
		inv.traceKey("missing", execute.DecisionMissingKey, "the method requires an API key and the request has none")
		return errInvalidKey
	}
	key, ok := inv.ex.apis.KeyByValue(inv.scope, value)
	if !ok || !key.Key.Enabled {
		if inv.tr != nil {
			inv.trace("API Key " + maskKey(value) + " not authorized because it is unknown or disabled")
			if ok {
				inv.tr.APIKeyID = key.Key.ID
				inv.traceKey("disabled", execute.DecisionForbidden, "key "+key.Key.ID+" is disabled")
			} else {
				inv.traceKey("unknown", execute.DecisionForbidden, "no API key has this value")
			}
		}
		return errInvalidKey
	}
	apiID := inv.api.API.ID
	inv.plans = inv.ex.apis.AppendPlansOfKey(inv.plans[:0], &inv.planIDs, inv.scope, key.Key.ID)
	for _, p := range inv.plans {
		covers := slices.ContainsFunc(p.Plan.APIStages, func(s apiStage) bool {
			return s.APIID == apiID && s.Stage == inv.stage.StageName
		})
		if covers {
			inv.apiKey, inv.apiKeyID, inv.planID = value, key.Key.ID, p.Plan.ID
			// The plan's owner makes them before it publishes the link.
			inv.limits, _ = inv.ex.apis.KeyLimits(inv.scope, p.Plan.ID, key.Key.ID)
			if inv.tr != nil {
				inv.tr.APIKeyID, inv.tr.UsagePlanID = key.Key.ID, p.Plan.ID
				inv.trace("API Key: " + maskKey(value))
				inv.trace("Usage Plan check succeeded for API Key " + maskKey(value) + " and API Stage " +
					apiID + "/" + inv.stage.StageName)
				inv.traceKey("accepted", "", "key "+key.Key.ID+", usage plan "+p.Plan.ID)
			}
			return nil
		}
	}
	if inv.tr != nil {
		inv.tr.APIKeyID = key.Key.ID
		inv.trace("API Key " + maskKey(value) + " not authorized because method '" + inv.m.httpMethod + " " +
			inv.m.resourcePath + "' requires API Key and API Key is not associated with a Usage Plan for API Stage " +
			apiID + "/" + inv.stage.StageName)
		inv.traceKey("not in a usage plan", execute.DecisionForbidden,
			"key "+key.Key.ID+" is in no usage plan of stage "+inv.stage.StageName)
	}
	return errInvalidKey
}

// throttle is the throttle and quota check (§2.4, §8): the usage plan's
// limit for the key (the method's override, else the plan's) and its
// quota when the method takes a key, the stage's method throttling and the
// account's limit always. Every request is counted and decided; a refusal
// answers 429 only when enforcing, and takes nothing from any level.
func (inv *invocation) throttle() *gatewayError {
	now := inv.receivedAt()
	ref := apigateway.MethodRef{APIID: inv.api.API.ID, Stage: inv.stage.StageName,
		Path: inv.m.resourcePath, Method: inv.m.httpMethod}
	var l throttle.Levels
	if k := inv.limits; k != nil {
		l.Client, l.Quota = k.Client(ref), k.Quota
	}
	l.Stage = inv.ex.apis.StageBucket(inv.scope, inv.stage, ref, now)
	l.Account = inv.ex.apis.AccountBucket(inv.scope, inv.ex.accountLimits, now)
	d, level := l.Take(now)
	if d != throttle.Admitted {
		inv.route.Reject(d == throttle.QuotaExceeded)
	}
	if inv.limits != nil {
		inv.countKey(d)
	}
	if inv.tr != nil {
		inv.traceThrottle(d, level)
	}
	switch {
	case d == throttle.Admitted || !inv.ex.enforce:
		return nil
	case d == throttle.QuotaExceeded:
		return errQuota
	}
	return errThrottled
}

// countKey counts the key's request under its plan as admitted, throttled
// or over quota, for the dashboard's live view of each key.
func (inv *invocation) countKey(d throttle.Decision) {
	if inv.ex.metrics == nil {
		return
	}
	c := inv.ex.metrics.Of(inv.scope.Account, inv.scope.Region).Key(inv.planID, inv.apiKeyID)
	switch d {
	case throttle.Admitted:
		c.Admitted.Add(1)
	case throttle.QuotaExceeded:
		c.Quota.Add(1)
	default:
		c.Throttled.Add(1)
	}
}

// traceThrottle records the throttle step and the admission decision.
func (inv *invocation) traceThrottle(d throttle.Decision, level throttle.Level) {
	outcome, decision, detail := "admitted", execute.DecisionAdmitted, ""
	switch d {
	case throttle.Throttled:
		outcome, decision = execute.DecisionThrottled, execute.DecisionThrottled
	case throttle.QuotaExceeded:
		outcome, decision = execute.DecisionQuotaExceeded, execute.DecisionQuotaExceeded
	}
	if d != throttle.Admitted {
		detail = "refused by the " + level.String() + " limit"
		if inv.limits != nil && (level == throttle.LevelClient || level == throttle.LevelQuota) {
			detail += " of usage plan " + inv.tr.UsagePlanID + " for key " + inv.tr.APIKeyID
		}
		if !inv.ex.enforce {
			// Counted, and run anyway (EMULATOR_ENFORCE_GATEWAY_THROTTLE off).
			outcome += " (not enforced)"
			decision = execute.DecisionAdmitted
		}
		inv.trace("Method " + outcome + ": " + detail)
	}
	inv.tr.Decision = decision
	inv.traceStep(execute.StepThrottle, outcome, detail)
}

// validate runs the method's request validator (§2.5): the required
// parameters first, then the body against the model.
func (inv *invocation) validate() *gatewayError {
	m := inv.m
	if m.validateParams {
		var missing []string
		for _, p := range m.required {
			if !inv.hasParam(p) {
				missing = append(missing, p.name)
			}
		}
		if len(missing) > 0 {
			if inv.tr != nil {
				inv.traceStep(execute.StepValidator, "missing parameters", strings.Join(missing, ", "))
			}
			return errMissingParams(missing)
		}
	}
	if m.validateBody {
		ct := inv.contentType()
		name, ok := m.models[ct]
		if !ok {
			name, ok = m.models["$default"]
		}
		if ok {
			schema := inv.dep.models[name]
			if err := schema.validate(inv.req.Body); err != nil {
				inv.trace("Request body does not match model schema for content type " + ct + ": [" + err.Error() + "]")
				if inv.tr != nil {
					inv.traceStep(execute.StepValidator, "invalid body", "model "+name+" ("+ct+"): "+err.Error())
				}
				return errBadBody
			}
			inv.trace("Request validation succeeded for content type " + ct)
		}
	}
	if inv.tr != nil && (m.validateParams || m.validateBody) {
		inv.traceStep(execute.StepValidator, "passed", "")
	}
	return nil
}

// hasParam reports whether a required parameter is present and not blank.
func (inv *invocation) hasParam(p requiredParam) bool {
	var v string
	switch p.where {
	case "path":
		v = inv.pathParam(p.name)
	case "querystring", "multivaluequerystring":
		for _, q := range inv.queryParams() {
			if q.Name == p.name {
				v = q.Last()
			}
		}
	case "header", "multivalueheader":
		v, _ = inv.header(p.name)
	default:
		return true
	}
	return strings.TrimSpace(v) != ""
}

func (inv *invocation) pathParam(name string) string {
	for _, p := range inv.match.Params {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

func (inv *invocation) queryParams() []execute.QueryParam {
	if !inv.queryDone {
		inv.queryDone = true
		inv.query = execute.ParseQuery(inv.req.RawQuery)
	}
	return inv.query
}

// header returns a request header the method sees: hop-by-hop headers stop
// at the gateway (§2.1).
func (inv *invocation) header(name string) (string, bool) {
	if execute.IsHopHeader(name) {
		return "", false
	}
	return inv.req.Headers.Get(name)
}

// contentType is the request's media type, application/json when it has
// none.
func (inv *invocation) contentType() string {
	ct, ok := inv.req.Headers.Get("Content-Type")
	if !ok || ct == "" {
		return "application/json"
	}
	return mediaType(ct)
}

// accept is the first media type of the request's Accept header: API
// Gateway honours only the first.
func (inv *invocation) accept() string {
	a, _ := inv.req.Headers.Get("Accept")
	a, _, _ = strings.Cut(a, ",")
	return mediaType(a)
}

// mediaType is a Content-Type or Accept value without parameters,
// lowercased.
func mediaType(v string) string {
	v, _, _ = strings.Cut(v, ";")
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		if c := v[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(v)
		}
	}
	return v
}
