package apigatewayhttp

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// badRequest is API Gateway's error for invalid input.
func badRequest(format string, args ...any) *awswire.Error {
	return apigateway.BadRequest(format, args...)
}

// label returns a path label, decoded.
func label(c *restjson.Call, name string) (string, error) {
	return c.Label(name)
}

// decode decodes the JSON body into v.
func decode(c *restjson.Call, v any) error { return c.DecodeBody(v) }

// patchBody is the body of every Update* operation.
type patchBody struct {
	PatchOperations []apigateway.PatchOp `json:"patchOperations"`
}

// readPatch decodes the patch operations of an Update* request.
func readPatch(c *restjson.Call) ([]apigateway.PatchOp, error) {
	var in patchBody
	if err := decode(c, &in); err != nil {
		return nil, err
	}
	return in.PatchOperations, nil
}

// Page size bounds of v1 listings (position/limit).
const (
	defaultLimit = 25
	maxLimit     = 500
)

// page is a v1 listing request: at most limit items after position.
type page struct {
	limit int
	after string
}

// readPage reads position and limit.
func readPage(c *restjson.Call) (page, error) {
	p := page{limit: defaultLimit}
	if v, ok := c.Query("limit"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			return p, badRequest("1 validation error detected: Value '%s' at 'limit' failed to satisfy constraint: Member must have value less than or equal to %d", v, maxLimit)
		}
		p.limit = n
	}
	if v, ok := c.Query("position"); ok && v != "" {
		key, ok := awswire.DecodeToken(v)
		if !ok {
			return p, badRequest("Invalid position parameter")
		}
		p.after = key
	}
	return p, nil
}

// paginate returns the items after p's position (items sorted by key) and
// the position of the next page, "" on the last.
func paginate[T any](items []T, p page, key func(T) string) ([]T, string) {
	start := 0
	if p.after != "" {
		start, _ = slices.BinarySearchFunc(items, p.after, func(it T, k string) int {
			if key(it) <= k {
				return -1
			}
			return 1
		})
	}
	items = items[start:]
	if len(items) <= p.limit {
		return items, ""
	}
	items = items[:p.limit]
	return items, awswire.EncodeToken(key(items[len(items)-1]))
}

// list writes a v1 collection: {"item": [...], "position": "..."}.
func list[T any](c *restjson.Call, items []T, position string) error {
	if items == nil {
		items = []T{}
	}
	return c.JSON(http.StatusOK, struct {
		Position string `json:"position,omitempty"`
		Items    []T    `json:"item"`
	}{position, items})
}

// accepted answers a delete: 202 with an empty body.
func accepted(c *restjson.Call) error {
	c.Empty(http.StatusAccepted)
	return nil
}

// noContent answers 204 with an empty body.
func noContent(c *restjson.Call) error {
	c.Empty(http.StatusNoContent)
	return nil
}

// labels returns the named path labels, decoded, in order.
func labels(c *restjson.Call, names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		v, err := label(c, n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// The collections an API owns (models, authorizers, validators, gateway
// responses) are read, listed, patched and deleted alike; these build their
// handlers from the service's functions.

// getItem answers one item of an API, named by the label idLabel.
func getItem[T any](idLabel string, get func(awswire.Scope, string, string) (T, error)) restjson.Handler {
	return func(c *restjson.Call) error {
		l, err := labels(c, "restapi_id", idLabel)
		if err != nil {
			return err
		}
		v, err := get(c.Scope, l[0], l[1])
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, v)
	}
}

// listItems answers a page of an API's items, ordered and positioned by key.
func listItems[T any](all func(awswire.Scope, string) ([]*T, error), key func(*T) string) restjson.Handler {
	return func(c *restjson.Call) error {
		apiID, err := label(c, "restapi_id")
		if err != nil {
			return err
		}
		p, err := readPage(c)
		if err != nil {
			return err
		}
		items, err := all(c.Scope, apiID)
		if err != nil {
			return err
		}
		page, pos := paginate(items, p, key)
		return list(c, page, pos)
	}
}

// updateItem applies a PATCH to one item of an API.
func updateItem[T any](idLabel string, update func(awswire.Scope, string, string, []apigateway.PatchOp) (T, error)) restjson.Handler {
	return func(c *restjson.Call) error {
		l, err := labels(c, "restapi_id", idLabel)
		if err != nil {
			return err
		}
		ops, err := readPatch(c)
		if err != nil {
			return err
		}
		v, err := update(c.Scope, l[0], l[1], ops)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, v)
	}
}

// deleteItem deletes one item of an API and answers 202.
func deleteItem(idLabel string, del func(awswire.Scope, string, string) error) restjson.Handler {
	return func(c *restjson.Call) error {
		l, err := labels(c, "restapi_id", idLabel)
		if err != nil {
			return err
		}
		if err := del(c.Scope, l[0], l[1]); err != nil {
			return err
		}
		return accepted(c)
	}
}
