package elbapi

// The enumerations Kyku sends and compares, with ELBv2's values (Elastic
// Load Balancing API Reference, Data Types).

// ProtocolEnum is a target group's or listener's protocol.
type ProtocolEnum string

// Protocols.
const (
	ProtocolEnumHttp  ProtocolEnum = "HTTP"
	ProtocolEnumHttps ProtocolEnum = "HTTPS"
	ProtocolEnumTcp   ProtocolEnum = "TCP"
	ProtocolEnumTls   ProtocolEnum = "TLS"
)

// TargetTypeEnum is what a target group's targets are.
type TargetTypeEnum string

// TargetTypeEnumInstance: targets are EC2 instances.
const TargetTypeEnumInstance TargetTypeEnum = "instance"

// LoadBalancerTypeEnum is a load balancer's type.
type LoadBalancerTypeEnum string

// Load balancer types.
const (
	LoadBalancerTypeEnumApplication LoadBalancerTypeEnum = "application"
	LoadBalancerTypeEnumNetwork     LoadBalancerTypeEnum = "network"
)

// LoadBalancerSchemeEnum says whether a load balancer is reachable from
// the internet.
type LoadBalancerSchemeEnum string

// LoadBalancerSchemeEnumInternetFacing: reachable from the internet.
const LoadBalancerSchemeEnumInternetFacing LoadBalancerSchemeEnum = "internet-facing"

// ActionTypeEnum is a listener action's type.
type ActionTypeEnum string

// ActionTypeEnumForward forwards to a target group.
const ActionTypeEnumForward ActionTypeEnum = "forward"

// TargetHealthStateEnum is a target's state in its group.
type TargetHealthStateEnum string

// TargetHealthStateEnumDraining: deregistered, still finishing requests.
const TargetHealthStateEnumDraining TargetHealthStateEnum = "draining"

// Tag is a resource tag.
type Tag struct {
	Key   *string `xml:"Key"`
	Value *string `xml:"Value"`
}

// TagDescription is the tags of one resource.
type TagDescription struct {
	ResourceArn *string `xml:"ResourceArn"`
	Tags        []Tag   `xml:"Tags>member"`
}

// TargetGroup is what Kyku reads of a target group.
type TargetGroup struct {
	TargetGroupArn *string      `xml:"TargetGroupArn"`
	Port           *int32       `xml:"Port"`
	Protocol       ProtocolEnum `xml:"Protocol"`
}

// TargetDescription names a target.
type TargetDescription struct {
	Id *string `xml:"Id"`
}

// TargetHealth is a target's state.
type TargetHealth struct {
	State TargetHealthStateEnum `xml:"State"`
}

// TargetHealthDescription is one target of a group and its state.
type TargetHealthDescription struct {
	Target       *TargetDescription `xml:"Target"`
	TargetHealth *TargetHealth      `xml:"TargetHealth"`
}

// LoadBalancer is what Kyku reads of a load balancer.
type LoadBalancer struct {
	LoadBalancerArn *string  `xml:"LoadBalancerArn"`
	DNSName         *string  `xml:"DNSName"`
	VpcId           *string  `xml:"VpcId"`
	SecurityGroups  []string `xml:"SecurityGroups>member"`
}

// Certificate is a listener's certificate.
type Certificate struct {
	CertificateArn *string `xml:"CertificateArn"`
}

// Action is a listener's default action.
type Action struct {
	Type           ActionTypeEnum `xml:"Type"`
	TargetGroupArn *string        `xml:"TargetGroupArn"`
}

// Listener is what Kyku reads of a listener.
type Listener struct {
	ListenerArn    *string       `xml:"ListenerArn"`
	Port           *int32        `xml:"Port"`
	Protocol       ProtocolEnum  `xml:"Protocol"`
	DefaultActions []Action      `xml:"DefaultActions>member"`
	Certificates   []Certificate `xml:"Certificates>member"`
}
