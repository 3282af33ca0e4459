package config_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/config"
)

// TestVariablesDefaults: every variable FromEnv reads is listed, and its
// documented default, set explicitly, gives the configuration Default()
// gives (the data directory's default depends on the user).
func TestVariablesDefaults(t *testing.T) {
	vars := map[string]string{}
	for _, v := range config.Variables {
		if v.Name == "EMULATOR_DATA_DIR" {
			continue
		}
		vars[v.Name] = v.Default
	}
	got, err := config.FromEnv(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	if want := config.Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("documented defaults give %+v, want %+v", got, want)
	}
	// Every variable FromEnv refuses a bad value of is listed.
	for _, name := range []string{"EMULATOR_HOST", "EMULATOR_PORT", "EMULATOR_STATE", "EMULATOR_LOG_LEVEL",
		"EMULATOR_DEBUG", "EMULATOR_DEFAULT_REGION", "EMULATOR_EXTERNAL_HOSTNAME", "EMULATOR_MAX_BODY_BYTES",
		"EMULATOR_MAX_EXECUTIONS", "EMULATOR_BACKEND_MAX_CONNS", "EMULATOR_ASK_TIMEOUT", "EMULATOR_SHUTDOWN_GRACE",
		"EMULATOR_STORE_MAX_BATCH", "EMULATOR_INIT_ENABLED", "EMULATOR_INIT_TIMEOUT", "EMULATOR_FIXED_TIME"} {
		if _, err := config.FromEnv(env(map[string]string{name: "\x01bad"})); err == nil {
			t.Errorf("%s accepts a bad value", name)
		}
		if !slices.ContainsFunc(config.Variables, func(v config.Variable) bool { return v.Name == name }) {
			t.Errorf("%s is not in Variables", name)
		}
	}
}

func TestValidHosts(t *testing.T) {
	for _, h := range []string{"localhost", "0.0.0.0", "127.0.0.1", "::1", "[::1]", "host.docker.internal", "my-box"} {
		c, err := config.FromEnv(env(map[string]string{"EMULATOR_HOST": h}))
		if err != nil {
			t.Errorf("%q: %v", h, err)
			continue
		}
		if c.Host != strings.Trim(h, "[]") {
			t.Errorf("%q: Host = %q", h, c.Host)
		}
	}
}

func TestUnknown(t *testing.T) {
	got := config.Unknown([]string{
		"PATH=/bin", "EMULATOR_PORT=1", "EMULATOR_POTR=4566", "EMULATOR_LOGLEVEL=debug",
		"EMULATOR_ENDPOINT=http://x", "EMULATOR_TEST_LOG=debug", "EMULATOR_WHATEVER_ELSE=1", "EMULATOR_=",
	})
	want := []string{
		"EMULATOR_POTR is not a variable the emulator reads; it is ignored (did you mean EMULATOR_PORT?)",
		"EMULATOR_LOGLEVEL is not a variable the emulator reads; it is ignored (did you mean EMULATOR_LOG_LEVEL?)",
		"EMULATOR_WHATEVER_ELSE is not a variable the emulator reads; it is ignored",
		"EMULATOR_ is not a variable the emulator reads; it is ignored",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Unknown =\n%q\nwant\n%q", got, want)
	}
}

// TestDataDirOfUser: a normal user's persistent state goes where the user
// can write; root (the container) keeps /var/lib/emulator; an explicit
// EMULATOR_DATA_DIR wins.
func TestDataDirOfUser(t *testing.T) {
	for _, tc := range []struct {
		uid  int
		vars map[string]string
		want string
	}{
		{0, map[string]string{"HOME": "/home/ada"}, "/var/lib/emulator"},
		{1000, map[string]string{"HOME": "/home/ada"}, "/home/ada/.local/share/emulator"},
		{1000, map[string]string{"HOME": "/home/ada", "XDG_DATA_HOME": "/data/ada"}, "/data/ada/emulator"},
		{1000, map[string]string{"HOME": "/home/ada", "XDG_DATA_HOME": "relative"}, "/home/ada/.local/share/emulator"},
		{1000, map[string]string{}, "/var/lib/emulator"},
		{1000, map[string]string{"HOME": "/home/ada", "EMULATOR_DATA_DIR": "/srv/emu"}, "/srv/emu"},
	} {
		config.SetEUID(t, tc.uid)
		c, err := config.FromEnv(env(tc.vars))
		if err != nil {
			t.Fatal(err)
		}
		if c.DataDir != tc.want {
			t.Errorf("uid %d %v: DataDir = %q, want %q", tc.uid, tc.vars, c.DataDir, tc.want)
		}
	}
}
