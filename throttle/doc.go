// Package throttle implements API Gateway's request throttling and usage
// quotas as lock-free objects that the data plane checks directly: token
// buckets (Bucket: burstLimit, rateLimit), quota windows per API key (Quota:
// limit, offset, period on UTC calendar boundaries, with the per-day
// [used, remaining] log that GetUsage reports and UpdateUsage adjusts), and
// the composition of the levels a request must pass (Levels: usage plan per
// client and method, stage method throttling, account). Every decision is
// exact and deterministic for the times it is given: callers pass the
// current time, so tests drive it with a fake clock.
//
// It owns the arithmetic and the concurrency of admission, nothing else:
// which buckets exist, their limits and their lifetimes belong to the usage
// plan and stage owners, and it must not import anything of the emulator's.
package throttle
