package lambda

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Shown is one version of a function as an answer shows it: the function,
// the configuration, and the FunctionArn to print (unqualified, or
// qualified as the request named it).
type Shown struct {
	Function *Function
	Config   *Config
	ARN      string
}

// CreateInput is a CreateFunction request; nil members were absent.
type CreateInput struct {
	FunctionName string
	ConfigInput
	Code                 CodeInput
	PackageType          *string
	Architectures        []string
	Publish              bool
	Tags                 map[string]string
	CodeSigningConfigArn *string
}

// lookup returns the scope's directories and the published function.
func (s *Service) lookup(t target) (*dirs, *Function, bool) {
	d, ok := s.scopes.Lookup(t.scope)
	if !ok {
		return nil, nil, false
	}
	f, ok := d.functions.Get(t.name)
	return d, f, ok
}

// resolveFunction resolves an unqualified FunctionName of the given kind
// to its target, the scope's directories and the published function; a
// function that does not exist is not found by its unqualified ARN.
func (s *Service) resolveFunction(sc awswire.Scope, name string, kind nameKind) (target, *dirs, *Function, error) {
	t, err := resolveName(sc, name, "", kind)
	if err != nil {
		return target{}, nil, nil, err
	}
	d, f, ok := s.lookup(t)
	if !ok {
		return target{}, nil, nil, functionNotFound(t.arn())
	}
	return t, d, f, nil
}

func (s *Service) functionGone(t target) func() error {
	return func() error { return functionNotFound(t.arn()) }
}

func functionKey(t target) string { return recordKey(t.scope, kindFunction, t.name) }

// editFunction runs edit in the owner of t's function (in d) and persists
// the Next it returns; a function deleted meanwhile is not found.
func editFunction[R any](s *Service, t target, d *dirs, edit func(cur *Function) (actors.Edit[Function, R], error)) (R, error) {
	return actors.EditRecord(s.records(), functionKey(t), d.functions, t.name, s.functionGone(t), edit)
}

// evict stops the execution environments arnPrefix names (see
// Runtime.Evict), when there is a runtime to run them.
func (s *Service) evict(arnPrefix string) {
	if s.runtime != nil {
		s.runtime.Evict(arnPrefix)
	}
}

// CreateFunction creates a function and its $LATEST (and version 1 with
// Publish) in one write, its code package first.
func (s *Service) CreateFunction(sc awswire.Scope, in CreateInput) (Shown, error) {
	t, err := resolveName(sc, in.FunctionName, "", kindCreate)
	if err != nil {
		return Shown{}, err
	}
	if in.Role == nil {
		return Shown{}, Missing("role")
	}
	if err := checkArchitectures(in.Architectures); err != nil {
		return Shown{}, err
	}
	if err := in.ConfigInput.check(); err != nil {
		return Shown{}, err
	}
	if p := in.PackageType; p != nil {
		if e := enum(*p, "packageType", "Zip", "Image"); e != "" {
			return Shown{}, Validation(e)
		}
		if *p == "Image" {
			return Shown{}, Invalid("Container images (PackageType Image) are not supported by this emulator: create a Zip function.")
		}
	}
	if err := checkTags(in.Tags); err != nil {
		return Shown{}, err
	}
	code, err := readCode(in.Code)
	if err != nil {
		return Shown{}, err
	}
	now := s.now().UnixMilli()
	latest := &Config{
		Version:          "$LATEST",
		Timeout:          defaultTimeout,
		MemorySize:       defaultMemorySize,
		EphemeralStorage: defaultEphemeralStorage,
		TracingMode:      defaultTracingMode,
		Architecture:     defaultArchitecture,
		Logging:          Logging{LogFormat: defaultLogFormat, LogGroup: "/aws/lambda/" + t.name},
		SnapStartApplyOn: "None",
		CodeSHA256:       code.SHA256,
		CodeHash:         code.Hash,
		CodeSize:         code.Size,
		LastModified:     now,
		RevisionID:       awswire.UUID(),
		Change:           1,
	}
	in.ConfigInput.apply(latest)
	if len(in.Architectures) == 1 {
		latest.Architecture = in.Architectures[0]
	}
	if err := checkApplied(latest); err != nil {
		return Shown{}, err
	}
	f := &Function{FunctionRecord: FunctionRecord{
		Seq:     s.seq.Next(),
		Name:    t.name,
		ARN:     t.arn(),
		Latest:  latest,
		Changes: 1,
		Tags:    maps.Clone(in.Tags),
	}}
	if in.CodeSigningConfigArn != nil {
		f.CodeSigningConfigArn = *in.CodeSigningConfigArn
	}
	shown := latest
	if in.Publish {
		v := publishedFrom(latest, 1, "", now)
		f.Versions, f.LastVersion = []*Config{v}, 1
		shown = v
	}
	d := s.scopes.Get(t.scope)
	if err := s.acquireCode(t.scope, d, code, t.name); err != nil {
		return Shown{}, err
	}
	defer s.settleCode(t.scope, d, code.Hash, t.name)
	created, err := actors.Create(s.records(), actors.NewRecord[Function]{
		Kind: "lambda." + kindFunction, Key: functionKey(t), Dir: d.functions, ID: t.name,
		Taken: func() error { return conflict("Function already exist: %s", t.name) },
		Build: func() (*Function, error) { return f, nil },
	})
	if err != nil {
		return Shown{}, err
	}
	return Shown{Function: created, Config: shown, ARN: created.ARN}, nil
}

