// Package backup owns the AWS Backup resources: one owner actor per backup
// vault, per backup plan and per backup access point, each holding its tags
// inline. Owners persist their own records and publish immutable snapshots;
// Service is the facade httpfront calls, which reads snapshots directly and
// sends writes to the owner. It knows nothing of HTTP; its errors are the
// wire catalogue's, so that they reach the client unchanged.
package backup
