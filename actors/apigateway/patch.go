package apigateway

import (
	"strconv"
	"strings"
)

// PatchOp is one operation of an Update* request (RFC 6902 style).
type PatchOp struct {
	Op    string  `json:"op"`
	Path  string  `json:"path"`
	Value *string `json:"value"`
	From  *string `json:"from"`
}

// Val is the operation's value, "" when absent.
func (p PatchOp) Val() string {
	if p.Value == nil {
		return ""
	}
	return *p.Value
}

// Patchable lists, for each op, the paths a resource kind accepts. A path
// ending in "/*" accepts one key under it ("/variables/*"); "/**" accepts
// any rest of the path.
type Patchable map[string][]string

var patchOps = []string{"add", "remove", "replace", "move", "copy", "test"}

// Check refuses any operation whose op or path the kind does not accept,
// worded as API Gateway words it, before anything is applied.
func (p Patchable) Check(ops []PatchOp) error {
	for _, o := range ops {
		if !isPatchOp(o.Op) {
			return BadRequest("Invalid patch operation specified. Must be 'add'|'remove'|'replace'|'move'|'copy'|'test'")
		}
		paths := p[o.Op]
		if !matchPath(paths, o.Path) {
			return BadRequest("Invalid patch path  '%s' specified for op '%s'. Must be one of: [%s]",
				o.Path, o.Op, strings.Join(paths, ", "))
		}
		if (o.Op == "replace" || o.Op == "add" || o.Op == "test") && o.Value == nil {
			return BadRequest("Invalid null or empty value in %s", o.Path)
		}
		if (o.Op == "move" || o.Op == "copy") && (o.From == nil || *o.From == "") {
			return BadRequest("Invalid from path for op '%s'", o.Op)
		}
	}
	return nil
}

func isPatchOp(op string) bool {
	for _, p := range patchOps {
		if p == op {
			return true
		}
	}
	return false
}

func matchPath(patterns []string, path string) bool {
	for _, pat := range patterns {
		switch {
		case strings.HasSuffix(pat, "/**"):
			if strings.HasPrefix(path, strings.TrimSuffix(pat, "**")) && len(path) > len(pat)-2 {
				return true
			}
		case strings.HasSuffix(pat, "/*"):
			prefix := strings.TrimSuffix(pat, "*")
			if rest, ok := strings.CutPrefix(path, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
				return true
			}
		case pat == path:
			return true
		}
	}
	return false
}

// PathKey returns the key a "/prefix/{key}" path names, unescaped as JSON
// Pointer escapes it (~1 is "/", ~0 is "~").
func PathKey(path, prefix string) string {
	k := strings.TrimPrefix(path, prefix)
	return strings.ReplaceAll(strings.ReplaceAll(k, "~1", "/"), "~0", "~")
}

// ParseBool reads a patch value that must be a boolean.
func ParseBool(op PatchOp) (bool, error) {
	switch strings.ToLower(op.Val()) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, BadRequest("Invalid value for %s: %q is not a boolean", op.Path, op.Val())
}

// ParseInt reads a patch value that must be an integer within [lo, hi].
func ParseInt(op PatchOp, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(op.Val(), 10, 64)
	if err != nil {
		return 0, BadRequest("Invalid value for %s: %q is not an integer", op.Path, op.Val())
	}
	if n < lo || n > hi {
		return 0, BadRequest("Invalid value for %s: %d must be between %d and %d", op.Path, n, lo, hi)
	}
	return n, nil
}
