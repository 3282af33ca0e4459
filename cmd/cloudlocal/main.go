package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/cloudemu/emulator/config"
)

// Exit codes of cloudlocal itself; any other code is the CLI's.
const (
	exitConfig     = 2   // an EMULATOR_* or EMULATOR_ENDPOINT value is wrong
	exitCannotRun  = 126 // the CLI was found but could not be started
	exitCLIMissing = 127 // no CLI, as a shell says for a missing command
)

func main() {
	os.Exit(run(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}

// run runs the CLI with args and returns the exit code. env is the
// environment the CLI inherits (os.Environ in production); the CLI itself
// is looked up on the process's PATH.
func run(args, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env, endpoint, err := cliEnv(env)
	if err != nil {
		fmt.Fprintf(stderr, "cloudlocal: %v\n", err)
		return exitConfig
	}
	bin, err := findCLI(lookup(env))
	if err != nil {
		fmt.Fprintf(stderr, "cloudlocal: %v\n", err)
		return exitCLIMissing
	}
	if !hasEndpointFlag(args) {
		args = append([]string{"--endpoint-url", endpoint}, args...)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr

	// Ctrl-C reaches the CLI through the terminal's process group; cloudlocal
	// stays alive to report the CLI's exit code, and passes on a signal sent
	// to it alone (kill, a container stop).
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "cloudlocal: cannot run the AWS CLI %s: %v\n", bin, err)
		return exitCannotRun
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	var xerr *exec.ExitError
	if err != nil && !errors.As(err, &xerr) {
		fmt.Fprintf(stderr, "cloudlocal: AWS CLI %s: %v\n", bin, err)
		return exitCannotRun
	}
	return exitCode(cmd.ProcessState)
}

// exitCode is the CLI's exit code, or 128+N when signal N killed it, as
// a shell reports it.
func exitCode(ps *os.ProcessState) int {
	if c := ps.ExitCode(); c >= 0 {
		return c
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 1
}

// lookup reads a variable of env; an empty value counts as unset.
func lookup(env []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		// The last entry wins, as in exec.Cmd.Env.
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v, v != ""
			}
		}
		return "", false
	}
}

// cliEnv returns env with the AWS variables of the package comment filled
// in, and the endpoint to pass as --endpoint-url.
func cliEnv(env []string) ([]string, string, error) {
	get := lookup(env)
	out := append([]string(nil), env...)
	set := func(name, value string) {
		if _, ok := get(name); !ok {
			out = append(out, name+"="+value)
		}
	}

	endpoint, ok := get("AWS_ENDPOINT_URL")
	if !ok {
		var err error
		if endpoint, err = emulatorEndpoint(get); err != nil {
			return nil, "", err
		}
		set("AWS_ENDPOINT_URL", endpoint)
	}

	region, ok := get("AWS_REGION")
	if !ok {
		region, ok = get("AWS_DEFAULT_REGION")
	}
	if !ok {
		cfg, err := config.FromEnv(get)
		if err != nil {
			return nil, "", err
		}
		region = cfg.DefaultRegion
	}
	set("AWS_REGION", region)
	set("AWS_DEFAULT_REGION", region)

	_, hasKey := get("AWS_ACCESS_KEY_ID")
	_, hasSecret := get("AWS_SECRET_ACCESS_KEY")
	if !hasKey && !hasSecret {
		// The emulator checks no credentials, but the CLI refuses to sign
		// without some.
		set("AWS_ACCESS_KEY_ID", "test")
		set("AWS_SECRET_ACCESS_KEY", "test")
	}
	return out, endpoint, nil
}

// emulatorEndpoint is EMULATOR_ENDPOINT, else the address the emulator
// listens on according to its own configuration.
func emulatorEndpoint(get func(string) (string, bool)) (string, error) {
	if v, ok := get("EMULATOR_ENDPOINT"); ok {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", &config.Error{Var: "EMULATOR_ENDPOINT", Value: v, Reason: "must be a URL such as http://localhost:4566"}
		}
		return v, nil
	}
	cfg, err := config.FromEnv(get)
	if err != nil {
		return "", err
	}
	if cfg.Port == 0 {
		return "", &config.Error{Var: "EMULATOR_PORT", Value: "0", Reason: "a picked port cannot be found from here; set EMULATOR_ENDPOINT to the logged address"}
	}
	host := cfg.Host
	// A wildcard is where the emulator listens, not an address to dial.
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(cfg.Port)), nil
}

// hasEndpointFlag reports whether args already choose an endpoint.
func hasEndpointFlag(args []string) bool {
	for _, a := range args {
		if a == "--endpoint-url" || strings.HasPrefix(a, "--endpoint-url=") {
			return true
		}
	}
	return false
}

// findCLI returns the path of the AWS CLI.
func findCLI(get func(string) (string, bool)) (string, error) {
	if p, ok := get("CLOUDLOCAL_AWS"); ok {
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			return "", fmt.Errorf("CLOUDLOCAL_AWS=%q: no such file; point it at the AWS CLI, or unset it to use aws on PATH", p)
		}
		return p, nil
	}
	p, err := exec.LookPath("aws")
	if err == nil {
		return p, nil
	}
	if errors.Is(err, exec.ErrDot) {
		return "", fmt.Errorf("the AWS CLI found is %s, in the current directory, which is not trusted; put it on PATH as an absolute directory or set CLOUDLOCAL_AWS", p)
	}
	if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("looking for the AWS CLI: %v", err)
	}
	return "", errors.New("the AWS CLI (aws) is not on PATH, and cloudlocal only wraps it.\n" +
		"Install AWS CLI v2: https://docs.aws.amazon.com/cli/latest/userguide/getting-started-install.html\n" +
		"(Debian and Ubuntu: apt-get install awscli). In the emulator's container image, install it from a\n" +
		"boot.d hook, e.g. /etc/emulator/init/boot.d/00-awscli.sh, or mount one and set CLOUDLOCAL_AWS to its path")
}
