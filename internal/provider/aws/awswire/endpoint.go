package awswire

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// serviceEndpoints is what the SDK's configuration sources (its
// EnvConfig and SharedConfig) answer for a service's own endpoint:
// AWS_ENDPOINT_URL_<SERVICE>, or a profile's services section.
type serviceEndpoints interface {
	GetServiceBaseEndpoint(ctx context.Context, sdkID string) (string, bool, error)
}

// ConfiguredEndpoint is the endpoint cfg configures for the service whose
// SDK ID is sdkID ("EC2", "Elastic Load Balancing v2", "RDS", "SSM"), as
// the SDK's own clients resolve it: the service's own setting
// (AWS_ENDPOINT_URL_EC2, a profile's services section) over the one for
// every service (AWS_ENDPOINT_URL, a profile's endpoint_url), none when
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS says so. Empty means AWS's own
// (DefaultEndpoint).
func ConfiguredEndpoint(ctx context.Context, cfg aws.Config, sdkID string) string {
	if ignore, found, err := config.GetIgnoreConfiguredEndpoints(ctx, cfg.ConfigSources); err == nil && found && ignore {
		return ""
	}
	for _, src := range cfg.ConfigSources {
		if p, ok := src.(serviceEndpoints); ok {
			if v, found, err := p.GetServiceBaseEndpoint(ctx, sdkID); err == nil && found && v != "" {
				return v
			}
		}
	}
	return aws.ToString(cfg.BaseEndpoint)
}
