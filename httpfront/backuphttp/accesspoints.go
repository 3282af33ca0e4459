package backuphttp

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/backup"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type createAccessPointBody struct {
	AccessPointMetadata map[string]string `json:"AccessPointMetadata"`
	AccessPointPolicy   *string           `json:"AccessPointPolicy"`
	Name                *string           `json:"Name"`
	RecoveryPointArn    *string           `json:"RecoveryPointArn"`
	Tags                map[string]string `json:"Tags"`
}

func (h *handlers) createAccessPoint(c *restjson.Call) error {
	var in createAccessPointBody
	if err := c.DecodeBody(&in); err != nil {
		return err
	}
	if in.Name == nil {
		return missing("Name")
	}
	if in.RecoveryPointArn == nil {
		return missing("RecoveryPointArn")
	}
	if !validAccessPointName(*in.Name) {
		return invalid("Invalid Name: %s. It must be 3 to 50 lowercase letters, digits or hyphens, start and end with a letter or digit, and not end in -s3alias or -ext-s3alias.", *in.Name)
	}
	if !recoveryPointPattern.MatchString(*in.RecoveryPointArn) {
		return invalid("Invalid RecoveryPointArn: %s", *in.RecoveryPointArn)
	}
	// The policy is accepted and dropped: no access policy is enforced.
	if p := in.AccessPointPolicy; p != nil && (len(*p) < 1 || len(*p) > 200000) {
		return invalid("AccessPointPolicy must be 1 to 200000 characters")
	}
	for k, v := range in.AccessPointMetadata {
		if k == "" || v == "" {
			return invalid("AccessPointMetadata keys and values must not be empty")
		}
	}
	if len(in.Tags) > 200 {
		return invalid("Too many tags: at most 200 are allowed")
	}
	if err := checkTags("Tags", in.Tags); err != nil {
		return err
	}
	ap, err := h.svc.CreateAccessPoint(c.Scope, backup.CreateAccessPointInput{
		Name: *in.Name, RecoveryPointArn: *in.RecoveryPointArn, Metadata: in.AccessPointMetadata, Tags: in.Tags,
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, struct {
		AccessPointArn string `json:"AccessPointArn"`
		Status         string `json:"Status"`
	}{ap.ARN, ap.Status})
}

// accessPointView is an access point as reads return it. BackupVaultName,
// BackupVaultArn, ResourceArn and ResourceType are absent: no recovery point
// exists to name them (SPEC.md §2.1).
type accessPointView struct {
	AccessPointArn      string            `json:"AccessPointArn"`
	AccessPointMetadata map[string]string `json:"AccessPointMetadata"`
	CreationTime        awswire.Epoch     `json:"CreationTime"`
	Name                string            `json:"Name"`
	RecoveryPointArn    string            `json:"RecoveryPointArn"`
	Status              string            `json:"Status"`
}

func viewAccessPoint(ap *backup.AccessPoint) accessPointView {
	md := ap.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return accessPointView{ap.ARN, md, awswire.Epoch(ap.Created), ap.Name, ap.RecoveryPointArn, ap.Status}
}

func (h *handlers) accessPointArn(c *restjson.Call) (string, error) {
	arn, err := label(c, "AccessPointArn", "AccessPointArn")
	if err != nil {
		return "", err
	}
	if !validAccessPointArn(arn) {
		return "", invalid("Invalid AccessPointArn: %s", arn).With("Context", arn)
	}
	return arn, nil
}

func (h *handlers) describeAccessPoint(c *restjson.Call) error {
	arn, err := h.accessPointArn(c)
	if err != nil {
		return err
	}
	ap, ok := h.svc.AccessPoint(arn)
	if !ok {
		return backup.AccessPointNotFound(arn)
	}
	if b := ap.Memo.Get(); b != nil {
		c.Raw(http.StatusOK, b)
		return nil
	}
	b, err := restjson.Marshal(viewAccessPoint(ap))
	if err != nil {
		return err
	}
	ap.Memo.Set(b)
	c.Raw(http.StatusOK, b)
	return nil
}

func (h *handlers) deleteAccessPoint(c *restjson.Call) error {
	arn, err := h.accessPointArn(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteAccessPoint(arn); err != nil {
		return err
	}
	c.Empty(http.StatusNoContent)
	return nil
}

func (h *handlers) writeAccessPoints(c *restjson.Call, keep func(*backup.AccessPoint) bool) error {
	page, err := readPage(c, "MaxResults", "NextToken", 100)
	if err != nil {
		return err
	}
	all := h.svc.AccessPoints(c.Scope)
	if keep != nil {
		kept := all[:0]
		for _, ap := range all {
			if keep(ap) {
				kept = append(kept, ap)
			}
		}
		all = kept
	}
	items, next := paginate(all, page, func(ap *backup.AccessPoint) uint64 { return ap.Seq })
	views := make([]accessPointView, len(items))
	for i, ap := range items {
		views[i] = viewAccessPoint(ap)
	}
	return c.JSON(http.StatusOK, struct {
		BackupAccessPoints []accessPointView `json:"BackupAccessPoints"`
		NextToken          string            `json:"NextToken,omitempty"`
	}{views, next})
}

func (h *handlers) listAccessPoints(c *restjson.Call) error {
	return h.writeAccessPoints(c, nil)
}

// listAccessPointsByRecoveryPoint lists the access points created against
// the recovery point ARN.
func (h *handlers) listAccessPointsByRecoveryPoint(c *restjson.Call) error {
	rp, err := label(c, "RecoveryPointArn", "RecoveryPointArn")
	if err != nil {
		return err
	}
	if !recoveryPointPattern.MatchString(rp) {
		return invalid("Invalid RecoveryPointArn: %s", rp)
	}
	return h.writeAccessPoints(c, func(ap *backup.AccessPoint) bool { return ap.RecoveryPointArn == rp })
}

// listAccessPointsByResource is always empty: no recovery point exists, so
// no access point is associated with a protected resource.
func (h *handlers) listAccessPointsByResource(c *restjson.Call) error {
	res, err := label(c, "ResourceArn", "ResourceArn")
	if err != nil {
		return err
	}
	if !resourceArnPattern.MatchString(res) {
		return invalid("Invalid ResourceArn: %s", res)
	}
	return h.writeAccessPoints(c, func(*backup.AccessPoint) bool { return false })
}
