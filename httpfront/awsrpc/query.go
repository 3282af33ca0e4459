package awsrpc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// The query protocol, read and written as the model's shapes say: a form
// is converted to the input shape's JSON (so that the handler's structure
// decodes it as it would the JSON protocol's body), and the handler's
// output is marshalled to JSON and written as XML in the model's member
// order.

// contentTypeXML is the query protocol's content type.
const contentTypeXML = "text/xml"

var dot = []byte{'.'}

// maxIndex bounds a list's or map's index in a form: no query operation
// takes more than 1000 entries.
const maxIndex = 1000

// A form's names are model member paths: none is longer than maxKeyLen
// or has more than maxKeyDots dots (the deepest, SNS's
// PublishBatchRequestEntries.member.N.MessageAttributes.entry.N.Value.StringValue,
// has 8), and no request sends more than maxParams parameters. A name past
// these bounds is refused before its prefixes are recorded, which costs
// time quadratic in the name's length.
const (
	maxKeyLen  = 512
	maxKeyDots = 16
	maxParams  = 10_000
)

// appendText writes s escaped as XML text; characters XML cannot carry
// become U+FFFD.
func appendText(w *bytes.Buffer, s string) { _ = xml.EscapeText(w, []byte(s)) }

// form is a query request's parameters by name, and every dotted prefix of
// a name (present), which tells a structure, list or map that was sent.
type form struct {
	vals    map[string]string
	present map[string]bool
}

func (f *form) has(key string) bool {
	if _, ok := f.vals[key]; ok {
		return true
	}
	return f.present[key]
}

// invalid is the service's answer to a value that does not fit its member.
func (c *Call) invalid(key, value, reason string) *awswire.Error {
	key, value = clip(key, 256), clip(value, 128)
	if c.Service == awswire.SQS {
		return awswire.Errorf(c.Service, awswire.CodeInvalidParameterValueQuery,
			"Value %s for parameter %s is invalid. Reason: %s.", value, key, reason)
	}
	return awswire.Errorf(c.Service, awswire.CodeValidationError,
		"1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: %s", value, key, reason)
}

// readForm copies the form's parameters and checks their names: within
// the bounds above, and every index a whole number from 1 to maxIndex.
func (c *Call) readForm() (*form, error) {
	f := &form{vals: map[string]string{}, present: map[string]bool{}}
	if c.Form == nil {
		return f, nil
	}
	if n := c.Form.Len(); n > maxParams {
		return nil, c.invalid("(the form)", strconv.Itoa(n)+" parameters", fmt.Sprintf("a request has at most %d parameters", maxParams))
	}
	for k, v := range c.Form.All() {
		if len(k) > maxKeyLen || bytes.Count(k, dot) > maxKeyDots {
			return nil, c.invalid(string(k[:min(len(k), 256)]), string(v),
				fmt.Sprintf("the parameter name is not a member path: longer than %d characters or with more than %d dots", maxKeyLen, maxKeyDots))
		}
		key := string(k)
		f.vals[key] = string(v)
		start := 0
		for i := 0; i <= len(key); i++ {
			if i < len(key) && key[i] != '.' {
				continue
			}
			if i < len(key) {
				f.present[key[:i]] = true
			}
			if seg := key[start:i]; seg != "" && seg[0] >= '0' && seg[0] <= '9' {
				n, err := strconv.Atoi(seg)
				if err != nil || n < 1 || n > maxIndex || seg[0] == '0' {
					return nil, c.invalid(key, string(v), fmt.Sprintf("the index %s is not a number from 1 to %d", clip(seg, 16), maxIndex))
				}
			}
			start = i + 1
		}
	}
	return f, nil
}

