package lambda

import (
	"maps"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

var aliasVersionPattern = regexp.MustCompile(`^(\$LATEST(\.PUBLISHED)?|[0-9]+)$`)

// AliasInput is a CreateAlias or UpdateAlias request; nil members were
// absent (an update keeps them).
type AliasInput struct {
	FunctionVersion *string
	Description     *string
	// Weights is the routing configuration's AdditionalVersionWeights;
	// non-nil when a RoutingConfig was given (empty clears it).
	Weights    *map[string]float64
	RevisionID *string
}

// AliasShown is an alias with its ARN.
type AliasShown struct {
	*Alias
	ARN string
}

func aliasARN(f *Function, name string) string { return f.ARN + ":" + name }

func checkAliasName(name string) error {
	if n := utf8.RuneCountInString(name); n == 0 || n > 128 {
		return Validation(constraint(name, "name", "Member must have length less than or equal to 128"))
	}
	if !isAlias(name) {
		return Validation(constraint(name, "name", "Member must satisfy regular expression pattern: "+aliasText))
	}
	return nil
}

func checkAliasVersion(v string) error {
	if !aliasVersionPattern.MatchString(v) || len(v) > 1024 {
		return Validation(constraint(v, "functionVersion", `Member must satisfy regular expression pattern: (\$LATEST(\.PUBLISHED)?|[0-9]+)`))
	}
	return nil
}

func weightText(k string, w float64) string {
	return "{" + k + "=" + string(awswire.AppendJavaDouble(nil, w)) + "}"
}

// checkRouting checks an alias's routing weights against f, for an alias
// pointing at version target.
func checkRouting(f *Function, target string, weights map[string]float64) error {
	if len(weights) > 1 {
		return Invalid("Number of items in AdditionalVersionWeights cannot be greater than 1")
	}
	for k, w := range weights {
		if w < 0 || w > 1 {
			return Validation(constraint(weightText(k, w), "routingConfig.additionalVersionWeights",
				"Map value must satisfy constraint: [Member must have value less than or equal to 1.0, Member must have value greater than or equal to 0.0, Member must not be null]"))
		}
		if k == target {
			return Invalid("Invalid function version %s. Function version %s is already included in routing configuration.", target, target)
		}
		if target == "$LATEST" {
			return Invalid("$LATEST is not supported for an alias pointing to more than 1 version")
		}
		if !isVersion(k) || len(k) > 1024 {
			return Validation(constraint(weightText(k, w), "routingConfig.additionalVersionWeights",
				"Map keys must satisfy constraint: [Member must have length less than or equal to 1024, Member must have length greater than or equal to 1, Member must satisfy regular expression pattern: [0-9]+]"))
		}
		if _, ok := f.version(k); !ok {
			return functionNotFound(f.ARN + ":" + k)
		}
	}
	return nil
}

// targetExists reports whether version v ($LATEST or a number) exists in f.
func targetExists(f *Function, v string) bool {
	if v == "$LATEST" {
		return true
	}
	_, ok := f.version(v)
	return ok
}

// check checks the members an alias request gave (CreateAlias requires
// the version first).
func (in AliasInput) check() error {
	if in.FunctionVersion != nil {
		if err := checkAliasVersion(*in.FunctionVersion); err != nil {
			return err
		}
	}
	return checkDescription(in.Description)
}

// withAlias returns a copy of f holding a, in place of any alias of its
// name.
func (f *Function) withAlias(a *Alias) *Function {
	next := f.clone()
	next.Aliases = maps.Clone(f.Aliases)
	if next.Aliases == nil {
		next.Aliases = map[string]*Alias{}
	}
	next.Aliases[a.Name] = a
	return next
}

// CreateAlias creates an alias of a function.
func (s *Service) CreateAlias(sc awswire.Scope, fn, name string, in AliasInput) (AliasShown, error) {
	if err := checkAliasName(name); err != nil {
		return AliasShown{}, err
	}
	if in.FunctionVersion == nil {
		return AliasShown{}, Missing("functionVersion")
	}
	if err := in.check(); err != nil {
		return AliasShown{}, err
	}
	t, d, _, err := s.resolveFunction(sc, fn, kindWrite)
	if err != nil {
		return AliasShown{}, err
	}
	return editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, AliasShown], error) {
		var none actors.Edit[Function, AliasShown]
		if !targetExists(cur, *in.FunctionVersion) {
			return none, functionNotFound(cur.ARN + ":" + *in.FunctionVersion)
		}
		if _, ok := cur.Aliases[name]; ok {
			return none, conflict("Alias already exists: %s", aliasARN(cur, name))
		}
		a := &Alias{Name: name, FunctionVersion: *in.FunctionVersion, RevisionID: awswire.UUID()}
		if in.Description != nil {
			a.Description = *in.Description
		}
		if in.Weights != nil && len(*in.Weights) > 0 {
			if err := checkRouting(cur, a.FunctionVersion, *in.Weights); err != nil {
				return none, err
			}
			a.Weights = maps.Clone(*in.Weights)
		}
		next := cur.withAlias(a)
		return actors.Edit[Function, AliasShown]{Next: next, Reply: AliasShown{Alias: a, ARN: aliasARN(next, name)}}, nil
	})
}

