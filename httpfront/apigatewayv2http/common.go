package apigatewayv2http

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// badRequest is API Gateway's error for invalid input.
func badRequest(format string, args ...any) *awswire.Error {
	return apigatewayv2.BadRequest(format, args...)
}

// labels returns the named path labels, decoded, in order.
func labels(c *restjson.Call, names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		v, err := c.Label(n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// decode decodes the JSON body into v.
func decode(c *restjson.Call, v any) error { return c.DecodeBody(v) }

// page is a v2 listing request: at most max items after the token's key.
type page struct {
	max   int
	after string
}

// maxPage is the largest page v2 lists return (and the default).
const maxPage = 500

// readPage reads maxResults (a string on the wire) and nextToken.
func readPage(c *restjson.Call) (page, error) {
	p := page{max: maxPage}
	if v, ok := c.Query("maxResults"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPage {
			return p, badRequest("Invalid value for maxResults: %s. It must be an integer between 1 and %d.", v, maxPage)
		}
		p.max = n
	}
	if v, ok := c.Query("nextToken"); ok && v != "" {
		key, ok := awswire.DecodeToken(v)
		if !ok {
			return p, badRequest("Invalid nextToken: %s", v)
		}
		p.after = key
	}
	return p, nil
}

// paginate returns the items after p's token (items sorted by key) and the
// token of the next page, "" on the last.
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
	if len(items) <= p.max {
		return items, ""
	}
	items = items[:p.max]
	return items, awswire.EncodeToken(key(items[len(items)-1]))
}

// list writes a v2 collection: {"items": [...], "nextToken": "..."}.
func list[T any](c *restjson.Call, items []T, next string) error {
	if items == nil {
		items = []T{}
	}
	return c.JSON(http.StatusOK, struct {
		Items     []T    `json:"items"`
		NextToken string `json:"nextToken,omitempty"`
	}{items, next})
}

// noContent answers 204 with an empty body (v2 deletes).
func noContent(c *restjson.Call) error {
	c.Empty(http.StatusNoContent)
	return nil
}
