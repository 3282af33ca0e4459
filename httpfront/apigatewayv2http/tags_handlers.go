package apigatewayv2http

import (
	"net/http"
	"strings"

	"github.com/cloudemu/emulator/httpfront/restjson"
)

// The ARN arrives percent-encoded in one label (slashes raw or as %2F);
// Label decodes it.

type tagsBody struct {
	Tags map[string]string `json:"tags"`
}

// tagResource answers 201 with an empty body. The model does not require
// tags: without them the resource is only checked.
func (h *handlers) tagResource(c *restjson.Call) error {
	arn, err := c.Label("resource-arn")
	if err != nil {
		return err
	}
	var in tagsBody
	if err := decode(c, &in); err != nil {
		return err
	}
	if err := h.svc.TagResource(c.Scope, arn, in.Tags); err != nil {
		return err
	}
	c.Empty(http.StatusCreated)
	return nil
}

// untagResource takes tagKeys repeated (tagKeys=a&tagKeys=b, as the SDKs
// send it) or comma-separated (tagKeys=a,b, as docs/apigatewayv2.md writes it).
func (h *handlers) untagResource(c *restjson.Call) error {
	arn, err := c.Label("resource-arn")
	if err != nil {
		return err
	}
	raw := c.Ctx.QueryArgs().PeekMulti("tagKeys")
	if len(raw) == 0 {
		return c.Missing("tagKeys")
	}
	var keys []string
	for _, v := range raw {
		for k := range strings.SplitSeq(string(v), ",") {
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
	arn, err := c.Label("resource-arn")
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
