package backup

import (
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Tags live on the record of the resource they name (docs/backup.md): the tag
// operations find that record's owner from the ARN and change it there.

// tagged is one kind of taggable record: its directory, store kind, how to
// read its tags and how to make a copy with other tags.
type tagged[S any] struct {
	dir    *actors.Directory[S]
	kind   string
	arn    func(*S) string
	tags   func(*S) map[string]string
	with   func(*S, map[string]string) *S
	limits awswire.TagLimits
}

func vaultsTagged(d *dirs) tagged[Vault] {
	return tagged[Vault]{dir: d.vaults, kind: kindVault, limits: resourceTags,
		arn: func(v *Vault) string { return v.ARN }, tags: func(v *Vault) map[string]string { return v.Tags },
		with: func(v *Vault, t map[string]string) *Vault {
			next := &Vault{VaultRecord: v.VaultRecord, Memo: new(actors.Memo)}
			next.Tags = t
			return next
		}}
}

func plansTagged(d *dirs) tagged[Plan] {
	return tagged[Plan]{dir: d.plans, kind: kindPlan, limits: resourceTags,
		arn: func(p *Plan) string { return p.ARN }, tags: func(p *Plan) map[string]string { return p.Tags },
		with: func(p *Plan, t map[string]string) *Plan {
			next := &Plan{PlanRecord: p.PlanRecord, Memo: new(actors.Memo)}
			next.Tags = t
			return next
		}}
}

func pointsTagged(d *dirs) tagged[AccessPoint] {
	return tagged[AccessPoint]{dir: d.points, kind: kindAccessPoint, limits: accessPointTags,
		arn: func(a *AccessPoint) string { return a.ARN }, tags: func(a *AccessPoint) map[string]string { return a.Tags },
		with: func(a *AccessPoint, t map[string]string) *AccessPoint {
			next := &AccessPoint{AccessPointRecord: a.AccessPointRecord, Memo: new(actors.Memo)}
			next.Tags = t
			return next
		}}
}

// target is what a tag operation's ARN names.
type target struct {
	scope awswire.Scope
	d     *dirs
	kind  string // kindVault, kindPlan, kindAccessPoint
	id    string
	arn   string
}

func resourceGone(arn string) *awswire.Error {
	return notFound("Resource %s not found.", arn).With("Context", arn)
}

// resolve finds what an ARN names.
func (s *Service) resolve(arn string) (target, error) {
	a, ok := awswire.ParseARN(arn)
	if !ok {
		return target{}, Invalid("Invalid ARN: %s", arn).With("Context", arn)
	}
	if a.Service != "backup" {
		return target{}, resourceGone(arn)
	}
	sc := awswire.Scope{Account: a.Account, Region: a.Region}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return target{}, resourceGone(arn)
	}
	t := target{scope: sc, d: d, arn: arn}
	switch {
	case strings.HasPrefix(a.Resource, "backup-vault:"):
		t.kind, t.id = kindVault, strings.TrimPrefix(a.Resource, "backup-vault:")
	case strings.HasPrefix(a.Resource, "backup-plan:"):
		t.kind, t.id = kindPlan, strings.TrimPrefix(a.Resource, "backup-plan:")
	case strings.HasPrefix(a.Resource, "accesspoint/"):
		t.kind, t.id = kindAccessPoint, strings.TrimPrefix(a.Resource, "accesspoint/")
	default:
		return target{}, resourceGone(arn)
	}
	return t, nil
}

// Tags returns the tags of the resource arn names.
func (s *Service) Tags(arn string) (map[string]string, error) {
	t, err := s.resolve(arn)
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case kindVault:
		return readTags(vaultsTagged(t.d), t)
	case kindPlan:
		return readTags(plansTagged(t.d), t)
	}
	return readTags(pointsTagged(t.d), t)
}

func readTags[S any](k tagged[S], t target) (map[string]string, error) {
	st, ok := k.dir.Get(t.id)
	if !ok || k.arn(st) != t.arn {
		return nil, resourceGone(t.arn)
	}
	return k.tags(st), nil
}

// Tag merges tags onto the resource arn names; the merged set must stay
// within the resource's tag limits.
func (s *Service) Tag(arn string, tags map[string]string) error {
	t, err := s.resolve(arn)
	if err != nil {
		return err
	}
	merge := func(l awswire.TagLimits) func(map[string]string) (map[string]string, error) {
		return func(cur map[string]string) (map[string]string, error) {
			next, ok := l.MergeTags(cur, tags)
			if !ok {
				return nil, tooManyTags(l)
			}
			return next, nil
		}
	}
	switch t.kind {
	case kindVault:
		k := vaultsTagged(t.d)
		if err := checkTags("Tags", tags, k.limits); err != nil {
			return err
		}
		return retag(s, k, t, merge(k.limits))
	case kindPlan:
		k := plansTagged(t.d)
		if err := checkTags("Tags", tags, k.limits); err != nil {
			return err
		}
		return retag(s, k, t, merge(k.limits))
	}
	k := pointsTagged(t.d)
	if err := checkTags("Tags", tags, k.limits); err != nil {
		return err
	}
	return retag(s, k, t, merge(k.limits))
}

// Untag removes keys from the resource arn names.
func (s *Service) Untag(arn string, keys []string) error {
	t, err := s.resolve(arn)
	if err != nil {
		return err
	}
	remove := func(cur map[string]string) (map[string]string, error) { return awswire.RemoveTags(cur, keys), nil }
	switch t.kind {
	case kindVault:
		return retag(s, vaultsTagged(t.d), t, remove)
	case kindPlan:
		return retag(s, plansTagged(t.d), t, remove)
	}
	return retag(s, pointsTagged(t.d), t, remove)
}

// retag changes the tags of t inside its owner.
func retag[S any](s *Service, k tagged[S], t target, change func(map[string]string) (map[string]string, error)) error {
	gone := func() error { return resourceGone(t.arn) }
	if st, ok := k.dir.Get(t.id); !ok || k.arn(st) != t.arn {
		return gone()
	}
	_, err := actors.MutateRecord(s.records(), recordKey(t.scope, k.kind, t.id), k.dir, t.id, gone,
		func(cur *S) (*S, struct{}, error) {
			next, err := change(k.tags(cur))
			if err != nil {
				return nil, struct{}{}, err
			}
			return k.with(cur, next), struct{}{}, nil
		})
	return err
}
