package lambdahttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cloudemu/emulator/actors/lambda"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// Handlers returns the handler of every supported Lambda operation, by
// operation name.
func Handlers(svc *lambda.Service) map[string]restjson.Handler {
	h := &handlers{svc: svc}
	return map[string]restjson.Handler{
		"CreateFunction":               h.createFunction,
		"GetFunction":                  h.getFunction,
		"GetFunctionConfiguration":     h.getFunctionConfiguration,
		"ListFunctions":                h.listFunctions,
		"DeleteFunction":               h.deleteFunction,
		"UpdateFunctionCode":           h.updateFunctionCode,
		"UpdateFunctionConfiguration":  h.updateFunctionConfiguration,
		"Invoke":                       h.invoke,
		"PublishVersion":               h.publishVersion,
		"ListVersionsByFunction":       h.listVersions,
		"CreateAlias":                  h.createAlias,
		"GetAlias":                     h.getAlias,
		"UpdateAlias":                  h.updateAlias,
		"DeleteAlias":                  h.deleteAlias,
		"ListAliases":                  h.listAliases,
		"AddPermission":                h.addPermission,
		"RemovePermission":             h.removePermission,
		"GetPolicy":                    h.getPolicy,
		"TagResource":                  h.tagResource,
		"UntagResource":                h.untagResource,
		"ListTags":                     h.listTags,
		"GetFunctionCodeSigningConfig": h.getCodeSigningConfig,
		"GetRuntimeManagementConfig":   h.getRuntimeManagementConfig,
		"GetFunctionConcurrency":       h.getConcurrency,
		"PutFunctionConcurrency":       h.putConcurrency,
		"DeleteFunctionConcurrency":    h.deleteConcurrency,
		"GetAccountSettings":           h.getAccountSettings,
		"GetFunctionRecursionConfig":   h.getRecursionConfig,
	}
}

// Partial lists the supported operations that are emulated only in part
// (docs/lambda.md); the others are fully supported.
var Partial = []string{
	"CreateFunction", "UpdateFunctionCode", "UpdateFunctionConfiguration", "Invoke",
	"AddPermission", "PutFunctionConcurrency", "GetAccountSettings",
}

type handlers struct {
	svc *lambda.Service
}

// decode decodes the JSON body into v; an empty body is {}. A body that
// is not the operation's JSON is InvalidRequestContentException.
func decode(c *restjson.Call, v any) error {
	body := bytes.TrimSpace(c.Ctx.PostBody())
	if len(body) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te):
			member := te.Field
			if member == "" {
				member = "the request"
			}
			return lambda.InvalidContent(fmt.Sprintf("Cannot deserialize value of type %s from %s (member %s)", typeName(te), te.Value, member))
		case errors.As(err, &se):
			return lambda.InvalidContent(fmt.Sprintf("%s at offset %d", se.Error(), se.Offset))
		}
		return lambda.InvalidContent(err.Error())
	}
	return nil
}

func typeName(te *json.UnmarshalTypeError) string {
	if te.Type == nil {
		return "value"
	}
	return te.Type.String()
}

// functionName is the required FunctionName path label.
func functionName(c *restjson.Call) (string, error) {
	return requiredLabel(c, "FunctionName", "functionName")
}

func requiredLabel(c *restjson.Call, label, member string) (string, error) {
	v, err := c.Label(label)
	if err != nil {
		return "", lambda.Validation(fmt.Sprintf("Value at '%s' failed to satisfy constraint: invalid percent-encoding", member))
	}
	if v == "" {
		return "", lambda.Missing(member)
	}
	return v, nil
}

// query returns a query parameter ("" when absent).
func query(c *restjson.Call, name string) string {
	v, _ := c.Query(name)
	return v
}

// page reads Marker and MaxItems (1 to 10000; 50 when absent).
func page(c *restjson.Call) (marker string, n int, err error) {
	marker = query(c, "Marker")
	n = 50
	if v, ok := c.Query("MaxItems"); ok {
		i, perr := strconv.Atoi(v)
		switch {
		case perr != nil:
			return "", 0, lambda.InvalidContent(fmt.Sprintf("Cannot deserialize value of type java.lang.Integer from String %q (member MaxItems)", v))
		case i < 1:
			return "", 0, lambda.Validation(fmt.Sprintf("Value '%d' at 'maxItems' failed to satisfy constraint: Member must have value greater than or equal to 1", i))
		case i > 10000:
			return "", 0, lambda.Validation(fmt.Sprintf("Value '%d' at 'maxItems' failed to satisfy constraint: Member must have value less than or equal to 10000", i))
		}
		n = i
	}
	return marker, n, nil
}

// ---- views ----

// lastModified is Lambda's LastModified form: 2024-01-02T03:04:05.000+0000.
func lastModified(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000-0700")
}

type vpcView struct {
	SubnetIDs               []string `json:"SubnetIds"`
	SecurityGroupIDs        []string `json:"SecurityGroupIds"`
	VpcID                   string   `json:"VpcId"`
	Ipv6AllowedForDualStack *bool    `json:"Ipv6AllowedForDualStack,omitempty"`
}

