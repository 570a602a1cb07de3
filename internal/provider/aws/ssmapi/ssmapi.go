// Package ssmapi is the one call of AWS Systems Manager that Kyku's AWS
// provider makes, GetParameter (to resolve an image name to the AMI ID
// AWS publishes as a public parameter), spoken over the JSON 1.1
// protocol by awswire. It replaces the SDK's generated service/ssm,
// whose compilation cost every build of Kyku about 20 seconds of CPU for that call.
//
// A Client is safe for concurrent use and never retries. A missing
// parameter fails with the error code ParameterNotFound.
package ssmapi

import (
	"context"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// SDKID is the service's name in the SDK's endpoint configuration
// (AWS_ENDPOINT_URL_SSM, a profile's ssm services section), for
// awswire.ConfiguredEndpoint.
const SDKID = "SSM"

// Client calls SSM.
type Client struct{ wire *awswire.Client }

// New is a client speaking SSM through w (its HTTP client, credentials,
// region and endpoint); New sets the service and the target prefix.
func New(w awswire.Client) *Client {
	w.Service, w.TargetPrefix = "ssm", "AmazonSSM"
	return &Client{wire: &w}
}

// GetParameterInput names the parameter to read.
type GetParameterInput struct {
	Name *string `json:"Name,omitempty"`
}

// Parameter is what Kyku reads of a parameter.
type Parameter struct {
	Value *string `json:"Value"`
}

// GetParameterOutput is the parameter read.
type GetParameterOutput struct {
	Parameter Parameter `json:"Parameter"`
}

// GetParameter (AWS Systems Manager API Reference,
// https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParameter.html).
func (c *Client) GetParameter(ctx context.Context, in *GetParameterInput) (*GetParameterOutput, error) {
	var out GetParameterOutput
	if err := c.wire.JSON(ctx, "GetParameter", in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
