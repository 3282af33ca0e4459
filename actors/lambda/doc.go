// Package lambda owns the Lambda control plane: one owner per function,
// holding its $LATEST configuration, its published versions, aliases,
// resource policies, tags and reserved concurrency in one record, run by
// package actors' single-record helpers; and one owner per code package
// (a zip, stored once per SHA-256 in each account and region) that counts
// which functions hold it and deletes the package when none does. Reads
// come from published snapshots; writes run inside the owner and are
// durable before they are answered.
//
// The domain applies Lambda's rules: the model's patterns, enums and
// ranges as Lambda's framework reports them (ValidationException, "1
// validation error detected: ..."), the service's own checks
// (InvalidParameterValueException: runtimes, zips, environment size,
// qualifiers), existence (ResourceNotFoundException with AWS's recorded
// messages), uniqueness (ResourceConflictException) and revision ids
// (PreconditionFailedException). Invocations go to a Runtime, which runs
// the code; this package only resolves what to run. It knows nothing of
// HTTP.
package lambda
