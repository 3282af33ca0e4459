package rest

import (
	"bytes"
	"encoding/json"
	"io"
)

// Functions answer JSON that API Gateway reads as its Java front end does
// (Jackson): member names match exactly, a member may be given twice (the
// last counts), and a scalar is read as text where text is wanted (true →
// "true", 1 → "1"). The readers below keep the members' order, which
// encoding/json's maps would lose.

// eachMember calls f for every member of the JSON object raw, in order. It
// reports false when raw is not one JSON object, or when f does.
func eachMember(raw []byte, f func(key string, value json.RawMessage) bool) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		key, ok := tok.(string)
		if !ok {
			return false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		if !f(key, v) {
			return false
		}
	}
	return closes(dec, '}')
}

// eachElement calls f for every element of the JSON array raw.
func eachElement(raw []byte, f func(value json.RawMessage) bool) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return false
	}
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		if !f(v) {
			return false
		}
	}
	return closes(dec, ']')
}

// closes reads the closing delimiter and checks that nothing follows.
func closes(dec *json.Decoder, delim json.Delim) bool {
	if tok, err := dec.Token(); err != nil || tok != delim {
		return false
	}
	_, err := dec.Token()
	return err == io.EOF
}

// jsonKind is the kind of a JSON value by its first byte.
type jsonKind byte

const (
	jsonNull jsonKind = iota
	jsonString
	jsonNumber
	jsonBool
	jsonObject
	jsonArray
)

func kindOf(v []byte) jsonKind {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return jsonNull
	}
	switch v[0] {
	case '"':
		return jsonString
	case '{':
		return jsonObject
	case '[':
		return jsonArray
	case 't', 'f':
		return jsonBool
	case 'n':
		return jsonNull
	}
	return jsonNumber
}

// scalarText reads a scalar as text: a string's value, a number's or a
// boolean's JSON text. ok is false for objects and arrays; null is ("",
// jsonNull, true).
func scalarText(v []byte) (string, jsonKind, bool) {
	k := kindOf(v)
	switch k {
	case jsonString:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", k, false
		}
		return s, k, true
	case jsonNumber, jsonBool:
		return string(bytes.TrimSpace(v)), k, true
	case jsonNull:
		return "", k, true
	}
	return "", k, false
}

// functionErrorMessage is a function error's errorMessage: the selection
// value of a non-proxy function integration (§2.8, recorded L-01), ""
// when the error payload has none.
func functionErrorMessage(payload []byte) string {
	msg := ""
	eachMember(payload, func(key string, v json.RawMessage) bool {
		if key == "errorMessage" {
			if s, k, ok := scalarText(v); ok && k != jsonNull {
				msg = s
			}
		}
		return true
	})
	return msg
}
