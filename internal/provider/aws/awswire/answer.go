package awswire

import (
	"context"
	"net/url"
)

// QueryAnswer calls action with params on c and decodes the answer into a
// new T: nil with the error when the call failed, as the SDK's clients
// return.
func QueryAnswer[T any](ctx context.Context, c *Client, action string, params url.Values) (*T, error) {
	out := new(T)
	if err := c.Query(ctx, action, params, out); err != nil {
		return nil, err
	}
	return out, nil
}
