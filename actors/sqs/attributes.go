package sqs

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// Queue attribute names.
const (
	attrAll                     = "All"
	attrDelaySeconds            = "DelaySeconds"
	attrMaximumMessageSize      = "MaximumMessageSize"
	attrMessageRetentionPeriod  = "MessageRetentionPeriod"
	attrReceiveWaitTimeSeconds  = "ReceiveMessageWaitTimeSeconds"
	attrVisibilityTimeout       = "VisibilityTimeout"
	attrRedrivePolicy           = "RedrivePolicy"
	attrRedriveAllowPolicy      = "RedriveAllowPolicy"
	attrPolicy                  = "Policy"
	attrKmsMasterKeyID          = "KmsMasterKeyId"
	attrKmsDataKeyReusePeriod   = "KmsDataKeyReusePeriodSeconds"
	attrSqsManagedSseEnabled    = "SqsManagedSseEnabled"
	attrFifoQueue               = "FifoQueue"
	attrContentBasedDedup       = "ContentBasedDeduplication"
	attrDeduplicationScope      = "DeduplicationScope"
	attrFifoThroughputLimit     = "FifoThroughputLimit"
	attrApproxMessages          = "ApproximateNumberOfMessages"
	attrApproxNotVisible        = "ApproximateNumberOfMessagesNotVisible"
	attrApproxDelayed           = "ApproximateNumberOfMessagesDelayed"
	attrCreatedTimestamp        = "CreatedTimestamp"
	attrLastModifiedTimestamp   = "LastModifiedTimestamp"
	attrQueueArn                = "QueueArn"
	defaultMaximumMessageSize   = 262144
	defaultRetention            = 345600
	defaultVisibilityTimeout    = 30
	maxBatchBytes               = 262144
	dedupInterval               = 5 * 60 // seconds
	purgeInterval               = 60     // seconds
	defaultKmsDataKeyReuse      = "300"
	maxReceiveCountLimit        = 1000
	allowedMessageChars         = "#x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF"
	invalidMessageContentsText  = "Invalid characters found. Valid unicode characters are " + allowedMessageChars
	redrivePermissionAllowAll   = "allowAll"
	redrivePermissionDenyAll    = "denyAll"
	redrivePermissionByQueue    = "byQueue"
	dedupScopeQueue             = "queue"
	dedupScopeMessageGroup      = "messageGroup"
	throughputPerQueue          = "perQueue"
	throughputPerMessageGroupID = "perMessageGroupId"
)

// computed are the attributes AWS computes; they are read, never set.
var computed = map[string]bool{
	attrApproxMessages: true, attrApproxNotVisible: true, attrApproxDelayed: true,
	attrCreatedTimestamp: true, attrLastModifiedTimestamp: true, attrQueueArn: true,
}

// settable are the attributes a standard queue takes; fifoOnly are those
// only a FIFO queue takes.
var (
	settable = map[string]bool{
		attrDelaySeconds: true, attrMaximumMessageSize: true, attrMessageRetentionPeriod: true,
		attrReceiveWaitTimeSeconds: true, attrVisibilityTimeout: true, attrRedrivePolicy: true,
		attrRedriveAllowPolicy: true, attrPolicy: true, attrKmsMasterKeyID: true,
		attrKmsDataKeyReusePeriod: true, attrSqsManagedSseEnabled: true,
	}
	fifoOnly = map[string]bool{
		attrFifoQueue: true, attrContentBasedDedup: true, attrDeduplicationScope: true, attrFifoThroughputLimit: true,
	}
)

// config is what the queue's owner reads of its attributes on every
// message, parsed once per change of the attributes.
type config struct {
	delay, maxSize, retention, wait, visibility int
	maxReceive                                  int
	deadLetterARN                               string
	contentDedup                                bool
	dedupByGroup                                bool
}

// sharedDefaults are the default attributes of a standard queue (false)
// and of a FIFO queue (true), shared by every queue created without
// attributes: a map of its own costs an idle queue ~330 B. They MUST NOT be
// written.
var sharedDefaults = map[bool]map[string]string{false: defaultAttributes(false), true: defaultAttributes(true)}

