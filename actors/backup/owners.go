package backup

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/cloudemu/emulator/actors"
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
	key   string
	epoch uint64
	done  bool
}

func (s *Service) newBase(sc actors.Scope, kind, id string) base {
	return base{
		store: s.store,
		key:   store.Key(sc.Account, sc.Region, storeService, kind, id),
		epoch: s.store.Epoch(),
	}
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

// ---- vault ----

type vaultOwner struct {
	base
	entry *actors.Entry[Vault]
	dir   *actors.Directory[Vault]
}

func (o *vaultOwner) Handle(cmd any) (any, error) {
	if o.done {
		return nil, errGone
	}
	cur := o.entry.Snapshot()
	if _, creating := cmd.(createCmd); !creating && cur == nil {
		return nil, errGone
	}
	switch c := cmd.(type) {
	case createCmd:
		rec := c.rec.(VaultRecord)
		if err := o.put(rec); err != nil {
			return nil, err
		}
		v := &Vault{VaultRecord: rec}
		o.entry.Publish(v)
		return v, nil
	case tagCmd:
		rec := cur.VaultRecord
		rec.Tags = retag(rec.Tags, c)
		if err := o.put(rec); err != nil {
			return nil, err
		}
		o.entry.Publish(&Vault{VaultRecord: rec})
		return nil, nil
	case deleteCmd:
		if err := o.remove(); err != nil {
			return nil, err
		}
		o.entry.Publish(nil)
		o.dir.Release(cur.Name, o.entry)
		o.done = true
		return nil, nil
	}
	return nil, unexpected(cmd)
}

// ---- plan ----

type planOwner struct {
	base
	entry *actors.Entry[Plan]
	dirs  *dirs
}

func (o *planOwner) Handle(cmd any) (any, error) {
	if o.done {
		return nil, errGone
	}
	cur := o.entry.Snapshot()
	if _, creating := cmd.(createCmd); !creating && cur == nil {
		return nil, errGone
	}
	switch c := cmd.(type) {
	case createCmd:
		rec := c.rec.(PlanRecord)
		if err := o.put(rec); err != nil {
			return nil, err
		}
		p := &Plan{PlanRecord: rec}
		o.entry.Publish(p)
		return p, nil
	case updatePlanCmd:
		oldName, newName := cur.Document.BackupPlanName, c.doc.BackupPlanName
		if newName != oldName && !o.dirs.planNames.Reserve(newName, o.entry) {
			return nil, planNameTaken(o.dirs, newName)
		}
		rec := cur.PlanRecord
		rec.Document = withRuleIDs(c.doc, cur.Document.Rules)
		rec.VersionID = c.versionID
		rec.Created = c.at
		if err := o.put(rec); err != nil {
			if newName != oldName {
				o.dirs.planNames.Release(newName, o.entry)
			}
			return nil, err
		}
		p := &Plan{PlanRecord: rec}
		o.entry.Publish(p)
		if newName != oldName {
			o.dirs.planNames.Release(oldName, o.entry)
		}
		return p, nil
	case tagCmd:
		rec := cur.PlanRecord
		rec.Tags = retag(rec.Tags, c)
		if err := o.put(rec); err != nil {
			return nil, err
		}
		o.entry.Publish(&Plan{PlanRecord: rec})
		return nil, nil
	case deleteCmd:
		if err := o.remove(); err != nil {
			return nil, err
		}
		o.entry.Publish(nil)
		o.dirs.plans.Release(cur.ID, o.entry)
		o.dirs.planNames.Release(cur.Document.BackupPlanName, o.entry)
		o.done = true
		return cur, nil
	}
	return nil, unexpected(cmd)
}

// ---- access point ----

type accessPointOwner struct {
	base
	entry *actors.Entry[AccessPoint]
	dir   *actors.Directory[AccessPoint]
}

func (o *accessPointOwner) Handle(cmd any) (any, error) {
	if o.done {
		return nil, errGone
	}
	cur := o.entry.Snapshot()
	if _, creating := cmd.(createCmd); !creating && cur == nil {
		return nil, errGone
	}
	switch c := cmd.(type) {
	case createCmd:
		rec := c.rec.(AccessPointRecord)
		if err := o.put(rec); err != nil {
			return nil, err
		}
		ap := &AccessPoint{AccessPointRecord: rec}
		o.entry.Publish(ap)
		return ap, nil
	case tagCmd:
		rec := cur.AccessPointRecord
		rec.Tags = retag(rec.Tags, c)
		if err := o.put(rec); err != nil {
			return nil, err
		}
		o.entry.Publish(&AccessPoint{AccessPointRecord: rec})
		return nil, nil
	case deleteCmd:
		if err := o.remove(); err != nil {
			return nil, err
		}
		o.entry.Publish(nil)
		o.dir.Release(cur.Name, o.entry)
		o.done = true
		return nil, nil
	}
	return nil, unexpected(cmd)
}
