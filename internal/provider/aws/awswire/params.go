package awswire

import (
	"net/url"
	"strconv"
)

// AddList adds values to p as a Query list: prefix.1, prefix.2, … EC2
// names its lists so ("SubnetId.1"); ELBv2 and RDS put "member" between
// ("Subnets.member.1"), which the caller includes in prefix.
func AddList(p url.Values, prefix string, values []string) {
	for i, v := range values {
		p.Set(prefix+"."+strconv.Itoa(i+1), v)
	}
}
