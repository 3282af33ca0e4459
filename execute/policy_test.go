package execute_test

import (
	"testing"

	"github.com/cloudemu/emulator/execute"
)

// TestWildcardMatch: IAM's resource wildcards in authorizer policies.
func TestWildcardMatch(t *testing.T) {
	const arn = "arn:aws:execute-api:us-east-1:123456789012:abc123/dev/GET/pets/42"
	for pattern, want := range map[string]bool{
		arn: true,
		"*": true,
		"arn:aws:execute-api:us-east-1:123456789012:abc123/*":                true,
		"arn:aws:execute-api:us-east-1:123456789012:abc123/*/GET/*":          true,
		"arn:aws:execute-api:us-east-1:*:abc123/dev/*/pets/*":                true,
		"arn:aws:execute-api:us-east-1:123456789012:abc123/dev/G?T/pets/4?":  true,
		"arn:aws:execute-api:us-east-1:123456789012:abc123/dev/GET/pets":     false,
		"arn:aws:execute-api:us-east-1:123456789012:abc123/dev/POST/*":       false,
		"arn:aws:execute-api:us-east-1:123456789012:abc123/dev/get/pets/42":  false,
		"arn:aws:execute-api:us-east-1:123456789012:abc123/dev/GET/pets/4":   false,
		"arn:aws:execute-api:us-east-1:123456789012:abc123/dev/GET/pets/42?": false,
		"**/dev/**": true,
		"":          false,
	} {
		if got := execute.WildcardMatch(pattern, arn); got != want {
			t.Errorf("%q: %v", pattern, got)
		}
	}
}
