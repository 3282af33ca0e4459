package backup

import (
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// CreateAccessPointInput is a CreateBackupAccessPoint request whose
// required members are present; a nil member was absent.
type CreateAccessPointInput struct {
	Name             string
	RecoveryPointArn string
	Metadata         map[string]string
	// Policy is checked and dropped: no access policy is enforced.
	Policy *string
	Tags   map[string]string
}

// AccessPointStatus is the status of every access point: no recovery point
// exists to wait for, so creation completes at once.
const AccessPointStatus = "AVAILABLE"

// CreateAccessPoint creates an access point and its tags in one write.
func (s *Service) CreateAccessPoint(sc awswire.Scope, in CreateAccessPointInput) (*AccessPoint, error) {
	if !ValidAccessPointName(in.Name) {
		return nil, Invalid("Invalid Name: %s. It must be 3 to 50 lowercase letters, digits or hyphens, start and end with a letter or digit, and not end in -s3alias or -ext-s3alias.", in.Name)
	}
	if err := CheckRecoveryPointArn(in.RecoveryPointArn); err != nil {
		return nil, err
	}
	if p := in.Policy; p != nil && (len(*p) < 1 || len(*p) > 200000) {
		return nil, Invalid("AccessPointPolicy must be 1 to 200000 characters")
	}
	for k, v := range in.Metadata {
		if k == "" || v == "" {
			return nil, Invalid("AccessPointMetadata keys and values must not be empty")
		}
	}
	if err := checkTags("Tags", in.Tags, accessPointTags); err != nil {
		return nil, err
	}
	d := s.scopes.Get(sc)
	seq := s.seq.Next()
	arn := awswire.BackupAccessPointARN(sc.Region, sc.Account, in.Name)
	ap := &AccessPoint{AccessPointRecord: AccessPointRecord{
		Seq:              seq,
		Name:             in.Name,
		ARN:              arn,
		RecoveryPointArn: in.RecoveryPointArn,
		Metadata:         cloneTags(in.Metadata),
		Status:           AccessPointStatus,
		Created:          s.now().UnixMilli(),
		Tags:             cloneTags(in.Tags),
	}, Memo: new(actors.Memo)}
	return actors.Create(s.records(), actors.NewRecord[AccessPoint]{
		Kind: "backup." + kindAccessPoint, Key: recordKey(sc, kindAccessPoint, in.Name), Dir: d.points,
		ID: in.Name, Order: actors.SeqKey(seq),
		Taken: func() error {
			return awswire.New(awswire.Backup, awswire.CodeAlreadyExists, "Backup access point with the same name already exists").
				With("Arn", arn).With("Context", in.Name)
		},
		Build: func() (*AccessPoint, error) { return ap, nil },
	})
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

// AccessPoints returns up to n access points of the scope that keep holds
// (nil: all), in creation order, after the page token.
func (s *Service) AccessPoints(sc awswire.Scope, token string, n int, keep func(*AccessPoint) bool) (Page[AccessPoint], error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return page(actors.NewDirectory[AccessPoint](), token, n, accessPointSeq, keep)
	}
	return page(d.points, token, n, accessPointSeq, keep)
}

func accessPointSeq(a *AccessPoint) uint64 { return a.Seq }

// DeleteAccessPoint deletes the access point with arn.
func (s *Service) DeleteAccessPoint(arn string) error {
	if err := CheckAccessPointArn(arn); err != nil {
		return err
	}
	sc, name, ok := accessPointScope(arn)
	if !ok {
		return AccessPointNotFound(arn)
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return AccessPointNotFound(arn)
	}
	if ap, ok := d.points.Get(name); !ok || ap.ARN != arn {
		return AccessPointNotFound(arn)
	}
	_, err := actors.DeleteRecord(s.records(), recordKey(sc, kindAccessPoint, name), d.points, name,
		func() error { return AccessPointNotFound(arn) })
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
