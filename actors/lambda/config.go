package lambda

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/functions"
)

// Defaults of a new function, as Lambda sets them.
const (
	defaultTimeout          = 3
	defaultMemorySize       = 128
	defaultEphemeralStorage = 512
	defaultTracingMode      = "PassThrough"
	defaultArchitecture     = "x86_64"
	defaultLogFormat        = "Text"
)

// Limits Lambda documents.
const (
	// maxZipped is the largest zip Lambda takes inline (50 MB).
	maxZipped = 52428800
	// maxUnzipped is the largest a zip may unpack to (250 MB), the limit
	// the runtime unpacks it under.
	maxUnzipped = functions.MaxUnzippedSize
	// maxEnvironment is the largest environment, measured as its JSON.
	maxEnvironment = 4096
	// maxLayers is the most layers a function may reference.
	maxLayers = 5
)

var (
	rolePattern      = regexp.MustCompile(`^arn:(aws[a-zA-Z-]*)?:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+$`)
	roleText         = `arn:(aws[a-zA-Z-]*)?:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+`
	handlerPattern   = regexp.MustCompile(`^[^\s]+$`)
	envNamePattern   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]+$`)
	kmsPattern       = regexp.MustCompile(`^(arn:(aws[a-zA-Z-]*)?:[a-z0-9-.]+:.*)?$`)
	layerPattern     = regexp.MustCompile(`^arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\d{12}:layer:[a-zA-Z0-9_-]+:[0-9]+$`)
	logGroupPattern  = regexp.MustCompile(`^[\.\-_/#A-Za-z0-9]+$`)
	mountPathPattern = regexp.MustCompile(`^/mnt/[a-zA-Z0-9-_.]+$`)
)

// reservedEnvironment are the variables Lambda sets itself and refuses to
// take from a configuration.
var reservedEnvironment = []string{
	"_HANDLER", "_X_AMZN_TRACE_ID", "AWS_DEFAULT_REGION", "AWS_REGION", "AWS_EXECUTION_ENV",
	"AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "AWS_LAMBDA_FUNCTION_VERSION",
	"AWS_LAMBDA_INITIALIZATION_TYPE", "AWS_LAMBDA_LOG_GROUP_NAME", "AWS_LAMBDA_LOG_STREAM_NAME",
	"AWS_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_LAMBDA_RUNTIME_API", "LAMBDA_TASK_ROOT", "LAMBDA_RUNTIME_DIR",
}

// ConfigInput is what CreateFunction and UpdateFunctionConfiguration set;
// a nil member was absent (and keeps its value on an update).
type ConfigInput struct {
	Role        *string
	Runtime     *string
	Handler     *string
	Description *string
	Timeout     *int
	MemorySize  *int
	// Environment is the Environment's Variables; non-nil when the
	// request had an Environment (an empty one clears them).
	Environment      *map[string]string
	TracingMode      *string
	EphemeralStorage *int
	KMSKeyArn        *string
	DeadLetterTarget *string
	Layers           *[]string
	VPC              *VPCConfig
	FileSystems      *[]FileSystem
	Logging          *LoggingInput
	SnapStartApplyOn *string
	// RevisionID, when set, must be $LATEST's (updates only).
	RevisionID *string
}

// LoggingInput is a LoggingConfig as given.
type LoggingInput struct {
	LogFormat, LogGroup, ApplicationLogLevel, SystemLogLevel *string
}

func enum(v, member string, values ...string) string {
	if slices.Contains(values, v) {
		return ""
	}
	return constraint(v, member, "Member must satisfy enum value set: ["+strings.Join(values, ", ")+"]")
}

func between(v int, member string, lo, hi int) string {
	if v < lo {
		return constraint(strconv.Itoa(v), member, "Member must have value greater than or equal to "+strconv.Itoa(lo))
	}
	if v > hi {
		return constraint(strconv.Itoa(v), member, "Member must have value less than or equal to "+strconv.Itoa(hi))
	}
	return ""
}

