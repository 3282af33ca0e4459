// Package backup serves the AWS Backup operations: it decodes each request,
// validates it against the model's shapes, calls the owners through
// actors/backup, and encodes the reply exactly as the model names it.
// Operations not listed in Handlers answer NotImplementedException.
package backuphttp