// GetAlias returns an alias.
func (s *Service) GetAlias(sc awswire.Scope, fn, name string) (AliasShown, error) {
	if err := checkAliasName(name); err != nil {
		return AliasShown{}, err
	}
	t, _, f, err := s.resolveFunction(sc, fn, kindWrite)
	if err != nil {
		return AliasShown{}, err
	}
	a, ok := f.Aliases[name]
	if !ok {
		return AliasShown{}, notFound("Cannot find alias arn: %s", t.arn()+":"+name)
	}
	return AliasShown{Alias: a, ARN: aliasARN(f, name)}, nil
}

// UpdateAlias changes an alias.
func (s *Service) UpdateAlias(sc awswire.Scope, fn, name string, in AliasInput) (AliasShown, error) {
	if err := checkAliasName(name); err != nil {
		return AliasShown{}, err
	}
	if err := in.check(); err != nil {
		return AliasShown{}, err
	}
	t, d, _, err := s.resolveFunction(sc, fn, kindWrite)
	if err != nil {
		return AliasShown{}, err
	}
	return editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, AliasShown], error) {
		var none actors.Edit[Function, AliasShown]
		old, ok := cur.Aliases[name]
		if !ok {
			return none, notFound("Alias not found: %s", aliasARN(cur, name))
		}
		if in.RevisionID != nil && *in.RevisionID != old.RevisionID {
			return none, precondition()
		}
		a := *old
		a.RevisionID = awswire.UUID()
		if in.FunctionVersion != nil {
			if !targetExists(cur, *in.FunctionVersion) {
				return none, functionNotFound(cur.ARN + ":" + *in.FunctionVersion)
			}
			a.FunctionVersion = *in.FunctionVersion
		}
		if in.Description != nil {
			a.Description = *in.Description
		}
		if in.Weights != nil {
			a.Weights = nil
			if len(*in.Weights) > 0 {
				a.Weights = maps.Clone(*in.Weights)
			}
		}
		if len(a.Weights) > 0 {
			if err := checkRouting(cur, a.FunctionVersion, a.Weights); err != nil {
				return none, err
			}
		}
		next := cur.withAlias(&a)
		return actors.Edit[Function, AliasShown]{Next: next, Reply: AliasShown{Alias: &a, ARN: aliasARN(next, name)}}, nil
	})
}

// DeleteAlias deletes an alias and its policy; an alias that does not
// exist is not an error, as with Lambda.
func (s *Service) DeleteAlias(sc awswire.Scope, fn, name string) error {
	if err := checkAliasName(name); err != nil {
		return err
	}
	t, d, _, err := s.resolveFunction(sc, fn, kindWrite)
	if err != nil {
		return err
	}
	_, err = editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, struct{}], error) {
		if _, ok := cur.Aliases[name]; !ok {
			return actors.Edit[Function, struct{}]{}, nil
		}
		next := cur.clone()
		next.Aliases = maps.Clone(cur.Aliases)
		delete(next.Aliases, name)
		if _, ok := cur.Policies[name]; ok {
			next.Policies = maps.Clone(cur.Policies)
			delete(next.Policies, name)
		}
		return actors.Edit[Function, struct{}]{Next: next}, nil
	})
	return err
}

// AliasPage is one page of ListAliases.
type AliasPage struct {
	Items []AliasShown
	Next  string
}

// ListAliases lists a function's aliases in name order, only those of
// version when it is not empty, up to n after the marker.
func (s *Service) ListAliases(sc awswire.Scope, fn, version, marker string, n int) (AliasPage, error) {
	if version != "" {
		if err := checkAliasVersion(version); err != nil {
			return AliasPage{}, err
		}
	}
	_, _, f, err := s.resolveFunction(sc, fn, kindWrite)
	if err != nil {
		return AliasPage{}, err
	}
	after := ""
	if marker != "" {
		k, ok := awswire.DecodeToken(marker)
		if !ok {
			return AliasPage{}, Invalid("Invalid marker: %s", marker)
		}
		after = k
	}
	var out AliasPage
	for _, name := range slices.Sorted(maps.Keys(f.Aliases)) {
		a := f.Aliases[name]
		if (after != "" && name <= after) || (version != "" && a.FunctionVersion != version) {
			continue
		}
		if len(out.Items) == n {
			out.Next = awswire.EncodeToken(out.Items[n-1].Name)
			break
		}
		out.Items = append(out.Items, AliasShown{Alias: a, ARN: aliasARN(f, name)})
	}
	return out, nil
}