type envView struct {
	Variables map[string]string `json:"Variables"`
}

type layerView struct {
	Arn      string `json:"Arn"`
	CodeSize int64  `json:"CodeSize"`
}

type fsView struct {
	Arn            string `json:"Arn"`
	LocalMountPath string `json:"LocalMountPath"`
}

type loggingView struct {
	LogFormat           string `json:"LogFormat"`
	ApplicationLogLevel string `json:"ApplicationLogLevel,omitempty"`
	SystemLogLevel      string `json:"SystemLogLevel,omitempty"`
	LogGroup            string `json:"LogGroup"`
}

type modeView struct {
	Mode string `json:"Mode"`
}

type sizeView struct {
	Size int `json:"Size"`
}

type targetView struct {
	TargetArn string `json:"TargetArn"`
}

type snapStartView struct {
	ApplyOn            string `json:"ApplyOn"`
	OptimizationStatus string `json:"OptimizationStatus"`
}

type runtimeVersionView struct {
	RuntimeVersionArn string `json:"RuntimeVersionArn"`
}

// configView is a FunctionConfiguration.
type configView struct {
	Architectures        []string            `json:"Architectures"`
	CodeSha256           string              `json:"CodeSha256"`
	CodeSize             int64               `json:"CodeSize"`
	DeadLetterConfig     *targetView         `json:"DeadLetterConfig,omitempty"`
	Description          string              `json:"Description"`
	Environment          *envView            `json:"Environment,omitempty"`
	EphemeralStorage     sizeView            `json:"EphemeralStorage"`
	FileSystemConfigs    []fsView            `json:"FileSystemConfigs,omitempty"`
	FunctionArn          string              `json:"FunctionArn"`
	FunctionName         string              `json:"FunctionName"`
	Handler              string              `json:"Handler,omitempty"`
	KMSKeyArn            string              `json:"KMSKeyArn,omitempty"`
	LastModified         string              `json:"LastModified"`
	LastUpdateStatus     string              `json:"LastUpdateStatus,omitempty"`
	Layers               []layerView         `json:"Layers,omitempty"`
	LoggingConfig        loggingView         `json:"LoggingConfig"`
	MemorySize           int                 `json:"MemorySize"`
	PackageType          string              `json:"PackageType"`
	RevisionID           string              `json:"RevisionId"`
	Role                 string              `json:"Role"`
	Runtime              string              `json:"Runtime,omitempty"`
	RuntimeVersionConfig *runtimeVersionView `json:"RuntimeVersionConfig,omitempty"`
	SnapStart            snapStartView       `json:"SnapStart"`
	State                string              `json:"State,omitempty"`
	Timeout              int                 `json:"Timeout"`
	TracingConfig        modeView            `json:"TracingConfig"`
	Version              string              `json:"Version"`
	VpcConfig            *vpcView            `json:"VpcConfig,omitempty"`
}

// runtimeVersionARN is a stable stand-in for the runtime version Lambda
// names: one per runtime and region.
func runtimeVersionARN(region, runtime string) string {
	sum := sha256.Sum256([]byte("cloudemu/" + runtime))
	return "arn:aws:lambda:" + region + "::runtime:" + hex.EncodeToString(sum[:])
}

// viewConfig shows s; listed drops the members listings omit (state,
// update status, runtime version).
func viewConfig(s lambda.Shown, listed bool) configView {
	c, f := s.Config, s.Function
	v := configView{
		Architectures:    []string{c.Architecture},
		CodeSha256:       c.CodeSHA256,
		CodeSize:         c.CodeSize,
		Description:      c.Description,
		EphemeralStorage: sizeView{c.EphemeralStorage},
		FunctionArn:      s.ARN,
		FunctionName:     f.Name,
		Handler:          c.Handler,
		KMSKeyArn:        c.KMSKeyArn,
		LastModified:     lastModified(c.LastModified),
		LoggingConfig: loggingView{LogFormat: c.Logging.LogFormat, LogGroup: c.Logging.LogGroup,
			ApplicationLogLevel: c.Logging.ApplicationLogLevel, SystemLogLevel: c.Logging.SystemLogLevel},
		MemorySize:    c.MemorySize,
		PackageType:   "Zip",
		RevisionID:    c.RevisionID,
		Role:          c.Role,
		Runtime:       c.Runtime,
		SnapStart:     snapStartView{ApplyOn: c.SnapStartApplyOn, OptimizationStatus: "Off"},
		Timeout:       c.Timeout,
		TracingConfig: modeView{c.TracingMode},
		Version:       c.Version,
	}
	if v.SnapStart.ApplyOn == "" {
		v.SnapStart.ApplyOn = "None"
	}
	if c.HasEnvironment {
		vars := c.Environment
		if vars == nil {
			vars = map[string]string{}
		}
		v.Environment = &envView{Variables: vars}
	}
	if c.DeadLetterTarget != "" {
		v.DeadLetterConfig = &targetView{TargetArn: c.DeadLetterTarget}
	}
	for _, l := range c.Layers {
		v.Layers = append(v.Layers, layerView{Arn: l})
	}
	for _, fs := range c.FileSystems {
		v.FileSystemConfigs = append(v.FileSystemConfigs, fsView(fs))
	}
	if c.VPC != nil {
		v.VpcConfig = &vpcView{SubnetIDs: nonNil(c.VPC.SubnetIDs), SecurityGroupIDs: nonNil(c.VPC.SecurityGroupIDs),
			Ipv6AllowedForDualStack: c.VPC.IPv6DualStack}
	}
	if !listed {
		// Functions are active, and their updates done, at once.
		v.State, v.LastUpdateStatus = "Active", "Successful"
		if c.Runtime != "" {
			a, _ := awswire.ParseARN(f.ARN)
			v.RuntimeVersionConfig = &runtimeVersionView{runtimeVersionARN(a.Region, c.Runtime)}
		}
	}
	return v
}

