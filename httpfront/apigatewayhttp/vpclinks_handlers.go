package apigatewayhttp

import (
	"fmt"
	"net/http"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type createVpcLinkBody struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	TargetARNs  []string          `json:"targetArns"`
	Tags        map[string]string `json:"tags"`
}

// vpcLinkWithTags is a VpcLink as GetVpcLink and UpdateVpcLink answer it:
// with "tags" even when there are none.
type vpcLinkWithTags struct {
	*apigateway.VpcLink
	Tags map[string]string `json:"tags"`
}

func vpcLinkView(st *apigateway.LinkState) vpcLinkWithTags {
	t := st.Link.Tags
	if t == nil {
		t = map[string]string{}
	}
	return vpcLinkWithTags{&st.Link, t}
}

// createVpcLink answers 202 as AWS does; the link is AVAILABLE at once
// (docs/apigateway.md), so the reply already says so.
func (h *handlers) createVpcLink(c *restjson.Call) error {
	var in createVpcLinkBody
	if err := decode(c, &in); err != nil {
		return err
	}
	st, err := h.svc.CreateVpcLink(c.Scope, apigateway.VpcLink{
		Name: in.Name, Description: in.Description, TargetARNs: in.TargetARNs, Tags: in.Tags})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, &st.Link)
}

func (h *handlers) getVpcLink(c *restjson.Call) error {
	id, err := label(c, "vpclink_id")
	if err != nil {
		return err
	}
	st, ok := h.svc.VpcLink(c.Scope, id)
	if !ok {
		return apigateway.VpcLinkNotFound()
	}
	return c.JSON(http.StatusOK, vpcLinkView(st))
}

// vpcLinkItem is a link with its position key: links list in creation order.
type vpcLinkItem struct {
	key  string
	link *apigateway.VpcLink
}

func (h *handlers) getVpcLinks(c *restjson.Call) error {
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all := h.svc.VpcLinks(c.Scope)
	items := make([]vpcLinkItem, len(all))
	for i, st := range all {
		items[i] = vpcLinkItem{fmt.Sprintf("%020d", st.Seq), &st.Link}
	}
	page, pos := paginate(items, p, func(it vpcLinkItem) string { return it.key })
	out := make([]*apigateway.VpcLink, len(page))
	for i, it := range page {
		out[i] = it.link
	}
	return list(c, out, pos)
}

func (h *handlers) updateVpcLink(c *restjson.Call) error {
	id, err := label(c, "vpclink_id")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	st, err := h.svc.UpdateVpcLink(c.Scope, id, ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, vpcLinkView(st))
}

func (h *handlers) deleteVpcLink(c *restjson.Call) error {
	id, err := label(c, "vpclink_id")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteVpcLink(c.Scope, id); err != nil {
		return err
	}
	return accepted(c)
}
