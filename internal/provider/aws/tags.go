package aws

import (
	"context"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// System tag keys Kyku puts on every object.
const (
	tagManaged = "kyku:managed"
	tagPrefix  = "kyku:prefix"
	tagName    = "kyku:name"
	tagNameAWS = "Name"
)

// wantTags is the full tag set of r: the user's tags plus Kyku's own.
func wantTags(r provider.Resource, extra map[string]string) map[string]string {
	t := property.Tags(r.Properties, extra)
	t[tagManaged] = "true"
	t[tagPrefix] = r.Prefix
	t[tagName] = value.SafeName(r.Name) // web[0] → web-0: every service's tag rules allow it
	t[tagNameAWS] = r.CloudName
	return t
}

// systemTag reports whether a tag key is Kyku's or AWS's own, never
// reported in the "tags" property.
func systemTag(k string) bool {
	return k == tagNameAWS || strings.HasPrefix(k, "kyku:") || strings.HasPrefix(k, "aws:")
}

func ec2Tags(t map[string]string) []ec2api.Tag {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]ec2api.Tag, 0, len(keys))
	for _, k := range keys {
		out = append(out, ec2api.Tag{Key: aws.String(k), Value: aws.String(t[k])})
	}
	return out
}

func tagSpec(rt ec2api.ResourceType, t map[string]string) []ec2api.TagSpecification {
	return []ec2api.TagSpecification{{ResourceType: rt, Tags: ec2Tags(t)}}
}

func fromEC2Tags(ts []ec2api.Tag) map[string]string {
	out := map[string]string{}
	for _, t := range ts {
		out[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return out
}

// byName filters EC2 Describe calls to Kyku-managed objects named name.
func byName(name string) []ec2api.Filter {
	return []ec2api.Filter{
		{Name: aws.String("tag:" + tagNameAWS), Values: []string{name}},
		{Name: aws.String("tag:" + tagManaged), Values: []string{"true"}},
	}
}

func filter(name string, values ...string) ec2api.Filter {
	return ec2api.Filter{Name: aws.String(name), Values: values}
}

// tagDiff returns the tags to set and the keys to remove to go from have
// to want, leaving AWS's own "aws:" tags alone.
func tagDiff(have, want map[string]string) (set map[string]string, remove []string) {
	set = map[string]string{}
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			set[k] = v
		}
	}
	for k := range have {
		if _, ok := want[k]; !ok && !strings.HasPrefix(k, "aws:") {
			remove = append(remove, k)
		}
	}
	sort.Strings(remove)
	return set, remove
}

// syncEC2Tags makes the tags of EC2 object id equal want.
func (p *Provider) syncEC2Tags(ctx context.Context, id string, have, want map[string]string) error {
	set, remove := tagDiff(have, want)
	if len(set) > 0 {
		err := p.call(ctx, "tag "+id, settling, func(ctx context.Context) error {
			_, err := p.ec2.CreateTags(ctx, &ec2api.CreateTagsInput{Resources: []string{id}, Tags: ec2Tags(set)})
			return err
		})
		if err != nil {
			return err
		}
	}
	if len(remove) > 0 {
		var ts []ec2api.Tag
		for _, k := range remove {
			ts = append(ts, ec2api.Tag{Key: aws.String(k)})
		}
		return p.call(ctx, "untag "+id, settling, func(ctx context.Context) error {
			_, err := p.ec2.DeleteTags(ctx, &ec2api.DeleteTagsInput{Resources: []string{id}, Tags: ts})
			return err
		})
	}
	return nil
}
