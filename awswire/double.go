package awswire

import (
	"math"
	"strconv"
)

// Double is a number that AWS's Java services write as Java's
// Double.toString does ("5.0", "1.0E7"): a whole value keeps its ".0",
// which clients that keep JSON numbers as they come (botocore) print.
type Double float64

// MarshalJSON implements json.Marshaler.
func (d Double) MarshalJSON() ([]byte, error) { return AppendJavaDouble(nil, float64(d)), nil }

// AppendJavaDouble formats f as Java's Double.toString: the shortest
// digits that round-trip, plain between 10^-3 and 10^7 with at least one
// fractional digit, "computerized scientific" (1.0E10) outside.
func AppendJavaDouble(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	if f >= 1e-3 && f < 1e7 {
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		for i := len(b) - 1; i >= 0 && b[i] != '-'; i-- {
			if b[i] == '.' {
				return b
			}
		}
		return append(b, ".0"...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d[.ddd]e±XX
	mant, exp := e, []byte(nil)
	for i, c := range e {
		if c == 'e' {
			mant, exp = e[:i], e[i+1:]
			break
		}
	}
	b = append(b, mant...)
	if len(mant) == 1 {
		b = append(b, ".0"...)
	}
	b = append(b, 'E')
	if exp[0] == '-' {
		b = append(b, '-')
	}
	exp = exp[1:]
	for len(exp) > 1 && exp[0] == '0' {
		exp = exp[1:]
	}
	return append(b, exp...)
}
