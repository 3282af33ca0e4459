package apigatewayhttp

import (
	"net/http"
	"strings"

	"github.com/cloudemu/emulator/httpfront/restjson"
)

// The ARN arrives percent-encoded in one label (slashes raw or as %2F);
// Label decodes it.

type tagResourceBody struct {
	Tags map[string]string `json:"tags"`
}

func (h *handlers) tagResource(c *restjson.Call) error {
	arn, err := label(c, "resource_arn")
	if err != nil {
		return err
	}
	var in tagResourceBody
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.Tags == nil {
		return c.Missing("tags")
	}
	if err := h.svc.TagResource(c.Scope, arn, in.Tags); err != nil {
		return err
	}
	return noContent(c)
}

// untagResource takes tagKeys repeated (tagKeys=a&tagKeys=b, as the SDKs
// send it) or comma-separated (tagKeys=a,b, as docs/apigateway.md writes it).
func (h *handlers) untagResource(c *restjson.Call) error {
	arn, err := label(c, "resource_arn")
	if err != nil {
		return err
	}
	raw := c.Ctx.QueryArgs().PeekMulti("tagKeys")
	if len(raw) == 0 {
		return c.Missing("tagKeys")
	}
	var keys []string
	for _, v := range raw {
		for _, k := range strings.Split(string(v), ",") {
			if k != "" {
				keys = append(keys, k)
			}
		}
	}
	if err := h.svc.UntagResource(c.Scope, arn, keys); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) getTags(c *restjson.Call) error {
	arn, err := label(c, "resource_arn")
	if err != nil {
		return err
	}
	tags, err := h.svc.Tags(c.Scope, arn)
	if err != nil {
		return err
	}
	if tags == nil {
		tags = map[string]string{}
	}
	return c.JSON(http.StatusOK, struct {
		Tags map[string]string `json:"tags"`
	}{tags})
}
