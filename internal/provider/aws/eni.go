package aws

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider/aws/ec2api"
)

// serviceInterface reports whether a network interface belongs to a load
// balancer or an RDS instance: AWS removes those itself, minutes after the
// load balancer or database is gone, and until then the subnet and the
// security groups they use cannot be deleted.
func serviceInterface(n ec2api.NetworkInterface) bool {
	d := aws.ToString(n.Description)
	return aws.ToBool(n.RequesterManaged) && (strings.HasPrefix(d, "ELB ") || d == "RDSNetworkInterface")
}

// waitInterfaces waits until no load balancer or RDS network interface is
// left in the subnet or security group (filterName subnet-id or group-id),
// polling like every wait. Other interfaces are not waited for: deleting
// past them fails with AWS's DependencyViolation, which names the problem.
func (p *Provider) waitInterfaces(ctx context.Context, filterName, id string) error {
	return p.poll(ctx, "load balancer and database network interfaces in "+id+" to go", func(ctx context.Context) (bool, error) {
		enis, err := p.networkInterfaces(ctx, plain, ec2api.DescribeNetworkInterfacesInput{
			Filters: []ec2api.Filter{filter(filterName, id), filter("requester-managed", "true")},
		})
		if err != nil {
			return false, err
		}
		for _, n := range enis {
			if serviceInterface(n) {
				return false, nil
			}
		}
		return true, nil
	})
}