// decodeQuery converts the form to the input shape's JSON and decodes that
// into v.
func (c *Call) decodeQuery(v any) error {
	m, err := modelOf(c.Service)
	if err != nil {
		return err
	}
	op, ok := m.ops[c.Op]
	if !ok || op.input == nil {
		return nil
	}
	f, err := c.readForm()
	if err != nil {
		return err
	}
	buf := getBuf()
	defer putBuf(buf)
	d := formDecoder{c: c, f: f, buf: buf}
	if err := d.structure(op.input, ""); err != nil {
		return err
	}
	if err := json.Unmarshal(buf.Bytes(), v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return c.invalid(te.Field, te.Value, "the value does not have the member's type")
		}
		return fmt.Errorf("awsrpc: decode %s input: %w", c.Op, err)
	}
	return nil
}

// formDecoder writes a form's values as the JSON of a shape.
type formDecoder struct {
	c   *Call
	f   *form
	buf *bytes.Buffer
}

// structure writes s's members found under prefix (empty at the top, else
// ending in ".") as a JSON object.
func (d *formDecoder) structure(s *shape, prefix string) error {
	d.buf.WriteByte('{')
	first := true
	for _, m := range s.members {
		mark := d.buf.Len()
		if !first {
			d.buf.WriteByte(',')
		}
		d.buf.Write(awswire.AppendString(d.buf.AvailableBuffer(), m.name))
		d.buf.WriteByte(':')
		key := prefix + m.serialName()
		ok, err := d.value(m.shape, key, m.isFlattened())
		if err != nil {
			return err
		}
		if ok {
			first = false
		} else {
			d.buf.Truncate(mark)
		}
	}
	d.buf.WriteByte('}')
	return nil
}

// value writes the value of shape s sent under key, and reports whether
// one was sent. flattened is the list's or map's flattening.
func (d *formDecoder) value(s *shape, key string, flattened bool) (bool, error) {
	switch s.kind {
	case kindStructure:
		if !d.f.present[key] {
			return false, nil
		}
		return true, d.structure(s, key+".")
	case kindList:
		return d.list(s, key, flattened)
	case kindMap:
		return d.mapValue(s, key, flattened)
	}
	v, ok := d.f.vals[key]
	if !ok {
		return false, nil
	}
	return true, d.scalar(s, key, v)
}

// list writes a list: Name.member.N (or the member's location name), or,
// flattened, Name.N with Name the member's location name where it has one.
// It stops at the first missing index.
func (d *formDecoder) list(s *shape, key string, flattened bool) (bool, error) {
	lp := key
	if flattened {
		if n := s.member.locationName; n != "" {
			i := strings.LastIndexByte(key, '.')
			lp = key[:i+1] + n
		}
	} else {
		n := s.member.locationName
		if n == "" {
			n = "member"
		}
		lp = key + "." + n
	}
	first := lp + ".1"
	if !d.f.has(first) {
		// Name= is an empty list (botocore sends the member's name, a
		// flattened list's element name is taken too).
		v, ok := d.f.vals[key]
		if !ok {
			v, ok = d.f.vals[lp]
		}
		if ok && v == "" {
			d.buf.WriteString("[]")
			return true, nil
		}
		return false, nil
	}
	d.buf.WriteByte('[')
	for i := 1; i <= maxIndex; i++ {
		ek := lp + "." + strconv.Itoa(i)
		if !d.f.has(ek) {
			break
		}
		if i > 1 {
			d.buf.WriteByte(',')
		}
		ok, err := d.value(s.member.shape, ek, s.member.shape.flattened)
		if err != nil {
			return false, err
		}
		if !ok {
			d.buf.WriteString("null")
		}
	}
	d.buf.WriteByte(']')
	return true, nil
}

