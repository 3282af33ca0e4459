// Package wire holds what the bytes mean for every service: the operation
// table and error shapes generated from the AWS models, the error
// catalogue, pagination tokens, ARNs, ids and SigV4 scope parsing. It
// imports nothing of this project and knows nothing of fasthttp; how these
// values are written onto a response is the caller's business.
package awswire
