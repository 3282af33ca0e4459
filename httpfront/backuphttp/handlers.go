package backuphttp

import (
	"net/http"

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
// (docs/backup.md); the others are fully supported.
var Partial = []string{
	"CreateBackupPlan", "UpdateBackupPlan", "GetBackupPlan", "ListBackupPlans",
	"DescribeBackupVault", "ListBackupVaults",
	"CreateBackupAccessPoint", "DescribeBackupAccessPoint", "ListBackupAccessPoints",
	"ListBackupAccessPointsByRecoveryPoint", "ListBackupAccessPointsByResource",
}

type handlers struct {
	svc *backup.Service
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
// recovery point and no retention members (docs/backup.md).
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
	// A malformed name is refused before the body is read, as AWS does.
	if err := backup.CheckVaultName(name); err != nil {
		return err
	}
	var in createVaultBody
	if err := c.DecodeBody(&in); err != nil {
		return err
	}
	v, err := h.svc.CreateVault(c.Scope, backup.CreateVaultInput{
		Name: name, EncryptionKeyArn: in.EncryptionKeyArn, CreatorRequestID: in.CreatorRequestID, Tags: in.BackupVaultTags,
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
	var vaults backup.Page[backup.Vault]
	// No vault is shared, and every vault is a standard one.
	if !shared && (!hasType || byType == vaultType) {
		if vaults, err = h.svc.Vaults(c.Scope, page.after, page.max); err != nil {
			return err
		}
	}
	views := make([]vaultView, len(vaults.Items))
	for i, v := range vaults.Items {
		views[i] = viewVault(v)
	}
	return c.JSON(http.StatusOK, struct {
		BackupVaultList []vaultView `json:"BackupVaultList"`
		NextToken       string      `json:"NextToken,omitempty"`
	}{views, page.token(vaults.Next)})
}

// ---- tags ----

func (h *handlers) resourceArn(c *restjson.Call) (string, error) {
	return label(c, "resourceArn", "ResourceArn")
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
