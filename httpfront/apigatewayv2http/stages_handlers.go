package apigatewayv2http

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// stageOut is a stage as it is sent: routeSettings, stageVariables and
// tags always present ({} when empty, as AWS sends them) and the
// protocol's default route settings when the stage has none of its own
// (a stage another operation made, or an old record).
func (h *handlers) stageOut(c *restjson.Call, apiID string, st *apigatewayv2.Stage) *apigatewayv2.Stage {
	if st.RouteSettings != nil && st.StageVariables != nil && st.Tags != nil && st.DefaultRouteSettings != nil {
		return st
	}
	out := *st
	if out.RouteSettings == nil {
		out.RouteSettings = map[string]*apigatewayv2.RouteSettings{}
	}
	if out.StageVariables == nil {
		out.StageVariables = map[string]string{}
	}
	if out.Tags == nil {
		out.Tags = map[string]string{}
	}
	if out.DefaultRouteSettings == nil {
		protocol := "HTTP"
		if api, ok := h.svc.API(c.Scope, apiID); ok {
			protocol = api.API.ProtocolType
		}
		out.DefaultRouteSettings = apigatewayv2.DefaultRouteSettings(protocol, nil)
	}
	return &out
}

func stagesPosition(s *apigatewayv2.Stage) string { return s.StageName }

func (h *handlers) createStage(c *restjson.Call) error {
	l, err := labels(c, "apiId")
	if err != nil {
		return err
	}
	var in apigatewayv2.StageInput
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.StageName == nil {
		return c.Missing("stageName")
	}
	st, err := h.svc.CreateStage(c.Scope, l[0], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, h.stageOut(c, l[0], st))
}

func (h *handlers) getStage(c *restjson.Call) error {
	l, err := labels(c, "apiId", "stageName")
	if err != nil {
		return err
	}
	st, err := h.svc.Stage(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.stageOut(c, l[0], st))
}

func (h *handlers) getStages(c *restjson.Call) error {
	l, err := labels(c, "apiId")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.Stages(c.Scope, l[0])
	if err != nil {
		return err
	}
	items, next := paginate(all, p, stagesPosition)
	out := make([]*apigatewayv2.Stage, len(items))
	for i, st := range items {
		out[i] = h.stageOut(c, l[0], st)
	}
	return list(c, out, next)
}

func (h *handlers) updateStage(c *restjson.Call) error {
	l, err := labels(c, "apiId", "stageName")
	if err != nil {
		return err
	}
	var in apigatewayv2.StageInput
	if err := decode(c, &in); err != nil {
		return err
	}
	// The stage is named by the path; UpdateStage has no tags member.
	in.StageName, in.Tags = nil, nil
	st, err := h.svc.UpdateStage(c.Scope, l[0], l[1], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.stageOut(c, l[0], st))
}

func (h *handlers) deleteStage(c *restjson.Call) error {
	l, err := labels(c, "apiId", "stageName")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteStage(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) deleteRouteSettings(c *restjson.Call) error {
	l, err := labels(c, "apiId", "stageName", "routeKey")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteRouteSettings(c.Scope, l[0], l[1], l[2]); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) deleteAccessLogSettings(c *restjson.Call) error {
	l, err := labels(c, "apiId", "stageName")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteAccessLogSettings(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return noContent(c)
}

// resetAuthorizersCache answers 204 for an existing stage: the emulator
// caches no authorizer results, so there is nothing to reset.
func (h *handlers) resetAuthorizersCache(c *restjson.Call) error {
	l, err := labels(c, "apiId", "stageName")
	if err != nil {
		return err
	}
	if err := h.svc.ResetAuthorizersCache(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return noContent(c)
}
