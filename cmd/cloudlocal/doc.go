// Command cloudlocal runs the AWS CLI against the emulator:
//
//	cloudlocal backup list-backup-vaults
//
// is `aws --endpoint-url http://127.0.0.1:4566 backup list-backup-vaults`
// with region and dummy credentials set. Every argument goes to the CLI
// unchanged, `--help` and `help` included; stdin, stdout and stderr are the
// CLI's, and cloudlocal exits with the CLI's exit code.
//
// The CLI is $CLOUDLOCAL_AWS if set, else `aws` on PATH (aws.exe on
// Windows). When there is none, cloudlocal says how to get it and exits 127.
//
// Variables it fills in when they are unset or empty, leaving every other
// variable alone:
//
//   - AWS_ENDPOINT_URL: EMULATOR_ENDPOINT, else http://EMULATOR_HOST:EMULATOR_PORT
//     (127.0.0.1 when the host is unset or a wildcard such as 0.0.0.0). It is
//     also passed as --endpoint-url unless the arguments carry one, because
//     AWS CLIs older than 2.13 ignore the variable.
//   - AWS_REGION and AWS_DEFAULT_REGION: the other one if set, else
//     EMULATOR_DEFAULT_REGION (default us-east-1).
//   - AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: both "test", only when
//     neither is set.
//
// It must stay a thin wrapper: no AWS logic of its own, no files written, and
// nothing sent anywhere but through the CLI.
package main
