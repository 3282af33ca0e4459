package sqs

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MessageAttribute is one message attribute's value (user attributes and
// system attributes alike); its json names are the model's.
type MessageAttribute struct {
	DataType    string `json:"DataType"`
	StringValue string `json:"StringValue,omitempty"`
	BinaryValue []byte `json:"BinaryValue,omitempty"`
}

// binary reports whether the attribute travels as bytes.
func (a MessageAttribute) binary() bool { return strings.HasPrefix(a.DataType, "Binary") }

// Message states.
const (
	stateVisible uint8 = iota
	stateInflight
	stateDelayed
)

var stateNames = [...]string{"visible", "inflight", "delayed"}

// Message is one message as its queue's owner keeps it (and persists it).
// It never changes once published: a receive replaces it with a copy. What
// few messages have lives behind X, so that a plain message holds less.
type Message struct {
	Seq  uint64    `json:"seq"`
	ID   messageID `json:"id"`
	Body string    `json:"body"`
	// MD5Body is the body's digest, recomputed on restore.
	MD5Body [md5.Size]byte              `json:"-"`
	Attrs   map[string]MessageAttribute `json:"attrs,omitempty"`
	X       *MessageExtra               `json:"x,omitempty"`
	Sent    int64                       `json:"sent"` // unix ms
	Sender  string                      `json:"sender"`
	// VisibleAt ends a delay or a visibility timeout (unix ns).
	VisibleAt    int64  `json:"visibleAt,omitempty"`
	FirstReceive int64  `json:"firstReceive,omitempty"` // unix ms
	Receives     int32  `json:"receives,omitempty"`
	State        uint8  `json:"state"`
	Handle       string `json:"handle,omitempty"` // the last receipt handle
}

// MessageExtra is what only some messages have: a trace header, FIFO ids,
// the dead-letter queue's mark.
type MessageExtra struct {
	Trace     string `json:"trace,omitempty"` // AWSTraceHeader
	MD5Sys    string `json:"md5Sys,omitempty"`
	Group     string `json:"group,omitempty"`
	Dedup     string `json:"dedup,omitempty"`
	DLQSource string `json:"dlqSource,omitempty"`
}

// extra is m's extra members (zero when it has none).
func (m *Message) extra() MessageExtra {
	if m.X == nil {
		return MessageExtra{}
	}
	return *m.X
}

// edit changes m's extra members on a copy (another message may share
// them).
func (m *Message) edit(f func(x *MessageExtra)) {
	x := m.extra()
	f(&x)
	if x == (MessageExtra{}) {
		m.X = nil
		return
	}
	m.X = &x
}

// messageID is a MessageId, a version 4 UUID, kept as its 16 bytes.
type messageID [16]byte

func newMessageID() messageID {
	var id messageID
	binary.BigEndian.PutUint64(id[:8], rand.Uint64())
	binary.BigEndian.PutUint64(id[8:], rand.Uint64())
	id[6] = id[6]&0x0f | 0x40 // version 4
	id[8] = id[8]&0x3f | 0x80 // RFC 4122 variant
	return id
}

func (id messageID) appendText(dst []byte) []byte {
	const hexDigits = "0123456789abcdef"
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return dst
}

// String is the id's 36-character text.
func (id messageID) String() string {
	var b [36]byte
	return string(id.appendText(b[:0]))
}

// MarshalText implements encoding.TextMarshaler.
func (id messageID) MarshalText() ([]byte, error) { return id.appendText(make([]byte, 0, 36)), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (id *messageID) UnmarshalText(b []byte) error {
	p, ok := parseMessageID(string(b))
	if !ok {
		return fmt.Errorf("sqs: malformed message id %q", b)
	}
	*id = p
	return nil
}

func parseMessageID(s string) (messageID, bool) {
	var id messageID
	if len(s) != 36 {
		return id, false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return id, false
			}
			i++
			continue
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return id, false
		}
		id[j] = hi<<4 | lo
		j++
		i += 2
	}
	return id, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// md5OfBody is the body's digest in hex.
func (m *Message) md5OfBody() string { return hex.EncodeToString(m.MD5Body[:]) }

// sequenceNumber is a FIFO message's SequenceNumber: 20 digits, growing
// with the queue's sequence.
func (m *Message) sequenceNumber() string { return strconv.FormatUint(sequenceBase+m.Seq, 10) }

