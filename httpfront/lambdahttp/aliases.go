package lambdahttp

import (
	"github.com/cloudemu/emulator/actors/lambda"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type routingView struct {
	AdditionalVersionWeights map[string]awswire.Double `json:"AdditionalVersionWeights"`
}

type aliasView struct {
	AliasArn        string       `json:"AliasArn"`
	Name            string       `json:"Name"`
	FunctionVersion string       `json:"FunctionVersion"`
	Description     string       `json:"Description"`
	RevisionID      string       `json:"RevisionId"`
	RoutingConfig   *routingView `json:"RoutingConfig,omitempty"`
}

func viewAlias(a lambda.AliasShown) aliasView {
	v := aliasView{AliasArn: a.ARN, Name: a.Name, FunctionVersion: a.FunctionVersion, Description: a.Description,
		RevisionID: a.RevisionID}
	if len(a.Weights) > 0 {
		w := make(map[string]awswire.Double, len(a.Weights))
		for k, x := range a.Weights {
			w[k] = awswire.Double(x)
		}
		v.RoutingConfig = &routingView{AdditionalVersionWeights: w}
	}
	return v
}

type aliasIn struct {
	Name            *string `json:"Name"`
	FunctionVersion *string `json:"FunctionVersion"`
	Description     *string `json:"Description"`
	RoutingConfig   *struct {
		AdditionalVersionWeights map[string]float64 `json:"AdditionalVersionWeights"`
	} `json:"RoutingConfig"`
	RevisionID *string `json:"RevisionId"`
}

func (in *aliasIn) domain() lambda.AliasInput {
	out := lambda.AliasInput{FunctionVersion: in.FunctionVersion, Description: in.Description, RevisionID: in.RevisionID}
	if in.RoutingConfig != nil {
		w := in.RoutingConfig.AdditionalVersionWeights
		if w == nil {
			w = map[string]float64{}
		}
		out.Weights = &w
	}
	return out
}

func (h *handlers) createAlias(c *restjson.Call) error {
	fn, err := functionName(c)
	if err != nil {
		return err
	}
	var in aliasIn
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.Name == nil {
		return lambda.Missing("name")
	}
	a, err := h.svc.CreateAlias(c.Scope, fn, *in.Name, in.domain())
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, viewAlias(a))
}

// aliasPath reads the FunctionName and Name path labels of an alias.
func aliasPath(c *restjson.Call) (fn, name string, err error) {
	if fn, err = functionName(c); err != nil {
		return "", "", err
	}
	if name, err = requiredLabel(c, "Name", "name"); err != nil {
		return "", "", err
	}
	return fn, name, nil
}

func (h *handlers) getAlias(c *restjson.Call) error {
	fn, name, err := aliasPath(c)
	if err != nil {
		return err
	}
	a, err := h.svc.GetAlias(c.Scope, fn, name)
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, viewAlias(a))
}

func (h *handlers) updateAlias(c *restjson.Call) error {
	fn, name, err := aliasPath(c)
	if err != nil {
		return err
	}
	var in aliasIn
	if err := decode(c, &in); err != nil {
		return err
	}
	a, err := h.svc.UpdateAlias(c.Scope, fn, name, in.domain())
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, viewAlias(a))
}

func (h *handlers) deleteAlias(c *restjson.Call) error {
	fn, name, err := aliasPath(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteAlias(c.Scope, fn, name); err != nil {
		return err
	}
	c.Empty(c.Op.Status)
	return nil
}

type aliasesPage struct {
	Aliases    []aliasView `json:"Aliases"`
	NextMarker string      `json:"NextMarker,omitempty"`
}

func (h *handlers) listAliases(c *restjson.Call) error {
	fn, err := functionName(c)
	if err != nil {
		return err
	}
	marker, n, err := page(c)
	if err != nil {
		return err
	}
	p, err := h.svc.ListAliases(c.Scope, fn, query(c, "FunctionVersion"), marker, n)
	if err != nil {
		return err
	}
	out := aliasesPage{Aliases: make([]aliasView, len(p.Items)), NextMarker: p.Next}
	for i, a := range p.Items {
		out.Aliases[i] = viewAlias(a)
	}
	return c.JSON(c.Op.Status, out)
}

// ---- policies ----

func (h *handlers) addPermission(c *restjson.Call) error {
	fn, err := functionName(c)
	if err != nil {
		return err
	}
	var in struct {
		StatementID         *string `json:"StatementId"`
		Action              *string `json:"Action"`
		Principal           *string `json:"Principal"`
		SourceArn           *string `json:"SourceArn"`
		SourceAccount       *string `json:"SourceAccount"`
		EventSourceToken    *string `json:"EventSourceToken"`
		RevisionID          *string `json:"RevisionId"`
		PrincipalOrgID      *string `json:"PrincipalOrgID"`
		FunctionURLAuthType *string `json:"FunctionUrlAuthType"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	var problems []string
	for _, m := range []struct {
		v    *string
		name string
	}{{in.StatementID, "statementId"}, {in.Action, "action"}, {in.Principal, "principal"}} {
		if m.v == nil {
			problems = append(problems, "Value null at '"+m.name+"' failed to satisfy constraint: Member must not be null")
		}
	}
	if len(problems) > 0 {
		return lambda.Validation(problems...)
	}
	st, err := h.svc.AddPermission(c.Scope, fn, lambda.PermissionInput{
		StatementID: *in.StatementID, Action: *in.Action, Principal: *in.Principal, Qualifier: query(c, "Qualifier"),
		SourceArn: in.SourceArn, SourceAccount: in.SourceAccount, EventSourceToken: in.EventSourceToken,
		PrincipalOrgID: in.PrincipalOrgID, FunctionURLAuthType: in.FunctionURLAuthType, RevisionID: in.RevisionID,
	})
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, map[string]string{"Statement": string(st)})
}

func (h *handlers) removePermission(c *restjson.Call) error {
	fn, err := functionName(c)
	if err != nil {
		return err
	}
	sid, err := requiredLabel(c, "StatementId", "statementId")
	if err != nil {
		return err
	}
	var rev *string
	if v, ok := c.Query("RevisionId"); ok {
		rev = &v
	}
	if err := h.svc.RemovePermission(c.Scope, fn, sid, query(c, "Qualifier"), rev); err != nil {
		return err
	}
	c.Empty(c.Op.Status)
	return nil
}

func (h *handlers) getPolicy(c *restjson.Call) error {
	fn, err := functionName(c)
	if err != nil {
		return err
	}
	p, err := h.svc.GetPolicy(c.Scope, fn, query(c, "Qualifier"))
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, map[string]string{"Policy": string(p.Document), "RevisionId": p.RevisionID})
}
