package awswire

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// regionRE is a region as AWS names them: host labels, so that a region
// can never change the host a request goes to (the SDK refused others
// alike).
var regionRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// isolatedPrefixes are regions of partitions whose endpoints are under
// domains DefaultEndpoint does not know (the ISO partitions, the European
// Sovereign Cloud).
var isolatedPrefixes = []string{"us-iso-", "us-isob-", "us-isof-", "eu-isoe-", "eusc-"}

// fipsSource and dualStackSource are the SDK configuration sources'
// answers on FIPS and dual-stack endpoints (AWS_USE_FIPS_ENDPOINT,
// use_fips_endpoint, AWS_USE_DUALSTACK_ENDPOINT, use_dualstack_endpoint).
type fipsSource interface {
	GetUseFIPSEndpoint(context.Context) (aws.FIPSEndpointState, bool, error)
}

type dualStackSource interface {
	GetUseDualStackEndpoint(context.Context) (aws.DualStackEndpointState, bool, error)
}

// CheckDefaultEndpoint says why AWS's own endpoint of a service cannot be
// built for cfg (DefaultEndpoint), where the SDK's clients would have
// gone elsewhere: a region that is not a host label, a partition whose
// domain Kyku does not know, or FIPS or dual-stack endpoints asked for.
// Rather than calling the standard endpoint quietly, Kyku refuses and
// names the way out: an endpoint set for the service.
func CheckDefaultEndpoint(ctx context.Context, cfg aws.Config, service string) error {
	if !regionRE.MatchString(cfg.Region) {
		return fmt.Errorf("aws region %q is not a region name", cfg.Region)
	}
	for _, p := range isolatedPrefixes {
		if strings.HasPrefix(cfg.Region, p) {
			return fmt.Errorf("aws region %s: Kyku does not know that partition's %s endpoint; set the provider's endpoint or AWS_ENDPOINT_URL_%s", cfg.Region, service, envName(service))
		}
	}
	for _, src := range cfg.ConfigSources {
		if f, ok := src.(fipsSource); ok {
			if v, found, err := f.GetUseFIPSEndpoint(ctx); err == nil && found && v == aws.FIPSEndpointStateEnabled {
				return fmt.Errorf("FIPS endpoints are asked for (AWS_USE_FIPS_ENDPOINT or use_fips_endpoint): Kyku's AWS provider does not build them; set AWS_ENDPOINT_URL_%s to %s's FIPS endpoint", envName(service), service)
			}
		}
		if d, ok := src.(dualStackSource); ok {
			if v, found, err := d.GetUseDualStackEndpoint(ctx); err == nil && found && v == aws.DualStackEndpointStateEnabled {
				return fmt.Errorf("dual-stack endpoints are asked for (AWS_USE_DUALSTACK_ENDPOINT or use_dualstack_endpoint): Kyku's AWS provider does not build them; set AWS_ENDPOINT_URL_%s to %s's dual-stack endpoint", envName(service), service)
			}
		}
	}
	return nil
}

// envName is a service's SDK ID as AWS_ENDPOINT_URL_<SERVICE> spells it.
func envName(sdkID string) string {
	return strings.ToUpper(strings.ReplaceAll(sdkID, " ", "_"))
}
