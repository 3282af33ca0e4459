package inithook

import (
	"net"
	"strconv"
	"strings"
)

// EndpointURL is the URL a script on this machine reaches the emulator at:
// a wildcard listen address (0.0.0.0, ::) becomes loopback. It is "" for
// port 0, whose real port is known only once the emulator listens.
func EndpointURL(host string, port int) string {
	if port == 0 {
		return ""
	}
	switch host {
	case "", "0.0.0.0", "::", "[::]":
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(port))
}

// scriptEnv is the environment of a script: base, plus what makes the AWS
// CLI talk to this emulator. The endpoint always wins, since pointing the
// CLI here is the point; the region and credentials only fill what base
// does not set, so that a hook may choose its own account.
func scriptEnv(base []string, endpoint, region string) []string {
	set := map[string]string{}
	if endpoint != "" {
		set["AWS_ENDPOINT_URL"] = endpoint
		set["EMULATOR_ENDPOINT"] = endpoint
	}
	has := func(name string) bool {
		for _, kv := range base {
			if k, v, ok := strings.Cut(kv, "="); ok && k == name && v != "" {
				return true
			}
		}
		return false
	}
	for name, value := range map[string]string{
		"AWS_DEFAULT_REGION":    region,
		"AWS_REGION":            region,
		"AWS_ACCESS_KEY_ID":     "test",
		"AWS_SECRET_ACCESS_KEY": "test",
	} {
		if value != "" && !has(name) {
			set[name] = value
		}
	}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); set[k] == "" {
			out = append(out, kv)
		}
	}
	for _, name := range []string{"AWS_ENDPOINT_URL", "EMULATOR_ENDPOINT", "AWS_DEFAULT_REGION", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		if v := set[name]; v != "" {
			out = append(out, name+"="+v)
		}
	}
	return out
}
