package apigateway

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/httpfront/wire"
)

// ApiStage names a stage a usage plan covers, with per-method throttles.
type ApiStage struct {
	APIID    string                       `json:"apiId"`
	Stage    string                       `json:"stage"`
	Throttle map[string]*ThrottleSettings `json:"throttle,omitempty"`
}

// ThrottleSettings are a token bucket's rate (requests per second) and
// burst.
type ThrottleSettings struct {
	BurstLimit int64   `json:"burstLimit"`
	RateLimit  float64 `json:"rateLimit"`
}

// QuotaSettings are a usage plan's request quota per period.
type QuotaSettings struct {
	Limit  int64  `json:"limit"`
	Offset int64  `json:"offset"`
	Period string `json:"period"`
}

// APIKey is an API key.
type APIKey struct {
	ID              string            `json:"id"`
	Value           string            `json:"value,omitempty"`
	Name            string            `json:"name,omitempty"`
	CustomerID      string            `json:"customerId,omitempty"`
	Description     string            `json:"description,omitempty"`
	Enabled         bool              `json:"enabled"`
	CreatedDate     wire.Epoch        `json:"createdDate"`
	LastUpdatedDate wire.Epoch        `json:"lastUpdatedDate"`
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
}