// viewListed shows a page's items as listings show them.
func viewListed(p lambda.FunctionPage) []configView {
	out := make([]configView, len(p.Items))
	for i, s := range p.Items {
		out[i] = viewConfig(s, true)
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ---- settings ----

func (h *handlers) getCodeSigningConfig(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	arn, fn, err := h.svc.CodeSigningConfig(c.Scope, name)
	if err != nil {
		return err
	}
	if arn == "" {
		c.Raw(c.Op.Status, []byte("{}"))
		return nil
	}
	return c.JSON(c.Op.Status, map[string]string{"CodeSigningConfigArn": arn, "FunctionName": fn})
}

func (h *handlers) getRuntimeManagementConfig(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	arn, err := h.svc.RuntimeManagement(c.Scope, name, query(c, "Qualifier"))
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, map[string]string{"UpdateRuntimeOn": "Auto", "FunctionArn": arn})
}

type concurrencyView struct {
	ReservedConcurrentExecutions *int `json:"ReservedConcurrentExecutions,omitempty"`
}

func (h *handlers) getConcurrency(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	n, err := h.svc.Concurrency(c.Scope, name)
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, concurrencyView{n})
}

func (h *handlers) putConcurrency(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	var in concurrencyView
	if err := decode(c, &in); err != nil {
		return err
	}
	n, err := h.svc.PutConcurrency(c.Scope, name, in.ReservedConcurrentExecutions)
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, concurrencyView{&n})
}

func (h *handlers) deleteConcurrency(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteConcurrency(c.Scope, name); err != nil {
		return err
	}
	c.Empty(c.Op.Status)
	return nil
}

func (h *handlers) getAccountSettings(c *restjson.Call) error {
	a := h.svc.Account(c.Scope)
	return c.JSON(c.Op.Status, map[string]any{
		"AccountLimit": map[string]any{
			"TotalCodeSize":                  a.TotalCodeSize,
			"CodeSizeUnzipped":               a.CodeSizeUnzipped,
			"CodeSizeZipped":                 a.CodeSizeZipped,
			"ConcurrentExecutions":           a.ConcurrentExecutions,
			"UnreservedConcurrentExecutions": a.UnreservedConcurrent,
		},
		"AccountUsage": map[string]any{"TotalCodeSize": a.UsedCodeSize, "FunctionCount": a.FunctionCount},
	})
}

func (h *handlers) getRecursionConfig(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	loop, err := h.svc.RecursionConfig(c.Scope, name)
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, map[string]string{"RecursiveLoop": loop})
}

// ---- tags ----

func resource(c *restjson.Call) (string, error) { return requiredLabel(c, "Resource", "resource") }

func (h *handlers) listTags(c *restjson.Call) error {
	arn, err := resource(c)
	if err != nil {
		return err
	}
	tags, err := h.svc.Tags(arn)
	if err != nil {
		return err
	}
	if tags == nil {
		tags = map[string]string{}
	}
	return c.JSON(c.Op.Status, map[string]map[string]string{"Tags": tags})
}

func (h *handlers) tagResource(c *restjson.Call) error {
	arn, err := resource(c)
	if err != nil {
		return err
	}
	var in struct {
		Tags map[string]string `json:"Tags"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.Tags == nil {
		// Absent: the framework's null check, before the resource's.
		return lambda.Missing("tags")
	}
	if err := h.svc.Tag(arn, in.Tags); err != nil {
		return err
	}
	c.Empty(c.Op.Status)
	return nil
}

func (h *handlers) untagResource(c *restjson.Call) error {
	arn, err := resource(c)
	if err != nil {
		return err
	}
	var keys []string
	for _, v := range c.Ctx.QueryArgs().PeekMulti("tagKeys") {
		keys = append(keys, string(v))
	}
	if err := h.svc.Untag(arn, keys); err != nil {
		return err
	}
	c.Empty(c.Op.Status)
	return nil
}
