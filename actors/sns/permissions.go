package sns

import (
	"encoding/json"
	"slices"

	"github.com/cloudemu/emulator/actors"
)

// snsActions are the actions AddPermission may grant.
var snsActions = []string{"AddPermission", "ConfirmSubscription", "CreateTopic", "DeleteTopic",
	"GetTopicAttributes", "ListSubscriptionsByTopic", "ListTopics", "Publish", "RemovePermission",
	"SetTopicAttributes", "Subscribe", "Unsubscribe", "ListSubscriptions", "GetDataProtectionPolicy",
	"PutDataProtectionPolicy"}

// topicPolicy is the topic's access policy as a document: its own, or the
// default one.
func topicPolicy(t *Topic, account string) map[string]any {
	text := t.Attrs["Policy"]
	if text == "" {
		text = defaultPolicy(t, account)
	}
	var doc map[string]any
	if json.Unmarshal([]byte(text), &doc) != nil || doc == nil {
		doc = map[string]any{"Version": "2008-10-17"}
	}
	return doc
}

func statements(doc map[string]any) []any {
	list, _ := doc["Statement"].([]any)
	return list
}

func sid(st any) string {
	m, _ := st.(map[string]any)
	s, _ := m["Sid"].(string)
	return s
}

// oneOrMany is how IAM writes a list of one: the value itself.
func oneOrMany(list []string) any {
	if len(list) == 1 {
		return list[0]
	}
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}

func policyText(doc map[string]any) string {
	return orderedJSON(doc, "Version", "Id", "Statement", "Sid", "Effect", "Principal", "Action", "Resource", "Condition")
}

// AddPermission adds a statement labelled label to the topic's policy,
// granting actions to accounts.
func (s *Service) AddPermission(topicARN, label string, accounts, actions []string) error {
	ref, _, err := s.topic("TopicArn", topicARN)
	if err != nil {
		return err
	}
	if label == "" {
		return InvalidParameter("Label")
	}
	if len(accounts) == 0 {
		return InvalidParameter("AWSAccountId")
	}
	if len(actions) == 0 {
		return InvalidParameter("ActionName")
	}
	granted := make([]string, 0, len(actions))
	for _, a := range actions {
		if !slices.Contains(snsActions, a) {
			return InvalidParameter("Policy statement action out of service scope!")
		}
		granted = append(granted, "SNS:"+a)
	}
	principals := make([]string, 0, len(accounts))
	for _, a := range accounts {
		principals = append(principals, "arn:aws:iam::"+a+":root")
	}
	return s.editPolicy(ref, func(t *Topic, doc map[string]any) error {
		list := statements(doc)
		if slices.ContainsFunc(list, func(st any) bool { return sid(st) == label }) {
			return InvalidParameter("Statement already exists")
		}
		doc["Statement"] = append(slices.Clone(list), map[string]any{"Sid": label, "Effect": "Allow",
			"Principal": map[string]any{"AWS": oneOrMany(principals)}, "Action": oneOrMany(granted), "Resource": t.ARN})
		return nil
	})
}

// RemovePermission removes the statement labelled label from the topic's
// policy; a label it does not have is already removed.
func (s *Service) RemovePermission(topicARN, label string) error {
	ref, _, err := s.topic("TopicArn", topicARN)
	if err != nil {
		return err
	}
	if label == "" {
		return InvalidParameter("Label")
	}
	return s.editPolicy(ref, func(_ *Topic, doc map[string]any) error {
		doc["Statement"] = slices.DeleteFunc(slices.Clone(statements(doc)), func(st any) bool { return sid(st) == label })
		return nil
	})
}

// editPolicy changes the topic's policy inside its owner.
func (s *Service) editPolicy(ref topicRef, edit func(*Topic, map[string]any) error) error {
	_, err := s.updateTopic(ref, func(cur *Topic) (actors.Change[Topic], error) {
		doc := topicPolicy(cur, ref.sc.Account)
		if err := edit(cur, doc); err != nil {
			return actors.Change[Topic]{}, err
		}
		next := cur.with()
		next.Attrs = cloneAttrs(cur.Attrs)
		next.Attrs["Policy"] = policyText(doc)
		return actors.Change[Topic]{Next: next, Records: []actors.Record{actors.Put(topicKey(ref.sc, ref.name), &next.TopicRecord)}}, nil
	})
	return err
}

func cloneAttrs(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// GetDataProtectionPolicy returns the topic's data protection policy ("" when
// it has none).
func (s *Service) GetDataProtectionPolicy(topicARN string) (string, error) {
	_, t, err := s.topic("ResourceArn", topicARN)
	if err != nil {
		return "", err
	}
	return t.DataProtection, nil
}

// PutDataProtectionPolicy sets the topic's data protection policy (kept,
// not applied).
func (s *Service) PutDataProtectionPolicy(topicARN, policy string) error {
	ref, _, err := s.topic("ResourceArn", topicARN)
	if err != nil {
		return err
	}
	if policy != "" && !json.Valid([]byte(policy)) {
		return InvalidParameter("DataProtectionPolicy Reason: failed to parse JSON.")
	}
	_, err = s.updateTopic(ref, func(cur *Topic) (actors.Change[Topic], error) {
		next := cur.with()
		next.DataProtection = policy
		return actors.Change[Topic]{Next: next, Records: []actors.Record{actors.Put(topicKey(ref.sc, ref.name), &next.TopicRecord)}}, nil
	})
	return err
}
