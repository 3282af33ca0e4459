package compat

import (
	"net/http"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// Runtime is one function runtime as /_emulator/lambda/runtimes reports it.
type Runtime struct {
	Name        string `json:"name"`
	Available   bool   `json:"available"`
	Interpreter string `json:"interpreter,omitempty"`
	Version     string `json:"version,omitempty"`
	How         string `json:"how,omitempty"`
	Problem     string `json:"problem,omitempty"`
}

// runtimesDoc is what /_emulator/lambda/runtimes and its compatibility
// paths answer: Runtimes, the names that run here, is what other
// emulators' clients read; details says how each runtime runs, or why not.
type runtimesDoc struct {
	Runtimes []string  `json:"Runtimes"`
	Details  []Runtime `json:"details"`
}

// runtimesRoutes serve /_emulator/lambda/runtimes, /_cloud/lambda/runtimes
// and /_aws/lambda/runtimes.
func (h *endpoints) runtimesRoutes() []Route {
	var rs []Route
	for _, p := range append([]string{"/_emulator/lambda/runtimes"}, Spellings("/_cloud/lambda/runtimes")...) {
		rs = append(rs, Route{http.MethodGet, p, h.runtimes})
	}
	return rs
}

func (h *endpoints) runtimes(c *restjson.Call) error {
	doc := runtimesDoc{Runtimes: []string{}, Details: []Runtime{}}
	if h.d.Runtimes != nil {
		doc.Details = append(doc.Details, h.d.Runtimes()...)
	}
	for _, r := range doc.Details {
		if r.Available {
			doc.Runtimes = append(doc.Runtimes, r.Name)
		}
	}
	return c.JSON(http.StatusOK, doc)
}

// pathFunctionCode is where GetFunction's Code.Location points: the
// Lambda service signs those URLs and checks them.
const pathFunctionCode = "/_emulator/lambda/code/"

// functionCode serves a function's zip, as the presigned S3 URL of AWS's
// Code.Location does.
func (h *endpoints) functionCode(c *restjson.Call) error {
	if h.d.FunctionCode == nil {
		return awswire.New(awswire.ServiceNone, awswire.CodeUnknownOperation, "No function code is served here.")
	}
	label := func(name string) string { v, _ := c.Ctx.UserValue(name).(string); return v }
	zip, err := h.d.FunctionCode(label("account"), label("region"), label("hash"),
		query(c, "X-Amz-Date"), query(c, "X-Amz-Signature"))
	if err != nil {
		return err
	}
	c.Ctx.SetStatusCode(http.StatusOK)
	c.Ctx.SetContentType("application/zip")
	c.Ctx.SetBody(zip)
	return nil
}
