package lambdahttp

import (
	"github.com/cloudemu/emulator/actors/lambda"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// ---- wire shapes of the requests ----

type environmentIn struct {
	Variables map[string]string `json:"Variables"`
}

type vpcIn struct {
	SubnetIDs               []string `json:"SubnetIds"`
	SecurityGroupIDs        []string `json:"SecurityGroupIds"`
	Ipv6AllowedForDualStack *bool    `json:"Ipv6AllowedForDualStack"`
}

type loggingIn struct {
	LogFormat           *string `json:"LogFormat"`
	ApplicationLogLevel *string `json:"ApplicationLogLevel"`
	SystemLogLevel      *string `json:"SystemLogLevel"`
	LogGroup            *string `json:"LogGroup"`
}

type modeIn struct {
	Mode *string `json:"Mode"`
}

type sizeIn struct {
	Size *int `json:"Size"`
}

type targetIn struct {
	TargetArn *string `json:"TargetArn"`
}

type applyOnIn struct {
	ApplyOn *string `json:"ApplyOn"`
}

type fsIn struct {
	Arn            string `json:"Arn"`
	LocalMountPath string `json:"LocalMountPath"`
}

// configIn is what CreateFunction and UpdateFunctionConfiguration share.
type configIn struct {
	Role              *string        `json:"Role"`
	Runtime           *string        `json:"Runtime"`
	Handler           *string        `json:"Handler"`
	Description       *string        `json:"Description"`
	Timeout           *int           `json:"Timeout"`
	MemorySize        *int           `json:"MemorySize"`
	Environment       *environmentIn `json:"Environment"`
	TracingConfig     *modeIn        `json:"TracingConfig"`
	EphemeralStorage  *sizeIn        `json:"EphemeralStorage"`
	KMSKeyArn         *string        `json:"KMSKeyArn"`
	DeadLetterConfig  *targetIn      `json:"DeadLetterConfig"`
	Layers            *[]string      `json:"Layers"`
	VpcConfig         *vpcIn         `json:"VpcConfig"`
	FileSystemConfigs *[]fsIn        `json:"FileSystemConfigs"`
	LoggingConfig     *loggingIn     `json:"LoggingConfig"`
	SnapStart         *applyOnIn     `json:"SnapStart"`
	RevisionID        *string        `json:"RevisionId"`
}

func (in *configIn) domain() lambda.ConfigInput {
	out := lambda.ConfigInput{Role: in.Role, Runtime: in.Runtime, Handler: in.Handler, Description: in.Description,
		Timeout: in.Timeout, MemorySize: in.MemorySize, KMSKeyArn: in.KMSKeyArn, Layers: in.Layers, RevisionID: in.RevisionID}
	if in.Environment != nil {
		vars := in.Environment.Variables
		out.Environment = &vars
	}
	if in.TracingConfig != nil && in.TracingConfig.Mode != nil {
		out.TracingMode = in.TracingConfig.Mode
	}
	if in.EphemeralStorage != nil {
		if in.EphemeralStorage.Size == nil {
			n := 0 // the framework refuses a missing size as out of range
			out.EphemeralStorage = &n
		} else {
			out.EphemeralStorage = in.EphemeralStorage.Size
		}
	}
	if in.DeadLetterConfig != nil {
		t := ""
		if in.DeadLetterConfig.TargetArn != nil {
			t = *in.DeadLetterConfig.TargetArn
		}
		out.DeadLetterTarget = &t
	}
	if in.VpcConfig != nil {
		out.VPC = &lambda.VPCConfig{SubnetIDs: in.VpcConfig.SubnetIDs, SecurityGroupIDs: in.VpcConfig.SecurityGroupIDs,
			IPv6DualStack: in.VpcConfig.Ipv6AllowedForDualStack}
	}
	if in.FileSystemConfigs != nil {
		fs := make([]lambda.FileSystem, len(*in.FileSystemConfigs))
		for i, f := range *in.FileSystemConfigs {
			fs[i] = lambda.FileSystem(f)
		}
		out.FileSystems = &fs
	}
	if l := in.LoggingConfig; l != nil {
		out.Logging = &lambda.LoggingInput{LogFormat: l.LogFormat, LogGroup: l.LogGroup,
			ApplicationLogLevel: l.ApplicationLogLevel, SystemLogLevel: l.SystemLogLevel}
	}
	if in.SnapStart != nil {
		a := "None"
		if in.SnapStart.ApplyOn != nil {
			a = *in.SnapStart.ApplyOn
		}
		out.SnapStartApplyOn = &a
	}
	return out
}

type codeIn struct {
	ZipFile         []byte  `json:"ZipFile"`
	S3Bucket        *string `json:"S3Bucket"`
	S3Key           *string `json:"S3Key"`
	S3ObjectVersion *string `json:"S3ObjectVersion"`
	ImageURI        *string `json:"ImageUri"`
}

func (c codeIn) domain() lambda.CodeInput {
	return lambda.CodeInput{ZipFile: c.ZipFile, S3Bucket: c.S3Bucket, S3Key: c.S3Key,
		S3ObjectVersion: c.S3ObjectVersion, ImageURI: c.ImageURI}
}

type createIn struct {
	FunctionName *string `json:"FunctionName"`
	configIn
	Code                 *codeIn           `json:"Code"`
	PackageType          *string           `json:"PackageType"`
	Architectures        []string          `json:"Architectures"`
	Publish              bool              `json:"Publish"`
	Tags                 map[string]string `json:"Tags"`
	CodeSigningConfigArn *string           `json:"CodeSigningConfigArn"`
}

// ---- functions ----

func (h *handlers) createFunction(c *restjson.Call) error {
	var in createIn
	if err := decode(c, &in); err != nil {
		return err
	}
	var missing []string
	if in.FunctionName == nil {
		missing = append(missing, "functionName")
	}
	if in.Code == nil {
		missing = append(missing, "code")
	}
	if in.Role == nil {
		missing = append(missing, "role")
	}
	if len(missing) > 0 {
		problems := make([]string, len(missing))
		for i, m := range missing {
			problems[i] = "Value null at '" + m + "' failed to satisfy constraint: Member must not be null"
		}
		return lambda.Validation(problems...)
	}
	s, err := h.svc.CreateFunction(c.Scope, lambda.CreateInput{
		FunctionName: *in.FunctionName, ConfigInput: in.configIn.domain(), Code: in.Code.domain(),
		PackageType: in.PackageType, Architectures: in.Architectures, Publish: in.Publish, Tags: in.Tags,
		CodeSigningConfigArn: in.CodeSigningConfigArn,
	})
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, viewConfig(s, false))
}

