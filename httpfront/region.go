package httpfront

import "unsafe"

// knownRegions interns the region names of the SigV4 scope: a lookup with a
// []byte key in a built-in map does not allocate.
var knownRegions = func() map[string]string {
	names := []string{
		"us-east-1", "us-east-2", "us-west-1", "us-west-2",
		"af-south-1", "ap-east-1", "ap-east-2", "ap-south-1", "ap-south-2",
		"ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-7",
		"ap-northeast-1", "ap-northeast-2", "ap-northeast-3",
		"ca-central-1", "ca-west-1", "eu-central-1", "eu-central-2",
		"eu-west-1", "eu-west-2", "eu-west-3", "eu-south-1", "eu-south-2", "eu-north-1",
		"il-central-1", "me-south-1", "me-central-1", "mx-central-1", "sa-east-1",
		"us-gov-east-1", "us-gov-west-1", "cn-north-1", "cn-northwest-1",
	}
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = n
	}
	return m
}()

// region returns the scope's region as a string if it has a region's form
// (letters and digits in dash-separated words, ending in a number). Any
// other text is refused, because the region becomes part of store keys.
func region(b []byte) (string, bool) {
	if r, ok := knownRegions[string(b)]; ok {
		return r, true
	}
	if len(b) < 4 || len(b) > 32 || b[0] < 'a' || b[0] > 'z' {
		return "", false
	}
	lastDash := -1
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && b[i-1] != '-':
			lastDash = i
		default:
			return "", false
		}
	}
	if lastDash < 0 || lastDash == len(b)-1 {
		return "", false
	}
	for _, c := range b[lastDash+1:] {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return string(b), true
}

// b2s views b as a string without copying; the string MUST NOT outlive b.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
