package lambda

import (
	"slices"
	"strconv"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// publish publishes next's $LATEST as a new version, unless $LATEST has
// not changed since the last version, which it returns instead (as Lambda
// does). It changes next, a copy the caller owns.
func publish(next *Function, description string, now int64) *Config {
	if n := len(next.Versions); n > 0 {
		last := next.Versions[n-1]
		if last.Change == next.Latest.Change && last.Version == strconv.Itoa(next.LastVersion) {
			return last
		}
	}
	next.LastVersion++
	v := publishedFrom(next.Latest, next.LastVersion, description, now)
	next.Versions = append(slices.Clip(next.Versions), v)
	bump(next)
	return v
}

// PublishVersionInput is a PublishVersion request.
type PublishVersionInput struct {
	CodeSHA256  *string
	Description *string
	RevisionID  *string
}

// PublishVersion publishes $LATEST as a new version.
func (s *Service) PublishVersion(sc awswire.Scope, name string, in PublishVersionInput) (Shown, error) {
	t, err := resolveName(sc, name, "", kindWrite)
	if err != nil {
		return Shown{}, err
	}
	if err := checkDescription(in.Description); err != nil {
		return Shown{}, err
	}
	d, _, ok := s.lookup(t)
	if !ok {
		return Shown{}, functionNotFound(t.arn())
	}
	return editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, Shown], error) {
		if in.RevisionID != nil && *in.RevisionID != cur.Latest.RevisionID {
			return actors.Edit[Function, Shown]{}, precondition()
		}
		if in.CodeSHA256 != nil && *in.CodeSHA256 != cur.Latest.CodeSHA256 {
			return actors.Edit[Function, Shown]{}, Invalid(
				"CodeSHA256 (%s) is different from current CodeSHA256 in $LATEST (%s). Please try again with the CodeSHA256 in $LATEST.",
				*in.CodeSHA256, cur.Latest.CodeSHA256)
		}
		next := cur.clone()
		desc := ""
		if in.Description != nil {
			desc = *in.Description
		}
		v := publish(next, desc, s.now().UnixMilli())
		if next.LastVersion == cur.LastVersion {
			return actors.Edit[Function, Shown]{Reply: versionShown(cur, v)}, nil // nothing new
		}
		return actors.Edit[Function, Shown]{Next: next, Reply: versionShown(next, v)}, nil
	})
}

// versionShown shows version v of f by its qualified ARN.
func versionShown(f *Function, v *Config) Shown {
	return Shown{Function: f, Config: v, ARN: f.ARN + ":" + v.Version}
}
