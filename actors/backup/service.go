package backup

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/store"
)

// storeService is the service segment of this package's store keys.
const storeService = "backup"

// Record kinds, the kind segment of the store keys.
const (
	kindVault       = "vault"
	kindPlan        = "plan"
	kindAccessPoint = "accesspoint"
)

// dirs are the directories of one account and region.
type dirs struct {
	vaults *actors.Directory[Vault]
	plans  *actors.Directory[Plan]
	// planNames holds the same entries as plans, by plan name, because AWS
	// refuses a second plan with a name in use.
	planNames *actors.Directory[Plan]
	points    *actors.Directory[AccessPoint]
}

func newDirs() *dirs {
	return &dirs{
		vaults:    actors.NewDirectory[Vault](),
		plans:     actors.NewDirectory[Plan](),
		planNames: actors.NewDirectory[Plan](),
		points:    actors.NewDirectory[AccessPoint](),
	}
}

// Service is the Backup facade: reads come from published snapshots, writes
// go to the owning actor.
type Service struct {
	sys    *actors.System
	store  store.Store
	now    func() time.Time
	log    *slog.Logger
	seq    atomic.Uint64 // creation order, for listings
	scopes *actors.Scopes[dirs]
}

// New returns an empty service. Call Restore before serving to load what the
// store holds.
func New(sys *actors.System, st store.Store, now func() time.Time, log *slog.Logger) *Service {
	return &Service{
		sys:    sys,
		store:  st,
		now:    now,
		log:    log.With("component", "backup"),
		scopes: actors.NewScopes(newDirs),
	}
}

func notFound(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.Backup, awswire.CodeResourceNotFound, format, args...)
}

// VaultNotFound is the error for a vault that does not exist.
func VaultNotFound(name string) *awswire.Error {
	return notFound("Backup vault %s does not exist.", name).With("Context", name)
}

// PlanNotFound is the error for a plan that does not exist.
func PlanNotFound(id string) *awswire.Error {
	return notFound("Backup plan %s does not exist.", id).With("Context", id)
}

// AccessPointNotFound is the error for an access point that does not exist.
func AccessPointNotFound(arn string) *awswire.Error {
	return notFound("Backup access point %s does not exist.", arn).With("Context", arn)
}

// ask sends cmd to an owner and maps the actor errors: an owner gone is the
// resource gone, an owner too slow is the service busy.
func ask[R any](s *Service, ref actors.Ref, cmd any, gone func() *awswire.Error) (R, error) {
	r, err := actors.Ask[R](s.sys, ref, cmd)
	switch {
	case err == nil:
		return r, nil
	case errors.Is(err, actors.ErrGone), errors.Is(err, store.ErrStale):
		return r, gone()
	case errors.Is(err, actors.ErrNoAnswer):
		return r, awswire.Unavailable(awswire.Backup)
	}
	return r, err
}

func byVaultSeq(a, b *Vault) int             { return cmp.Compare(a.Seq, b.Seq) }
func byPlanSeq(a, b *Plan) int               { return cmp.Compare(a.Seq, b.Seq) }
func byAccessPointSeq(a, b *AccessPoint) int { return cmp.Compare(a.Seq, b.Seq) }

// ---- vaults ----

// CreateVaultInput is a validated CreateBackupVault request.
type CreateVaultInput struct {
	Name             string
	EncryptionKeyArn string
	CreatorRequestID string
	Tags             map[string]string
}

// CreateVault creates a vault and its tags in one write.
func (s *Service) CreateVault(sc awswire.Scope, in CreateVaultInput) (*Vault, error) {
	d := s.scopes.Get(sc)
	rec := VaultRecord{
		Seq:              s.seq.Add(1),
		Name:             in.Name,
		ARN:              awswire.BackupVaultARN(sc.Region, sc.Account, in.Name),
		Created:          s.now().UnixMilli(),
		EncryptionKeyArn: in.EncryptionKeyArn,
		CreatorRequestID: in.CreatorRequestID,
		Tags:             cloneTags(in.Tags),
	}
	return create(s, s.vaultOwner(sc, d), rec, func() *awswire.Error { return VaultNotFound(in.Name) })
}

