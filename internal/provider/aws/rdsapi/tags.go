package rdsapi

import (
	"context"
	"net/url"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// AddTagsToResourceInput sets tags on the resource of ARN ResourceName.
type AddTagsToResourceInput struct {
	ResourceName *string
	Tags         []Tag
}

// AddTagsToResource (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_AddTagsToResource.html).
func (c *Client) AddTagsToResource(ctx context.Context, in *AddTagsToResourceInput) error {
	p := url.Values{}
	awswire.SetString(p, "ResourceName", in.ResourceName)
	setTags(p, in.Tags)
	return c.wire.Query(ctx, "AddTagsToResource", p, nil)
}

// RemoveTagsFromResourceInput removes tags by key from the resource of ARN
// ResourceName.
type RemoveTagsFromResourceInput struct {
	ResourceName *string
	TagKeys      []string
}

// RemoveTagsFromResource (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_RemoveTagsFromResource.html).
func (c *Client) RemoveTagsFromResource(ctx context.Context, in *RemoveTagsFromResourceInput) error {
	p := url.Values{}
	awswire.SetString(p, "ResourceName", in.ResourceName)
	awswire.SetList(p, "TagKeys", "member", in.TagKeys)
	return c.wire.Query(ctx, "RemoveTagsFromResource", p, nil)
}