// MD5OfAttributes is AWS's digest of message attributes: for each
// attribute in name order, the name, the data type and the value, each
// preceded by its length (4 bytes, big-endian), with a transport byte (1
// for String and Number, 2 for Binary) before the value. "" when there are
// none.
func MD5OfAttributes(attrs map[string]MessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	slices.Sort(names)
	h := md5.New()
	var n [4]byte
	put := func(b []byte) {
		binary.BigEndian.PutUint32(n[:], uint32(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, k := range names {
		a := attrs[k]
		put([]byte(k))
		put([]byte(a.DataType))
		if a.binary() {
			h.Write([]byte{2})
			put(a.BinaryValue)
		} else {
			h.Write([]byte{1})
			put([]byte(a.StringValue))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// validChars reports whether s holds only the characters SQS accepts:
// #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF.
func validChars(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != 0x9 && c != 0xA && c != 0xD {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		if (r >= 0xD800 && r <= 0xDFFF) || r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += size
	}
	return true
}

// attributesSize is what message attributes count toward the message size,
// as AWS counts it: every name, data type and value.
func attributesSize(attrs map[string]MessageAttribute) int {
	n := 0
	for k, a := range attrs {
		n += len(k) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}

func nameChar(r rune) bool {
	return r == '_' || r == '-' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') ||
		(r >= '0' && r <= '9') || (r >= 0xC0 && r <= 0x17F)
}

// checkMessageAttributes validates user message attributes as AWS does.
func checkMessageAttributes(attrs map[string]MessageAttribute) error {
	if len(attrs) > 10 {
		return invalidParameter("Number of message attributes [%d] exceeds the allowed maximum [10].", len(attrs))
	}
	for k, a := range attrs {
		if k == "" {
			return invalidParameter("The request must contain non-empty message attribute name.")
		}
		if len(k) >= 256 {
			return invalidParameter("Message (user) attribute names must be shorter than 256 Bytes")
		}
		for _, r := range k {
			if !nameChar(r) {
				return invalidParameter("Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. ")
			}
		}
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "aws.") || strings.HasPrefix(lk, "amazon.") || strings.HasPrefix(k, ".") || strings.HasSuffix(k, ".") || strings.Contains(k, "..") {
			return invalidParameter("You can't use message attribute names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use. Additionally, they cannot start or end with '.'.")
		}
		if a.DataType == "" {
			return invalidParameter("The message attribute '%s' must contain non-empty message attribute type.", k)
		}
		base, custom, _ := strings.Cut(a.DataType, ".")
		if (base != "String" && base != "Number" && base != "Binary") || (strings.Contains(a.DataType, ".") && custom == "") {
			return invalidParameter("The type of message (user) attribute '%s' is invalid. You must use only the following supported type prefixes: Binary, Number, String.", k)
		}
		if len(a.DataType) >= 256 {
			return invalidParameter("Message (user) attribute types must be shorter than 256 Bytes")
		}
		switch base {
		case "Binary":
			if len(a.BinaryValue) == 0 {
				return invalidParameter("Message (user) attribute '%s' must contain a non-empty value of type 'Binary'.", k)
			}
		default:
			if a.StringValue == "" {
				return invalidParameter("Message (user) attribute '%s' must contain a non-empty value of type '%s'.", k, base)
			}
			if !validChars(a.StringValue) {
				return invalidParameter(invalidMessageContentsText)
			}
			if base == "Number" && !validNumber(a.StringValue) {
				return invalidParameter("Can't cast the value of message (user) attribute '%s' to a number.", k)
			}
		}
	}
	return nil
}

func validNumber(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	dot, digits := false, 0
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case (c == '-' || c == '+') && i == 0:
		case c == '.' && !dot:
			dot = true
		case c == 'e' || c == 'E':
			return digits > 0 && validExponent(s[i+1:])
		default:
			return false
		}
	}
	return digits > 0
}

func validExponent(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// fifoID reports whether a MessageGroupId or MessageDeduplicationId is one
// AWS accepts: 1 to 128 alphanumeric and punctuation characters.
func fifoID(s string) bool {
	if len(s) < 1 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

// batchEntryID reports whether id is a valid batch entry id.
func batchEntryID(id string) bool {
	if len(id) < 1 || len(id) > 80 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}
