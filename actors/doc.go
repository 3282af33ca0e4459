// Package actors owns the actor system and the directories of owners. Every
// resource has exactly one owner actor, which alone mutates its state,
// persists the records it changed and publishes an immutable snapshot before
// it replies; reads take the snapshot from a lock-free directory without a
// mailbox hop. Every protoactor call of the project lives in this package
// tree, so that the library's churn lands in one place. Nothing here blocks
// inside Receive except an owner's own store write, and every Ask is bounded.
package actors
