package backup

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// CreateVaultInput is a CreateBackupVault request; a nil member was absent.
type CreateVaultInput struct {
	Name             string
	EncryptionKeyArn *string
	CreatorRequestID *string
	Tags             map[string]string
}

// CreateVault creates a vault and its tags in one write.
func (s *Service) CreateVault(sc awswire.Scope, in CreateVaultInput) (*Vault, error) {
	if err := CheckVaultName(in.Name); err != nil {
		return nil, err
	}
	if err := checkTags("BackupVaultTags", in.Tags, resourceTags); err != nil {
		return nil, err
	}
	if k := in.EncryptionKeyArn; k != nil {
		if a, ok := awswire.ParseARN(*k); !ok || a.Service != "kms" {
			return nil, Invalid("Invalid EncryptionKeyArn: %s", *k)
		}
	}
	if err := checkCreatorID(in.CreatorRequestID); err != nil {
		return nil, err
	}
	d := s.scopes.Get(sc)
	seq := s.seq.Next()
	arn := awswire.BackupVaultARN(sc.Region, sc.Account, in.Name)
	v := &Vault{VaultRecord: VaultRecord{
		Seq:              seq,
		Name:             in.Name,
		ARN:              arn,
		Created:          s.now().UnixMilli(),
		EncryptionKeyArn: deref(in.EncryptionKeyArn),
		CreatorRequestID: deref(in.CreatorRequestID),
		Tags:             cloneTags(in.Tags),
	}, Memo: new(actors.Memo)}
	return actors.Create(s.records(), actors.NewRecord[Vault]{
		Kind: "backup." + kindVault, Key: recordKey(sc, kindVault, in.Name), Dir: d.vaults,
		ID: in.Name, Order: actors.SeqKey(seq),
		Taken: func() error {
			return awswire.New(awswire.Backup, awswire.CodeAlreadyExists, "Backup vault with the same name already exists").
				With("Arn", arn).With("Context", in.Name)
		},
		Build: func() (*Vault, error) { return v, nil },
	})
}

// Vault returns the published vault called name.
func (s *Service) Vault(sc awswire.Scope, name string) (*Vault, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.vaults.Get(name)
}

// Vaults returns up to n vaults of the scope in creation order, after the
// page token.
func (s *Service) Vaults(sc awswire.Scope, token string, n int) (Page[Vault], error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return page(actors.NewDirectory[Vault](), token, n, vaultSeq, nil)
	}
	return page(d.vaults, token, n, vaultSeq, nil)
}

func vaultSeq(v *Vault) uint64 { return v.Seq }

// DeleteVault deletes a vault and its tags.
func (s *Service) DeleteVault(sc awswire.Scope, name string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return VaultNotFound(name)
	}
	_, err := actors.DeleteRecord(s.records(), recordKey(sc, kindVault, name), d.vaults, name,
		func() error { return VaultNotFound(name) })
	return err
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
