// Package jsonread reads JSON the way API Gateway's Java front end reads
// a function's answer (Jackson): member names match exactly, a member
// given twice counts with its last value, and a scalar is read as text
// where text is wanted (true → "true", 1 → "1"). It checks a value once
// and then walks it in place, in order, without building maps: members
// and elements are sub-slices of the checked value. The REST executor and
// the HTTP and WebSocket APIs' Lambda side (execute/httpevent) share it.
package jsonread
