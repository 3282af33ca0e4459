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
	ap, err := h.svc.CreateAccessPoint(c.Scope, backup.CreateAccessPointInput{
		Name: *in.Name, RecoveryPointArn: *in.RecoveryPointArn, Metadata: in.AccessPointMetadata,
		Policy: in.AccessPointPolicy, Tags: in.Tags,
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
// exists to name them (docs/backup.md).
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
	return arn, backup.CheckAccessPointArn(arn)
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
	points, err := h.svc.AccessPoints(c.Scope, page.after, page.max, keep)
	if err != nil {
		return err
	}
	views := make([]accessPointView, len(points.Items))
	for i, ap := range points.Items {
		views[i] = viewAccessPoint(ap)
	}
	return c.JSON(http.StatusOK, struct {
		BackupAccessPoints []accessPointView `json:"BackupAccessPoints"`
		NextToken          string            `json:"NextToken,omitempty"`
	}{views, page.token(points.Next)})
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
	if err := backup.CheckRecoveryPointArn(rp); err != nil {
		return err
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
	if err := backup.CheckResourceArn(res); err != nil {
		return err
	}
	return h.writeAccessPoints(c, func(*backup.AccessPoint) bool { return false })
}
