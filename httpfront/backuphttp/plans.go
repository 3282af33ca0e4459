package backuphttp

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/backup"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// planInput is the BackupPlanInput structure. AdvancedBackupSettings is
// decoded (so that a malformed one is refused) and then dropped.
type planInput struct {
	backup.PlanDocument
	AdvancedBackupSettings []struct {
		ResourceType  string            `json:"ResourceType"`
		BackupOptions map[string]string `json:"BackupOptions"`
	} `json:"AdvancedBackupSettings"`
}

// checkPlan checks that a BackupPlanInput has the members the model
// requires, and returns what the domain checks next: the document and the
// AdvancedBackupSettings' resource types (which are then dropped).
func checkPlan(in *planInput) (backup.PlanDocument, []string, error) {
	if in == nil {
		return backup.PlanDocument{}, nil, missing("BackupPlan")
	}
	doc := in.PlanDocument
	switch {
	case doc.BackupPlanName == "":
		return doc, nil, missing("BackupPlan.BackupPlanName")
	case doc.Rules == nil:
		return doc, nil, missing("BackupPlan.Rules")
	}
	for _, r := range doc.Rules {
		switch {
		case r.RuleName == "":
			return doc, nil, missing("BackupPlan.Rules.RuleName")
		case r.TargetBackupVaultName == "":
			return doc, nil, missing("BackupPlan.Rules.TargetBackupVaultName")
		}
		for _, ca := range r.CopyActions {
			if ca.DestinationBackupVaultArn == "" {
				return doc, nil, missing("BackupPlan.Rules.CopyActions.DestinationBackupVaultArn")
			}
		}
	}
	types := make([]string, len(in.AdvancedBackupSettings))
	for i, s := range in.AdvancedBackupSettings {
		types[i] = s.ResourceType
	}
	return doc, types, nil
}

type createPlanBody struct {
	BackupPlan       *planInput        `json:"BackupPlan"`
	BackupPlanTags   map[string]string `json:"BackupPlanTags"`
	CreatorRequestID *string           `json:"CreatorRequestId"`
}

// planWritten is the reply of CreateBackupPlan and UpdateBackupPlan.
// AdvancedBackupSettings is never returned: it is not stored.
type planWritten struct {
	BackupPlanID  string        `json:"BackupPlanId"`
	BackupPlanArn string        `json:"BackupPlanArn"`
	CreationDate  awswire.Epoch `json:"CreationDate"`
	VersionID     string        `json:"VersionId"`
}

func (h *handlers) createPlan(c *restjson.Call) error {
	var in createPlanBody
	if err := c.DecodeBody(&in); err != nil {
		return err
	}
	doc, types, err := checkPlan(in.BackupPlan)
	if err != nil {
		return err
	}
	p, err := h.svc.CreatePlan(c.Scope, backup.CreatePlanInput{Document: doc, AdvancedResourceTypes: types,
		CreatorRequestID: in.CreatorRequestID, Tags: in.BackupPlanTags})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, planWritten{p.ID, p.ARN, awswire.Epoch(p.Created), p.VersionID})
}

func (h *handlers) updatePlan(c *restjson.Call) error {
	id, err := label(c, "backupPlanId", "BackupPlanId")
	if err != nil {
		return err
	}
	var in struct {
		BackupPlan *planInput `json:"BackupPlan"`
	}
	if err := c.DecodeBody(&in); err != nil {
		return err
	}
	doc, types, err := checkPlan(in.BackupPlan)
	if err != nil {
		return err
	}
	p, err := h.svc.UpdatePlan(c.Scope, id, backup.UpdatePlanInput{Document: doc, AdvancedResourceTypes: types})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct {
		planWritten
		ScanSettings []backup.ScanSetting `json:"ScanSettings,omitempty"`
	}{planWritten{p.ID, p.ARN, awswire.Epoch(p.Created), p.VersionID}, p.Document.ScanSettings})
}

type planView struct {
	BackupPlan       backup.PlanDocument `json:"BackupPlan"`
	BackupPlanID     string              `json:"BackupPlanId"`
	BackupPlanArn    string              `json:"BackupPlanArn"`
	VersionID        string              `json:"VersionId"`
	CreatorRequestID string              `json:"CreatorRequestId,omitempty"`
	CreationDate     awswire.Epoch       `json:"CreationDate"`
}

func (h *handlers) getPlan(c *restjson.Call) error {
	id, err := label(c, "backupPlanId", "BackupPlanId")
	if err != nil {
		return err
	}
	// A preview is not produced (no job is ever scheduled), but the value
	// must still be one the model allows.
	if _, _, err := c.QueryInt("MaxScheduledRunsPreview", 0, 10); err != nil {
		return err
	}
	p, ok := h.svc.Plan(c.Scope, id)
	if !ok {
		return backup.PlanNotFound(id)
	}
	// Only the current version is kept.
	if v, ok := c.Query("versionId"); ok && v != "" && v != p.VersionID {
		return awswire.Errorf(awswire.Backup, awswire.CodeResourceNotFound,
			"Failed reading Backup plan with provided version").With("Context", v)
	}
	if b := p.Memo.Get(); b != nil {
		c.Raw(http.StatusOK, b)
		return nil
	}
	b, err := restjson.Marshal(planView{
		BackupPlan: p.Document, BackupPlanID: p.ID, BackupPlanArn: p.ARN, VersionID: p.VersionID,
		CreatorRequestID: p.CreatorRequestID, CreationDate: awswire.Epoch(p.Created),
	})
	if err != nil {
		return err
	}
	p.Memo.Set(b)
	c.Raw(http.StatusOK, b)
	return nil
}

func (h *handlers) deletePlan(c *restjson.Call) error {
	id, err := label(c, "backupPlanId", "BackupPlanId")
	if err != nil {
		return err
	}
	p, at, err := h.svc.DeletePlan(c.Scope, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct {
		BackupPlanID  string        `json:"BackupPlanId"`
		BackupPlanArn string        `json:"BackupPlanArn"`
		DeletionDate  awswire.Epoch `json:"DeletionDate"`
		VersionID     string        `json:"VersionId"`
	}{p.ID, p.ARN, awswire.Epoch(at.UnixMilli()), p.VersionID})
}

type planListMember struct {
	BackupPlanArn    string        `json:"BackupPlanArn"`
	BackupPlanID     string        `json:"BackupPlanId"`
	CreationDate     awswire.Epoch `json:"CreationDate"`
	VersionID        string        `json:"VersionId"`
	BackupPlanName   string        `json:"BackupPlanName"`
	CreatorRequestID string        `json:"CreatorRequestId,omitempty"`
}

func (h *handlers) listPlans(c *restjson.Call) error {
	page, err := readPage(c, "maxResults", "nextToken", 1000)
	if err != nil {
		return err
	}
	// Deleted plans leave no tombstone, so includeDeleted adds nothing; it
	// must still be a boolean.
	if _, _, err := c.QueryBool("includeDeleted"); err != nil {
		return err
	}
	plans, err := h.svc.Plans(c.Scope, page.after, page.max)
	if err != nil {
		return err
	}
	out := make([]planListMember, len(plans.Items))
	for i, p := range plans.Items {
		out[i] = planListMember{p.ARN, p.ID, awswire.Epoch(p.Created), p.VersionID, p.Document.BackupPlanName, p.CreatorRequestID}
	}
	return c.JSON(http.StatusOK, struct {
		NextToken       string           `json:"NextToken,omitempty"`
		BackupPlansList []planListMember `json:"BackupPlansList"`
	}{page.token(plans.Next), out})
}
