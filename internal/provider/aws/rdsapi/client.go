package rdsapi

import (
	"net/url"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// SDKID is the service's name in the SDK's endpoint configuration
// (AWS_ENDPOINT_URL_RDS, a profile's rds services section), for
// awswire.ConfiguredEndpoint.
const SDKID = "RDS"

// Client calls RDS.
type Client struct{ wire *awswire.Client }

// New is a client speaking RDS through w (its HTTP client, credentials,
// region and endpoint); New sets the service and the API version.
func New(w awswire.Client) *Client {
	w.Service, w.Version = "rds", "2014-10-31"
	return &Client{wire: &w}
}

// setTags writes tags as Tags.Tag.N.Key and .Value.
func setTags(p url.Values, tags []Tag) {
	awswire.SetStructs(p, "Tags", "Tag", tags, func(pre string, t Tag) {
		awswire.SetString(p, pre+".Key", t.Key)
		awswire.SetString(p, pre+".Value", t.Value)
	})
}
