package ec2api

import "context"

// ImportKeyPairInput imports a public key under a name, tagged.
type ImportKeyPairInput struct {
	KeyName           *string
	PublicKeyMaterial []byte
	TagSpecifications []TagSpecification
}

// ImportKeyPairOutput names the key pair made.
type ImportKeyPairOutput struct {
	KeyPairId *string `xml:"keyPairId"`
}

// ImportKeyPair: Amazon EC2 API Reference, ImportKeyPair
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ImportKeyPair.html);
// the key material is sent base64-encoded.
func (c *Client) ImportKeyPair(ctx context.Context, in *ImportKeyPairInput) (*ImportKeyPairOutput, error) {
	f := newForm()
	f.str("KeyName", in.KeyName)
	f.blob("PublicKeyMaterial", in.PublicKeyMaterial)
	f.tagSpecs(in.TagSpecifications)
	return call[ImportKeyPairOutput](ctx, c, "ImportKeyPair", f)
}

// DescribeKeyPairsInput lists key pairs by ID, name and filters (not
// paginated); a named ID or name that does not exist fails the call.
type DescribeKeyPairsInput struct {
	KeyPairIds       []string
	KeyNames         []string
	Filters          []Filter
	IncludePublicKey *bool
}

// DescribeKeyPairsOutput is every matching key pair.
type DescribeKeyPairsOutput struct {
	KeyPairs []KeyPairInfo `xml:"keySet>item"`
}

// DescribeKeyPairs: Amazon EC2 API Reference, DescribeKeyPairs
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeKeyPairs.html).
func (c *Client) DescribeKeyPairs(ctx context.Context, in *DescribeKeyPairsInput) (*DescribeKeyPairsOutput, error) {
	f := newForm()
	f.strs("KeyPairId", in.KeyPairIds)
	f.strs("KeyName", in.KeyNames)
	f.filters(in.Filters)
	f.boolean("IncludePublicKey", in.IncludePublicKey)
	return call[DescribeKeyPairsOutput](ctx, c, "DescribeKeyPairs", f)
}

// DeleteKeyPairInput deletes a key pair by ID.
type DeleteKeyPairInput struct{ KeyPairId *string }

// DeleteKeyPairOutput is an accepted delete.
type DeleteKeyPairOutput struct{}

// DeleteKeyPair: Amazon EC2 API Reference, DeleteKeyPair
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DeleteKeyPair.html).
func (c *Client) DeleteKeyPair(ctx context.Context, in *DeleteKeyPairInput) (*DeleteKeyPairOutput, error) {
	f := newForm()
	f.str("KeyPairId", in.KeyPairId)
	return call[DeleteKeyPairOutput](ctx, c, "DeleteKeyPair", f)
}
