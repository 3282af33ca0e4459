package backuphttp

import (
	"slices"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// page is a listing request: at most max items, after the token's key.
type page struct {
	max   int
	after string // the last key of the previous page; "" for the first
}

// readPage reads the page size and token query parameters. The size
// defaults to, and may not exceed, limit.
func readPage(c *restjson.Call, maxName, tokenName string, limit int) (page, error) {
	n, present, err := c.QueryInt(maxName, 1, limit)
	if err != nil {
		return page{}, err
	}
	if !present {
		n = limit
	}
	p := page{max: n}
	if tok, ok := c.Query(tokenName); ok && tok != "" {
		key, ok := awswire.DecodeToken(tok)
		if !ok || key == "" {
			return page{}, invalid("Invalid %s: the token is not one this service issued", tokenName)
		}
		p.after = key
	}
	return p, nil
}

// token encodes the next page's token ("" on the last page).
func (p page) token(next string) string {
	if next == "" {
		return ""
	}
	return awswire.EncodeToken(next)
}

// paginateTags returns the page of tags, in key order, after p's token.
func paginateTags(tags map[string]string, p page) (map[string]string, string) {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		if k > p.after || p.after == "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	next := ""
	if len(keys) > p.max {
		keys = keys[:p.max]
		next = awswire.EncodeToken(keys[len(keys)-1])
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		out[k] = tags[k]
	}
	return out, next
}