// publishedFrom is version n published from latest now.
func publishedFrom(latest *Config, n int, description string, now int64) *Config {
	v := latest.clone()
	v.Version = strconv.Itoa(n)
	v.RevisionID = awswire.UUID()
	v.LastModified = now
	if description != "" {
		v.Description = description
	}
	return v
}

// resolveQualifier returns the configuration a qualifier names in f, and
// the alias name when it names one; ok is false when it names none.
func resolveQualifier(f *Function, q string) (cfg *Config, alias string, ok bool) {
	switch {
	case q == "" || q == "$LATEST":
		return f.Latest, "", true
	case isVersion(q):
		c, ok := f.version(q)
		return c, "", ok
	case isAlias(q):
		a, ok := f.Aliases[q]
		if !ok {
			return nil, "", false
		}
		if a.FunctionVersion == "$LATEST" {
			return f.Latest, q, true
		}
		c, ok := f.version(a.FunctionVersion)
		return c, q, ok
	}
	return nil, "", false
}

// GetFunction returns the version name and qualifier name, with the ARN
// printed as the request qualified it.
func (s *Service) GetFunction(sc awswire.Scope, name, qualifier string) (Shown, error) {
	t, err := resolveName(sc, name, qualifier, kindRead)
	if err != nil {
		return Shown{}, err
	}
	_, f, ok := s.lookup(t)
	if !ok {
		return Shown{}, functionNotFound(t.qualifiedARN())
	}
	cfg, _, ok := resolveQualifier(f, t.qualifier)
	if !ok {
		return Shown{}, functionNotFound(t.qualifiedARN())
	}
	return Shown{Function: f, Config: cfg, ARN: t.qualifiedARN()}, nil
}

// FunctionPage is one page of ListFunctions or ListVersionsByFunction.
type FunctionPage struct {
	Items []Shown
	// Next is the marker of the next page ("" on the last).
	Next string
}

// ListFunctions lists the scope's functions in name order ($LATEST with
// unqualified ARNs), or with all every version of each (qualified ARNs),
// up to n after the marker.
func (s *Service) ListFunctions(sc awswire.Scope, all bool, marker string, n int) (FunctionPage, error) {
	from, skip := "", 0
	if marker != "" {
		key, ok := awswire.DecodeToken(marker)
		if !ok {
			return FunctionPage{}, Invalid("Invalid marker: %s", marker)
		}
		i := strings.LastIndexByte(key, 0)
		if i < 0 {
			return FunctionPage{}, Invalid("Invalid marker: %s", marker)
		}
		from = key[:i]
		skip, _ = strconv.Atoi(key[i+1:])
	}
	var out FunctionPage
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return out, nil
	}
	for _, f := range d.functions.Ordered(from) {
		versions := []*Config{f.Latest}
		if all {
			versions = append(versions, f.Versions...)
		}
		start := 0
		if f.Name == from {
			start = skip
		}
		for i := start; i < len(versions); i++ {
			if len(out.Items) == n {
				out.Next = awswire.EncodeToken(f.Name + "\x00" + strconv.Itoa(i))
				return out, nil
			}
			arn := f.ARN
			if all {
				arn += ":" + versions[i].Version
			}
			out.Items = append(out.Items, Shown{Function: f, Config: versions[i], ARN: arn})
		}
	}
	return out, nil
}

