package backup

import (
	"regexp"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// AWS Backup's rules on what a request may hold: the model's patterns and
// lengths, and the limits AWS documents. The handlers check only the wire
// shape (JSON, types, required members); everything here is the domain's.

// Patterns from the model's shapes.
var (
	vaultNamePattern     = namePattern{min: 2, max: 50, extra: "-_"}  // ^[a-zA-Z0-9\-\_]{2,50}$
	planNamePattern      = namePattern{min: 1, max: 50, extra: "-_."} // ^[a-zA-Z0-9\-\_\.]{1,50}$
	ruleNamePattern      = planNamePattern
	creatorIDPattern     = planNamePattern
	resourceTypePattern  = planNamePattern
	accessPointName      = regexp.MustCompile(`^[0-9a-z][0-9a-z-]{1,48}[0-9a-z]$`)
	recoveryPointPattern = regexp.MustCompile(`^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]+:.+`)
	resourceArnPattern   = regexp.MustCompile(`^arn:aws[a-z-]*:[a-z0-9-]+:.+`)
	accessPointArn       = regexp.MustCompile(`^arn:aws[a-z-]*:backup:[a-z0-9-]+:\d{12}:accesspoint/([0-9a-z][0-9a-z-]{1,48}[0-9a-z])$`)
)

// namePattern is a model pattern ^[a-zA-Z0-9<extra>]{min,max}$, matched
// without a regexp: every create checks one, and a byte loop costs a
// tenth of the regexp. The class is ASCII, so bytes count as runes.
type namePattern struct {
	min, max int
	extra    string
}

// MatchString reports whether s matches the whole pattern.
func (p namePattern) MatchString(s string) bool {
	if len(s) < p.min || len(s) > p.max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(p.extra, c) >= 0) {
			return false
		}
	}
	return true
}

// Invalid is AWS Backup's error for a value it refuses.
func Invalid(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.Backup, awswire.CodeInvalidParameterValue, format, args...)
}

// CheckVaultName refuses a vault name outside the model's pattern.
func CheckVaultName(name string) error {
	if !vaultNamePattern.MatchString(name) {
		return Invalid("Invalid backup vault name: %s. It must be 2 to 50 letters, digits, hyphens or underscores.", name).
			With("Context", name)
	}
	return nil
}

func checkCreatorID(id *string) error {
	if id != nil && !creatorIDPattern.MatchString(*id) {
		return Invalid("Invalid CreatorRequestId: it must be 1 to 50 letters, digits or '-_.' characters")
	}
	return nil
}

// ValidAccessPointName reports whether name is one the model allows.
func ValidAccessPointName(name string) bool {
	// The model's pattern ends in two negative lookbehinds, which Go's
	// regexp lacks.
	return accessPointName.MatchString(name) &&
		!strings.HasSuffix(name, "-s3alias") && !strings.HasSuffix(name, "-ext-s3alias")
}

// CheckAccessPointArn refuses an access point ARN the model does not allow.
func CheckAccessPointArn(arn string) error {
	if m := accessPointArn.FindStringSubmatch(arn); m == nil || !ValidAccessPointName(m[1]) {
		return Invalid("Invalid AccessPointArn: %s", arn).With("Context", arn)
	}
	return nil
}

// CheckRecoveryPointArn refuses a recovery point ARN the model does not
// allow.
func CheckRecoveryPointArn(arn string) error {
	if !recoveryPointPattern.MatchString(arn) {
		return Invalid("Invalid RecoveryPointArn: %s", arn)
	}
	return nil
}

// CheckResourceArn refuses a resource ARN the model does not allow.
func CheckResourceArn(arn string) error {
	if !resourceArnPattern.MatchString(arn) {
		return Invalid("Invalid ResourceArn: %s", arn)
	}
	return nil
}

// Tag limits. Vaults and plans take AWS Backup's documented quota of 50
// tags a resource (the model sets none); access points the model's 200.
var (
	resourceTags    = awswire.BackupTags
	accessPointTags = awswire.TagLimits{Tags: 200, Key: 128, Value: 256}
)

// checkTags refuses tags that break limits, naming member. The message for
// too many tags is this emulator's, in AWS Backup's style: no AWS answer
// for it is recorded.
func checkTags(member string, tags map[string]string, limits awswire.TagLimits) error {
	switch p, key := limits.Check(tags); p {
	case awswire.TagKeyLength:
		return Invalid("Invalid tag key in %s: keys must be 1 to %d characters", member, limits.Key)
	case awswire.TagKeyReserved:
		return Invalid("Invalid tag key in %s: %s. Keys may not start with aws:", member, key)
	case awswire.TagValueLength:
		return Invalid("Invalid tag value for key %s in %s: values must be at most %d characters", key, member, limits.Value)
	case awswire.TooManyTags:
		return tooManyTags(limits)
	}
	return nil
}

