package awswire

import (
	"maps"
	"strings"
	"unicode/utf8"
)

// TagLimits are the limits a service puts on one resource's tags, in
// characters.
type TagLimits struct {
	Tags, Key, Value int
}

// Tag limits as each service documents them.
var (
	// APIGatewayTags: keys of 1 to 128 characters not starting with
	// "aws:", values of at most 256, 50 tags a resource.
	APIGatewayTags = TagLimits{Tags: 50, Key: 128, Value: 256}
	// APIGatewayV2Tags: as v1, but the model allows values of up to 1600
	// characters (StringWithLengthBetween1And1600).
	APIGatewayV2Tags = TagLimits{Tags: 50, Key: 128, Value: 1600}
	// BackupTags: AWS Backup's documented quota of 50 tags a resource,
	// keys of 1 to 128 characters, values of at most 256.
	BackupTags = TagLimits{Tags: 50, Key: 128, Value: 256}
)

// TagProblem is what is wrong with a set of tags.
type TagProblem int

// The problems Check finds.
const (
	TagsOK TagProblem = iota
	TagKeyLength
	TagKeyReserved // starts with "aws:", in any case
	TagValueLength
	TooManyTags
)

// Check returns the first problem of tags under l, and the key at fault.
func (l TagLimits) Check(tags map[string]string) (TagProblem, string) {
	for k, v := range tags {
		if n := utf8.RuneCountInString(k); n == 0 || n > l.Key {
			return TagKeyLength, k
		}
		if len(k) >= 4 && strings.EqualFold(k[:4], "aws:") {
			return TagKeyReserved, k
		}
		if utf8.RuneCountInString(v) > l.Value {
			return TagValueLength, k
		}
	}
	if len(tags) > l.Tags {
		return TooManyTags, ""
	}
	return TagsOK, ""
}

// GatewayTagError is API Gateway's (v1 and v2) refusal of tags that break
// l, or nil.
func (l TagLimits) GatewayTagError(svc Service, tags map[string]string) *Error {
	switch p, _ := l.Check(tags); p {
	case TagKeyLength:
		return Errorf(svc, CodeBadRequest, "Invalid tag key. Tag keys must be between 1 and %d characters long.", l.Key)
	case TagKeyReserved:
		return New(svc, CodeBadRequest, "Invalid tag key. Tag keys cannot start with 'aws:' (case insensitive)")
	case TagValueLength:
		return Errorf(svc, CodeBadRequest, "Invalid tag value. Tag values must be at most %d characters long.", l.Value)
	case TooManyTags:
		return Errorf(svc, CodeBadRequest, "Too many tags. A resource can have at most %d tags.", l.Tags)
	}
	return nil
}

// MergeTags returns cur with add merged over it, as a new map, and whether
// the result stays within l's count.
func (l TagLimits) MergeTags(cur, add map[string]string) (map[string]string, bool) {
	next := maps.Clone(cur)
	if next == nil {
		next = make(map[string]string, len(add))
	}
	maps.Copy(next, add)
	return next, len(next) <= l.Tags
}

// RemoveTags returns cur without keys, as a new map (nil when nothing is
// left).
func RemoveTags(cur map[string]string, keys []string) map[string]string {
	next := maps.Clone(cur)
	for _, k := range keys {
		delete(next, k)
	}
	if len(next) == 0 {
		return nil
	}
	return next
}