// Vault returns the published vault called name.
func (s *Service) Vault(sc awswire.Scope, name string) (*Vault, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.vaults.Get(name)
}

// Vaults returns every vault of the scope in creation order.
func (s *Service) Vaults(sc awswire.Scope) []*Vault {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.vaults.Snapshots(byVaultSeq)
}

// DeleteVault deletes a vault and its tags.
func (s *Service) DeleteVault(sc awswire.Scope, name string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return VaultNotFound(name)
	}
	e, _, ok := d.vaults.Entry(name)
	if !ok {
		return VaultNotFound(name)
	}
	_, err := ask[*Vault](s, e.Ref(), deleteCmd{}, func() *awswire.Error { return VaultNotFound(name) })
	return err
}

// ---- plans ----

// CreatePlanInput is a validated CreateBackupPlan request.
type CreatePlanInput struct {
	Document         PlanDocument
	CreatorRequestID string
	Tags             map[string]string
}

// CreatePlan creates a plan at its first version, with its tags.
func (s *Service) CreatePlan(sc awswire.Scope, in CreatePlanInput) (*Plan, error) {
	d := s.scopes.Get(sc)
	id := awswire.UUID()
	rec := PlanRecord{
		Seq:              s.seq.Add(1),
		ID:               id,
		ARN:              awswire.BackupPlanARN(sc.Region, sc.Account, id),
		VersionID:        awswire.VersionID(),
		Document:         withRuleIDs(in.Document, nil),
		Created:          s.now().UnixMilli(),
		CreatorRequestID: in.CreatorRequestID,
		Tags:             cloneTags(in.Tags),
	}
	return create(s, s.planOwner(sc, d), rec, func() *awswire.Error { return PlanNotFound(id) })
}

func planNameTaken(d *dirs, name string) *awswire.Error {
	err := awswire.New(awswire.Backup, awswire.CodeAlreadyExists, "Backup plan with the same plan document already exists")
	if p, ok := d.planNames.Get(name); ok {
		err = err.With("Arn", p.ARN)
		if p.CreatorRequestID != "" {
			err = err.With("CreatorRequestId", p.CreatorRequestID)
		}
	}
	return err.With("Context", name)
}

// Plan returns the published plan with id.
func (s *Service) Plan(sc awswire.Scope, id string) (*Plan, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.plans.Get(id)
}

// Plans returns every plan of the scope in creation order.
func (s *Service) Plans(sc awswire.Scope) []*Plan {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.plans.Snapshots(byPlanSeq)
}

// UpdatePlan replaces the plan's document and mints a new version; the
// previous version is not kept.
func (s *Service) UpdatePlan(sc awswire.Scope, id string, doc PlanDocument) (*Plan, error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, PlanNotFound(id)
	}
	e, _, ok := d.plans.Entry(id)
	if !ok {
		return nil, PlanNotFound(id)
	}
	return ask[*Plan](s, e.Ref(), updatePlanCmd{doc: doc, versionID: awswire.VersionID(), at: s.now().UnixMilli()},
		func() *awswire.Error { return PlanNotFound(id) })
}

// DeletePlan deletes the plan and returns it as it was, with the deletion
// time. No tombstone is kept.
func (s *Service) DeletePlan(sc awswire.Scope, id string) (*Plan, time.Time, error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, time.Time{}, PlanNotFound(id)
	}
	e, _, ok := d.plans.Entry(id)
	if !ok {
		return nil, time.Time{}, PlanNotFound(id)
	}
	p, err := ask[*Plan](s, e.Ref(), deleteCmd{}, func() *awswire.Error { return PlanNotFound(id) })
	return p, s.now(), err
}

// ---- access points ----

// CreateAccessPointInput is a validated CreateBackupAccessPoint request.
type CreateAccessPointInput struct {
	Name             string
	RecoveryPointArn string
	Metadata         map[string]string
	Tags             map[string]string
}

