package lambda

import (
	"encoding/json"
	"slices"
)

// Config is one version of a function's configuration: $LATEST, or a
// published version (which never changes but for its revision id and
// policy). Maps and slices are shared between snapshots and never
// modified in place.
type Config struct {
	// Version is "$LATEST" or the published version's number.
	Version     string `json:"version"`
	Description string `json:"description"`
	Role        string `json:"role"`
	Runtime     string `json:"runtime,omitempty"`
	Handler     string `json:"handler,omitempty"`
	// Timeout in seconds, MemorySize and EphemeralStorage in MB.
	Timeout          int `json:"timeout"`
	MemorySize       int `json:"memorySize"`
	EphemeralStorage int `json:"ephemeralStorage"`
	// Environment is shown only when HasEnvironment (a function created
	// without one shows none; an empty one shows {"Variables":{}}).
	Environment    map[string]string `json:"environment,omitempty"`
	HasEnvironment bool              `json:"hasEnvironment,omitempty"`
	TracingMode    string            `json:"tracingMode"`
	Architecture   string            `json:"architecture"`
	// CodeSHA256 is the base64 SHA-256 of the zip (CodeSha256), CodeHash
	// the same in hex (the code record's id).
	CodeSHA256 string `json:"codeSha256"`
	CodeHash   string `json:"codeHash"`
	CodeSize   int64  `json:"codeSize"`
	// LastModified in Unix milliseconds.
	LastModified     int64        `json:"lastModified"`
	RevisionID       string       `json:"revisionId"`
	KMSKeyArn        string       `json:"kmsKeyArn,omitempty"`
	DeadLetterTarget string       `json:"deadLetterTarget,omitempty"`
	Layers           []string     `json:"layers,omitempty"`
	VPC              *VPCConfig   `json:"vpc,omitempty"`
	FileSystems      []FileSystem `json:"fileSystems,omitempty"`
	Logging          Logging      `json:"logging"`
	SnapStartApplyOn string       `json:"snapStartApplyOn,omitempty"`
	// Change is the number of the $LATEST change this configuration is
	// (or was published from): PublishVersion publishes nothing new when
	// $LATEST has not changed since the last version.
	Change uint64 `json:"change"`
}

// VPCConfig is a function's VpcConfig, kept as given (no VPC is joined).
type VPCConfig struct {
	SubnetIDs        []string `json:"subnetIds"`
	SecurityGroupIDs []string `json:"securityGroupIds"`
	IPv6DualStack    *bool    `json:"ipv6,omitempty"`
}

// FileSystem is one FileSystemConfig, kept as given (nothing is mounted).
type FileSystem struct {
	Arn            string `json:"arn"`
	LocalMountPath string `json:"localMountPath"`
}

// Logging is a function's LoggingConfig.
type Logging struct {
	LogFormat           string `json:"logFormat"`
	LogGroup            string `json:"logGroup"`
	ApplicationLogLevel string `json:"applicationLogLevel,omitempty"`
	SystemLogLevel      string `json:"systemLogLevel,omitempty"`
}

// Alias is a function alias.
type Alias struct {
	Name            string `json:"name"`
	FunctionVersion string `json:"functionVersion"`
	Description     string `json:"description"`
	// Weights is the routing configuration's AdditionalVersionWeights
	// (at most one version).
	Weights    map[string]float64 `json:"weights,omitempty"`
	RevisionID string             `json:"revisionId"`
}

// Statement is one statement of a resource policy: its id and its JSON,
// formed as AWS forms it when it was added.
type Statement struct {
	Sid  string          `json:"sid"`
	JSON json.RawMessage `json:"json"`
}

// FunctionRecord is a function as it is persisted: one record holding
// everything the function owns.
type FunctionRecord struct {
	Seq  uint64 `json:"seq"`
	Name string `json:"name"`
	// ARN is the unqualified function ARN.
	ARN    string  `json:"arn"`
	Latest *Config `json:"latest"`
	// Versions are the published versions, by ascending number.
	Versions []*Config `json:"versions,omitempty"`
	// LastVersion is the highest number ever published: numbers are
	// never reused, even after a version is deleted.
	LastVersion int `json:"lastVersion"`
	// Changes counts $LATEST's changes (Config.Change).
	Changes uint64            `json:"changes"`
	Aliases map[string]*Alias `json:"aliases,omitempty"`
	// Policies are the resource policies by qualifier: "" for the
	// unqualified function, a version number, or an alias name.
	Policies             map[string][]Statement `json:"policies,omitempty"`
	Tags                 map[string]string      `json:"tags,omitempty"`
	ReservedConcurrency  *int                   `json:"reservedConcurrency,omitempty"`
	CodeSigningConfigArn string                 `json:"codeSigningConfigArn,omitempty"`
}

// Function is a function as its owner keeps, persists and publishes it. A
// published function never changes.
type Function struct {
	FunctionRecord
}

// clone returns a shallow copy to change: the caller replaces, never
// modifies, what it changes.
func (f *Function) clone() *Function {
	c := *f
	return &c
}

// version returns the published version numbered v.
func (f *Function) version(v string) (*Config, bool) {
	for _, c := range f.Versions {
		if c.Version == v {
			return c, true
		}
	}
	return nil, false
}

// uses reports whether any version of f runs the code hash.
func (f *Function) uses(hash string) bool {
	if f.Latest.CodeHash == hash {
		return true
	}
	return slices.ContainsFunc(f.Versions, func(c *Config) bool { return c.CodeHash == hash })
}

// hashes lists the code hashes f's versions run, without repeats.
func (f *Function) hashes() []string {
	out := []string{f.Latest.CodeHash}
	for _, c := range f.Versions {
		if !slices.Contains(out, c.CodeHash) {
			out = append(out, c.CodeHash)
		}
	}
	return out
}

// clone returns a copy of c to change.
func (c *Config) clone() *Config {
	x := *c
	return &x
}

// CodeRecord is a code package as it is persisted: written once, when the
// first function takes it, and deleted when the last lets it go.
type CodeRecord struct {
	// Hash is the hex SHA-256 of Zip, the record's id.
	Hash string `json:"hash"`
	// SHA256 is the same digest in base64, as CodeSha256 shows it.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Zip    []byte `json:"zip"`
}

// Code is a code package as its owner keeps and publishes it.
type Code struct {
	CodeRecord
	// Holders are the functions (by name) that run this code or are
	// about to: the count is of acquisitions not yet settled. They are
	// not persisted; restore rebuilds them from the functions.
	Holders map[string]int `json:"-"`
}
