package backuphttp

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/cloudemu/emulator/actors/backup"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// Handlers returns the handler of every supported Backup operation, by
// operation name.
func Handlers(svc *backup.Service) map[string]restjson.Handler {
	h := &handlers{svc: svc}
	return map[string]restjson.Handler{
		"CreateBackupVault":                     h.createVault,
		"DeleteBackupVault":                     h.deleteVault,
		"DescribeBackupVault":                   h.describeVault,
		"ListBackupVaults":                      h.listVaults,
		"CreateBackupPlan":                      h.createPlan,
		"DeleteBackupPlan":                      h.deletePlan,
		"GetBackupPlan":                         h.getPlan,
		"ListBackupPlans":                       h.listPlans,
		"UpdateBackupPlan":                      h.updatePlan,
		"CreateBackupAccessPoint":               h.createAccessPoint,
		"DeleteBackupAccessPoint":               h.deleteAccessPoint,
		"DescribeBackupAccessPoint":             h.describeAccessPoint,
		"ListBackupAccessPoints":                h.listAccessPoints,
		"ListBackupAccessPointsByRecoveryPoint": h.listAccessPointsByRecoveryPoint,
		"ListBackupAccessPointsByResource":      h.listAccessPointsByResource,
		"TagResource":                           h.tagResource,
		"ListTags":                              h.listTags,
		"UntagResource":                         h.untagResource,
	}
}

// Partial lists the supported operations that are emulated only in part
// (SPEC.md §4.1); the others are fully supported.
var Partial = []string{
	"CreateBackupPlan", "UpdateBackupPlan", "GetBackupPlan", "ListBackupPlans",
	"DescribeBackupVault", "ListBackupVaults",
	"CreateBackupAccessPoint", "DescribeBackupAccessPoint", "ListBackupAccessPoints",
	"ListBackupAccessPointsByRecoveryPoint", "ListBackupAccessPointsByResource",
}

type handlers struct {
	svc *backup.Service
}

// Patterns from the model's shapes.
var (
	vaultNamePattern     = regexp.MustCompile(`^[a-zA-Z0-9\-\_]{2,50}$`)
	planNamePattern      = regexp.MustCompile(`^[a-zA-Z0-9\-\_\.]{1,50}$`)
	ruleNamePattern      = planNamePattern
	creatorIDPattern     = planNamePattern
	resourceTypePattern  = planNamePattern
	accessPointName      = regexp.MustCompile(`^[0-9a-z][0-9a-z-]{1,48}[0-9a-z]$`)
	recoveryPointPattern = regexp.MustCompile(`^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]+:.+`)
	resourceArnPattern   = regexp.MustCompile(`^arn:aws[a-z-]*:[a-z0-9-]+:.+`)
	accessPointArn       = regexp.MustCompile(`^arn:aws[a-z-]*:backup:[a-z0-9-]+:\d{12}:accesspoint/([0-9a-z][0-9a-z-]{1,48}[0-9a-z])$`)
)

func validAccessPointName(name string) bool {
	// The model's pattern ends in two negative lookbehinds, which Go's
	// regexp lacks.
	return accessPointName.MatchString(name) &&
		!strings.HasSuffix(name, "-s3alias") && !strings.HasSuffix(name, "-ext-s3alias")
}

func validAccessPointArn(arn string) bool {
	m := accessPointArn.FindStringSubmatch(arn)
	return m != nil && validAccessPointName(m[1])
}

func invalid(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.Backup, awswire.CodeInvalidParameterValue, format, args...)
}

func missing(member string) *awswire.Error {
	return awswire.Errorf(awswire.Backup, awswire.CodeMissingParameterValue, "Missing required parameter: %s", member).
		With("Context", member)
}

// label returns a required path label, refusing an empty one.
func label(c *restjson.Call, name, member string) (string, error) {
	v, err := c.Label(name)
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", missing(member)
	}
	return v, nil
}

// ---- vaults ----