// AccessPointStatus is the status of every access point: no recovery point
// exists to wait for, so creation completes at once.
const AccessPointStatus = "AVAILABLE"

// CreateAccessPoint creates an access point and its tags in one write.
func (s *Service) CreateAccessPoint(sc awswire.Scope, in CreateAccessPointInput) (*AccessPoint, error) {
	d := s.scopes.Get(sc)
	rec := AccessPointRecord{
		Seq:              s.seq.Add(1),
		Name:             in.Name,
		ARN:              awswire.BackupAccessPointARN(sc.Region, sc.Account, in.Name),
		RecoveryPointArn: in.RecoveryPointArn,
		Metadata:         cloneTags(in.Metadata),
		Status:           AccessPointStatus,
		Created:          s.now().UnixMilli(),
		Tags:             cloneTags(in.Tags),
	}
	return create(s, s.accessPointOwner(sc, d), rec, func() *awswire.Error { return AccessPointNotFound(rec.ARN) })
}

// AccessPoint returns the published access point with arn.
func (s *Service) AccessPoint(arn string) (*AccessPoint, bool) {
	sc, name, ok := accessPointScope(arn)
	if !ok {
		return nil, false
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	ap, ok := d.points.Get(name)
	if !ok || ap.ARN != arn {
		return nil, false
	}
	return ap, true
}

// AccessPoints returns every access point of the scope in creation order.
func (s *Service) AccessPoints(sc awswire.Scope) []*AccessPoint {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.points.Snapshots(byAccessPointSeq)
}

// DeleteAccessPoint deletes the access point with arn.
func (s *Service) DeleteAccessPoint(arn string) error {
	sc, name, ok := accessPointScope(arn)
	if !ok {
		return AccessPointNotFound(arn)
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return AccessPointNotFound(arn)
	}
	e, ap, ok := d.points.Entry(name)
	if !ok || ap.ARN != arn {
		return AccessPointNotFound(arn)
	}
	_, err := ask[*AccessPoint](s, e.Ref(), deleteCmd{}, func() *awswire.Error { return AccessPointNotFound(arn) })
	return err
}

// accessPointScope reads the scope and name out of an access point ARN.
func accessPointScope(arn string) (awswire.Scope, string, bool) {
	a, ok := awswire.ParseARN(arn)
	if !ok || a.Service != "backup" {
		return awswire.Scope{}, "", false
	}
	name, ok := strings.CutPrefix(a.Resource, "accesspoint/")
	if !ok || name == "" {
		return awswire.Scope{}, "", false
	}
	return awswire.Scope{Account: a.Account, Region: a.Region}, name, true
}

// ---- tags ----

// tagTarget is the owner a tag operation's ARN names.
type tagTarget struct {
	ref  actors.Ref
	tags map[string]string
}

// resolve finds the vault, plan or access point an ARN names.
func (s *Service) resolve(arn string) (tagTarget, *awswire.Error) {
	gone := notFound("Resource %s not found.", arn).With("Context", arn)
	a, ok := awswire.ParseARN(arn)
	if !ok {
		return tagTarget{}, awswire.Errorf(awswire.Backup, awswire.CodeInvalidParameterValue, "Invalid ARN: %s", arn)
	}
	if a.Service != "backup" {
		return tagTarget{}, gone
	}
	d, ok := s.scopes.Lookup(awswire.Scope{Account: a.Account, Region: a.Region})
	if !ok {
		return tagTarget{}, gone
	}
	switch {
	case strings.HasPrefix(a.Resource, "backup-vault:"):
		if e, v, ok := d.vaults.Entry(strings.TrimPrefix(a.Resource, "backup-vault:")); ok && v.ARN == arn {
			return tagTarget{e.Ref(), v.Tags}, nil
		}
	case strings.HasPrefix(a.Resource, "backup-plan:"):
		if e, p, ok := d.plans.Entry(strings.TrimPrefix(a.Resource, "backup-plan:")); ok && p.ARN == arn {
			return tagTarget{e.Ref(), p.Tags}, nil
		}
	case strings.HasPrefix(a.Resource, "accesspoint/"):
		if e, ap, ok := d.points.Entry(strings.TrimPrefix(a.Resource, "accesspoint/")); ok && ap.ARN == arn {
			return tagTarget{e.Ref(), ap.Tags}, nil
		}
	}
	return tagTarget{}, gone
}

// Tags returns the tags of the resource arn names.
func (s *Service) Tags(arn string) (map[string]string, error) {
	t, err := s.resolve(arn)
	if err != nil {
		return nil, err
	}
	return t.tags, nil
}

// Tag merges tags onto the resource arn names.
func (s *Service) Tag(arn string, tags map[string]string) error {
	t, err := s.resolve(arn)
	if err != nil {
		return err
	}
	_, aerr := ask[struct{}](s, t.ref, tagCmd{set: cloneTags(tags)},
		func() *awswire.Error { return notFound("Resource %s not found.", arn).With("Context", arn) })
	return aerr
}

// Untag removes keys from the resource arn names.
func (s *Service) Untag(arn string, keys []string) error {
	t, err := s.resolve(arn)
	if err != nil {
		return err
	}
	_, aerr := ask[struct{}](s, t.ref, tagCmd{remove: append([]string(nil), keys...)},
		func() *awswire.Error { return notFound("Resource %s not found.", arn).With("Context", arn) })
	return aerr
}

// ---- owners ----

func (s *Service) vaultOwner(sc awswire.Scope, d *dirs) *owner[Vault, VaultRecord] {
	return &owner[Vault, VaultRecord]{
		base: s.newBase(sc), ops: vaultOps,
		reserve: func(e *actors.Entry[Vault], r VaultRecord) *awswire.Error {
			if !d.vaults.Reserve(r.Name, e) {
				return awswire.New(awswire.Backup, awswire.CodeAlreadyExists, "Backup vault with the same name already exists").
					With("Arn", r.ARN).With("Context", r.Name)
			}
			return nil
		},
		release: func(e *actors.Entry[Vault], r VaultRecord) { d.vaults.Release(r.Name, e) },
	}
}

func (s *Service) planOwner(sc awswire.Scope, d *dirs) *owner[Plan, PlanRecord] {
	return &owner[Plan, PlanRecord]{
		base: s.newBase(sc), ops: planOps,
		reserve: func(e *actors.Entry[Plan], r PlanRecord) *awswire.Error {
			if !d.planNames.Reserve(r.Document.BackupPlanName, e) {
				return planNameTaken(d, r.Document.BackupPlanName)
			}
			d.plans.Reserve(r.ID, e) // a fresh UUID: cannot be taken
			return nil
		},
		release: func(e *actors.Entry[Plan], r PlanRecord) {
			d.plans.Release(r.ID, e)
			d.planNames.Release(r.Document.BackupPlanName, e)
		},
		more: updatePlan(d),
	}
}

func (s *Service) accessPointOwner(sc awswire.Scope, d *dirs) *owner[AccessPoint, AccessPointRecord] {
	return &owner[AccessPoint, AccessPointRecord]{
		base: s.newBase(sc), ops: accessPointOps,
		reserve: func(e *actors.Entry[AccessPoint], r AccessPointRecord) *awswire.Error {
			if !d.points.Reserve(r.Name, e) {
				return awswire.New(awswire.Backup, awswire.CodeAlreadyExists, "Backup access point with the same name already exists").
					With("Arn", r.ARN).With("Context", r.Name)
			}
			return nil
		},
		release: func(e *actors.Entry[AccessPoint], r AccessPointRecord) { d.points.Release(r.Name, e) },
	}
}

// start spawns o and gives it its directory entry, not yet reserved.
func start[S, R any](s *Service, o *owner[S, R], rec R) *actors.Entry[S] {
	o.key = store.Key(o.scope.Account, o.scope.Region, storeService, o.ops.kind, o.ops.id(rec))
	e := actors.NewEntry[S](s.sys.Spawn("backup."+o.ops.kind, o))
	o.entry = e
	return e
}

// create starts an owner for rec, reserves rec's ids and asks the owner to
// persist and publish it; on any failure the ids are given back and the
// owner stopped.
func create[S, R any](s *Service, o *owner[S, R], rec R, gone func() *awswire.Error) (*S, error) {
	e := start(s, o, rec)
	if err := o.reserve(e, rec); err != nil {
		s.sys.StopAsync(e.Ref())
		return nil, err
	}
	snap, err := ask[*S](s, e.Ref(), createCmd{rec}, gone)
	if err != nil {
		o.release(e, rec)
		s.sys.StopAsync(e.Ref())
		return nil, err
	}
	return snap, nil
}

// restore re-creates the owner of one persisted record, published at once.
func restore[S, R any](s *Service, o *owner[S, R], value []byte) error {
	var rec R
	if err := json.Unmarshal(value, &rec); err != nil {
		return err
	}
	e := start(s, o, rec)
	e.Publish(o.ops.wrap(rec))
	if err := o.reserve(e, rec); err != nil {
		s.sys.StopAsync(e.Ref())
		return err
	}
	s.bumpSeq(o.ops.seq(rec))
	return nil
}

// ---- restore and reset ----

// Restore re-creates the owner of one persisted record. It is called at
// start, for every key of this service, before serving.
func (s *Service) Restore(key string, value []byte) error {
	account, region, service, kind, _, _, ok := store.ParseKey(key)
	if !ok || service != storeService {
		return fmt.Errorf("backup: restore: foreign key %q", key)
	}
	sc := awswire.Scope{Account: account, Region: region}
	d := s.scopes.Get(sc)
	var err error
	switch kind {
	case kindVault:
		err = restore(s, s.vaultOwner(sc, d), value)
	case kindPlan:
		err = restore(s, s.planOwner(sc, d), value)
	case kindAccessPoint:
		err = restore(s, s.accessPointOwner(sc, d), value)
	default:
		return fmt.Errorf("backup: restore: unknown kind in %q", key)
	}
	if err != nil {
		return fmt.Errorf("backup: restore %s: %w", key, err)
	}
	return nil
}

// StoreService is the service segment of the keys Restore accepts.
func (s *Service) StoreService() string { return storeService }

func (s *Service) bumpSeq(seq uint64) {
	for {
		cur := s.seq.Load()
		if seq <= cur || s.seq.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// Detach forgets every owner and stops them all, waiting until they have
// stopped. The caller wipes the store afterwards.
func (s *Service) Detach() {
	var refs []actors.Ref
	s.scopes.Range(func(_ awswire.Scope, d *dirs) bool {
		refs = append(refs, d.vaults.Drain()...)
		refs = append(refs, d.plans.Drain()...)
		d.planNames.Drain()
		refs = append(refs, d.points.Drain()...)
		return true
	})
	s.sys.Stop(refs)
}

// Counts reports how many resources of each kind exist, per scope.
func (s *Service) Counts() map[awswire.Scope]map[string]int {
	out := map[awswire.Scope]map[string]int{}
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		c := map[string]int{"vaults": d.vaults.Len(), "plans": d.plans.Len(), "accessPoints": d.points.Len()}
		if c["vaults"]+c["plans"]+c["accessPoints"] > 0 {
			out[sc] = c
		}
		return true
	})
	return out
}

func cloneTags(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// withRuleIDs returns doc with a RuleId on every rule: the id a rule of the
// same name had in prev, else a new one.
func withRuleIDs(doc PlanDocument, prev []Rule) PlanDocument {
	old := make(map[string]string, len(prev))
	for _, r := range prev {
		old[r.RuleName] = r.RuleID
	}
	rules := make([]Rule, len(doc.Rules))
	for i, r := range doc.Rules {
		r.RuleID = old[r.RuleName]
		if r.RuleID == "" {
			r.RuleID = awswire.UUID()
		}
		rules[i] = r
	}
	doc.Rules = rules
	return doc
}

// RestoreDone implements the restore protocol; Backup owners are re-created
// record by record, so there is nothing left to do.
func (s *Service) RestoreDone() error { return nil }
