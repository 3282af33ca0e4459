package lambda

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Tags live on the function's record; only functions are taggable here.

var (
	taggablePattern = regexp.MustCompile(`^arn:(aws[a-zA-Z-]*):lambda:(eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:\d{12}:(function:[a-zA-Z0-9_-]+(:(\$LATEST|[a-zA-Z0-9_-]+))?|code-signing-config:csc-[a-z0-9]{17}|event-source-mapping:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(capacity-provider|network-connector):[a-zA-Z0-9_-]{1,64})$`)
	taggableText    = `arn:(aws[a-zA-Z-]*):lambda:(eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:\d{12}:(function:[a-zA-Z0-9-_]+(:(\$LATEST|[a-zA-Z0-9-_]+))?|code-signing-config:csc-[a-z0-9]{17}|event-source-mapping:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(capacity-provider|network-connector):[a-zA-Z0-9-_]{1,64})`
	tagPattern      = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)
)

// maxTags is Lambda's limit of tags a resource.
const maxTags = 50

// tagLimits is that limit for awswire's MergeTags (only the count: checkTags
// words the other limits as Lambda does).
var tagLimits = awswire.TagLimits{Tags: maxTags}

func tagsText(tags map[string]string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(tags)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + "=" + tags[k])
	}
	b.WriteByte('}')
	return b.String()
}

// checkTags checks tags against the model's constraints.
func checkTags(tags map[string]string) error {
	for k, v := range tags {
		if n := utf8.RuneCountInString(k); n == 0 || n > 128 || !tagPattern.MatchString(k) {
			return Validation(constraint(tagsText(tags), "tags", `Map keys must satisfy constraint: [Member must have length less than or equal to 128, `+
				`Member must have length greater than or equal to 1, Member must satisfy regular expression pattern: [\p{L}\p{Z}\p{N}_.:/=+\-@]*]`))
		}
		if utf8.RuneCountInString(v) > 256 || !tagPattern.MatchString(v) {
			return Validation(constraint(tagsText(tags), "tags", `Map value must satisfy constraint: [Member must have length less than or equal to 256, `+
				`Member must have length greater than or equal to 0, Member must satisfy regular expression pattern: [\p{L}\p{Z}\p{N}_.:/=+\-@]*]`))
		}
	}
	if len(tags) > maxTags {
		return Invalid("Number of tags exceeds resource tag limit.")
	}
	return nil
}

// taggedFunction resolves a taggable ARN to the function it names, and
// that function's published snapshot.
func (s *Service) taggedFunction(arn string) (target, *dirs, *Function, error) {
	if !taggablePattern.MatchString(arn) {
		return target{}, nil, nil, Validation(constraint(arn, "resource", "Member must satisfy regular expression pattern: "+taggableText))
	}
	a, _ := awswire.ParseARN(arn)
	kind, id, _ := strings.Cut(a.Resource, ":")
	if kind != "function" {
		return target{}, nil, nil, notFound("Resource not found: %s", arn)
	}
	if strings.Contains(id, ":") {
		return target{}, nil, nil, Invalid("Tags on function aliases and versions are not supported. Please specify a function ARN.")
	}
	t := target{scope: awswire.Scope{Account: a.Account, Region: a.Region}, name: id}
	d, f, ok := s.lookup(t)
	if !ok {
		return target{}, nil, nil, functionNotFound(t.arn())
	}
	return t, d, f, nil
}

// Tags returns the tags of the function arn names.
func (s *Service) Tags(arn string) (map[string]string, error) {
	_, _, f, err := s.taggedFunction(arn)
	if err != nil {
		return nil, err
	}
	return f.Tags, nil
}

// Tag merges tags onto the function arn names.
func (s *Service) Tag(arn string, tags map[string]string) error {
	t, d, _, err := s.taggedFunction(arn)
	if err != nil {
		return err
	}
	if len(tags) == 0 {
		return Invalid("An error occurred and the request cannot be processed.")
	}
	if err := checkTags(tags); err != nil {
		return err
	}
	return s.retag(t, d, func(cur map[string]string) (map[string]string, error) {
		next, ok := tagLimits.MergeTags(cur, tags)
		if !ok {
			return nil, Invalid("Number of tags exceeds resource tag limit.")
		}
		return next, nil
	})
}

// Untag removes keys from the function arn names.
func (s *Service) Untag(arn string, keys []string) error {
	t, d, _, err := s.taggedFunction(arn)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		return Missing("tagKeys")
	}
	return s.retag(t, d, func(cur map[string]string) (map[string]string, error) {
		return awswire.RemoveTags(cur, keys), nil
	})
}

func (s *Service) retag(t target, d *dirs, change func(map[string]string) (map[string]string, error)) error {
	_, err := editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, struct{}], error) {
		tags, err := change(cur.Tags)
		if err != nil {
			return actors.Edit[Function, struct{}]{}, err
		}
		next := cur.clone()
		next.Tags = tags
		bump(next)
		return actors.Edit[Function, struct{}]{Next: next}, nil
	})
	return err
}