type vaultView struct {
	BackupVaultName        string        `json:"BackupVaultName"`
	BackupVaultArn         string        `json:"BackupVaultArn"`
	VaultType              string        `json:"VaultType"`
	VaultState             string        `json:"VaultState"`
	EncryptionKeyArn       string        `json:"EncryptionKeyArn,omitempty"`
	CreationDate           awswire.Epoch `json:"CreationDate"`
	CreatorRequestID       string        `json:"CreatorRequestId,omitempty"`
	NumberOfRecoveryPoints int64         `json:"NumberOfRecoveryPoints"`
	Locked                 bool          `json:"Locked"`
	EncryptionKeyType      string        `json:"EncryptionKeyType,omitempty"`
}

// Every vault is a standard vault, available at once, never locked, with no
// recovery point and no retention members (SPEC.md §2.1).
const (
	vaultType  = "BACKUP_VAULT"
	vaultState = "AVAILABLE"
)

func viewVault(v *backup.Vault) vaultView {
	out := vaultView{
		BackupVaultName:  v.Name,
		BackupVaultArn:   v.ARN,
		VaultType:        vaultType,
		VaultState:       vaultState,
		EncryptionKeyArn: v.EncryptionKeyArn,
		CreationDate:     awswire.Epoch(v.Created),
		CreatorRequestID: v.CreatorRequestID,
	}
	if v.EncryptionKeyArn != "" {
		out.EncryptionKeyType = "CUSTOMER_MANAGED_KMS_KEY"
	}
	return out
}

// vaultBody returns the DescribeBackupVault body, encoded once per snapshot.
func vaultBody(v *backup.Vault) ([]byte, error) {
	if b := v.Memo.Get(); b != nil {
		return b, nil
	}
	b, err := restjson.Marshal(viewVault(v))
	if err != nil {
		return nil, err
	}
	v.Memo.Set(b)
	return b, nil
}

type createVaultBody struct {
	BackupVaultTags  map[string]string `json:"BackupVaultTags"`
	EncryptionKeyArn *string           `json:"EncryptionKeyArn"`
	CreatorRequestID *string           `json:"CreatorRequestId"`
}

