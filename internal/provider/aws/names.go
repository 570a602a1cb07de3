package aws

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Names on AWS. A cloud name is "<deploy prefix>-<Kyku name>"; each
// service has its own rule for the name Kyku gives it, and a name a
// service refuses is refused here, before any call (and at plan time,
// through CheckName), instead of half-way through an apply:
//
//	RDS instance and its DB subnet group  the identifier: the cloud name in lower
//	                                      case, "db-" in front when it starts with a
//	                                      digit; a letter first, then letters, digits
//	                                      and hyphens, 63 at most, no "--", no "-" last
//	ELBv2 load balancer, target group     letters, digits and hyphens, no "-" first or
//	                                      last; longer than 32: shortened with a hash
//	                                      (elbName); a load balancer not "internal-…"
//	security group                        255 at most, a-z A-Z 0-9 spaces ._-:/()#,@[]+=&;{}!$*,
//	                                      not "sg-…"
//	key pair                              255 ASCII characters at most
//	every EC2 object                      its Name tag: 256 characters at most

var dbIdentRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)
})

// dbIdentifier is the RDS instance identifier of a cloud name (also the
// name of its DB subnet group). RDS keeps identifiers in lower case and
// wants a letter first, which a hex deploy prefix often is not.
func dbIdentifier(cloudName string) string {
	id := strings.ToLower(cloudName)
	if id != "" && (id[0] < 'a' || id[0] > 'z') {
		id = "db-" + id
	}
	return id
}

func checkDBIdentifier(id string) error {
	switch {
	case len(id) > 63:
		return fmt.Errorf("RDS instance identifier %q is longer than 63 characters; shorten the resource name", id)
	case strings.Contains(id, "--"):
		return fmt.Errorf("RDS instance identifier %q holds two hyphens in a row; rename the resource", id)
	case strings.HasSuffix(id, "-"):
		return fmt.Errorf("RDS instance identifier %q must not end with a hyphen; rename the resource", id)
	case !dbIdentRE().MatchString(id):
		return fmt.Errorf("RDS instance identifier %q may hold only letters, digits and hyphens; rename the resource", id)
	}
	return nil
}

func checkELBName(what, name string) error {
	const allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"
	switch {
	case strings.Trim(name, allowed) != "":
		return fmt.Errorf("%s %q may hold only letters, digits and hyphens; rename the resource", what, name)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(elbName(name), "-"):
		return fmt.Errorf("%s %q must not begin or end with a hyphen; rename the resource", what, name)
	case what == "load balancer name" && strings.HasPrefix(elbName(name), "internal-"):
		return fmt.Errorf("%s %q must not begin with \"internal-\"", what, name)
	}
	return nil
}

func checkGroupName(name string) error {
	const allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._-:/()#,@[]+=&;{}!$*"
	switch {
	case len(name) > 255:
		return fmt.Errorf("security group name %q is longer than 255 characters", name)
	case strings.HasPrefix(strings.ToLower(name), "sg-"):
		return fmt.Errorf("security group name %q must not begin with \"sg-\"", name)
	case strings.Trim(name, allowed) != "":
		return fmt.Errorf("security group name %q may hold only letters, digits, spaces and ._-:/()#,@[]+=&;{}!$*", name)
	}
	return nil
}

// CheckName reports why AWS would refuse the cloud name of a new resource
// of typ, or nil. The engine asks it for every resource a plan creates.
func (p *Provider) CheckName(typ, cloudName string) error {
	if cloudName == "" {
		return fmt.Errorf("empty cloud name")
	}
	if len(cloudName) > 256 {
		return fmt.Errorf("cloud name %q is longer than the 256 characters of an AWS tag value", cloudName)
	}
	switch typ {
	case "Database":
		return checkDBIdentifier(dbIdentifier(cloudName))
	case "LoadBalancer":
		return checkELBName("load balancer name", cloudName)
	case "TargetGroup":
		return checkELBName("target group name", cloudName)
	case "SecurityGroup":
		return checkGroupName(cloudName)
	case "SshKey":
		if len(cloudName) > 255 || strings.IndexFunc(cloudName, func(r rune) bool { return r > 0x7e || r < 0x20 }) >= 0 {
			return fmt.Errorf("key pair name %q must be at most 255 printable ASCII characters", cloudName)
		}
	}
	return nil
}
