package ec2api

import "context"

// CreateTagsInput sets tags on objects, replacing a key's value.
type CreateTagsInput struct {
	Resources []string
	Tags      []Tag
}

// CreateTagsOutput is an accepted change.
type CreateTagsOutput struct{}

// CreateTags: Amazon EC2 API Reference, CreateTags
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateTags.html).
func (c *Client) CreateTags(ctx context.Context, in *CreateTagsInput) (*CreateTagsOutput, error) {
	f := newForm()
	f.strs("ResourceId", in.Resources)
	f.tags("Tag", in.Tags)
	return call[CreateTagsOutput](ctx, c, "CreateTags", f)
}

// DeleteTagsInput removes tags from objects: a tag without a Value goes
// whatever its value.
type DeleteTagsInput struct {
	Resources []string
	Tags      []Tag
}

// DeleteTagsOutput is an accepted change.
type DeleteTagsOutput struct{}

// DeleteTags: Amazon EC2 API Reference, DeleteTags
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DeleteTags.html).
func (c *Client) DeleteTags(ctx context.Context, in *DeleteTagsInput) (*DeleteTagsOutput, error) {
	f := newForm()
	f.strs("ResourceId", in.Resources)
	f.tags("Tag", in.Tags)
	return call[DeleteTagsOutput](ctx, c, "DeleteTags", f)
}