func (h *handlers) createVault(c *restjson.Call) error {
	name, err := label(c, "backupVaultName", "BackupVaultName")
	if err != nil {
		return err
	}
	if !vaultNamePattern.MatchString(name) {
		return invalid("Invalid backup vault name: %s. It must be 2 to 50 letters, digits, hyphens or underscores.", name).
			With("Context", name)
	}
	var in createVaultBody
	if err := c.DecodeBody(&in); err != nil {
		return err
	}
	if err := checkTags("BackupVaultTags", in.BackupVaultTags); err != nil {
		return err
	}
	keyArn := deref(in.EncryptionKeyArn)
	if in.EncryptionKeyArn != nil {
		if a, ok := awswire.ParseARN(keyArn); !ok || a.Service != "kms" {
			return invalid("Invalid EncryptionKeyArn: %s", keyArn)
		}
	}
	creatorID := deref(in.CreatorRequestID)
	if in.CreatorRequestID != nil && !creatorIDPattern.MatchString(creatorID) {
		return invalid("Invalid CreatorRequestId: it must be 1 to 50 letters, digits or '-_.' characters")
	}
	v, err := h.svc.CreateVault(c.Scope, backup.CreateVaultInput{
		Name: name, EncryptionKeyArn: keyArn, CreatorRequestID: creatorID, Tags: in.BackupVaultTags,
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct {
		BackupVaultName string        `json:"BackupVaultName"`
		BackupVaultArn  string        `json:"BackupVaultArn"`
		CreationDate    awswire.Epoch `json:"CreationDate"`
	}{v.Name, v.ARN, awswire.Epoch(v.Created)})
}

func (h *handlers) describeVault(c *restjson.Call) error {
	name, err := label(c, "backupVaultName", "BackupVaultName")
	if err != nil {
		return err
	}
	// backupVaultAccountId names the account that owns a shared vault; every
	// vault here is the caller's own, so a different account finds nothing.
	if acct, ok := c.Query("backupVaultAccountId"); ok && acct != "" && acct != c.Scope.Account {
		return backup.VaultNotFound(name)
	}
	v, ok := h.svc.Vault(c.Scope, name)
	if !ok {
		return backup.VaultNotFound(name)
	}
	b, err := vaultBody(v)
	if err != nil {
		return err
	}
	c.Raw(http.StatusOK, b)
	return nil
}

func (h *handlers) deleteVault(c *restjson.Call) error {
	name, err := label(c, "backupVaultName", "BackupVaultName")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteVault(c.Scope, name); err != nil {
		return err
	}
	c.Empty(http.StatusOK)
	return nil
}

var vaultTypes = map[string]bool{
	"BACKUP_VAULT": true, "LOGICALLY_AIR_GAPPED_BACKUP_VAULT": true, "RESTORE_ACCESS_BACKUP_VAULT": true,
}

func (h *handlers) listVaults(c *restjson.Call) error {
	page, err := readPage(c, "maxResults", "nextToken", 1000)
	if err != nil {
		return err
	}
	byType, hasType := c.Query("vaultType")
	if hasType && !vaultTypes[byType] {
		return invalid("Invalid vaultType: %s. Valid values: BACKUP_VAULT, LOGICALLY_AIR_GAPPED_BACKUP_VAULT, RESTORE_ACCESS_BACKUP_VAULT", byType)
	}
	shared, _, err := c.QueryBool("shared")
	if err != nil {
		return err
	}
	var vaults []*backup.Vault
	// No vault is shared, and every vault is a standard one.
	if !shared && (!hasType || byType == vaultType) {
		vaults = h.svc.Vaults(c.Scope)
	}
	items, next := paginate(vaults, page, func(v *backup.Vault) uint64 { return v.Seq })
	views := make([]vaultView, len(items))
	for i, v := range items {
		views[i] = viewVault(v)
	}
	return c.JSON(http.StatusOK, struct {
		BackupVaultList []vaultView `json:"BackupVaultList"`
		NextToken       string      `json:"NextToken,omitempty"`
	}{views, next})
}

// ---- tags ----

func checkTags(member string, tags map[string]string) error {
	for k, v := range tags {
		if k == "" || len(k) > 128 {
			return invalid("Invalid tag key in %s: keys must be 1 to 128 characters", member)
		}
		if len(v) > 256 {
			return invalid("Invalid tag value for key %s in %s: values must be at most 256 characters", k, member)
		}
	}
	return nil
}

func (h *handlers) resourceArn(c *restjson.Call) (string, error) {
	arn, err := label(c, "resourceArn", "ResourceArn")
	if err != nil {
		return "", err
	}
	if _, ok := awswire.ParseARN(arn); !ok {
		return "", invalid("Invalid ARN: %s", arn).With("Context", arn)
	}
	return arn, nil
}

func (h *handlers) tagResource(c *restjson.Call) error {
	arn, err := h.resourceArn(c)
	if err != nil {
		return err
	}
	var in struct {
		Tags map[string]string `json:"Tags"`
	}
	if err := c.DecodeBody(&in); err != nil {
		return err
	}
	if in.Tags == nil {
		return missing("Tags")
	}
	if err := checkTags("Tags", in.Tags); err != nil {
		return err
	}
	if err := h.svc.Tag(arn, in.Tags); err != nil {
		return err
	}
	c.Empty(http.StatusOK)
	return nil
}

func (h *handlers) untagResource(c *restjson.Call) error {
	arn, err := h.resourceArn(c)
	if err != nil {
		return err
	}
	var in struct {
		TagKeyList []string `json:"TagKeyList"`
	}
	if err := c.DecodeBody(&in); err != nil {
		return err
	}
	if in.TagKeyList == nil {
		return missing("TagKeyList")
	}
	if err := h.svc.Untag(arn, in.TagKeyList); err != nil {
		return err
	}
	c.Empty(http.StatusOK)
	return nil
}

func (h *handlers) listTags(c *restjson.Call) error {
	arn, err := h.resourceArn(c)
	if err != nil {
		return err
	}
	page, err := readPage(c, "maxResults", "nextToken", 1000)
	if err != nil {
		return err
	}
	tags, err := h.svc.Tags(arn)
	if err != nil {
		return err
	}
	out, next := paginateTags(tags, page)
	return c.JSON(http.StatusOK, struct {
		NextToken string            `json:"NextToken,omitempty"`
		Tags      map[string]string `json:"Tags"`
	}{next, out})
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
