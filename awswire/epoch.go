package awswire

import (
	"math"
	"strconv"
)

// Epoch is a timestamp in Unix milliseconds that travels as rest-json's
// default form: epoch seconds as a JSON number (API Gateway v1, Backup).
type Epoch int64

// MarshalJSON implements json.Marshaler.
func (e Epoch) MarshalJSON() ([]byte, error) {
	return AppendEpochSeconds(make([]byte, 0, 24), int64(e)), nil
}

// UnmarshalJSON implements json.Unmarshaler; it reads epoch seconds.
func (e *Epoch) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return &strconv.NumError{Func: "Epoch", Num: string(b), Err: strconv.ErrSyntax}
	}
	*e = Epoch(math.Round(f * 1000))
	return nil
}
