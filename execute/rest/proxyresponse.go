package rest

import (
	"math"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/jsonread"
)

// proxyAnswer is a Lambda proxy integration's answer, read.
type proxyAnswer struct {
	status int
	body   []byte
	base64 bool
}

// parseProxyAnswer reads a Lambda proxy answer (docs/apigateway-execution.md §4
// "Response parsing", recorded L-04 and L-05), its body appended to body,
// and appends its headers to h:
// each multiValueHeaders name with its values, then the headers value of
// the same name (either spelling; the multiValueHeaders one is kept), then
// the other headers in order. ok is false for an answer API Gateway
// answers 502: not one JSON object, a member other than statusCode,
// headers, multiValueHeaders, body and isBase64Encoded, a statusCode that
// is not a number or numeric string of an HTTP status, headers that are
// not an object of scalars, multiValueHeaders whose values are not lists
// of scalars, a body that is an object or a list. Scalars are read as text
// (a boolean header is "true"); null is absence; a missing statusCode is
// 200.
func parseProxyAnswer(payload []byte, h execute.Headers, body []byte) (proxyAnswer, execute.Headers, bool) {
	a := proxyAnswer{status: 200, body: body[:0]}
	var single, multi []byte
	ok := jsonread.EachMember(payload, func(key, v []byte) bool {
		switch string(key) {
		case "statusCode":
			s, ok := proxyStatus(v)
			a.status = s
			return ok
		case "headers":
			single = v
		case "multiValueHeaders":
			multi = v
		case "body":
			var ok bool
			a.body, _, ok = jsonread.AppendScalar(a.body[:0], v)
			return ok
		case "isBase64Encoded":
			s, k, ok := jsonread.ScalarText(v)
			switch {
			case !ok:
				return false
			case k == jsonread.Null:
				a.base64 = false
			case s == "true" || s == "false":
				a.base64 = s == "true"
			default:
				return false
			}
		default:
			return false
		}
		return true
	})
	if !ok {
		return a, h, false
	}
	var singles execute.Headers
	if jsonread.KindOf(single) != jsonread.Null {
		if jsonread.KindOf(single) != jsonread.Object {
			return a, h, false
		}
		ok = jsonread.EachMember(single, func(name, v []byte) bool {
			s, k, ok := jsonread.ScalarText(v)
			if ok && k != jsonread.Null {
				singles = append(singles, execute.Header{Name: string(name), Value: s})
			}
			return ok
		})
		if !ok {
			return a, h, false
		}
	}
	if jsonread.KindOf(multi) != jsonread.Null {
		if jsonread.KindOf(multi) != jsonread.Object {
			return a, h, false
		}
		ok = jsonread.EachMember(multi, func(key, v []byte) bool {
			name := string(key)
			switch jsonread.KindOf(v) {
			case jsonread.Null:
				return true
			case jsonread.Array:
			default:
				return false
			}
			ok := jsonread.EachElement(v, func(e []byte) bool {
				s, k, ok := jsonread.ScalarText(e)
				if ok && k != jsonread.Null {
					h = append(h, execute.Header{Name: name, Value: s})
				}
				return ok
			})
			if !ok {
				return false
			}
			for i := 0; i < len(singles); i++ {
				if strings.EqualFold(singles[i].Name, name) {
					h = append(h, execute.Header{Name: name, Value: singles[i].Value})
					singles = append(singles[:i], singles[i+1:]...)
					i--
				}
			}
			return true
		})
		if !ok {
			return a, h, false
		}
	}
	h = append(h, singles...)
	return a, h, true
}

// proxyStatus reads statusCode: a number, or a string holding one (a
// fraction is dropped, as Jackson reads a number into an int), of an HTTP
// status; null is 200.
func proxyStatus(v []byte) (int, bool) {
	s, k, ok := jsonread.ScalarText(v)
	switch {
	case !ok:
		return 0, false
	case k == jsonread.Null:
		return 200, true
	case k == jsonread.String:
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 100 && n <= 599
	case k == jsonread.Number:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) {
			return 0, false
		}
		n := int(f)
		return n, n >= 100 && n <= 599
	}
	return 0, false
}
