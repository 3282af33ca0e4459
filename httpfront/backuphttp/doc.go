// Package backuphttp serves the AWS Backup operations: it decodes each
// request's wire shape, calls package backup, and encodes the reply as the
// model says. It checks the shape only — the body is JSON of the model's
// types, and the members the model requires are present
// (MissingParameterValueException naming the member, or
// InvalidParameterValueException for a malformed body, a query parameter
// of the wrong type or a forged page token); every rule on values is the
// domain's.
package backuphttp