// mapValue writes a map: Name.entry.N.key / .value (or the key's and
// value's location names), or, flattened, Name.N.key / .value. It stops at
// the first missing index.
func (d *formDecoder) mapValue(s *shape, key string, flattened bool) (bool, error) {
	mp := key
	if !flattened {
		mp = key + ".entry"
	}
	keyName, valueName := s.key.locationName, s.value.locationName
	if keyName == "" {
		keyName = "key"
	}
	if valueName == "" {
		valueName = "value"
	}
	if !d.f.has(mp + ".1") {
		return false, nil
	}
	d.buf.WriteByte('{')
	for i := 1; i <= maxIndex; i++ {
		base := mp + "." + strconv.Itoa(i)
		if !d.f.has(base) {
			break
		}
		k, ok := d.f.vals[base+"."+keyName]
		if !ok {
			return false, d.c.invalid(base+"."+keyName, "null", "Member must not be null")
		}
		if i > 1 {
			d.buf.WriteByte(',')
		}
		d.buf.Write(awswire.AppendString(d.buf.AvailableBuffer(), k))
		d.buf.WriteByte(':')
		ok, err := d.value(s.value.shape, base+"."+valueName, s.value.shape.flattened)
		if err != nil {
			return false, err
		}
		if !ok {
			d.buf.WriteString("null")
		}
	}
	d.buf.WriteByte('}')
	return true, nil
}

// scalar writes v, sent under key, typed as s says.
func (d *formDecoder) scalar(s *shape, key, v string) error {
	b := d.buf.AvailableBuffer()
	switch s.kind {
	case kindInteger, kindLong:
		bits := 32
		if s.kind == kindLong {
			bits = 64
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, bits)
		if err != nil {
			return d.c.invalid(key, v, "the value must be an integer")
		}
		b = strconv.AppendInt(b, n, 10)
	case kindBoolean:
		switch strings.ToLower(v) {
		case "true":
			b = append(b, "true"...)
		case "false":
			b = append(b, "false"...)
		default:
			return d.c.invalid(key, v, "the value must be true or false")
		}
	case kindDouble:
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return d.c.invalid(key, v, "the value must be a number")
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	case kindTimestamp:
		t, ok := parseTimestamp(v)
		if !ok {
			return d.c.invalid(key, v, "the value must be an ISO 8601 timestamp or epoch seconds")
		}
		b = append(b, '"')
		b = t.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	case kindBlob:
		if _, err := base64.StdEncoding.DecodeString(v); err != nil {
			return d.c.invalid(key, v, "the value must be base64")
		}
		b = awswire.AppendString(b, v)
	default:
		b = awswire.AppendString(b, v)
	}
	d.buf.Write(b)
	return nil
}

// parseTimestamp reads ISO 8601 (with or without fractions and offset) or
// epoch seconds.
func parseTimestamp(v string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e11 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(x)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

// replyQuery writes v as the operation's XML answer.
func (c *Call) replyQuery(v any) error {
	m, err := modelOf(c.Service)
	if err != nil {
		return err
	}
	op, ok := m.ops[c.Op]
	if !ok {
		return fmt.Errorf("awsrpc: %s has no operation %s", c.Service, c.Op)
	}
	var obj map[string]any
	if v != nil && op.output != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("awsrpc: encode %s output: %w", c.Op, err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			return fmt.Errorf("awsrpc: %s output is not a structure: %w", c.Op, err)
		}
	}
	w := getBuf()
	defer putBuf(w)
	w.WriteString("<" + c.Op + "Response")
	if md := c.Service.Model(); md != nil && md.XMLNamespace != "" {
		w.WriteString(` xmlns="` + md.XMLNamespace + `"`)
	}
	w.WriteByte('>')
	if op.output != nil {
		w.WriteString("<" + op.wrapper + ">")
		if err := writeMembers(w, op.output, obj); err != nil {
			return fmt.Errorf("awsrpc: %s output: %w", c.Op, err)
		}
		w.WriteString("</" + op.wrapper + ">")
	}
	w.WriteString("<ResponseMetadata><RequestId>")
	w.Write(c.requestID())
	w.WriteString("</RequestId></ResponseMetadata></" + c.Op + "Response>")
	c.Ctx.SetStatusCode(200)
	c.Ctx.Response.Header.SetContentType(contentTypeXML)
	c.Ctx.SetBody(w.Bytes())
	return nil
}

