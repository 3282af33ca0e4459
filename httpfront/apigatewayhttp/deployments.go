package apigatewayhttp

import (
	"net/http"
	"strings"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) deploymentOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateDeployment": h.createDeployment,
		"GetDeployment":    h.getDeployment,
		"GetDeployments":   h.getDeployments,
		"UpdateDeployment": h.updateDeployment,
		"DeleteDeployment": h.deleteDeployment,
	}
}

func (h *handlers) stageOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateStage":                h.createStage,
		"GetStage":                   h.getStage,
		"GetStages":                  h.getStages,
		"UpdateStage":                h.updateStage,
		"DeleteStage":                h.deleteStage,
		"FlushStageCache":            h.flushStageCache,
		"FlushStageAuthorizersCache": h.flushStageAuthorizersCache,
	}
}

// deploymentWithSummary is a Deployment as GetDeployment answers it when
// asked to embed its apiSummary.
type deploymentWithSummary struct {
	*apigateway.Deployment
	APISummary map[string]map[string]*apigateway.MethodSnapshot `json:"apiSummary"`
}

// embedsSummary reports whether the embed query parameter asks for the
// apiSummary. AWS documents it as a comma-separated list; SDKs repeat the
// parameter.
func embedsSummary(c *restjson.Call) bool {
	for _, v := range c.Ctx.QueryArgs().PeekMulti("embed") {
		for part := range strings.SplitSeq(string(v), ",") {
			if strings.EqualFold(strings.TrimSpace(part), "apisummary") {
				return true
			}
		}
	}
	return false
}

func (h *handlers) createDeployment(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	var in apigateway.CreateDeploymentInput
	if err := decode(c, &in); err != nil {
		return err
	}
	d, err := h.svc.CreateDeployment(c.Scope, apiID, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, d)
}

func (h *handlers) getDeployment(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	id, err := label(c, "deployment_id")
	if err != nil {
		return err
	}
	d, err := h.svc.Deployment(c.Scope, apiID, id)
	if err != nil {
		return err
	}
	if embedsSummary(c) {
		return c.JSON(http.StatusOK, deploymentWithSummary{d, apigateway.APISummary(d)})
	}
	return c.JSON(http.StatusOK, d)
}

func (h *handlers) getDeployments(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.Deployments(c.Scope, apiID)
	if err != nil {
		return err
	}
	items, pos := paginate(all, p, apigateway.DeploymentPosition)
	return list(c, items, pos)
}

func (h *handlers) updateDeployment(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	id, err := label(c, "deployment_id")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	d, err := h.svc.UpdateDeployment(c.Scope, apiID, id, ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

func (h *handlers) deleteDeployment(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	id, err := label(c, "deployment_id")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteDeployment(c.Scope, apiID, id); err != nil {
		return err
	}
	return accepted(c)
}

func (h *handlers) createStage(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	var in apigateway.CreateStageInput
	if err := decode(c, &in); err != nil {
		return err
	}
	sg, err := h.svc.CreateStage(c.Scope, apiID, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, stageOut(sg))
}

// stageOut is a stage as it is sent: methodSettings is always present, as
// {} when there are none (a stage restored from a record without it would
// otherwise send null).
func stageOut(sg *apigateway.Stage) *apigateway.Stage {
	if sg.MethodSettings != nil {
		return sg
	}
	c := *sg
	c.MethodSettings = map[string]*apigateway.MethodSetting{}
	return &c
}

// stageLabels returns the API id and stage name of a stage's path.
func stageLabels(c *restjson.Call) (apiID, name string, err error) {
	if apiID, err = label(c, "restapi_id"); err != nil {
		return "", "", err
	}
	name, err = label(c, "stage_name")
	return apiID, name, err
}

func (h *handlers) getStage(c *restjson.Call) error {
	apiID, name, err := stageLabels(c)
	if err != nil {
		return err
	}
	sg, err := h.svc.Stage(c.Scope, apiID, name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, stageOut(sg))
}

// getStages lists the stages, those of one deployment when deploymentId
// is given. The model gives GetStages no pagination.
func (h *handlers) getStages(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	depID, _ := c.Query("deploymentId")
	sgs, err := h.svc.Stages(c.Scope, apiID, depID)
	if err != nil {
		return err
	}
	for i, sg := range sgs {
		sgs[i] = stageOut(sg)
	}
	return list(c, sgs, "")
}

func (h *handlers) updateStage(c *restjson.Call) error {
	apiID, name, err := stageLabels(c)
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	sg, err := h.svc.UpdateStage(c.Scope, apiID, name, ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, stageOut(sg))
}

func (h *handlers) deleteStage(c *restjson.Call) error {
	apiID, name, err := stageLabels(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteStage(c.Scope, apiID, name); err != nil {
		return err
	}
	return accepted(c)
}

// flushStageAuthorizersCache forgets the Lambda authorizer answers the
// data plane cached for the stage.
func (h *handlers) flushStageAuthorizersCache(c *restjson.Call) error {
	apiID, name, err := stageLabels(c)
	if err != nil {
		return err
	}
	st, err := h.svc.Stage(c.Scope, apiID, name)
	if err != nil {
		return err
	}
	h.exec.FlushAuthorizerCache(c.Scope, apiID, st.StageName)
	return accepted(c)
}

// flushStageCache serves FlushStageCache: no stage cache is emulated, so
// there is nothing to flush once the stage is known.
func (h *handlers) flushStageCache(c *restjson.Call) error {
	apiID, name, err := stageLabels(c)
	if err != nil {
		return err
	}
	if _, err := h.svc.Stage(c.Scope, apiID, name); err != nil {
		return err
	}
	return accepted(c)
}
