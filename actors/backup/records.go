package backup

import "github.com/cloudemu/emulator/actors"

// VaultRecord is a backup vault as it is persisted.
type VaultRecord struct {
	Seq              uint64            `json:"seq"`
	Name             string            `json:"name"`
	ARN              string            `json:"arn"`
	Created          int64             `json:"created"` // Unix milliseconds
	EncryptionKeyArn string            `json:"encryptionKeyArn,omitempty"`
	CreatorRequestID string            `json:"creatorRequestId,omitempty"`
	Tags             map[string]string `json:"tags,omitempty"`
}

// Vault is a vault as its owner keeps, persists (as its record) and
// publishes it. A published vault never changes.
type Vault struct {
	VaultRecord
	// Memo caches the DescribeBackupVault body.
	Memo *actors.Memo `json:"-"`
}

// PlanRecord is a backup plan as it is persisted: its current version only.
type PlanRecord struct {
	Seq              uint64            `json:"seq"`
	ID               string            `json:"id"`
	ARN              string            `json:"arn"`
	VersionID        string            `json:"versionId"`
	Document         PlanDocument      `json:"document"`
	Created          int64             `json:"created"` // of the current version, Unix ms
	CreatorRequestID string            `json:"creatorRequestId,omitempty"`
	Tags             map[string]string `json:"tags,omitempty"`
}

// Plan is a backup plan as its owner keeps, persists and publishes it. A
// published plan never changes.
type Plan struct {
	PlanRecord
	// Memo caches the GetBackupPlan body.
	Memo *actors.Memo `json:"-"`
}

// PlanDocument is the BackupPlan structure, with the model's member names.
// AdvancedBackupSettings is absent on purpose: it is accepted and dropped.
type PlanDocument struct {
	BackupPlanName string        `json:"BackupPlanName"`
	Rules          []Rule        `json:"Rules"`
	ScanSettings   []ScanSetting `json:"ScanSettings,omitempty"`
}

// Rule is a BackupRule (BackupRuleInput plus the RuleId AWS assigns).
type Rule struct {
	RuleName                               string            `json:"RuleName"`
	TargetBackupVaultName                  string            `json:"TargetBackupVaultName"`
	TargetLogicallyAirGappedBackupVaultArn string            `json:"TargetLogicallyAirGappedBackupVaultArn,omitempty"`
	ScheduleExpression                     string            `json:"ScheduleExpression,omitempty"`
	StartWindowMinutes                     *int64            `json:"StartWindowMinutes,omitempty"`
	CompletionWindowMinutes                *int64            `json:"CompletionWindowMinutes,omitempty"`
	Lifecycle                              *Lifecycle        `json:"Lifecycle,omitempty"`
	RecoveryPointTags                      map[string]string `json:"RecoveryPointTags,omitempty"`
	RuleID                                 string            `json:"RuleId,omitempty"`
	CopyActions                            []CopyAction      `json:"CopyActions,omitempty"`
	EnableContinuousBackup                 *bool             `json:"EnableContinuousBackup,omitempty"`
	ScheduleExpressionTimezone             string            `json:"ScheduleExpressionTimezone,omitempty"`
	IndexActions                           []IndexAction     `json:"IndexActions,omitempty"`
	ScanActions                            []ScanAction      `json:"ScanActions,omitempty"`
}

// Lifecycle is a rule's or copy action's retention.
type Lifecycle struct {
	MoveToColdStorageAfterDays          *int64 `json:"MoveToColdStorageAfterDays,omitempty"`
	DeleteAfterDays                     *int64 `json:"DeleteAfterDays,omitempty"`
	OptInToArchiveForSupportedResources *bool  `json:"OptInToArchiveForSupportedResources,omitempty"`
	DeleteAfterEvent                    string `json:"DeleteAfterEvent,omitempty"`
}

// CopyAction copies a recovery point to another vault.
type CopyAction struct {
	Lifecycle                 *Lifecycle `json:"Lifecycle,omitempty"`
	DestinationBackupVaultArn string     `json:"DestinationBackupVaultArn"`
}

// IndexAction asks for a backup index.
type IndexAction struct {
	ResourceTypes []string `json:"ResourceTypes,omitempty"`
}

// ScanAction asks for a malware scan.
type ScanAction struct {
	MalwareScanner string `json:"MalwareScanner,omitempty"`
	ScanMode       string `json:"ScanMode,omitempty"`
}

// ScanSetting configures a malware scanner.
type ScanSetting struct {
	MalwareScanner string   `json:"MalwareScanner,omitempty"`
	ResourceTypes  []string `json:"ResourceTypes,omitempty"`
	ScannerRoleArn string   `json:"ScannerRoleArn,omitempty"`
}

// AccessPointRecord is a backup access point as it is persisted.
type AccessPointRecord struct {
	Seq              uint64            `json:"seq"`
	Name             string            `json:"name"`
	ARN              string            `json:"arn"`
	RecoveryPointArn string            `json:"recoveryPointArn"`
	Metadata         map[string]string `json:"metadata,omitempty"`
	Status           string            `json:"status"`
	Created          int64             `json:"created"` // Unix milliseconds
	Tags             map[string]string `json:"tags,omitempty"`
}

// AccessPoint is an access point as its owner keeps, persists and
// publishes it. A published access point never changes.
type AccessPoint struct {
	AccessPointRecord
	// Memo caches the DescribeBackupAccessPoint body.
	Memo *actors.Memo `json:"-"`
}
