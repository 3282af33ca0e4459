package lambda

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Resource policies are stored and answered as AWS forms them; nothing
// enforces them (docs/lambda.md).

var (
	statementIDPattern   = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	namespacedSidPattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)
	actionPattern        = regexp.MustCompile(`^(lambda:[*]|lambda:[a-zA-Z]+|[*])$`)
	nonSpacePattern      = regexp.MustCompile(`^[^\s]+$`)
	accountPattern       = regexp.MustCompile(`^\d{12}$`)
	orgIDPattern         = regexp.MustCompile(`^o-[a-z0-9]{10,32}$`)
	tokenPattern         = regexp.MustCompile(`^[a-zA-Z0-9._\-]+$`)
	iamARNPattern        = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:iam:`)
)

// maxPolicy is the largest a function's policy may grow, in bytes.
const maxPolicy = 20480

// PermissionInput is an AddPermission request.
type PermissionInput struct {
	StatementID, Action, Principal string
	Qualifier                      string
	SourceArn, SourceAccount       *string
	EventSourceToken               *string
	PrincipalOrgID                 *string
	FunctionURLAuthType            *string
	RevisionID                     *string
}

func (in *PermissionInput) check() error {
	var problems []string
	if n := len(in.StatementID); n == 0 || n > 100 || !statementIDPattern.MatchString(in.StatementID) {
		problems = append(problems, constraint(in.StatementID, "statementId", "Member must satisfy regular expression pattern: ([a-zA-Z0-9-_]+)"))
	}
	if !actionPattern.MatchString(in.Action) {
		problems = append(problems, constraint(in.Action, "action", "Member must satisfy regular expression pattern: (lambda:[*]|lambda:[a-zA-Z]+|[*])"))
	}
	if !nonSpacePattern.MatchString(in.Principal) || len(in.Principal) > 2048 {
		problems = append(problems, constraint(in.Principal, "principal", `Member must satisfy regular expression pattern: [^\s]+`))
	}
	if in.SourceAccount != nil && !accountPattern.MatchString(*in.SourceAccount) {
		problems = append(problems, constraint(*in.SourceAccount, "sourceAccount", `Member must satisfy regular expression pattern: \d{12}`))
	}
	if in.PrincipalOrgID != nil && !orgIDPattern.MatchString(*in.PrincipalOrgID) {
		problems = append(problems, constraint(*in.PrincipalOrgID, "principalOrgID", "Member must satisfy regular expression pattern: o-[a-z0-9]{10,32}"))
	}
	if in.EventSourceToken != nil && *in.EventSourceToken != "" && !tokenPattern.MatchString(*in.EventSourceToken) {
		problems = append(problems, constraint(*in.EventSourceToken, "eventSourceToken", `Member must satisfy regular expression pattern: [a-zA-Z0-9._\-]+`))
	}
	if in.FunctionURLAuthType != nil {
		if p := enum(*in.FunctionURLAuthType, "functionUrlAuthType", "NONE", "AWS_IAM"); p != "" {
			problems = append(problems, p)
		}
	}
	if in.SourceArn != nil {
		if _, ok := awswire.ParseARN(*in.SourceArn); !ok {
			problems = append(problems, constraint(*in.SourceArn, "sourceArn",
				`Member must satisfy regular expression pattern: arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\-])+:((eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1})?:(\d{12})?:(.*)`))
		}
	}
	if len(problems) > 0 {
		return Validation(problems...)
	}
	return nil
}

type stringEquals struct {
	SourceAccount string `json:"AWS:SourceAccount,omitempty"`
	AuthType      string `json:"lambda:FunctionUrlAuthType,omitempty"`
	OrgID         string `json:"aws:PrincipalOrgID,omitempty"`
	Token         string `json:"lambda:EventSourceToken,omitempty"`
}

type arnLike struct {
	SourceArn string `json:"AWS:SourceArn"`
}

type condition struct {
	StringEquals *stringEquals `json:"StringEquals,omitempty"`
	ArnLike      *arnLike      `json:"ArnLike,omitempty"`
}

type statementJSON struct {
	Sid       string     `json:"Sid"`
	Effect    string     `json:"Effect"`
	Principal any        `json:"Principal"`
	Action    string     `json:"Action"`
	Resource  string     `json:"Resource"`
	Condition *condition `json:"Condition,omitempty"`
}

// statement forms the statement AddPermission adds, as AWS does.
func (in *PermissionInput) statement(resource string) (json.RawMessage, error) {
	st := statementJSON{Sid: in.StatementID, Effect: "Allow", Action: in.Action, Resource: resource}
	switch p := in.Principal; {
	case p == "*":
		st.Principal = "*"
	case accountPattern.MatchString(p):
		st.Principal = map[string]string{"AWS": "arn:aws:iam::" + p + ":root"}
	case iamARNPattern.MatchString(p):
		st.Principal = map[string]string{"AWS": p}
	case strings.HasSuffix(p, ".amazonaws.com") || strings.HasSuffix(p, ".amazonaws.com.cn"):
		st.Principal = map[string]string{"Service": p}
	default:
		return nil, Invalid("The provided principal was invalid. Please check the principal and try again.")
	}
	var se stringEquals
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	se.SourceAccount, se.AuthType = deref(in.SourceAccount), deref(in.FunctionURLAuthType)
	se.OrgID, se.Token = deref(in.PrincipalOrgID), deref(in.EventSourceToken)
	var c condition
	if se != (stringEquals{}) {
		c.StringEquals = &se
	}
	if in.SourceArn != nil {
		c.ArnLike = &arnLike{SourceArn: *in.SourceArn}
	}
	if c.StringEquals != nil || c.ArnLike != nil {
		st.Condition = &c
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// policyTarget resolves a policy's qualifier in f: its key in Policies, its
// resource ARN and its revision id.
func policyTarget(f *Function, q string) (key, resource, revision string, err error) {
	switch {
	case q == "":
		return "", f.ARN, f.Latest.RevisionID, nil
	case isVersion(q):
		v, ok := f.version(q)
		if !ok {
			return "", "", "", functionNotFound(f.ARN + ":" + q)
		}
		return q, f.ARN + ":" + q, v.RevisionID, nil
	case isAlias(q):
		a, ok := f.Aliases[q]
		if !ok {
			return "", "", "", notFound("Cannot find alias arn: %s", f.ARN+":"+q)
		}
		return q, f.ARN + ":" + q, a.RevisionID, nil
	}
	return "", "", "", functionNotFound(f.ARN + ":" + q)
}

// bumpTarget gives the policy target's revision a new id in next.
func bumpTarget(next *Function, key string) {
	switch {
	case key == "":
		bump(next)
	case isVersion(key):
		next.Versions = slices.Clone(next.Versions)
		for i, v := range next.Versions {
			if v.Version == key {
				c := v.clone()
				c.RevisionID = awswire.UUID()
				next.Versions[i] = c
			}
		}
	default:
		next.Aliases = maps.Clone(next.Aliases)
		a := *next.Aliases[key]
		a.RevisionID = awswire.UUID()
		next.Aliases[key] = &a
	}
}

// policyDocument is the policy AWS answers for statements.
func policyDocument(sts []Statement) []byte {
	b := []byte(`{"Version":"2012-10-17","Id":"default","Statement":[`)
	for i, s := range sts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, s.JSON...)
	}
	return append(b, "]}"...)
}

// AddPermission adds a statement to the policy of a function, version or
// alias, and returns the statement.
func (s *Service) AddPermission(sc awswire.Scope, name string, in PermissionInput) (json.RawMessage, error) {
	t, err := resolveName(sc, name, in.Qualifier, kindRead)
	if err != nil {
		return nil, err
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	if t.qualifier == "$LATEST" {
		return nil, Invalid("We currently do not support adding policies for $LATEST.")
	}
	d, _, ok := s.lookup(t)
	if !ok {
		return nil, functionNotFound(t.arn())
	}
	return editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, json.RawMessage], error) {
		var none actors.Edit[Function, json.RawMessage]
		key, resource, revision, err := policyTarget(cur, t.qualifier)
		if err != nil {
			return none, err
		}
		if in.RevisionID != nil && *in.RevisionID != revision {
			return none, awswire.New(awswire.Lambda, codePreconditionFailed,
				"The Revision Id provided does not match the latest Revision Id. Call the GetPolicy API to retrieve the latest Revision Id")
		}
		sts := cur.Policies[key]
		if slices.ContainsFunc(sts, func(st Statement) bool { return st.Sid == in.StatementID }) {
			return none, conflict("The statement id (%s) provided already exists. Please provide a new statement id, or remove the existing statement.", in.StatementID)
		}
		st, err := in.statement(resource)
		if err != nil {
			return none, err
		}
		nextSts := append(slices.Clip(sts), Statement{Sid: in.StatementID, JSON: st})
		if n := len(policyDocument(nextSts)); n > maxPolicy {
			return none, awswire.Errorf(awswire.Lambda, codePolicyLengthExceeded,
				"The final policy size (%d) is bigger than the limit (%d).", n, maxPolicy)
		}
		next := cur.clone()
		next.Policies = maps.Clone(cur.Policies)
		if next.Policies == nil {
			next.Policies = map[string][]Statement{}
		}
		next.Policies[key] = nextSts
		bumpTarget(next, key)
		return actors.Edit[Function, json.RawMessage]{Next: next, Reply: st}, nil
	})
}

// Policy is a resource policy as GetPolicy answers it.
type Policy struct {
	Document   []byte
	RevisionID string
}

// GetPolicy returns the policy of a function, version or alias.
func (s *Service) GetPolicy(sc awswire.Scope, name, qualifier string) (Policy, error) {
	t, err := resolveName(sc, name, qualifier, kindRead)
	if err != nil {
		return Policy{}, err
	}
	gone := notFound("The resource you requested does not exist.")
	_, f, ok := s.lookup(t)
	if !ok {
		return Policy{}, gone
	}
	q := t.qualifier
	if q == "$LATEST" {
		q = ""
	}
	key, _, revision, err := policyTarget(f, q)
	if err != nil {
		return Policy{}, gone
	}
	sts := f.Policies[key]
	if len(sts) == 0 {
		return Policy{}, gone
	}
	return Policy{Document: policyDocument(sts), RevisionID: revision}, nil
}

// RemovePermission removes a statement from a policy.
func (s *Service) RemovePermission(sc awswire.Scope, name, sid, qualifier string, revisionID *string) error {
	t, err := resolveName(sc, name, qualifier, kindRead)
	if err != nil {
		return err
	}
	if n := len(sid); n == 0 || n > 100 || !namespacedSidPattern.MatchString(sid) {
		return Validation(constraint(sid, "statementId", "Member must satisfy regular expression pattern: ([a-zA-Z0-9-_.]+)"))
	}
	d, _, ok := s.lookup(t)
	if !ok {
		return notFound("No policy found for: %s", t.arn())
	}
	_, err = actors.EditRecord(s.records(), functionKey(t), d.functions, t.name,
		func() error { return notFound("No policy found for: %s", t.arn()) },
		func(cur *Function) (actors.Edit[Function, struct{}], error) {
			var none actors.Edit[Function, struct{}]
			q := t.qualifier
			if q == "$LATEST" {
				q = ""
			}
			key, _, revision, err := policyTarget(cur, q)
			if err != nil {
				return none, err
			}
			sts := cur.Policies[key]
			if len(sts) == 0 {
				return none, notFound("No policy is associated with the given resource.")
			}
			i := slices.IndexFunc(sts, func(st Statement) bool { return st.Sid == sid })
			if i < 0 {
				return none, notFound("Statement %s is not found in resource policy.", sid)
			}
			if revisionID != nil && *revisionID != revision {
				return none, precondition()
			}
			next := cur.clone()
			next.Policies = maps.Clone(cur.Policies)
			if rest := slices.Delete(slices.Clone(sts), i, i+1); len(rest) > 0 {
				next.Policies[key] = rest
			} else {
				delete(next.Policies, key)
			}
			bumpTarget(next, key)
			return actors.Edit[Function, struct{}]{Next: next}, nil
		})
	return err
}
