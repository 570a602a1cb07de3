package awswire

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/url"
)

// QueryAnswer calls action with params on c and decodes the answer into a
// new T: nil with the error when the call failed, as the SDK's clients
// return. The answer must be the action's own (<ActionResponse>, in EC2's
// dialect and the Query protocol alike): a page that is not, such as a
// proxy's answering 200, fails rather than reads as an empty listing.
func QueryAnswer[T any](ctx context.Context, c *Client, action string, params url.Values) (*T, error) {
	out := new(T)
	if err := c.Query(ctx, action, params, &rooted[T]{action: action, out: out}); err != nil {
		return nil, err
	}
	return out, nil
}

// rooted decodes an action's answer into out after checking its root.
type rooted[T any] struct {
	action string
	out    *T
}

func (a *rooted[T]) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	if want := a.action + "Response"; start.Name.Local != want {
		return fmt.Errorf("the answer is <%s>, not <%s>", start.Name.Local, want)
	}
	return d.DecodeElement(a.out, &start)
}