func tooManyTags(limits awswire.TagLimits) *awswire.Error {
	return Invalid("Number of tags exceeds the limit of %d tags per resource", limits.Tags)
}

// Plan rule limits and defaults, as AWS fills them into a rule that does
// not set them.
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

// CheckPlanDocument applies AWS's rules to a backup plan whose required
// members are present, and returns the document to store, with AWS's
// defaults. advancedResourceTypes are the resource types of its
// AdvancedBackupSettings, which are checked and then dropped.
func CheckPlanDocument(doc PlanDocument, advancedResourceTypes []string) (PlanDocument, error) {
	if !planNamePattern.MatchString(doc.BackupPlanName) {
		return doc, Invalid("Invalid BackupPlanName: %s. It must be 1 to 50 letters, digits or '-_.' characters.", doc.BackupPlanName)
	}
	if len(doc.Rules) == 0 {
		return doc, Invalid("A backup plan must contain at least one rule")
	}
	for _, t := range advancedResourceTypes {
		if t != "" && !resourceTypePattern.MatchString(t) {
			return doc, Invalid("Invalid AdvancedBackupSettings ResourceType: %s", t)
		}
	}
	for _, s := range doc.ScanSettings {
		if s.MalwareScanner != "" && !malwareScanners[s.MalwareScanner] {
			return doc, Invalid("Invalid MalwareScanner: %s. Valid values: GUARDDUTY", s.MalwareScanner)
		}
	}
	seen := make(map[string]bool, len(doc.Rules))
	rules := make([]Rule, len(doc.Rules))
	for i, r := range doc.Rules {
		if !ruleNamePattern.MatchString(r.RuleName) {
			return doc, Invalid("Invalid RuleName: %s. It must be 1 to 50 letters, digits or '-_.' characters.", r.RuleName)
		}
		if seen[r.RuleName] {
			return doc, Invalid("Rule names must be unique within a backup plan: %s", r.RuleName)
		}
		seen[r.RuleName] = true
		if !vaultNamePattern.MatchString(r.TargetBackupVaultName) {
			return doc, Invalid("Invalid TargetBackupVaultName: %s", r.TargetBackupVaultName)
		}
		if a := r.TargetLogicallyAirGappedBackupVaultArn; a != "" {
			if _, ok := awswire.ParseARN(a); !ok {
				return doc, Invalid("Invalid TargetLogicallyAirGappedBackupVaultArn: %s", a)
			}
		}
		if w := r.StartWindowMinutes; w != nil && (*w < minStartWindowMinutes || *w > maxWindowMinutes) {
			return doc, Invalid("StartWindowMinutes must be between %d and %d minutes", minStartWindowMinutes, maxWindowMinutes)
		}
		if w := r.CompletionWindowMinutes; w != nil && (*w < 1 || *w > maxWindowMinutes) {
			return doc, Invalid("CompletionWindowMinutes must be between 1 and %d minutes", maxWindowMinutes)
		}
		if err := checkLifecycle(r.Lifecycle); err != nil {
			return doc, err
		}
		if err := checkTags("RecoveryPointTags", r.RecoveryPointTags, resourceTags); err != nil {
			return doc, err
		}
		for _, ca := range r.CopyActions {
			if _, ok := awswire.ParseARN(ca.DestinationBackupVaultArn); !ok {
				return doc, Invalid("Invalid DestinationBackupVaultArn: %s", ca.DestinationBackupVaultArn)
			}
			if err := checkLifecycle(ca.Lifecycle); err != nil {
				return doc, err
			}
		}
		if len(r.IndexActions) > 1 {
			return doc, Invalid("A backup rule can have at most one IndexAction")
		}
		for _, sa := range r.ScanActions {
			if sa.MalwareScanner != "" && !malwareScanners[sa.MalwareScanner] {
				return doc, Invalid("Invalid MalwareScanner: %s. Valid values: GUARDDUTY", sa.MalwareScanner)
			}
			if sa.ScanMode != "" && !scanModes[sa.ScanMode] {
				return doc, Invalid("Invalid ScanMode: %s. Valid values: FULL_SCAN, INCREMENTAL_SCAN", sa.ScanMode)
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

func checkLifecycle(l *Lifecycle) error {
	if l == nil {
		return nil
	}
	if l.DeleteAfterEvent != "" {
		return Invalid("DeleteAfterEvent is not valid as an input")
	}
	if d := l.DeleteAfterDays; d != nil && *d < 1 {
		return Invalid("DeleteAfterDays must be at least 1")
	}
	if c := l.MoveToColdStorageAfterDays; c != nil && *c < 1 {
		return Invalid("MoveToColdStorageAfterDays must be at least 1")
	}
	if c, d := l.MoveToColdStorageAfterDays, l.DeleteAfterDays; c != nil && d != nil && *d < *c+90 {
		return Invalid("DeleteAfterDays must be at least 90 days greater than MoveToColdStorageAfterDays")
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