// ListVersions lists $LATEST and the published versions of a function
// (qualified ARNs), up to n after the marker.
func (s *Service) ListVersions(sc awswire.Scope, name, marker string, n int) (FunctionPage, error) {
	_, _, f, err := s.resolveFunction(sc, name, kindRead)
	if err != nil {
		return FunctionPage{}, err
	}
	skip := 0
	if marker != "" {
		key, ok := awswire.DecodeToken(marker)
		i, err := strconv.Atoi(key)
		if !ok || err != nil || i < 0 {
			return FunctionPage{}, Invalid("Invalid marker: %s", marker)
		}
		skip = i
	}
	versions := append([]*Config{f.Latest}, f.Versions...)
	var out FunctionPage
	for i := skip; i < len(versions); i++ {
		if len(out.Items) == n {
			out.Next = awswire.EncodeToken(strconv.Itoa(i))
			break
		}
		out.Items = append(out.Items, versionShown(f, versions[i]))
	}
	return out, nil
}

// DeleteFunction deletes a function with everything it owns, or, with a
// version qualifier, that version only (a version no alias points at).
func (s *Service) DeleteFunction(sc awswire.Scope, name, qualifier string) error {
	t, err := resolveName(sc, name, qualifier, kindDelete)
	if err != nil {
		return err
	}
	if t.qualifier != "" && isAlias(t.qualifier) {
		return Invalid("Deletion of aliases is not currently supported.")
	}
	if t.qualifier == "$LATEST" {
		return Invalid("$LATEST version cannot be deleted without deleting the function.")
	}
	d, _, ok := s.lookup(t)
	if !ok {
		return functionNotFound(t.arn())
	}
	if t.qualifier != "" {
		return s.deleteVersion(t, d)
	}
	last, err := actors.DeleteRecord(s.records(), functionKey(t), d.functions, t.name, s.functionGone(t))
	if err != nil {
		return err
	}
	for _, h := range last.hashes() {
		s.checkCode(t.scope, d, h, t.name, false)
	}
	s.evict(t.arn())
	return nil
}

func (s *Service) deleteVersion(t target, d *dirs) error {
	dropped, err := editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, string], error) {
		v, ok := cur.version(t.qualifier)
		if !ok {
			return actors.Edit[Function, string]{}, nil // nothing to delete: AWS answers 204
		}
		var refs []string
		for _, n := range slices.Sorted(maps.Keys(cur.Aliases)) {
			a := cur.Aliases[n]
			if a.FunctionVersion == v.Version || a.Weights[v.Version] != 0 {
				refs = append(refs, n)
			}
		}
		if len(refs) > 0 {
			return actors.Edit[Function, string]{}, conflict(
				"Unable to delete version because the following aliases reference it: [%s]", strings.Join(refs, ", "))
		}
		next := cur.clone()
		next.Versions = slices.DeleteFunc(slices.Clone(cur.Versions), func(c *Config) bool { return c == v })
		if _, has := cur.Policies[v.Version]; has {
			next.Policies = maps.Clone(cur.Policies)
			delete(next.Policies, v.Version)
		}
		return actors.Edit[Function, string]{Next: next, Reply: v.CodeHash}, nil
	})
	if err != nil || dropped == "" {
		return err
	}
	s.checkCode(t.scope, d, dropped, t.name, false)
	s.evict(t.arn() + ":" + t.qualifier)
	return nil
}

// UpdateCodeInput is an UpdateFunctionCode request.
type UpdateCodeInput struct {
	Code          CodeInput
	Architectures []string
	Publish       bool
	DryRun        bool
	RevisionID    *string
}