// check returns the input's problems as the framework reports them
// (ValidationException), then the service's own refusals.
func (in *ConfigInput) check() error {
	var problems []string
	add := func(p string) {
		if p != "" {
			problems = append(problems, p)
		}
	}
	if in.Role != nil && !rolePattern.MatchString(*in.Role) {
		add(constraint(*in.Role, "role", "Member must satisfy regular expression pattern: "+roleText))
	}
	if in.Handler != nil {
		if utf8.RuneCountInString(*in.Handler) > 128 {
			add(constraint(*in.Handler, "handler", "Member must have length less than or equal to 128"))
		} else if *in.Handler != "" && !handlerPattern.MatchString(*in.Handler) {
			add(constraint(*in.Handler, "handler", `Member must satisfy regular expression pattern: [^\s]+`))
		}
	}
	if in.Description != nil && utf8.RuneCountInString(*in.Description) > 256 {
		add(constraint(*in.Description, "description", "Member must have length less than or equal to 256"))
	}
	if in.Timeout != nil {
		add(between(*in.Timeout, "timeout", 1, 900))
	}
	if in.MemorySize != nil {
		add(between(*in.MemorySize, "memorySize", 128, 32768))
	}
	if in.EphemeralStorage != nil {
		add(between(*in.EphemeralStorage, "ephemeralStorage.size", 512, 10240))
	}
	if in.TracingMode != nil {
		add(enum(*in.TracingMode, "tracingConfig.mode", "Active", "PassThrough"))
	}
	if in.KMSKeyArn != nil && !kmsPattern.MatchString(*in.KMSKeyArn) {
		add(constraint(*in.KMSKeyArn, "kMSKeyArn", `Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:[a-z0-9-.]+:.*)|()`))
	}
	if in.DeadLetterTarget != nil && *in.DeadLetterTarget != "" {
		if _, ok := awswire.ParseARN(*in.DeadLetterTarget); !ok {
			add(constraint(*in.DeadLetterTarget, "deadLetterConfig.targetArn",
				`Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\-])+:((eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1})?:(\d{12})?:(.*))|()`))
		}
	}
	if in.Environment != nil {
		for _, k := range slices.Sorted(maps.Keys(*in.Environment)) {
			if !envNamePattern.MatchString(k) {
				add("Value at 'environment.variables' failed to satisfy constraint: Map keys must satisfy constraint: " +
					"[Member must satisfy regular expression pattern: [a-zA-Z]([a-zA-Z0-9_])+]")
				break
			}
		}
	}
	if in.Layers != nil {
		for _, l := range *in.Layers {
			if !layerPattern.MatchString(l) {
				add(constraint(l, "layers", `Member must satisfy constraint: [Member must have length less than or equal to 140, `+
					`Member must have length greater than or equal to 1, Member must satisfy regular expression pattern: `+
					`(arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\d{12}:layer:[a-zA-Z0-9-_]+:[0-9]+)|(arn:[a-zA-Z0-9-]+:lambda:::awslayer:[a-zA-Z0-9-_]+), Member must not be null]`))
				break
			}
		}
	}
	if in.FileSystems != nil {
		for _, f := range *in.FileSystems {
			if !mountPathPattern.MatchString(f.LocalMountPath) {
				add(constraint(f.LocalMountPath, "fileSystemConfigs.member.localMountPath",
					`Member must satisfy regular expression pattern: /mnt/[a-zA-Z0-9-_.]+`))
				break
			}
		}
	}
	if l := in.Logging; l != nil {
		if l.LogFormat != nil {
			add(enum(*l.LogFormat, "loggingConfig.logFormat", "JSON", "Text"))
		}
		if l.ApplicationLogLevel != nil {
			add(enum(*l.ApplicationLogLevel, "loggingConfig.applicationLogLevel", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"))
		}
		if l.SystemLogLevel != nil {
			add(enum(*l.SystemLogLevel, "loggingConfig.systemLogLevel", "DEBUG", "INFO", "WARN"))
		}
		if l.LogGroup != nil && !logGroupPattern.MatchString(*l.LogGroup) {
			add(constraint(*l.LogGroup, "loggingConfig.logGroup", `Member must satisfy regular expression pattern: [\.\-_/#A-Za-z0-9]+`))
		}
	}
	if in.SnapStartApplyOn != nil {
		add(enum(*in.SnapStartApplyOn, "snapStart.applyOn", "PublishedVersions", "None"))
	}
	if len(problems) > 0 {
		return Validation(problems...)
	}
	// The service's own checks.
	if in.Runtime != nil {
		if err := checkRuntime(*in.Runtime); err != nil {
			return err
		}
	}
	if in.MemorySize != nil && *in.MemorySize > 10240 {
		return Invalid("'MemorySize' value failed to satisfy constraint: Member must have value less than or equal to 10240")
	}
	if in.Environment != nil {
		if err := checkEnvironment(*in.Environment); err != nil {
			return err
		}
	}
	if in.Layers != nil && len(*in.Layers) > maxLayers {
		return Invalid("Cannot reference more than 5 layers.")
	}
	return nil
}

func checkEnvironment(env map[string]string) error {
	var reserved []string
	for _, k := range reservedEnvironment {
		if _, ok := env[k]; ok {
			reserved = append(reserved, k)
		}
	}
	if len(reserved) > 0 {
		return Invalid("Lambda was unable to configure your environment variables because the environment variables you have provided contains reserved keys that are currently not supported for modification. Reserved keys used in this request: %s", strings.Join(reserved, ", "))
	}
	b, _ := json.Marshal(env)
	if len(b) > maxEnvironment {
		return Invalid("Lambda was unable to configure your environment variables because the environment variables you have provided exceeded the 4KB limit. String measured: %s", b)
	}
	return nil
}

// checkDescription checks the Description of an alias or a published
// version (a function's is one of ConfigInput.check's problems).
func checkDescription(d *string) error {
	if d != nil && utf8.RuneCountInString(*d) > 256 {
		return Validation(constraint(*d, "description", "Member must have length less than or equal to 256"))
	}
	return nil
}

// apply returns c changed by in (c is a copy the caller owns).
func (in *ConfigInput) apply(c *Config) {
	if in.Role != nil {
		c.Role = *in.Role
	}
	if in.Runtime != nil {
		c.Runtime = *in.Runtime
	}
	if in.Handler != nil {
		c.Handler = *in.Handler
	}
	if in.Description != nil {
		c.Description = *in.Description
	}
	if in.Timeout != nil {
		c.Timeout = *in.Timeout
	}
	if in.MemorySize != nil {
		c.MemorySize = *in.MemorySize
	}
	if in.Environment != nil {
		c.Environment = maps.Clone(*in.Environment)
		if c.Environment == nil {
			c.Environment = map[string]string{}
		}
		c.HasEnvironment = true
	}
	if in.TracingMode != nil {
		c.TracingMode = *in.TracingMode
	}
	if in.EphemeralStorage != nil {
		c.EphemeralStorage = *in.EphemeralStorage
	}
	if in.KMSKeyArn != nil {
		c.KMSKeyArn = *in.KMSKeyArn
	}
	if in.DeadLetterTarget != nil {
		c.DeadLetterTarget = *in.DeadLetterTarget
	}
	if in.Layers != nil {
		c.Layers = slices.Clone(*in.Layers)
	}
	if in.VPC != nil {
		v := *in.VPC
		v.SubnetIDs, v.SecurityGroupIDs = slices.Clone(v.SubnetIDs), slices.Clone(v.SecurityGroupIDs)
		if len(v.SubnetIDs) == 0 && len(v.SecurityGroupIDs) == 0 && v.IPv6DualStack == nil {
			c.VPC = nil
		} else {
			c.VPC = &v
		}
	}
	if in.FileSystems != nil {
		c.FileSystems = slices.Clone(*in.FileSystems)
	}
	if l := in.Logging; l != nil {
		if l.LogFormat != nil {
			c.Logging.LogFormat = *l.LogFormat
		}
		if l.LogGroup != nil {
			c.Logging.LogGroup = *l.LogGroup
		}
		if l.ApplicationLogLevel != nil {
			c.Logging.ApplicationLogLevel = *l.ApplicationLogLevel
		}
		if l.SystemLogLevel != nil {
			c.Logging.SystemLogLevel = *l.SystemLogLevel
		}
		if c.Logging.LogFormat == "JSON" {
			// Switching to JSON sets both levels to INFO unless given.
			if c.Logging.ApplicationLogLevel == "" {
				c.Logging.ApplicationLogLevel = "INFO"
			}
			if c.Logging.SystemLogLevel == "" {
				c.Logging.SystemLogLevel = "INFO"
			}
		} else if l.ApplicationLogLevel == nil && l.SystemLogLevel == nil {
			c.Logging.ApplicationLogLevel, c.Logging.SystemLogLevel = "", ""
		}
	}
	if in.SnapStartApplyOn != nil {
		c.SnapStartApplyOn = *in.SnapStartApplyOn
	}
}

// checkApplied checks what only the whole configuration tells.
func checkApplied(c *Config) error {
	if c.Logging.LogFormat == "Text" && (c.Logging.ApplicationLogLevel != "" || c.Logging.SystemLogLevel != "") {
		return Invalid(`LogLevel is not supported when LogFormat is set to "Text". Remove LogLevel from your request or change the LogFormat to "JSON" and try again.`)
	}
	if c.Runtime == "" || c.Handler == "" {
		return Invalid("Runtime and Handler are mandatory parameters for functions created with deployment packages.")
	}
	return nil
}

// checkArchitectures checks an Architectures list as Lambda does.
func checkArchitectures(a []string) error {
	if a == nil {
		return nil
	}
	list := "[" + strings.Join(a, ", ") + "]"
	if len(a) == 0 {
		return Validation(constraint(list, "architectures", "Member must have length greater than or equal to 1"))
	}
	if len(a) > 1 {
		return Validation(constraint(list, "architectures", "Member must have length less than or equal to 1"))
	}
	if a[0] != "x86_64" && a[0] != "arm64" {
		return Validation(constraint(list, "architectures",
			"Member must satisfy constraint: [Member must satisfy enum value set: [x86_64, arm64], Member must not be null]"))
	}
	return nil
}