// writeMembers writes obj's members of structure s in the model's order.
func writeMembers(w *bytes.Buffer, s *shape, obj map[string]any) error {
	for _, m := range s.members {
		v, ok := obj[m.name]
		if !ok || v == nil {
			continue
		}
		name := m.serialName()
		if m.shape.kind == kindList && m.isFlattened() && m.shape.member.locationName != "" {
			name = m.shape.member.locationName
		}
		if err := writeValue(w, name, m.shape, v, m.isFlattened()); err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
	}
	return nil
}

// writeValue writes v, of shape s, as the element name (a flattened list
// or map as repeated elements of that name).
func writeValue(w *bytes.Buffer, name string, s *shape, v any, flattened bool) error {
	switch s.kind {
	case kindStructure:
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want a structure, got %T", v)
		}
		w.WriteString("<" + name + ">")
		if err := writeMembers(w, s, obj); err != nil {
			return err
		}
		w.WriteString("</" + name + ">")
	case kindList:
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want a list, got %T", v)
		}
		elem := s.member.locationName
		if flattened {
			elem = name
		} else {
			if elem == "" {
				elem = "member"
			}
			w.WriteString("<" + name + ">")
		}
		for _, e := range list {
			if e == nil {
				continue
			}
			if err := writeValue(w, elem, s.member.shape, e, s.member.shape.flattened); err != nil {
				return err
			}
		}
		if !flattened {
			w.WriteString("</" + name + ">")
		}
	case kindMap:
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want a map, got %T", v)
		}
		keyName, valueName := s.key.locationName, s.value.locationName
		if keyName == "" {
			keyName = "key"
		}
		if valueName == "" {
			valueName = "value"
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		entry := "entry"
		if flattened {
			entry = name
		} else {
			w.WriteString("<" + name + ">")
		}
		for _, k := range keys {
			w.WriteString("<" + entry + "><" + keyName + ">")
			appendText(w, k)
			w.WriteString("</" + keyName + ">")
			if val := obj[k]; val != nil {
				if err := writeValue(w, valueName, s.value.shape, val, s.value.shape.flattened); err != nil {
					return err
				}
			}
			w.WriteString("</" + entry + ">")
		}
		if !flattened {
			w.WriteString("</" + name + ">")
		}
	default:
		text, err := scalarText(s, v)
		if err != nil {
			return err
		}
		w.WriteString("<" + name + ">")
		appendText(w, text)
		w.WriteString("</" + name + ">")
	}
	return nil
}

// isoMillis is AWS's timestamp form in XML: ISO 8601 with milliseconds.
const isoMillis = "2006-01-02T15:04:05.000Z"

// scalarText is a scalar's XML text.
func scalarText(s *shape, v any) (string, error) {
	switch x := v.(type) {
	case string:
		if s.kind == kindTimestamp {
			t, err := time.Parse(time.RFC3339Nano, x)
			if err != nil {
				return "", fmt.Errorf("timestamp %q: %w", x, err)
			}
			return t.UTC().Format(isoMillis), nil
		}
		return x, nil
	case json.Number:
		if s.kind == kindTimestamp {
			f, err := x.Float64()
			if err != nil {
				return "", err
			}
			sec, frac := math.Modf(f)
			return time.Unix(int64(sec), int64(frac*1e9)).UTC().Format(isoMillis), nil
		}
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("want a scalar, got %T", v)
}

// typeName names the JSON type a Go member takes, with its article; a
// blob travels as a base64 string.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() == reflect.Uint8 {
		return "a base64 string"
	}
	n := restjson.TypeName(t)
	if strings.ContainsRune("aeiou", rune(n[0])) {
		return "an " + n
	}
	return "a " + n
}
