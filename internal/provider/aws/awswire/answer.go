package awswire

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/url"
)

// QueryAnswer calls action with params on c and decodes the answer into a
// new T: nil with the error when the call failed, as the SDK's clients
// return. The answer must be the action's own (Client.Query checks it).
func QueryAnswer[T any](ctx context.Context, c *Client, action string, params url.Values) (*T, error) {
	out := new(T)
	if err := c.Query(ctx, action, params, out); err != nil {
		return nil, err
	}
	return out, nil
}

// rooted decodes an action's answer into out (nil: nothing kept) after
// checking its root: every Query answer is checked, its output read or
// not (a Delete's answered 200 by a proxy is no deletion).
type rooted struct {
	action string
	out    any
}

func (a *rooted) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	if want := a.action + "Response"; start.Name.Local != want {
		return fmt.Errorf("the answer is <%s>, not <%s>", start.Name.Local, want)
	}
	if a.out == nil {
		return d.Skip()
	}
	return d.DecodeElement(a.out, &start)
}