// defaultAttributes are a new queue's settable attributes.
func defaultAttributes(fifo bool) map[string]string {
	a := map[string]string{
		attrDelaySeconds:           "0",
		attrMaximumMessageSize:     strconv.Itoa(defaultMaximumMessageSize),
		attrMessageRetentionPeriod: strconv.Itoa(defaultRetention),
		attrReceiveWaitTimeSeconds: "0",
		attrVisibilityTimeout:      strconv.Itoa(defaultVisibilityTimeout),
		attrSqsManagedSseEnabled:   "true",
	}
	if fifo {
		a[attrFifoQueue] = "true"
		a[attrContentBasedDedup] = "false"
		a[attrDeduplicationScope] = dedupScopeQueue
		a[attrFifoThroughputLimit] = throughputPerQueue
	}
	return a
}

func parseConfig(a map[string]string) config {
	c := config{}
	c.delay, _ = strconv.Atoi(a[attrDelaySeconds])
	c.maxSize, _ = strconv.Atoi(a[attrMaximumMessageSize])
	c.retention, _ = strconv.Atoi(a[attrMessageRetentionPeriod])
	c.wait, _ = strconv.Atoi(a[attrReceiveWaitTimeSeconds])
	c.visibility, _ = strconv.Atoi(a[attrVisibilityTimeout])
	if p := a[attrRedrivePolicy]; p != "" {
		var rp redrivePolicy
		if json.Unmarshal([]byte(p), &rp) == nil {
			c.deadLetterARN = rp.DeadLetterTargetArn
			c.maxReceive, _ = strconv.Atoi(strings.Trim(string(rp.MaxReceiveCount), `"`))
		}
	}
	c.contentDedup = a[attrContentBasedDedup] == "true"
	c.dedupByGroup = a[attrDeduplicationScope] == dedupScopeMessageGroup
	return c
}

type redrivePolicy struct {
	DeadLetterTargetArn string          `json:"deadLetterTargetArn"`
	MaxReceiveCount     json.RawMessage `json:"maxReceiveCount"`
}

type redriveAllowPolicy struct {
	RedrivePermission string   `json:"redrivePermission"`
	SourceQueueArns   []string `json:"sourceQueueArns,omitempty"`
}

// checkAttributes validates attributes a CreateQueue or SetQueueAttributes
// gives a queue (fifo: the queue is FIFO) and returns them as stored.
func (s *Service) checkAttributes(sc awswire.Scope, fifo bool, in map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for k, v := range in {
		switch {
		case settable[k]:
		case fifoOnly[k]:
			if !fifo {
				if k == attrDeduplicationScope || k == attrFifoThroughputLimit {
					return nil, sqsError(codeInvalidAttributeName, "You can specify the %s only when FifoQueue is set to true.", k)
				}
				return nil, unknownAttribute(k)
			}
		default:
			return nil, unknownAttribute(k)
		}
		nv, err := s.checkAttribute(sc, fifo, k, v)
		if err != nil {
			return nil, err
		}
		out[k] = nv
	}
	return out, nil
}

func intIn(v string, lo, hi int) bool {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return err == nil && n >= lo && n <= hi
}

func normInt(v string) string {
	n, _ := strconv.Atoi(strings.TrimSpace(v))
	return strconv.Itoa(n)
}

