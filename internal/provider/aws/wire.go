package aws

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// wireClient is the base of the awswire client of the service whose SDK
// ID is sdkID, from cfg as the SDK's own clients read it: its HTTP client,
// credentials and region, and endpoint when it is set, else the service's
// endpoint configured in cfg (AWS_ENDPOINT_URL_<SERVICE>,
// AWS_ENDPOINT_URL, a profile's), else AWS's own for the region, which
// is refused where the SDK's clients would have gone elsewhere
// (awswire.CheckDefaultEndpoint: FIPS, dual-stack, other partitions).
func wireClient(ctx context.Context, cfg aws.Config, endpoint, sdkID string) (awswire.Client, error) {
	if endpoint == "" {
		endpoint = awswire.ConfiguredEndpoint(ctx, cfg, sdkID)
	}
	if endpoint == "" {
		if err := awswire.CheckDefaultEndpoint(ctx, cfg, sdkID); err != nil {
			return awswire.Client{}, err
		}
	}
	return awswire.Client{HTTP: cfg.HTTPClient, Credentials: cfg.Credentials, Region: cfg.Region, Endpoint: endpoint}, nil
}
