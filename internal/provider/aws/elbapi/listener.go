package elbapi

import (
	"context"
	"net/url"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// CreateListenerInput is what Kyku sends to create a listener.
type CreateListenerInput struct {
	LoadBalancerArn *string
	Port            *int32
	Protocol        ProtocolEnum
	DefaultActions  []Action
	Certificates    []Certificate
}

// CreateListener (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_CreateListener.html).
func (c *Client) CreateListener(ctx context.Context, in *CreateListenerInput) error {
	p := url.Values{}
	awswire.SetString(p, "LoadBalancerArn", in.LoadBalancerArn)
	setListener(p, in.Port, in.Protocol, in.DefaultActions, in.Certificates)
	return c.wire.Query(ctx, "CreateListener", p, nil)
}

// ModifyListenerInput is what Kyku sends to change a listener.
type ModifyListenerInput struct {
	ListenerArn    *string
	Port           *int32
	Protocol       ProtocolEnum
	DefaultActions []Action
	Certificates   []Certificate
}

// ModifyListener (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_ModifyListener.html).
func (c *Client) ModifyListener(ctx context.Context, in *ModifyListenerInput) error {
	p := url.Values{}
	awswire.SetString(p, "ListenerArn", in.ListenerArn)
	setListener(p, in.Port, in.Protocol, in.DefaultActions, in.Certificates)
	return c.wire.Query(ctx, "ModifyListener", p, nil)
}

// setListener writes the settings CreateListener and ModifyListener share.
func setListener(p url.Values, port *int32, proto ProtocolEnum, actions []Action, certs []Certificate) {
	awswire.SetInt32(p, "Port", port)
	setEnum(p, "Protocol", proto)
	awswire.SetStructs(p, "DefaultActions", "member", actions, func(pre string, a Action) {
		setEnum(p, pre+".Type", a.Type)
		awswire.SetString(p, pre+".TargetGroupArn", a.TargetGroupArn)
	})
	awswire.SetStructs(p, "Certificates", "member", certs, func(pre string, cert Certificate) {
		awswire.SetString(p, pre+".CertificateArn", cert.CertificateArn)
	})
}

// DescribeListenersInput selects a load balancer's listeners, a page at a
// time.
type DescribeListenersInput struct {
	LoadBalancerArn *string
	Marker          *string
}

// DescribeListenersOutput is one page; NextMarker is empty on the last.
type DescribeListenersOutput struct {
	Listeners  []Listener `xml:"DescribeListenersResult>Listeners>member"`
	NextMarker *string    `xml:"DescribeListenersResult>NextMarker"`
}

// DescribeListeners (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DescribeListeners.html).
func (c *Client) DescribeListeners(ctx context.Context, in *DescribeListenersInput) (*DescribeListenersOutput, error) {
	p := url.Values{}
	awswire.SetString(p, "LoadBalancerArn", in.LoadBalancerArn)
	awswire.SetString(p, "Marker", in.Marker)
	return awswire.QueryAnswer[DescribeListenersOutput](ctx, c.wire, "DescribeListeners", p)
}
