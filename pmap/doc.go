// Package pmap is an immutable map from strings to values, sorted by key,
// with structural sharing: Set and Delete return a new map that shares all
// but O(log n) of its nodes with the old one, which stays as it was. Owners
// keep their collections in it so that a write costs what it changes, not
// the size of the collection, while every published snapshot and every
// deployment that froze one stays valid. Shared adds a lock-free cell for
// an index that several owners update.
//
// It wraps github.com/benbjohnson/immutable's SortedMap (a persistent
// B+tree); it must not import anything of the emulator's.
package pmap
