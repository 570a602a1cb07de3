package ec2api

import (
	"context"
	"encoding/xml"
	"fmt"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// Version is the EC2 API version Kyku's requests name and its answers'
// shapes come from.
const Version = "2016-11-15"

// Client calls EC2. It is safe for concurrent use.
type Client struct{ wire *awswire.Client }

// New is a client sending through wire (its HTTP client, credentials,
// region and endpoint), as service "ec2" at Version.
func New(wire awswire.Client) *Client {
	wire.Service, wire.Version = "ec2", Version
	return &Client{wire: &wire}
}

// call sends action with f and decodes its answer, which must be the
// action's own (<ActionResponse>): a page that is not, such as a proxy's
// answering 200, fails rather than reads as an empty listing.
func call[O any](ctx context.Context, c *Client, action string, f form) (*O, error) {
	out := new(O)
	if err := c.wire.Query(ctx, action, f.v, &answer[O]{action: action, out: out}); err != nil {
		return nil, err
	}
	return out, nil
}

// answer decodes an action's answer into out after checking its root.
type answer[O any] struct {
	action string
	out    *O
}

func (a *answer[O]) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	if want := a.action + "Response"; start.Name.Local != want {
		return fmt.Errorf("the answer is <%s>, not <%s>", start.Name.Local, want)
	}
	return d.DecodeElement(a.out, &start)
}
