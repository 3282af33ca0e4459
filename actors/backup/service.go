package backup

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/puzpuzpuz/xsync/v3"

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

// dirs are the directories of one account and region. Each lists its
// owners in creation order (actors.SeqKey), the order of the listings.
type dirs struct {
	vaults *actors.Directory[Vault]
	plans  *actors.Directory[Plan]
	points *actors.Directory[AccessPoint]
	// planNames: plan name → plan id, because AWS refuses a second plan
	// with a name in use. A plan's owner claims its name.
	planNames *xsync.MapOf[string, string]
}

func newDirs() *dirs {
	return &dirs{
		vaults:    actors.NewDirectory[Vault](),
		plans:     actors.NewDirectory[Plan](),
		points:    actors.NewDirectory[AccessPoint](),
		planNames: xsync.NewMapOf[string, string](),
	}
}

// Service is the Backup facade: reads come from published snapshots, writes
// run inside the owning actor, through the single-record helpers of
// package actors.
type Service struct {
	sys    *actors.System
	store  store.Store
	now    func() time.Time
	log    *slog.Logger
	seq    actors.Seq // creation order, for listings
	scopes *actors.Scopes[dirs]
}

// New returns an empty service. Call Restore before serving to load what the
// store holds.
func New(sys *actors.System, st store.Store, now func() time.Time, log *slog.Logger) *Service {
	return &Service{sys: sys, store: st, now: now, log: log.With("component", "backup"), scopes: actors.NewScopes(newDirs)}
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

func (s *Service) records() actors.Records {
	return actors.Records{Sys: s.sys, Store: s.store, Busy: func() error { return awswire.Unavailable(awswire.Backup) }}
}

func recordKey(sc awswire.Scope, kind, id string) string {
	return store.Key(sc.Account, sc.Region, storeService, kind, id)
}

// Page is one page of a listing in creation order: the items, and the
// token of the next page ("" on the last).
type Page[S any] struct {
	Items []*S
	Next  string
}

// page reads up to n items of dir after the token's item. Tokens carry the
// creation sequence of the last item a page held (opaque to clients);
// a page costs its size, whatever the directory holds.
func page[S any](dir *actors.Directory[S], token string, n int, seq func(*S) uint64, keep func(*S) bool) (Page[S], error) {
	from := ""
	if token != "" {
		after, err := strconv.ParseUint(token, 10, 64)
		if err != nil {
			return Page[S]{}, Invalid("Invalid NextToken: the token is not one this service issued")
		}
		from = actors.SeqKey(after + 1)
	}
	var out Page[S]
	for _, st := range dir.Ordered(from) {
		if keep != nil && !keep(st) {
			continue
		}
		if len(out.Items) == n {
			out.Next = strconv.FormatUint(seq(out.Items[n-1]), 10)
			break
		}
		out.Items = append(out.Items, st)
	}
	return out, nil
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
	r := s.records()
	var err error
	switch kind {
	case kindVault:
		_, err = actors.Restore(r, "backup."+kind, d.vaults, value, func(v *Vault) (string, string) {
			v.Memo = new(actors.Memo)
			s.seq.Restored(v.Seq)
			return v.Name, actors.SeqKey(v.Seq)
		})
	case kindPlan:
		_, err = actors.Restore(r, "backup."+kind, d.plans, value, func(p *Plan) (string, string) {
			p.Memo = new(actors.Memo)
			s.seq.Restored(p.Seq)
			d.planNames.Store(p.Document.BackupPlanName, p.ID)
			return p.ID, actors.SeqKey(p.Seq)
		})
	case kindAccessPoint:
		_, err = actors.Restore(r, "backup."+kind, d.points, value, func(a *AccessPoint) (string, string) {
			a.Memo = new(actors.Memo)
			s.seq.Restored(a.Seq)
			return a.Name, actors.SeqKey(a.Seq)
		})
	default:
		return fmt.Errorf("backup: restore: unknown kind in %q", key)
	}
	if err != nil {
		return fmt.Errorf("backup: restore %s: %w", key, err)
	}
	return nil
}

// RestoreDone implements the restore protocol: Backup owners are re-created
// record by record and refer to no other owner, so nothing is left to do.
func (s *Service) RestoreDone() error { return nil }

// StoreService is the service segment of the keys Restore accepts.
func (s *Service) StoreService() string { return storeService }

// Detach forgets every owner and stops them all, waiting until they have
// stopped. The caller wipes the store afterwards.
func (s *Service) Detach() {
	var refs []actors.Ref
	s.scopes.Drain(func(_ awswire.Scope, d *dirs) bool {
		refs = append(refs, d.vaults.Drain()...)
		refs = append(refs, d.plans.Drain()...)
		refs = append(refs, d.points.Drain()...)
		d.planNames.Clear()
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
