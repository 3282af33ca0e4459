package apigatewayhttp

import (
	"errors"
	"net/http"
	"strings"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/openapi"
)

func (h *handlers) openAPIOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"ImportRestApi": h.importRestAPI,
		"PutRestApi":    h.putRestAPI,
	}
}

// readDocument parses the request's OpenAPI document and applies the
// import's query parameters: failonwarnings, and the parameters AWS
// accepts (basepath=ignore is the only basepath handled; others are
// refused rather than silently misapplied).
func readDocument(c *restjson.Call) (*openapi.API, error) {
	fail, _, err := c.QueryBool("failonwarnings")
	if err != nil {
		return nil, err
	}
	if bp, ok := c.Query("basepath"); ok && bp != "ignore" {
		return nil, c.Invalid("basepath=%s is not supported by this emulator; only basepath=ignore is", bp)
	}
	doc, err := openapi.Parse(c.Ctx.PostBody())
	if err != nil {
		var pe *openapi.Error
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
func importedAPI(r *apigateway.RestAPI, doc *openapi.API) *apigateway.API {
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
