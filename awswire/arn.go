package awswire

import "strings"

// ARN is an Amazon Resource Name split into its parts.
type ARN struct {
	Partition string
	Service   string
	Region    string
	Account   string
	// Resource is everything after the fifth colon; it may hold ':' and '/'.
	Resource string
}

// String joins the parts back into arn:partition:service:region:account:resource.
func (a ARN) String() string {
	return "arn:" + a.Partition + ":" + a.Service + ":" + a.Region + ":" + a.Account + ":" + a.Resource
}

// ParseARN splits s. ok is false unless s has the arn prefix, six parts and a
// non-empty partition, service and resource.
func ParseARN(s string) (a ARN, ok bool) {
	if len(s) > 2048 || !strings.HasPrefix(s, "arn:") {
		return ARN{}, false
	}
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[1] == "" || parts[2] == "" || parts[5] == "" {
		return ARN{}, false
	}
	return ARN{Partition: parts[1], Service: parts[2], Region: parts[3], Account: parts[4], Resource: parts[5]}, true
}

// BackupVaultARN is arn:aws:backup:<region>:<account>:backup-vault:<name>.
func BackupVaultARN(region, account, name string) string {
	return "arn:aws:backup:" + region + ":" + account + ":backup-vault:" + name
}

// BackupPlanARN is arn:aws:backup:<region>:<account>:backup-plan:<id>.
func BackupPlanARN(region, account, id string) string {
	return "arn:aws:backup:" + region + ":" + account + ":backup-plan:" + id
}

// BackupAccessPointARN is arn:aws:backup:<region>:<account>:accesspoint/<name>,
// the form the model's AccessPointArn pattern requires.
func BackupAccessPointARN(region, account, name string) string {
	return "arn:aws:backup:" + region + ":" + account + ":accesspoint/" + name
}

// GatewayPath reads an API Gateway ARN, arn:<partition>:apigateway:<region>:
// <account>:/<path>: its region and its path's segments ("/restapis/a1/
// stages/dev" → restapis, a1, stages, dev). ok is false for another service,
// an empty region, or a path with an empty segment. The account is empty
// in most API Gateway ARNs; callers act in their own.
func GatewayPath(arn string) (region string, segments []string, ok bool) {
	a, ok := ParseARN(arn)
	if !ok || a.Service != "apigateway" || a.Region == "" || !strings.HasPrefix(a.Resource, "/") {
		return "", nil, false
	}
	segments = strings.Split(a.Resource[1:], "/")
	for _, s := range segments {
		if s == "" {
			return "", nil, false
		}
	}
	return a.Region, segments, true
}
