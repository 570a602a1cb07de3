package aws_test

import (
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/providertest"
)

// The shared conformance suite, every subtest against one fake cloud. The
// suite makes one public subnet, in one zone: an application load balancer
// needs two zones on AWS, so the target group speaks TCP and the load
// balancer is a network one, which may live in one zone.
func TestConformance(t *testing.T) {
	p, _ := setup(t)
	fx := providertest.Default()
	base := fx.Resource
	fx.Resource = func(typ, name, cloudName string, deps providertest.Deps) provider.Resource {
		r := base(typ, name, cloudName, deps)
		if typ == "TargetGroup" {
			r.Properties["protocol"] = "tcp"
		}
		return r
	}
	fx.Agreement = agreement()
	providertest.Run(t, func(*testing.T) provider.Provider { return p }, fx)
}
