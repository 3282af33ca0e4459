package sns

import (
	"maps"

	"github.com/cloudemu/emulator/awswire"
)

// smsAttributes are the account SMS attributes SetSMSAttributes accepts.
var smsAttributes = map[string]bool{"MonthlySpendLimit": true, "DeliveryStatusIAMRole": true,
	"DeliveryStatusSuccessSamplingRate": true, "DefaultSenderID": true, "DefaultSMSType": true,
	"UsageReportS3Bucket": true}

// SetSMSAttributes merges the account's SMS attributes (kept in memory).
func (s *Service) SetSMSAttributes(sc awswire.Scope, attrs map[string]string) error {
	for k, v := range attrs {
		if !smsAttributes[k] {
			return invalid(k + " is not a valid attribute")
		}
		if k == "DefaultSMSType" && v != "Promotional" && v != "Transactional" {
			return invalid("DefaultSMSType is invalid")
		}
	}
	d := s.scopes.Get(sc)
	for {
		old := d.sms.Load()
		next := map[string]string{}
		if old != nil {
			next = maps.Clone(*old)
		}
		maps.Copy(next, attrs)
		if d.sms.CompareAndSwap(old, &next) {
			return nil
		}
	}
}

// GetSMSAttributes returns the named SMS attributes (all when names is
// empty).
func (s *Service) GetSMSAttributes(sc awswire.Scope, names []string) map[string]string {
	out := map[string]string{}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return out
	}
	cur := d.sms.Load()
	if cur == nil {
		return out
	}
	if len(names) == 0 {
		return maps.Clone(*cur)
	}
	for _, n := range names {
		if v, ok := (*cur)[n]; ok {
			out[n] = v
		}
	}
	return out
}

// CheckPhoneNumber validates a phone number for
// CheckIfPhoneNumberIsOptedOut; no number is ever opted out.
func CheckPhoneNumber(n string) error {
	if !validPhone(n) {
		return InvalidParameter("PhoneNumber Reason: input incorrectly formatted")
	}
	return nil
}
