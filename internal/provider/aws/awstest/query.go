package awstest

import (
	"fmt"
	"sort"
)

// TG is a fake ELBv2 target group. A deregistered target drains: it is
// reported with state "draining" for Draining[id] more requests, then
// goes.
type TG struct {
	Arn, Name, Protocol, VpcID string
	Port                       int
	Targets                    []string
	Draining                   map[string]int
	Tags                       map[string]string
}

// LB is a fake ELBv2 load balancer; Groups are its security groups (an
// application load balancer given none gets the VPC's default group).
type LB struct {
	Arn, Name, Type, VpcID, DNS string
	Subnets, Groups             []string
	Tags                        map[string]string
}

// Listener is a fake ELBv2 listener forwarding to one target group;
// HTTPS and TLS listeners carry a certificate.
type Listener struct {
	Arn, LB, Protocol, TG, Certificate string
	Port                               int
}

type queryHandler func(s *Server, f form) ([]node, *apiError)

func (f form) queryTags(prefix string) map[string]string {
	tags := map[string]string{}
	for _, p := range f.structs(prefix) {
		tags[f.get(p+".Key")] = f.get(p + ".Value")
	}
	return tags
}

func (s *Server) arn(kind, name string) string {
	s.seq++
	return fmt.Sprintf("arn:aws:elasticloadbalancing:eu-west-1:123456789012:%s/%s/%016x", kind, name, s.seq)
}

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}
