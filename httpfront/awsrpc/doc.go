// Package awsrpc serves the AWS services whose operations all travel to one
// path and are named in the request: the query protocol (a form with
// Action and Version, answered in XML: SQS's older clients, SNS, SES v1)
// and the JSON 1.0 protocol (X-Amz-Target: Prefix.Operation, answered in
// JSON: SQS's current clients). A service's handlers see neither: they
// decode into and reply with Go structures whose json tags are the model's
// member names, and the botocore model (embedded) says how each member
// travels in the query protocol (lists, flattened lists, maps, location
// names) and how each error code is spelled there.
package awsrpc
