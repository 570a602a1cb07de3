package elbapi

import (
	"context"
	"net/url"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// AddTagsInput sets tags on resources.
type AddTagsInput struct {
	ResourceArns []string
	Tags         []Tag
}

// AddTags (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_AddTags.html).
func (c *Client) AddTags(ctx context.Context, in *AddTagsInput) error {
	p := url.Values{}
	awswire.SetList(p, "ResourceArns", "member", in.ResourceArns)
	setTags(p, in.Tags)
	return c.wire.Query(ctx, "AddTags", p, nil)
}

// RemoveTagsInput removes tags by key from resources.
type RemoveTagsInput struct {
	ResourceArns []string
	TagKeys      []string
}

// RemoveTags (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_RemoveTags.html).
func (c *Client) RemoveTags(ctx context.Context, in *RemoveTagsInput) error {
	p := url.Values{}
	awswire.SetList(p, "ResourceArns", "member", in.ResourceArns)
	awswire.SetList(p, "TagKeys", "member", in.TagKeys)
	return c.wire.Query(ctx, "RemoveTags", p, nil)
}

// DescribeTagsInput names resources (20 at most).
type DescribeTagsInput struct {
	ResourceArns []string
}

// DescribeTagsOutput is the tags of each resource.
type DescribeTagsOutput struct {
	TagDescriptions []TagDescription `xml:"DescribeTagsResult>TagDescriptions>member"`
}

// DescribeTags (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DescribeTags.html).
func (c *Client) DescribeTags(ctx context.Context, in *DescribeTagsInput) (*DescribeTagsOutput, error) {
	p := url.Values{}
	awswire.SetList(p, "ResourceArns", "member", in.ResourceArns)
	return awswire.QueryAnswer[DescribeTagsOutput](ctx, c.wire, "DescribeTags", p)
}
