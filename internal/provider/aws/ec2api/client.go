package ec2api

import (
	"context"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// SDKID is the service's name in the SDK's endpoint configuration
// (AWS_ENDPOINT_URL_EC2, a profile's ec2 services section), for
// awswire.ConfiguredEndpoint.
const SDKID = "EC2"

// Version is the EC2 API version Kyku's requests name and its answers'
// shapes come from.
const Version = "2016-11-15"

// Client calls EC2. It is safe for concurrent use.
type Client struct{ wire *awswire.Client }

// New is a client sending through wire (its HTTP client, credentials,
// region and endpoint), as service "ec2" at Version.
func New(wire awswire.Client) *Client {
	wire.Service, wire.Version = "ec2", Version
	return &Client{wire: &wire}
}

// call sends action with f and decodes its answer (awswire.QueryAnswer:
// it must be the action's own).
func call[O any](ctx context.Context, c *Client, action string, f form) (*O, error) {
	return awswire.QueryAnswer[O](ctx, c.wire, action, f.v)
}