type codeLocation struct {
	RepositoryType string `json:"RepositoryType"`
	Location       string `json:"Location,omitempty"`
}

type getFunctionView struct {
	Configuration configView        `json:"Configuration"`
	Code          codeLocation      `json:"Code"`
	Tags          map[string]string `json:"Tags,omitempty"`
	Concurrency   *concurrencyView  `json:"Concurrency,omitempty"`
}

func (h *handlers) getFunction(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	s, err := h.svc.GetFunction(c.Scope, name, query(c, "Qualifier"))
	if err != nil {
		return err
	}
	out := getFunctionView{Configuration: viewConfig(s, false), Code: codeLocation{RepositoryType: "S3",
		Location: h.svc.CodeLocation(c.Scope, s.Config.CodeHash, string(c.Ctx.Host()))}, Tags: s.Function.Tags}
	if n := s.Function.ReservedConcurrency; n != nil {
		out.Concurrency = &concurrencyView{n}
	}
	return c.JSON(c.Op.Status, out)
}

func (h *handlers) getFunctionConfiguration(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	s, err := h.svc.GetFunction(c.Scope, name, query(c, "Qualifier"))
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, viewConfig(s, false))
}

type functionsPage struct {
	Functions  []configView `json:"Functions"`
	NextMarker string       `json:"NextMarker,omitempty"`
}

func (h *handlers) listFunctions(c *restjson.Call) error {
	all := false
	if v, ok := c.Query("FunctionVersion"); ok {
		if v != "ALL" {
			return lambda.Validation("Value '" + v + "' at 'functionVersion' failed to satisfy constraint: Member must satisfy enum value set: [ALL]")
		}
		all = true
	}
	marker, n, err := page(c)
	if err != nil {
		return err
	}
	p, err := h.svc.ListFunctions(c.Scope, all, marker, n)
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, functionsPage{Functions: viewListed(p), NextMarker: p.Next})
}

func (h *handlers) deleteFunction(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteFunction(c.Scope, name, query(c, "Qualifier")); err != nil {
		return err
	}
	c.Empty(204) // the model says 200; Lambda answers 204
	return nil
}

type updateCodeIn struct {
	codeIn
	Architectures []string `json:"Architectures"`
	Publish       bool     `json:"Publish"`
	DryRun        bool     `json:"DryRun"`
	RevisionID    *string  `json:"RevisionId"`
}

func (h *handlers) updateFunctionCode(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	var in updateCodeIn
	if err := decode(c, &in); err != nil {
		return err
	}
	s, err := h.svc.UpdateFunctionCode(c.Scope, name, lambda.UpdateCodeInput{Code: in.codeIn.domain(),
		Architectures: in.Architectures, Publish: in.Publish, DryRun: in.DryRun, RevisionID: in.RevisionID})
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, viewConfig(s, false))
}

func (h *handlers) updateFunctionConfiguration(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	var in configIn
	if err := decode(c, &in); err != nil {
		return err
	}
	s, err := h.svc.UpdateFunctionConfiguration(c.Scope, name, in.domain())
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, viewConfig(s, false))
}

// ---- versions ----

func (h *handlers) publishVersion(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	var in struct {
		CodeSha256  *string `json:"CodeSha256"`
		Description *string `json:"Description"`
		RevisionID  *string `json:"RevisionId"`
	}
	if err := decode(c, &in); err != nil {
		return err
	}
	s, err := h.svc.PublishVersion(c.Scope, name, lambda.PublishVersionInput{CodeSHA256: in.CodeSha256,
		Description: in.Description, RevisionID: in.RevisionID})
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, viewConfig(s, false))
}

type versionsPage struct {
	Versions   []configView `json:"Versions"`
	NextMarker string       `json:"NextMarker,omitempty"`
}

func (h *handlers) listVersions(c *restjson.Call) error {
	name, err := functionName(c)
	if err != nil {
		return err
	}
	marker, n, err := page(c)
	if err != nil {
		return err
	}
	p, err := h.svc.ListVersions(c.Scope, name, marker, n)
	if err != nil {
		return err
	}
	return c.JSON(c.Op.Status, versionsPage{Versions: viewListed(p), NextMarker: p.Next})
}
