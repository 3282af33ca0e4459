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

// Defaults AWS fills into a rule that does not set them.
const (
	defaultSchedule         = "cron(0 5 ? * * *)"
	defaultStartWindow      = 480   // 8 hours
	defaultCompletionWindow = 10080 // 7 days
	defaultTimezone         = "Etc/UTC"
	maxWindowMinutes        = 52_560_000 // 100 years
	minStartWindowMinutes   = 60
)

var (
	malwareScanners = map[string]bool{"GUARDDUTY": true}
	scanModes       = map[string]bool{"FULL_SCAN": true, "INCREMENTAL_SCAN": true}
)

// checkPlan validates a BackupPlanInput against the model and AWS's
// documented rules, and returns the document to store, with defaults.
func checkPlan(in *planInput) (backup.PlanDocument, error) {
	if in == nil {
		return backup.PlanDocument{}, missing("BackupPlan")
	}
	doc := in.PlanDocument
	if doc.BackupPlanName == "" {
		return doc, missing("BackupPlan.BackupPlanName")
	}
	if !planNamePattern.MatchString(doc.BackupPlanName) {
		return doc, invalid("Invalid BackupPlanName: %s. It must be 1 to 50 letters, digits or '-_.' characters.", doc.BackupPlanName)
	}
	if doc.Rules == nil {
		return doc, missing("BackupPlan.Rules")
	}
	if len(doc.Rules) == 0 {
		return doc, invalid("A backup plan must contain at least one rule")
	}
	for _, s := range in.AdvancedBackupSettings {
		if s.ResourceType != "" && !resourceTypePattern.MatchString(s.ResourceType) {
			return doc, invalid("Invalid AdvancedBackupSettings ResourceType: %s", s.ResourceType)
		}
	}
	for _, s := range doc.ScanSettings {
		if s.MalwareScanner != "" && !malwareScanners[s.MalwareScanner] {
			return doc, invalid("Invalid MalwareScanner: %s. Valid values: GUARDDUTY", s.MalwareScanner)
		}
	}
	seen := make(map[string]bool, len(doc.Rules))
	rules := make([]backup.Rule, len(doc.Rules))
	for i, r := range doc.Rules {
		if r.RuleName == "" {
			return doc, missing("BackupPlan.Rules.RuleName")
		}
		if !ruleNamePattern.MatchString(r.RuleName) {
			return doc, invalid("Invalid RuleName: %s. It must be 1 to 50 letters, digits or '-_.' characters.", r.RuleName)
		}
		if seen[r.RuleName] {
			return doc, invalid("Rule names must be unique within a backup plan: %s", r.RuleName)
		}
		seen[r.RuleName] = true
		if r.TargetBackupVaultName == "" {
			return doc, missing("BackupPlan.Rules.TargetBackupVaultName")
		}
		if !vaultNamePattern.MatchString(r.TargetBackupVaultName) {
			return doc, invalid("Invalid TargetBackupVaultName: %s", r.TargetBackupVaultName)
		}
		if r.TargetLogicallyAirGappedBackupVaultArn != "" {
			if _, ok := awswire.ParseARN(r.TargetLogicallyAirGappedBackupVaultArn); !ok {
				return doc, invalid("Invalid TargetLogicallyAirGappedBackupVaultArn: %s", r.TargetLogicallyAirGappedBackupVaultArn)
			}
		}
		if w := r.StartWindowMinutes; w != nil && (*w < minStartWindowMinutes || *w > maxWindowMinutes) {
			return doc, invalid("StartWindowMinutes must be between %d and %d minutes", minStartWindowMinutes, maxWindowMinutes)
		}
		if w := r.CompletionWindowMinutes; w != nil && (*w < 1 || *w > maxWindowMinutes) {
			return doc, invalid("CompletionWindowMinutes must be between 1 and %d minutes", maxWindowMinutes)
		}
		if err := checkLifecycle(r.Lifecycle); err != nil {
			return doc, err
		}
		if err := checkTags("RecoveryPointTags", r.RecoveryPointTags); err != nil {
			return doc, err
		}
		for _, ca := range r.CopyActions {
			if ca.DestinationBackupVaultArn == "" {
				return doc, missing("BackupPlan.Rules.CopyActions.DestinationBackupVaultArn")
			}
			if _, ok := awswire.ParseARN(ca.DestinationBackupVaultArn); !ok {
				return doc, invalid("Invalid DestinationBackupVaultArn: %s", ca.DestinationBackupVaultArn)
			}
			if err := checkLifecycle(ca.Lifecycle); err != nil {
				return doc, err
			}
		}
		if len(r.IndexActions) > 1 {
			return doc, invalid("A backup rule can have at most one IndexAction")
		}
		for _, sa := range r.ScanActions {
			if sa.MalwareScanner != "" && !malwareScanners[sa.MalwareScanner] {
				return doc, invalid("Invalid MalwareScanner: %s. Valid values: GUARDDUTY", sa.MalwareScanner)
			}
			if sa.ScanMode != "" && !scanModes[sa.ScanMode] {
				return doc, invalid("Invalid ScanMode: %s. Valid values: FULL_SCAN, INCREMENTAL_SCAN", sa.ScanMode)
			}
		}
		r.RuleID = "" // assigned by the service
		if r.ScheduleExpression == "" {
			r.ScheduleExpression = defaultSchedule
		}
		if r.StartWindowMinutes == nil {
			r.StartWindowMinutes = ptr(int64(defaultStartWindow))
		}
		if r.CompletionWindowMinutes == nil {
			r.CompletionWindowMinutes = ptr(int64(defaultCompletionWindow))
		}
		if r.ScheduleExpressionTimezone == "" {
			r.ScheduleExpressionTimezone = defaultTimezone
		}
		rules[i] = r
	}
	doc.Rules = rules
	return doc, nil
}

