package elbapi

import (
	"net/url"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// SDKID is the service's name in the SDK's endpoint configuration
// (AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2, a profile's
// elastic_load_balancing_v2 services section), for
// awswire.ConfiguredEndpoint.
const SDKID = "Elastic Load Balancing v2"

// Client calls ELBv2.
type Client struct{ wire *awswire.Client }

// New is a client speaking ELBv2 through w (its HTTP client, credentials,
// region and endpoint); New sets the service and the API version.
func New(w awswire.Client) *Client {
	w.Service, w.Version = "elasticloadbalancing", "2015-12-01"
	return &Client{wire: &w}
}

// setTags writes tags as Tags.member.N.Key and .Value.
func setTags(p url.Values, tags []Tag) {
	awswire.SetStructs(p, "Tags", "member", tags, func(pre string, t Tag) {
		awswire.SetString(p, pre+".Key", t.Key)
		awswire.SetString(p, pre+".Value", t.Value)
	})
}
