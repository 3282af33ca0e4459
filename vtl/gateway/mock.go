package gateway

import (
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/vtl"
)

// MockStatus reads the status code out of a MOCK integration's rendered
// request template, which must be an object with an integer statusCode:
// {"statusCode": 200}. API Gateway also accepts the unquoted key that
// CDK's CORS preflight emits, {statusCode: 200} (docs/apigateway-execution.md §5), so a
// text that is not JSON gets a lenient second reading. ok is false when
// there is no integer statusCode, which API Gateway answers with 500.
func MockStatus(rendered string) (int, bool) {
	if v, err := vtl.ParseJSON([]byte(rendered)); err == nil {
		m, ok := v.(*vtl.Map)
		if !ok {
			return 0, false
		}
		s, _ := m.Get("statusCode")
		switch n := s.(type) {
		case int64:
			if n >= 0 && n <= 999 {
				return int(n), true
			}
		}
		return 0, false
	}
	return lenientStatus(rendered)
}

// lenientStatus finds statusCode, quoted or not, then ':' and an integer,
// inside braces.
func lenientStatus(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return 0, false
	}
	body := s[1 : len(s)-1]
	const key = "statusCode"
	for off := 0; off < len(body); {
		i := strings.Index(body[off:], key)
		if i < 0 {
			return 0, false
		}
		start, end := off+i, off+i+len(key)
		off = end
		// The key stands alone: after '{', ',' or an opening quote.
		before := strings.TrimRight(body[:start], " \t\r\n")
		q := byte(0)
		if strings.HasSuffix(before, `"`) || strings.HasSuffix(before, `'`) {
			q = before[len(before)-1]
			before = strings.TrimRight(before[:len(before)-1], " \t\r\n")
		}
		if before != "" && !strings.HasSuffix(before, ",") {
			continue
		}
		rest := body[end:]
		if q != 0 {
			if rest == "" || rest[0] != q {
				continue
			}
			rest = rest[1:]
		}
		rest = strings.TrimLeft(rest, " \t\r\n")
		if rest == "" || rest[0] != ':' {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t\r\n")
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n > 3 {
			return 0, false
		}
		after := strings.TrimLeft(rest[n:], " \t\r\n")
		if after != "" && after[0] != ',' {
			return 0, false
		}
		code, _ := strconv.Atoi(rest[:n])
		return code, true
	}
	return 0, false
}