// UpdateFunctionCode replaces $LATEST's code (and publishes a version with
// Publish).
func (s *Service) UpdateFunctionCode(sc awswire.Scope, name string, in UpdateCodeInput) (Shown, error) {
	t, err := resolveName(sc, name, "", kindWrite)
	if err != nil {
		return Shown{}, err
	}
	if err := checkArchitectures(in.Architectures); err != nil {
		return Shown{}, err
	}
	code, err := readCode(in.Code)
	if err != nil {
		return Shown{}, err
	}
	d, f, ok := s.lookup(t)
	if !ok {
		return Shown{}, functionNotFound(t.arn())
	}
	change := func(cur *Function) (*Function, *Config, error) {
		if in.RevisionID != nil && *in.RevisionID != cur.Latest.RevisionID {
			return nil, nil, precondition()
		}
		next := cur.clone()
		l := cur.Latest.clone()
		l.CodeSHA256, l.CodeHash, l.CodeSize = code.SHA256, code.Hash, code.Size
		if len(in.Architectures) == 1 {
			l.Architecture = in.Architectures[0]
		}
		s.touch(next, l)
		shown := l
		if in.Publish {
			shown = publish(next, "", s.now().UnixMilli())
		}
		return next, shown, nil
	}
	if in.DryRun {
		_, shown, err := change(f)
		if err != nil {
			return Shown{}, err
		}
		return Shown{Function: f, Config: shown, ARN: f.ARN}, nil
	}
	if err := s.acquireCode(t.scope, d, code, t.name); err != nil {
		return Shown{}, err
	}
	defer s.settleCode(t.scope, d, code.Hash, t.name)
	type result struct {
		shown *Config
		f     *Function
		old   string
	}
	r, err := editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, result], error) {
		next, shown, err := change(cur)
		if err != nil {
			return actors.Edit[Function, result]{}, err
		}
		return actors.Edit[Function, result]{Next: next, Reply: result{shown, next, cur.Latest.CodeHash}}, nil
	})
	if err != nil {
		return Shown{}, err
	}
	if r.old != code.Hash {
		s.checkCode(t.scope, d, r.old, t.name, false)
	}
	s.evict(t.arn() + ":$LATEST")
	return Shown{Function: r.f, Config: r.shown, ARN: r.f.ARN}, nil
}

// touch makes l next's new $LATEST: a new change, revision and time.
func (s *Service) touch(next *Function, l *Config) {
	next.Changes++
	l.Change = next.Changes
	l.RevisionID = awswire.UUID()
	l.LastModified = s.now().UnixMilli()
	next.Latest = l
}

// bump gives next's $LATEST a new revision id (a change that is not one of
// code or configuration: tags, policies, published versions).
func bump(next *Function) {
	l := next.Latest.clone()
	l.RevisionID = awswire.UUID()
	next.Latest = l
}

// UpdateFunctionConfiguration changes $LATEST's configuration.
func (s *Service) UpdateFunctionConfiguration(sc awswire.Scope, name string, in ConfigInput) (Shown, error) {
	t, err := resolveName(sc, name, "", kindWrite)
	if err != nil {
		return Shown{}, err
	}
	if err := in.check(); err != nil {
		return Shown{}, err
	}
	d, _, ok := s.lookup(t)
	if !ok {
		return Shown{}, functionNotFound(t.arn())
	}
	next, err := editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, *Function], error) {
		if in.RevisionID != nil && *in.RevisionID != cur.Latest.RevisionID {
			return actors.Edit[Function, *Function]{}, precondition()
		}
		next := cur.clone()
		l := cur.Latest.clone()
		in.apply(l)
		if err := checkApplied(l); err != nil {
			return actors.Edit[Function, *Function]{}, err
		}
		s.touch(next, l)
		return actors.Edit[Function, *Function]{Next: next, Reply: next}, nil
	})
	if err != nil {
		return Shown{}, err
	}
	s.evict(t.arn() + ":$LATEST")
	return Shown{Function: next, Config: next.Latest, ARN: next.ARN}, nil
}
