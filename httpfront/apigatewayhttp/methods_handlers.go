package apigatewayhttp

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/execute/rest"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// Methods, integrations, method responses and integration responses: each
// operation names its resource, method and (for responses) status code by
// path labels; the actors package checks and applies everything.

func resMethodLabels(c *restjson.Call) ([]string, error) {
	return labels(c, "restapi_id", "resource_id", "http_method")
}

func resResponseLabels(c *restjson.Call) ([]string, error) {
	return labels(c, "restapi_id", "resource_id", "http_method", "status_code")
}

func (h *handlers) putMethod(c *restjson.Call) error {
	l, err := resMethodLabels(c)
	if err != nil {
		return err
	}
	var in apigateway.MethodInput
	if err := decode(c, &in); err != nil {
		return err
	}
	m, err := h.svc.PutMethod(c.Scope, l[0], l[1], l[2], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, m)
}

// testInvokeMethod runs the method of the live configuration, as the
// console's Test button does.
func (h *handlers) testInvokeMethod(c *restjson.Call) error {
	l, err := resMethodLabels(c)
	if err != nil {
		return err
	}
	var in rest.TestInvokeInput
	if err := decode(c, &in); err != nil {
		return err
	}
	out, err := h.exec.TestInvoke(c.Scope, l[0], l[1], l[2], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

func (h *handlers) getMethod(c *restjson.Call) error {
	l, err := resMethodLabels(c)
	if err != nil {
		return err
	}
	m, err := h.svc.FindMethod(c.Scope, l[0], l[1], l[2])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, m)
}

func (h *handlers) updateMethod(c *restjson.Call) error {
	l, err := resMethodLabels(c)
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	m, err := h.svc.UpdateMethod(c.Scope, l[0], l[1], l[2], ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, m)
}

func (h *handlers) deleteMethod(c *restjson.Call) error {
	l, err := resMethodLabels(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteMethod(c.Scope, l[0], l[1], l[2]); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) putIntegration(c *restjson.Call) error {
	l, err := resMethodLabels(c)
	if err != nil {
		return err
	}
	var in apigateway.IntegrationInput
	if err := decode(c, &in); err != nil {
		return err
	}
	it, err := h.svc.PutIntegration(c.Scope, l[0], l[1], l[2], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, it)
}

func (h *handlers) getIntegration(c *restjson.Call) error {
	l, err := resMethodLabels(c)
	if err != nil {
		return err
	}
	it, err := h.svc.FindIntegration(c.Scope, l[0], l[1], l[2])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, it)
}

func (h *handlers) updateIntegration(c *restjson.Call) error {
	l, err := resMethodLabels(c)
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	it, err := h.svc.UpdateIntegration(c.Scope, l[0], l[1], l[2], ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, it)
}

func (h *handlers) deleteIntegration(c *restjson.Call) error {
	l, err := resMethodLabels(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteIntegration(c.Scope, l[0], l[1], l[2]); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) putMethodResponse(c *restjson.Call) error {
	l, err := resResponseLabels(c)
	if err != nil {
		return err
	}
	var in apigateway.MethodResponseInput
	if err := decode(c, &in); err != nil {
		return err
	}
	mr, err := h.svc.PutMethodResponse(c.Scope, l[0], l[1], l[2], l[3], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, mr)
}

func (h *handlers) getMethodResponse(c *restjson.Call) error {
	l, err := resResponseLabels(c)
	if err != nil {
		return err
	}
	mr, err := h.svc.FindMethodResponse(c.Scope, l[0], l[1], l[2], l[3])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, mr)
}

// updateMethodResponse answers 201, as the model (and AWS) says.
func (h *handlers) updateMethodResponse(c *restjson.Call) error {
	l, err := resResponseLabels(c)
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	mr, err := h.svc.UpdateMethodResponse(c.Scope, l[0], l[1], l[2], l[3], ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, mr)
}

func (h *handlers) deleteMethodResponse(c *restjson.Call) error {
	l, err := resResponseLabels(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteMethodResponse(c.Scope, l[0], l[1], l[2], l[3]); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) putIntegrationResponse(c *restjson.Call) error {
	l, err := resResponseLabels(c)
	if err != nil {
		return err
	}
	var in apigateway.IntegrationResponseInput
	if err := decode(c, &in); err != nil {
		return err
	}
	ir, err := h.svc.PutIntegrationResponse(c.Scope, l[0], l[1], l[2], l[3], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, ir)
}

func (h *handlers) getIntegrationResponse(c *restjson.Call) error {
	l, err := resResponseLabels(c)
	if err != nil {
		return err
	}
	ir, err := h.svc.FindIntegrationResponse(c.Scope, l[0], l[1], l[2], l[3])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ir)
}

func (h *handlers) updateIntegrationResponse(c *restjson.Call) error {
	l, err := resResponseLabels(c)
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	ir, err := h.svc.UpdateIntegrationResponse(c.Scope, l[0], l[1], l[2], l[3], ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ir)
}

func (h *handlers) deleteIntegrationResponse(c *restjson.Call) error {
	l, err := resResponseLabels(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteIntegrationResponse(c.Scope, l[0], l[1], l[2], l[3]); err != nil {
		return err
	}
	return noContent(c)
}
