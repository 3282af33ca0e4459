package lambda

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// A FunctionName is a name, a partial ARN ({account}:function:{name}, with
// or without a region) or a full ARN, each with an optional :qualifier.
// The patterns are the model's; the texts are those Lambda's messages
// print.
var (
	// namespaced is NamespacedFunctionName's pattern (names may hold dots,
	// qualifiers may be $LATEST.PUBLISHED): GetFunction, Invoke and the
	// other reads.
	namespaced = regexp.MustCompile(`^(arn:(?:aws[a-zA-Z-]*)?:lambda:)?((?:eusc-)?[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d:)?(\d{12}:)?(function:)?([a-zA-Z0-9_.-]+)(?::(\$LATEST(?:\.PUBLISHED)?|[a-zA-Z0-9_-]+))?$`)
	// plain is FunctionName's pattern: CreateFunction and the writes.
	plain = regexp.MustCompile(`^(arn:(?:aws[a-zA-Z-]*)?:lambda:)?((?:eusc-)?[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d:)?(\d{12}:)?(function:)?([a-zA-Z0-9_-]+)(?::(\$LATEST|[a-zA-Z0-9_-]+))?$`)

	namespacedText = `(arn:(aws[a-zA-Z-]*)?:lambda:)?((eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:)?(\d{12}:)?(function:)?([a-zA-Z0-9-_\.]+)(:(\$LATEST(\.PUBLISHED)?|[a-zA-Z0-9-_]+))?`
	plainText      = `(arn:(aws[a-zA-Z-]*)?:lambda:)?((eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:)?(\d{12}:)?(function:)?([a-zA-Z0-9-_]+)(:(\$LATEST|[a-zA-Z0-9-_]+))?`

	qualifierPattern = regexp.MustCompile(`^(?:\$LATEST(?:\.PUBLISHED)?|[a-zA-Z0-9_$-]+)$`)
	qualifierText    = `\$(LATEST(\.PUBLISHED)?)|[a-zA-Z0-9-_$]+`

	versionPattern = regexp.MustCompile(`^[0-9]+$`)
	aliasPattern   = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	aliasText      = `(?!^[0-9]+$)([a-zA-Z0-9-_]+)`
)

// nameKind says which model shape an operation's FunctionName has.
type nameKind int

const (
	// kindRead: NamespacedFunctionName, up to 170 characters as Lambda
	// checks them (GetFunction, Invoke, AddPermission...).
	kindRead nameKind = iota
	// kindDelete: NamespacedFunctionName, up to 140 (DeleteFunction).
	kindDelete
	// kindWrite: FunctionName, up to 140 (UpdateFunctionCode, aliases...).
	kindWrite
	// kindCreate: FunctionName; a bare name up to 64 characters, an ARN up
	// to 140, and every problem reported at once (CreateFunction).
	kindCreate
)

// target is what a FunctionName (and Qualifier) names.
type target struct {
	scope awswire.Scope
	name  string
	// qualifier is "" when neither the name nor the Qualifier gave one.
	qualifier string
	// arnQualified: the name itself carried the qualifier.
	arnQualified bool
}

// arn is the function's unqualified ARN.
func (t target) arn() string { return FunctionARN(t.scope, t.name) }

// qualifiedARN is the ARN with the target's qualifier, if any.
func (t target) qualifiedARN() string {
	if t.qualifier == "" {
		return t.arn()
	}
	return t.arn() + ":" + t.qualifier
}

// FunctionARN is arn:aws:lambda:{region}:{account}:function:{name}.
func FunctionARN(sc awswire.Scope, name string) string {
	return "arn:aws:lambda:" + sc.Region + ":" + sc.Account + ":function:" + name
}

// resolveName reads a FunctionName and an optional Qualifier parameter
// in the caller's scope sc, as Lambda checks them: the qualifier's
// problems first, then the name's; a region other than the caller's is
// unreachable; the qualifier in the name must match the parameter.
func resolveName(sc awswire.Scope, name, qualifier string, kind nameKind) (target, error) {
	var problems []string
	if qualifier != "" {
		if len(qualifier) > 128 {
			problems = append(problems, constraint(qualifier, "qualifier", "Member must have length less than or equal to 128"))
		}
		if !qualifierPattern.MatchString(qualifier) {
			problems = append(problems, constraint(qualifier, "qualifier", "Member must satisfy regular expression pattern: "+qualifierText))
		}
	}
	re, text, limit := namespaced, namespacedText, 170
	switch kind {
	case kindDelete:
		limit = 140
	case kindWrite:
		re, text, limit = plain, plainText, 140
	case kindCreate:
		re, text, limit = plain, plainText, 140
	}
	m := re.FindStringSubmatch(name)
	if kind == kindCreate && m != nil && m[1] == "" && m[2] == "" && m[3] == "" && m[4] == "" && m[6] == "" {
		limit = 64 // a bare name
	}
	if m == nil {
		problems = append(problems, constraint(name, "functionName", "Member must satisfy regular expression pattern: "+text))
	}
	if (m != nil || kind == kindCreate) && len(name) > limit {
		problems = append(problems, constraint(name, "functionName", "Member must have length less than or equal to "+strconv.Itoa(limit)))
	}
	if len(problems) > 0 {
		v := Validation(problems...)
		if kind == kindCreate && m != nil && limit == 64 {
			// CreateFunction words a bare name's problems as its own.
			v = Invalid("%s", v.Message)
		}
		return target{}, v
	}
	t := target{scope: sc, name: m[5], qualifier: m[6], arnQualified: m[6] != ""}
	if r := strings.TrimSuffix(m[2], ":"); r != "" && r != sc.Region {
		return target{}, notFound("Functions from '%s' are not reachable in this region ('%s')", r, sc.Region)
	}
	if a := strings.TrimSuffix(m[3], ":"); a != "" && kind != kindCreate {
		// The function lives in the account the ARN names: policies are
		// not enforced, so every caller may reach it.
		t.scope.Account = a
	}
	if qualifier != "" {
		if t.qualifier != "" && t.qualifier != qualifier {
			return target{}, Invalid("The derived qualifier from the function name does not match the specified qualifier.")
		}
		t.qualifier = qualifier
	}
	return t, nil
}

// isVersion reports whether q names a published version.
func isVersion(q string) bool { return versionPattern.MatchString(q) }

// isAlias reports whether q has an alias's form (not only digits).
func isAlias(q string) bool { return aliasPattern.MatchString(q) && !isVersion(q) }
