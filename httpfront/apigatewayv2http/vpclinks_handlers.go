package apigatewayv2http

import (
	"fmt"
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type linksCreateBody struct {
	Name             string            `json:"name"`
	SecurityGroupIDs []string          `json:"securityGroupIds"`
	SubnetIDs        []string          `json:"subnetIds"`
	Tags             map[string]string `json:"tags"`
}

type linksUpdateBody struct {
	Name *string `json:"name"`
}

// linksView is a VpcLink as every operation answers it: with "tags" even
// when there are none, as AWS does.
type linksView struct {
	*apigatewayv2.VpcLink
	Tags map[string]string `json:"tags"`
	seq  uint64
}

func linkView(st *apigatewayv2.LinkState) linksView {
	t := st.Link.Tags
	if t == nil {
		t = map[string]string{}
	}
	return linksView{&st.Link, t, st.Seq}
}

func (h *handlers) createVpcLink(c *restjson.Call) error {
	var in linksCreateBody
	if err := decode(c, &in); err != nil {
		return err
	}
	switch {
	case in.Name == "":
		return c.Missing("name")
	case in.SubnetIDs == nil:
		return c.Missing("subnetIds")
	}
	st, err := h.svc.CreateVpcLink(c.Scope, apigatewayv2.VpcLink{Name: in.Name, SecurityGroupIDs: in.SecurityGroupIDs,
		SubnetIDs: in.SubnetIDs, Tags: in.Tags})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, linkView(st))
}

func (h *handlers) getVpcLink(c *restjson.Call) error {
	id, err := c.Label("vpcLinkId")
	if err != nil {
		return err
	}
	st, ok := h.svc.VpcLink(c.Scope, id)
	if !ok {
		return apigatewayv2.VpcLinkNotFound()
	}
	return c.JSON(http.StatusOK, linkView(st))
}

// getVpcLinks lists links in creation order; the page token is the
// creation sequence number, zero-padded so that it sorts as a string.
func (h *handlers) getVpcLinks(c *restjson.Call) error {
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all := h.svc.VpcLinks(c.Scope)
	out := make([]linksView, len(all))
	for i, st := range all {
		out[i] = linkView(st)
	}
	items, next := paginate(out, p, func(l linksView) string { return fmt.Sprintf("%020d", l.seq) })
	return list(c, items, next)
}

func (h *handlers) updateVpcLink(c *restjson.Call) error {
	id, err := c.Label("vpcLinkId")
	if err != nil {
		return err
	}
	var in linksUpdateBody
	if err := decode(c, &in); err != nil {
		return err
	}
	st, err := h.svc.UpdateVpcLink(c.Scope, id, in.Name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, linkView(st))
}

// deleteVpcLink answers 202 with an empty structure, as the model says.
func (h *handlers) deleteVpcLink(c *restjson.Call) error {
	id, err := c.Label("vpcLinkId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteVpcLink(c.Scope, id); err != nil {
		return err
	}
	c.Raw(http.StatusAccepted, []byte("{}"))
	return nil
}