func checkLifecycle(l *backup.Lifecycle) error {
	if l == nil {
		return nil
	}
	if l.DeleteAfterEvent != "" {
		return invalid("DeleteAfterEvent is not valid as an input")
	}
	if d := l.DeleteAfterDays; d != nil && *d < 1 {
		return invalid("DeleteAfterDays must be at least 1")
	}
	if c := l.MoveToColdStorageAfterDays; c != nil && *c < 1 {
		return invalid("MoveToColdStorageAfterDays must be at least 1")
	}
	if c, d := l.MoveToColdStorageAfterDays, l.DeleteAfterDays; c != nil && d != nil && *d < *c+90 {
		return invalid("DeleteAfterDays must be at least 90 days greater than MoveToColdStorageAfterDays")
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

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
	doc, err := checkPlan(in.BackupPlan)
	if err != nil {
		return err
	}
	if err := checkTags("BackupPlanTags", in.BackupPlanTags); err != nil {
		return err
	}
	creatorID := deref(in.CreatorRequestID)
	if in.CreatorRequestID != nil && !creatorIDPattern.MatchString(creatorID) {
		return invalid("Invalid CreatorRequestId: it must be 1 to 50 letters, digits or '-_.' characters")
	}
	p, err := h.svc.CreatePlan(c.Scope, backup.CreatePlanInput{Document: doc, CreatorRequestID: creatorID, Tags: in.BackupPlanTags})
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
	doc, err := checkPlan(in.BackupPlan)
	if err != nil {
		return err
	}
	p, err := h.svc.UpdatePlan(c.Scope, id, doc)
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
	items, next := paginate(h.svc.Plans(c.Scope), page, func(p *backup.Plan) uint64 { return p.Seq })
	out := make([]planListMember, len(items))
	for i, p := range items {
		out[i] = planListMember{p.ARN, p.ID, awswire.Epoch(p.Created), p.VersionID, p.Document.BackupPlanName, p.CreatorRequestID}
	}
	return c.JSON(http.StatusOK, struct {
		NextToken       string           `json:"NextToken,omitempty"`
		BackupPlansList []planListMember `json:"BackupPlansList"`
	}{next, out})
}