func (s *Service) checkAttribute(sc awswire.Scope, fifo bool, k, v string) (string, error) {
	ranges := map[string][2]int{
		attrDelaySeconds: {0, 900}, attrMaximumMessageSize: {1024, defaultMaximumMessageSize},
		attrMessageRetentionPeriod: {60, 1209600}, attrReceiveWaitTimeSeconds: {0, 20},
		attrVisibilityTimeout: {0, 43200}, attrKmsDataKeyReusePeriod: {60, 86400},
	}
	if r, ok := ranges[k]; ok {
		if !intIn(v, r[0], r[1]) {
			return "", invalidAttributeValue(k)
		}
		return normInt(v), nil
	}
	switch k {
	case attrSqsManagedSseEnabled, attrContentBasedDedup:
		lv := strings.ToLower(v)
		if lv != "true" && lv != "false" {
			return "", invalidAttributeValue(k)
		}
		return lv, nil
	case attrFifoQueue:
		if strings.ToLower(v) != "true" {
			return "", sqsError(codeInvalidAttributeValue, "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.")
		}
		return "true", nil
	case attrDeduplicationScope:
		if v != dedupScopeQueue && v != dedupScopeMessageGroup {
			return "", invalidAttributeValue(k)
		}
	case attrFifoThroughputLimit:
		if v != throughputPerQueue && v != throughputPerMessageGroupID {
			return "", invalidAttributeValue(k)
		}
	case attrPolicy:
		if v != "" && !json.Valid([]byte(v)) {
			return "", invalidAttributeValue(k)
		}
	case attrRedrivePolicy:
		if v == "" {
			return "", nil
		}
		return s.checkRedrivePolicy(sc, fifo, v)
	case attrRedriveAllowPolicy:
		if v == "" {
			return "", nil
		}
		var p redriveAllowPolicy
		if err := json.Unmarshal([]byte(v), &p); err != nil {
			return "", invalidParameter("Value %s for parameter RedriveAllowPolicy is invalid. Reason: Invalid JSON.", v)
		}
		switch p.RedrivePermission {
		case redrivePermissionAllowAll, redrivePermissionDenyAll:
			if len(p.SourceQueueArns) > 0 {
				return "", invalidParameter("Value %s for parameter RedriveAllowPolicy is invalid. Reason: sourceQueueArns should be specified only when redrivePermission is set to byQueue.", v)
			}
		case redrivePermissionByQueue:
			if len(p.SourceQueueArns) == 0 || len(p.SourceQueueArns) > 10 {
				return "", invalidParameter("Value %s for parameter RedriveAllowPolicy is invalid. Reason: Amount of source queue ARNs should be between 1 and 10.", v)
			}
		default:
			return "", invalidParameter("Value %s for parameter RedriveAllowPolicy is invalid. Reason: Invalid value for redrivePermission.", v)
		}
		b, _ := json.Marshal(p)
		return string(b), nil
	}
	return v, nil
}

func (s *Service) checkRedrivePolicy(sc awswire.Scope, fifo bool, v string) (string, error) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &p); err != nil {
		return "", invalidParameter("Value %s for parameter RedrivePolicy is invalid. Reason: Redrive policy is not a valid JSON map.", v)
	}
	var target string
	if raw, ok := p["deadLetterTargetArn"]; !ok || json.Unmarshal(raw, &target) != nil || target == "" {
		return "", invalidParameter("Value %s for parameter RedrivePolicy is invalid. Reason: Redrive policy does not contain mandatory attribute: deadLetterTargetArn.", v)
	}
	raw, ok := p["maxReceiveCount"]
	if !ok {
		return "", invalidParameter("Value %s for parameter RedrivePolicy is invalid. Reason: Redrive policy does not contain mandatory attribute: maxReceiveCount.", v)
	}
	n, err := strconv.Atoi(strings.Trim(string(raw), `"`))
	if err != nil || n < 1 || n > maxReceiveCountLimit {
		return "", invalidParameter("Value %s for parameter RedrivePolicy is invalid. Reason: Invalid value for maxReceiveCount: %s, valid values are from 1 to 1000 both inclusive.", v, strings.Trim(string(raw), `"`))
	}
	for k := range p {
		if k != "deadLetterTargetArn" && k != "maxReceiveCount" {
			return "", invalidParameter("Value %s for parameter RedrivePolicy is invalid. Reason: Only following attributes are supported: [deadLetterTargetArn, maxReceiveCount].", v)
		}
	}
	dsc, name, ok := parseQueueARN(target)
	dlq, found := s.snapshot(dsc, name)
	if !ok || !found {
		return "", invalidParameter("Value %s for parameter RedrivePolicy is invalid. Reason: Dead-letter target does not exist.", v)
	}
	if dlq.FIFO != fifo {
		return "", invalidParameter("Value %s for parameter RedrivePolicy is invalid. Reason: Dead-letter queue must be same type of queue as the source.", v)
	}
	_ = sc
	b, _ := json.Marshal(struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
		MaxReceiveCount     int    `json:"maxReceiveCount"`
	}{target, n})
	return string(b), nil
}

// queueARN is arn:aws:sqs:<region>:<account>:<name>.
func queueARN(sc awswire.Scope, name string) string {
	return "arn:aws:sqs:" + sc.Region + ":" + sc.Account + ":" + name
}

// parseQueueARN reads a queue's scope and name from its ARN.
func parseQueueARN(arn string) (awswire.Scope, string, bool) {
	a, ok := awswire.ParseARN(arn)
	if !ok || a.Service != "sqs" || a.Region == "" || a.Account == "" || strings.ContainsAny(a.Resource, ":/") {
		return awswire.Scope{}, "", false
	}
	return awswire.Scope{Account: a.Account, Region: a.Region}, a.Resource, true
}
