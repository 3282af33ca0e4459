package apigateway

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// ApiStage names a stage a usage plan covers, with per-method throttles
// keyed "/{resourcePath}/{httpMethod}" ("/pets/GET", "/*/*").
type ApiStage struct {
	APIID    string                       `json:"apiId"`
	Stage    string                       `json:"stage"`
	Throttle map[string]*ThrottleSettings `json:"throttle,omitempty"`
}

// ThrottleSettings are a token bucket's rate (requests per second) and
// burst.
type ThrottleSettings struct {
	BurstLimit int64 `json:"burstLimit"`
	RateLimit  Rate  `json:"rateLimit"`
}

// Rate is a request rate. API Gateway's Java front end writes doubles as
// Java does ("200.0", "1.0E7"), so a whole rate keeps its ".0".
type Rate float64

// MarshalJSON implements json.Marshaler, formatting as Java's
// Double.toString.
func (r Rate) MarshalJSON() ([]byte, error) {
	return awswire.AppendJavaDouble(nil, float64(r)), nil
}

// QuotaSettings are a usage plan's request quota per period. Offset is the
// day the period starts: for WEEK 0 is Sunday; for MONTH, days after the
// first.
type QuotaSettings struct {
	Limit  int64  `json:"limit"`
	Offset int64  `json:"offset"`
	Period string `json:"period"`
}

// Quota periods.
const (
	PeriodDay   = "DAY"
	PeriodWeek  = "WEEK"
	PeriodMonth = "MONTH"
)

// APIKey is an API key. Value is dropped from replies that do not ask for
// it; StageKeys are "restApiId/stageName".
type APIKey struct {
	ID              string            `json:"id"`
	Value           string            `json:"value,omitempty"`
	Name            string            `json:"name,omitempty"`
	CustomerID      string            `json:"customerId,omitempty"`
	Description     string            `json:"description,omitempty"`
	Enabled         bool              `json:"enabled"`
	CreatedDate     awswire.Epoch     `json:"createdDate"`
	LastUpdatedDate awswire.Epoch     `json:"lastUpdatedDate"`
	StageKeys       []string          `json:"stageKeys"`
	Tags            map[string]string `json:"tags,omitempty"`
}

// KeyState is an API key as its owner keeps and persists it.
type KeyState struct {
	Key  APIKey       `json:"key"`
	Seq  uint64       `json:"seq"`
	Memo *actors.Memo `json:"-"`
}

// UsagePlan is a usage plan.
type UsagePlan struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	APIStages   []ApiStage        `json:"apiStages"`
	Throttle    *ThrottleSettings `json:"throttle,omitempty"`
	Quota       *QuotaSettings    `json:"quota,omitempty"`
	ProductCode string            `json:"productCode,omitempty"`
	Tags        map[string]string `json:"tags,omitempty"`
}

// PlanState is a usage plan as its owner keeps and persists it, with the
// API keys linked to it in the order they were added.
type PlanState struct {
	Plan   UsagePlan `json:"plan"`
	KeyIDs []string  `json:"keyIds,omitempty"`
	Seq    uint64    `json:"seq"`
	// Created is when the plan was created (Unix seconds): the start of
	// its quotas' initial period. 0 in records written before it was kept.
	Created int64 `json:"created,omitempty"`
}

// UsagePlanKey is an API key as a usage plan lists it.
type UsagePlanKey struct {
	ID    string `json:"id"`
	Name  string `json:"name,omitempty"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

// KeyTypeAPIKey is the only usage plan key type.
const KeyTypeAPIKey = "API_KEY"
