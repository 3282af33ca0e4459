package apigatewayhttp

import (
	"net/http"
	"strings"
	"time"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// planView is a UsagePlan as a reply shows it: "apiStages" always, "tags"
// only when there are some (CreateUsagePlan).
type planView struct {
	*apigateway.UsagePlan
	APIStages []apigateway.ApiStage `json:"apiStages"`
}

// planViewTags has "tags" even when empty (GetUsagePlan, UpdateUsagePlan).
type planViewTags struct {
	planView
	Tags map[string]string `json:"tags"`
}

// planItem is a plan as GetUsagePlans lists it: without tags.
type planItem struct {
	planView
	Tags map[string]string `json:"tags,omitempty"`
}

func viewPlan(p *apigateway.UsagePlan) planView {
	v := planView{UsagePlan: p, APIStages: p.APIStages}
	if v.APIStages == nil {
		v.APIStages = []apigateway.ApiStage{}
	}
	return v
}

func viewPlanTags(p *apigateway.UsagePlan) planViewTags {
	t := p.Tags
	if t == nil {
		t = map[string]string{}
	}
	return planViewTags{viewPlan(p), t}
}

func keysPlanNotFound() *awswire.Error {
	return awswire.New(awswire.APIGateway, awswire.CodeNotFound, "Invalid Usage Plan ID specified")
}

type createUsagePlanBody struct {
	Name        string                       `json:"name"`
	Description string                       `json:"description"`
	APIStages   []apigateway.ApiStage        `json:"apiStages"`
	Throttle    *apigateway.ThrottleSettings `json:"throttle"`
	Quota       *apigateway.QuotaSettings    `json:"quota"`
	Tags        map[string]string            `json:"tags"`
}

func (h *handlers) createUsagePlan(c *restjson.Call) error {
	var in createUsagePlanBody
	if err := decode(c, &in); err != nil {
		return err
	}
	st, err := h.svc.CreateUsagePlan(c.Scope, apigateway.UsagePlan{
		Name:        in.Name,
		Description: in.Description,
		APIStages:   in.APIStages,
		Throttle:    in.Throttle,
		Quota:       in.Quota,
		Tags:        in.Tags,
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, viewPlan(&st.Plan))
}

func (h *handlers) getUsagePlan(c *restjson.Call) error {
	id, err := label(c, "usageplanId")
	if err != nil {
		return err
	}
	st, ok := h.svc.UsagePlan(c.Scope, id)
	if !ok {
		return keysPlanNotFound()
	}
	return c.JSON(http.StatusOK, viewPlanTags(&st.Plan))
}

func (h *handlers) getUsagePlans(c *restjson.Call) error {
	p, err := readPage(c)
	if err != nil {
		return err
	}
	var plans []*apigateway.PlanState
	if keyID, ok := c.Query("keyId"); ok {
		plans = h.svc.PlansOfKey(c.Scope, keyID)
	} else {
		plans = h.svc.UsagePlans(c.Scope)
	}
	page, pos := paginate(plans, p, func(p *apigateway.PlanState) string { return p.Plan.ID })
	out := make([]planItem, len(page))
	for i, st := range page {
		out[i] = planItem{planView: viewPlan(&st.Plan)}
	}
	return list(c, out, pos)
}

func (h *handlers) updateUsagePlan(c *restjson.Call) error {
	id, err := label(c, "usageplanId")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	st, err := h.svc.UpdateUsagePlan(c.Scope, id, ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewPlanTags(&st.Plan))
}

func (h *handlers) deleteUsagePlan(c *restjson.Call) error {
	id, err := label(c, "usageplanId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteUsagePlan(c.Scope, id); err != nil {
		return err
	}
	return accepted(c)
}

type createUsagePlanKeyBody struct {
	KeyID   string `json:"keyId"`
	KeyType string `json:"keyType"`
}

func (h *handlers) createUsagePlanKey(c *restjson.Call) error {
	planID, err := label(c, "usageplanId")
	if err != nil {
		return err
	}
	var in createUsagePlanKeyBody
	if err := decode(c, &in); err != nil {
		return err
	}
	k, err := h.svc.CreateUsagePlanKey(c.Scope, planID, in.KeyID, in.KeyType)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, k)
}

func (h *handlers) getUsagePlanKey(c *restjson.Call) error {
	planID, err := label(c, "usageplanId")
	if err != nil {
		return err
	}
	keyID, err := label(c, "keyId")
	if err != nil {
		return err
	}
	k, err := h.svc.UsagePlanKey(c.Scope, planID, keyID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, k)
}

// getUsagePlanKeys lists a plan's keys; an unknown plan has none, as on
// AWS.
func (h *handlers) getUsagePlanKeys(c *restjson.Call) error {
	planID, err := label(c, "usageplanId")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	name, _ := c.Query("name")
	var keys []apigateway.UsagePlanKey
	for _, k := range h.svc.UsagePlanKeys(c.Scope, planID) {
		if strings.HasPrefix(k.Name, name) {
			keys = append(keys, k)
		}
	}
	page, pos := paginate(keys, p, func(k apigateway.UsagePlanKey) string { return k.ID })
	return list(c, page, pos)
}

func (h *handlers) deleteUsagePlanKey(c *restjson.Call) error {
	planID, err := label(c, "usageplanId")
	if err != nil {
		return err
	}
	keyID, err := label(c, "keyId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteUsagePlanKey(c.Scope, planID, keyID); err != nil {
		return err
	}
	return accepted(c)
}

// usageReply is the Usage shape: per API key id, [used, remaining] per
// day, under the wire name "values".
type usageReply struct {
	UsagePlanID string                `json:"usagePlanId"`
	StartDate   string                `json:"startDate"`
	EndDate     string                `json:"endDate"`
	Position    string                `json:"position,omitempty"`
	Values      map[string][][2]int64 `json:"values"`
}

const keysDateLayout = "2006-01-02"

// usageDate reads a required yyyy-MM-dd query parameter.
func keysUsageDate(c *restjson.Call, name string) (time.Time, error) {
	v, ok := c.Query(name)
	if !ok || v == "" {
		return time.Time{}, c.Missing(name)
	}
	t, err := time.Parse(keysDateLayout, v)
	if err != nil {
		return time.Time{}, badRequest("Invalid %s specified: %s. The date format must be yyyy-MM-dd", name, v)
	}
	return t, nil
}

func (h *handlers) getUsage(c *restjson.Call) error {
	planID, err := label(c, "usageplanId")
	if err != nil {
		return err
	}
	start, err := keysUsageDate(c, "startDate")
	if err != nil {
		return err
	}
	end, err := keysUsageDate(c, "endDate")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	keyID, _ := c.Query("keyId")
	rows, err := h.svc.GetUsage(c.Scope, planID, keyID, start, end)
	if err != nil {
		return err
	}
	page, pos := paginate(rows, p, func(k apigateway.KeyUsage) string { return k.KeyID })
	out := usageReply{UsagePlanID: planID, StartDate: start.Format(keysDateLayout), EndDate: end.Format(keysDateLayout),
		Position: pos, Values: make(map[string][][2]int64, len(page))}
	for _, r := range page {
		out.Values[r.KeyID] = r.Days
	}
	return c.JSON(http.StatusOK, out)
}

func (h *handlers) updateUsage(c *restjson.Call) error {
	planID, err := label(c, "usageplanId")
	if err != nil {
		return err
	}
	keyID, err := label(c, "keyId")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	start, end, ku, err := h.svc.UpdateUsage(c.Scope, planID, keyID, ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, usageReply{UsagePlanID: planID, StartDate: start.Format(keysDateLayout),
		EndDate: end.Format(keysDateLayout), Values: map[string][][2]int64{keyID: ku.Days}})
}
