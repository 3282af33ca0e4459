package restjson

import "github.com/cloudemu/emulator/httpfront/wire"

// Epoch is a timestamp in Unix milliseconds that encodes as rest-json's
// default: epoch seconds as a JSON number (API Gateway v1, Backup).
type Epoch int64

// MarshalJSON implements json.Marshaler.
func (e Epoch) MarshalJSON() ([]byte, error) {
	return wire.AppendEpochSeconds(make([]byte, 0, 24), int64(e)), nil
}
