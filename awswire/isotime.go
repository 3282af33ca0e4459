package awswire

import (
	"fmt"
	"time"
)

// ISOTime is a timestamp in Unix milliseconds that travels as an ISO 8601
// string, UTC, to the second ("2026-11-22T04:30:23Z"): the
// __timestampIso8601 members of API Gateway v2.
type ISOTime int64

const isoLayout = "2006-01-02T15:04:05Z"

// MarshalJSON implements json.Marshaler.
func (t ISOTime) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(isoLayout)+2)
	b = append(b, '"')
	b = time.UnixMilli(int64(t)).UTC().AppendFormat(b, isoLayout)
	return append(b, '"'), nil
}

// UnmarshalJSON implements json.Unmarshaler; it reads RFC 3339.
func (t *ISOTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("ISOTime: %s is not a string", b)
	}
	v, err := time.Parse(time.RFC3339Nano, string(b[1:len(b)-1]))
	if err != nil {
		return err
	}
	*t = ISOTime(v.UnixMilli())
	return nil
}
