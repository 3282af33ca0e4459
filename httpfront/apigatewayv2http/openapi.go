package apigatewayv2http

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/oashttp"
)

// ImportApi, ReimportApi and ExportApi: OpenAPI 3.0 documents in and out
// (oashttp converts, the API's owner writes).

func (h *handlers) openAPIOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"ImportApi":   h.importAPI,
		"ReimportApi": h.reimportAPI,
		"ExportApi":   h.exportAPI,
	}
}

// readImport decodes ImportApi's and ReimportApi's input and reads the
// document.
func readImport(c *restjson.Call) (*oashttp.API, bool, error) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := decode(c, &in); err != nil {
		return nil, false, err
	}
	if in.Body == nil {
		return nil, false, c.Missing("body")
	}
	fail, _, err := c.QueryBool("failOnWarnings")
	if err != nil {
		return nil, false, err
	}
	basePath, _ := c.Query("basepath")
	doc, err := oashttp.Parse([]byte(*in.Body), basePath)
	if err != nil {
		return nil, false, apigatewayv2.ImportError(err)
	}
	return doc, fail, nil
}

func (h *handlers) importAPI(c *restjson.Call) error {
	doc, fail, err := readImport(c)
	if err != nil {
		return err
	}
	r, err := h.svc.ImportAPI(c.Scope, doc, fail)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, apisViewOf(&r.API))
}

func (h *handlers) reimportAPI(c *restjson.Call) error {
	id, err := c.Label("apiId")
	if err != nil {
		return err
	}
	doc, fail, err := readImport(c)
	if err != nil {
		return err
	}
	a, err := h.svc.ReimportAPI(c.Scope, id, doc, fail)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, apisViewOf(&a))
}

func (h *handlers) exportAPI(c *restjson.Call) error {
	v, err := labels(c, "apiId", "specification")
	if err != nil {
		return err
	}
	if v[1] != "OAS30" {
		return c.Invalid("Invalid specification %q: must be OAS30", v[1])
	}
	out, ok := c.Query("outputType")
	if !ok {
		return c.Missing("outputType")
	}
	if out != "JSON" && out != "YAML" {
		return c.Invalid("Invalid outputType %q: must be JSON or YAML", out)
	}
	if ver, ok := c.Query("exportVersion"); ok && ver != "1.0" {
		return c.Invalid("Invalid exportVersion %q: must be 1.0", ver)
	}
	ext, present, err := c.QueryBool("includeExtensions")
	if err != nil {
		return err
	}
	if !present {
		ext = true // AWS's default
	}
	stage, _ := c.Query("stageName")
	e, err := h.svc.ExportAPI(c.Scope, v[0], stage)
	if err != nil {
		return err
	}
	b, err := oashttp.Export(e.API, oashttp.ExportOptions{ServerURL: e.ServerURL, BasePath: e.BasePath, YAML: out == "YAML", IncludeExtensions: ext})
	if err != nil {
		return err
	}
	c.Raw(http.StatusOK, b)
	if out == "YAML" {
		c.Ctx.Response.Header.SetContentType("application/yaml")
	}
	return nil
}
