package apigatewayhttp

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/oasrest"
)

func (h *handlers) openAPIOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"ImportRestApi": h.importRestAPI,
		"PutRestApi":    h.putRestAPI,
		"GetExport":     h.getExport,
	}
}

// readDocument parses the request's OpenAPI document and applies the
// import's query parameters: failonwarnings, basepath and
// endpointConfigurationTypes.
func readDocument(c *restjson.Call) (*oasrest.API, error) {
	fail, _, err := c.QueryBool("failonwarnings")
	if err != nil {
		return nil, err
	}
	bp, _ := c.Query("basepath")
	doc, err := oasrest.Parse(c.Ctx.PostBody(), oasrest.Options{BasePath: bp})
	if err != nil {
		var pe *oasrest.Error
		if errors.As(err, &pe) {
			return nil, apigateway.BadRequest("%s", pe.Message)
		}
		return nil, err
	}
	if types, ok := c.Query("endpointConfigurationTypes"); ok && types != "" {
		doc.EndpointTypes = []string{strings.ToUpper(types)}
	}
	if fail && len(doc.Warnings) > 0 {
		return nil, apigateway.BadRequest("Warnings found during import:\n\t%s", strings.Join(doc.Warnings, "\n\t"))
	}
	return doc, nil
}

// importedAPI is the RestApi as ImportRestApi and PutRestApi answer it:
// with the document's warnings.
func importedAPI(r *apigateway.RestAPI, doc *oasrest.API) *apigateway.API {
	a := r.API
	a.Warnings = doc.Warnings
	return &a
}

func (h *handlers) importRestAPI(c *restjson.Call) error {
	doc, err := readDocument(c)
	if err != nil {
		return err
	}
	r, err := h.svc.ImportRestAPI(c.Scope, doc)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, importedAPI(r, doc))
}

func (h *handlers) putRestAPI(c *restjson.Call) error {
	id, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	mode := apigateway.ImportMerge
	if m, ok := c.Query("mode"); ok {
		mode = apigateway.ImportMode(m)
	}
	doc, err := readDocument(c)
	if err != nil {
		return err
	}
	r, err := h.svc.PutRestAPI(c.Scope, id, mode, doc)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, importedAPI(r, doc))
}

// getExport writes the OpenAPI document of a stage's deployment.
// extensions=integrations|authorizers|apigateway add API Gateway's
// extensions; postman is accepted and adds nothing.
func (h *handlers) getExport(c *restjson.Call) error {
	l, err := labels(c, "restapi_id", "stage_name", "export_type")
	if err != nil {
		return err
	}
	o := oasrest.ExportOptions{Host: l[0] + ".execute-api." + c.Scope.Region + ".amazonaws.com", Stage: l[1]}
	switch l[2] {
	case "oas30":
	case "swagger":
		o.Swagger = true
	default:
		return apigateway.BadRequest("Invalid export type specified: %s. Valid options are oas30,swagger", l[2])
	}
	accept := strings.ToLower(string(c.Ctx.Request.Header.Peek("Accept")))
	switch {
	case strings.Contains(accept, "yaml"):
		o.YAML = true
	case accept == "", strings.Contains(accept, "json"), strings.Contains(accept, "*/*"):
	default:
		return apigateway.BadRequest("Invalid accept type specified: %s. Valid options are application/json,application/yaml", accept)
	}
	if x, ok := c.Query("extensions"); ok {
		for _, e := range strings.Split(x, ",") {
			switch strings.TrimSpace(e) {
			case "integrations":
				o.Integrations = true
			case "authorizers":
				o.Authorizers = true
			case "apigateway":
				o.APIGateway = true
			case "", "postman":
				// Postman's extensions are for Postman's import only:
				// the document is the same without them.
			default:
				return apigateway.BadRequest("Invalid extensions specified: %s. This emulator exports integrations,authorizers,apigateway", e)
			}
		}
	}
	ex, err := h.svc.ExportStage(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	o.Version = apigateway.ExportVersion(ex.Deployment)
	body, err := oasrest.Export(ex.API, o)
	if err != nil {
		return err
	}
	kind, ext := l[2], "json"
	if o.YAML {
		ext = "yaml"
	}
	version := ex.API.Version
	if version == "" {
		version = o.Version
	}
	c.Ctx.SetStatusCode(http.StatusOK)
	// AWS answers the document as a download (recorded: octet-stream).
	c.Ctx.Response.Header.SetContentType("application/octet-stream")
	c.Ctx.Response.Header.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s_%s.%s"`, kind, version, ext))
	c.Ctx.Response.SetBody(body)
	return nil
}
