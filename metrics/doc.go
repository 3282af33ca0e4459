// Package metrics owns the emulator's per-request metrics: a store of
// CloudWatch-style series (namespace, metric name, dimension set) kept in
// 1-second and 1-minute buckets with Sum, SampleCount, Minimum, Maximum and
// a mergeable log-linear histogram for percentiles, bounded by configurable
// retention; lock-free recording of API Gateway requests (RecordREST,
// RecordHTTP, or a kept Route handle; a route's coarser dimension sets are
// summed when read) and PutMetricData datapoints (Put); the reads CloudWatch
// clients make (ListMetrics, GetMetricStatistics, GetMetricData's
// MetricStat) and a Prometheus text exposition. It must not know HTTP: it
// imports no package of the emulator's, and the wire protocols, the error
// mapping and the wiring into execution belong to its callers.
package metrics
