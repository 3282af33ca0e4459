package apigateway

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
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

// Validation collects the model-level checks API Gateway runs before any
// other (enum values, patterns), to report them all at once as one
// ValidationException, worded as AWS words it.
type Validation struct {
	errs []string
}

// patchOpEnum is the op enum in the order AWS lists it.
const patchOpEnum = "[add, remove, move, test, replace, copy]"

// PatchOps checks each operation's op against the enum; input names the
// operation's input ("updateRestApiInput"). Indexes are 1-based.
func (v *Validation) PatchOps(input string, ops []PatchOp) {
	for i, o := range ops {
		switch o.Op {
		case "add", "remove", "replace", "move", "copy", "test":
		default:
			v.errs = append(v.errs, fmt.Sprintf(
				"Value '%s' at '%s.patchOperations.%d.member.op' failed to satisfy constraint: Member must satisfy enum value set: %s",
				o.Op, input, i+1, patchOpEnum))
		}
	}
}

// Enum checks that value is one of set (listed as AWS lists it).
func (v *Validation) Enum(member, value string, set ...string) {
	for _, s := range set {
		if value == s {
			return
		}
	}
	v.errs = append(v.errs, fmt.Sprintf(
		"Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
		value, member, strings.Join(set, ", ")))
}

// EnumList checks every element of a list member against set.
func (v *Validation) EnumList(member string, values []string, set ...string) {
	for _, value := range values {
		ok := false
		for _, s := range set {
			ok = ok || value == s
		}
		if !ok {
			v.errs = append(v.errs, fmt.Sprintf(
				"Value '[%s]' at '%s' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [%s]]",
				strings.Join(values, ", "), member, strings.Join(set, ", ")))
			return
		}
	}
}

// Pattern checks value against a regular expression, printed as pattern.
func (v *Validation) Pattern(member, value string, re *regexp.Regexp, pattern string) {
	if !re.MatchString(value) {
		v.errs = append(v.errs, fmt.Sprintf(
			"Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: %s",
			value, member, pattern))
	}
}

// NotNull checks that a required member is present.
func (v *Validation) NotNull(member string, present bool) {
	if !present {
		v.errs = append(v.errs, fmt.Sprintf("Value null at '%s' failed to satisfy constraint: Member must not be null", member))
	}
}

// Err is the ValidationException of everything collected, or nil.
func (v *Validation) Err() error {
	switch len(v.errs) {
	case 0:
		return nil
	case 1:
		return awswire.New(awswire.APIGateway, awswire.CodeValidation, "1 validation error detected: "+v.errs[0])
	}
	return awswire.New(awswire.APIGateway, awswire.CodeValidation,
		fmt.Sprintf("%d validation errors detected: %s", len(v.errs), strings.Join(v.errs, "; ")))
}

// StatusCodePattern is the model's pattern for a response status code.
var StatusCodePattern = regexp.MustCompile(`^[1-5]\d\d$`)

// StatusCodePatternText is how AWS prints it.
const StatusCodePatternText = `[1-5]\d\d`

// PathStyle says how a kind words a path it does not know, or an op a path
// does not support; AWS words them differently from kind to kind.
type PathStyle int

const (
	// ListPaths: "Invalid patch path  '/x' specified for op 'replace'.
	// Must be one of: [/a, /b]" (unknown path), "Invalid patch path  '/a'
	// specified for op 'add'. Please choose supported operations"
	// (unsupported op).
	ListPaths PathStyle = iota
	// BarePath: "Invalid patch path /x" (unknown path), "Invalid patch
	// operation specified. Must be one of: [replace]" (unsupported op).
	BarePath
)

// PatchRule is one path pattern a kind accepts and the ops allowed on it.
// A pattern ending in "/*" accepts one key under it ("/variables/*"); one
// ending in "/**" accepts anything under it.
type PatchRule struct {
	Path string
	Ops  []string
}

// Patchable lists the paths a resource kind accepts, in the order AWS
// lists them, and how it words refusals.
type Patchable struct {
	Rules []PatchRule
	Style PathStyle
}

// Check refuses an operation whose path or op the kind does not accept,
// before anything is applied. The op enum is checked earlier (Validation).
func (p Patchable) Check(ops []PatchOp) error {
	for _, o := range ops {
		if p.Style == ListPaths && !p.anyRuleAllows(o.Op) {
			return BadRequest("Invalid patch path  '%s' specified for op '%s'. Please choose supported operations", o.Path, o.Op)
		}
		rule, ok := p.match(o.Path)
		if !ok {
			if p.Style == BarePath {
				return BadRequest("Invalid patch path %s", o.Path)
			}
			return BadRequest("Invalid patch path  '%s' specified for op '%s'. Must be one of: [%s]",
				o.Path, o.Op, strings.Join(p.pathsFor(o.Op), ", "))
		}
		if !contains(rule.Ops, o.Op) {
			if p.Style == BarePath {
				return BadRequest("Invalid patch operation specified. Must be one of: [%s]", strings.Join(rule.Ops, ", "))
			}
			return BadRequest("Invalid patch path  '%s' specified for op '%s'. Please choose supported operations", o.Path, o.Op)
		}
		if (o.Op == "move" || o.Op == "copy") && (o.From == nil || *o.From == "") {
			return BadRequest("Invalid from path for op '%s'", o.Op)
		}
	}
	return nil
}

func (p Patchable) anyRuleAllows(op string) bool {
	for _, r := range p.Rules {
		if contains(r.Ops, op) {
			return true
		}
	}
	return false
}

func (p Patchable) match(path string) (PatchRule, bool) {
	for _, r := range p.Rules {
		if matchPath(r.Path, path) {
			return r, true
		}
	}
	return PatchRule{}, false
}

// pathsFor lists the paths op applies to; AWS lists the replace paths for
// an op no path supports.
func (p Patchable) pathsFor(op string) []string {
	var out []string
	for _, r := range p.Rules {
		if contains(r.Ops, op) {
			out = append(out, r.Path)
		}
	}
	if len(out) == 0 && op != "replace" {
		return p.pathsFor("replace")
	}
	return out
}

func matchPath(pat, path string) bool {
	switch {
	case strings.HasSuffix(pat, "/**"):
		prefix := strings.TrimSuffix(pat, "**")
		return strings.HasPrefix(path, prefix) && len(path) > len(prefix)
	case strings.HasSuffix(pat, "/*"):
		prefix := strings.TrimSuffix(pat, "*")
		rest, ok := strings.CutPrefix(path, prefix)
		return ok && rest != "" && !strings.Contains(rest, "/")
	}
	return pat == path
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
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
	return false, BadRequest("Invalid boolean value specified for %s: %s", op.Path, op.Val())
}

// ParseInt reads a patch value that must be an integer.
func ParseInt(op PatchOp) (int64, error) {
	n, err := strconv.ParseInt(op.Val(), 10, 64)
	if err != nil {
		return 0, BadRequest("Invalid integer value specified for %s: %s", op.Path, op.Val())
	}
	return n, nil
}
