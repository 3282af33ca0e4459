// Package sqs owns the Simple Queue Service's queues: one owner actor per
// queue holds the queue's attributes, tags and messages (in send order),
// serialises sends, receives, deletes and visibility changes, keeps its own
// deadlines (visibility timeouts, delays, retention) on an actors.Timer and
// its long polls on a waiter list, and persists one record per queue and one
// per message. Reads (attributes, listings, Peek) come from the published
// snapshot. It knows nothing of HTTP: handlers give it the model's input
// structures and get back its output structures and *awswire.Error values.
package sqs
