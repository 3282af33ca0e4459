// Package backup owns the AWS Backup resources: one owner per backup vault,
// per backup plan and per backup access point, each a single record holding
// its tags inline, run by package actors' single-record helpers. Reads
// come from published snapshots; writes run inside the owner and are
// durable before they are answered. Directories list owners in creation
// order, so a page of a listing costs its size.
//
// The domain applies every AWS Backup rule: the model's patterns and
// lengths (names, ARNs, creator request ids), the plan document's rules
// and defaults, tag limits (50 a vault or plan, 200 an access point),
// uniqueness and existence. Its errors are InvalidParameterValueException
// for a value it refuses, AlreadyExistsException for a name in use,
// ResourceNotFoundException for what does not exist, and
// ServiceUnavailableException when an owner does not answer in time. It
// knows nothing of HTTP.
package backup
