// Package inbox holds what applications sent that leaves no trace in any
// AWS resource: mail (SES, and SNS email subscriptions), short messages
// (SNS to a phone number) and push notifications (SNS to a platform
// endpoint). Test suites read it through /_emulator/ses/inbox/messages and
// the compatibility aliases. It is memory only, like usage counts, and
// bounded: past its limit the oldest entries go first.
package inbox
