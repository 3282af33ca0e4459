package backup

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/store"
)

// Commands the owners handle.
type (
	// createCmd persists and publishes the owner's first record.
	createCmd struct{ rec any }
	// deleteCmd removes the owner's record and ends the owner.
	deleteCmd struct{}
	// tagCmd merges set into the tags, then removes the keys in remove.
	tagCmd struct {
		set    map[string]string
		remove []string
	}
	// updatePlanCmd replaces a plan's document at a new version.
	updatePlanCmd struct {
		doc       PlanDocument
		versionID string
		at        int64
	}
)

// base is what every Backup owner has: where its record lives, the store
// epoch it was born in, and whether it has been deleted.
type base struct {
	store store.Store
	scope awswire.Scope
	key   string
	epoch uint64
	done  bool
}

func (s *Service) newBase(sc awswire.Scope) base {
	return base{store: s.store, scope: sc, epoch: s.store.Epoch()}
}

// Finished implements actors.Finisher: a deleted owner stops.
func (b *base) Finished() bool { return b.done }

// put persists rec under the owner's key; it returns once the write is durable.
func (b *base) put(rec any) error {
	if !b.store.Durable() {
		// Nothing to write; the epoch check still stops an owner that a
		// reset has orphaned.
		return b.store.Apply(b.epoch)
	}
	v, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("backup: encode %s: %w", b.key, err)
	}
	if err := b.store.Apply(b.epoch, store.Put(b.key, v)); err != nil {
		return fmt.Errorf("backup: persist %s: %w", b.key, err)
	}
	return nil
}

// remove deletes the owner's record durably.
func (b *base) remove() error {
	if err := b.store.Apply(b.epoch, store.Del(b.key)); err != nil {
		return fmt.Errorf("backup: delete %s: %w", b.key, err)
	}
	return nil
}

// retag returns tags with cmd applied, as a new map.
func retag(tags map[string]string, cmd tagCmd) map[string]string {
	out := make(map[string]string, len(tags)+len(cmd.set))
	maps.Copy(out, tags)
	maps.Copy(out, cmd.set)
	for _, k := range cmd.remove {
		delete(out, k)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// errGone answers commands that reach an owner after its deletion.
var errGone = actors.ErrGone

func unexpected(cmd any) error { return fmt.Errorf("backup: unexpected command %T", cmd) }

// kindOps are what the generic owner needs to know of one kind of record R,
// published as *S.
type kindOps[S, R any] struct {
	kind string                      // the store key's kind segment
	wrap func(R) *S                  // the snapshot holding a record
	rec  func(*S) R                  // the record a snapshot holds (a copy)
	tags func(*R) *map[string]string // where a record keeps its tags
	seq  func(R) uint64              // the record's creation order
	id   func(R) string              // the store key's id segment
}

var (
	vaultOps = kindOps[Vault, VaultRecord]{
		kind: kindVault,
		seq:  func(r VaultRecord) uint64 { return r.Seq },
		id:   func(r VaultRecord) string { return r.Name },
		wrap: func(r VaultRecord) *Vault { return &Vault{VaultRecord: r} },
		rec:  func(v *Vault) VaultRecord { return v.VaultRecord },
		tags: func(r *VaultRecord) *map[string]string { return &r.Tags },
	}
	planOps = kindOps[Plan, PlanRecord]{
		kind: kindPlan,
		seq:  func(r PlanRecord) uint64 { return r.Seq },
		id:   func(r PlanRecord) string { return r.ID },
		wrap: func(r PlanRecord) *Plan { return &Plan{PlanRecord: r} },
		rec:  func(p *Plan) PlanRecord { return p.PlanRecord },
		tags: func(r *PlanRecord) *map[string]string { return &r.Tags },
	}
	accessPointOps = kindOps[AccessPoint, AccessPointRecord]{
		kind: kindAccessPoint,
		seq:  func(r AccessPointRecord) uint64 { return r.Seq },
		id:   func(r AccessPointRecord) string { return r.Name },
		wrap: func(r AccessPointRecord) *AccessPoint { return &AccessPoint{AccessPointRecord: r} },
		rec:  func(a *AccessPoint) AccessPointRecord { return a.AccessPointRecord },
		tags: func(r *AccessPointRecord) *map[string]string { return &r.Tags },
	}
)

// owner is the actor state of one vault, plan or access point: it persists
// its record, publishes it, and answers create, tag and delete alike; a
// kind with more commands (plans) handles them in more.
type owner[S, R any] struct {
	base
	ops   kindOps[S, R]
	entry *actors.Entry[S]
	// reserve claims the record's ids in its directories for e, or says
	// which is taken; release gives back those e holds.
	reserve func(e *actors.Entry[S], rec R) *awswire.Error
	release func(e *actors.Entry[S], rec R)
	// more handles kind-specific commands; nil if there are none.
	more func(o *owner[S, R], cur *S, cmd any) (any, error)
}

func (o *owner[S, R]) Handle(cmd any) (any, error) {
	if o.done {
		return nil, errGone
	}
	cur := o.entry.Snapshot()
	if _, creating := cmd.(createCmd); !creating && cur == nil {
		return nil, errGone
	}
	switch c := cmd.(type) {
	case createCmd:
		return o.commit(c.rec.(R))
	case tagCmd:
		rec := o.ops.rec(cur)
		t := o.ops.tags(&rec)
		*t = retag(*t, c)
		_, err := o.commit(rec)
		return nil, err
	case deleteCmd:
		if err := o.remove(); err != nil {
			return nil, err
		}
		o.entry.Publish(nil)
		o.release(o.entry, o.ops.rec(cur))
		o.done = true
		return cur, nil
	}
	if o.more != nil {
		return o.more(o, cur, cmd)
	}
	return nil, unexpected(cmd)
}

// commit persists rec and publishes it; readers see it once it is durable.
func (o *owner[S, R]) commit(rec R) (*S, error) {
	if err := o.put(rec); err != nil {
		return nil, err
	}
	snap := o.ops.wrap(rec)
	o.entry.Publish(snap)
	return snap, nil
}

// updatePlan handles a plan's own command: a new version of its document,
// which may rename it.
func updatePlan(d *dirs) func(o *owner[Plan, PlanRecord], cur *Plan, cmd any) (any, error) {
	return func(o *owner[Plan, PlanRecord], cur *Plan, cmd any) (any, error) {
		c, ok := cmd.(updatePlanCmd)
		if !ok {
			return nil, unexpected(cmd)
		}
		oldName, newName := cur.Document.BackupPlanName, c.doc.BackupPlanName
		renamed := newName != oldName
		if renamed && !d.planNames.Reserve(newName, o.entry) {
			return nil, planNameTaken(d, newName)
		}
		rec := cur.PlanRecord
		rec.Document = withRuleIDs(c.doc, cur.Document.Rules)
		rec.VersionID = c.versionID
		rec.Created = c.at
		p, err := o.commit(rec)
		if err != nil {
			if renamed {
				d.planNames.Release(newName, o.entry)
			}
			return nil, err
		}
		if renamed {
			d.planNames.Release(oldName, o.entry)
		}
		return p, nil
	}
}
