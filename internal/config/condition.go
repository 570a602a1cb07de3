package config

import (
	"encoding/json"
	"errors"

	"github.com/kyku/action/internal/value"
)

// UnmarshalJSON reads a condition from a plan file: its check is the
// description the file holds, not an expression (a saved plan of a
// Terraform configuration is applied with the configuration read again,
// whose conditions are checked). The description hashes as written.
func (c *Condition) UnmarshalJSON(b []byte) error {
	var raw struct {
		Post  bool            `json:"post"`
		Check json.RawMessage `json:"check"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	c.Post, c.Check = raw.Post, described(raw.Check)
	return nil
}

// described is an expression a plan file describes: it cannot be
// evaluated.
type described json.RawMessage

var _ value.Expr = described(nil)

var errDescribed = errors.New("a plan file's condition is a description of it: apply the plan with the configuration it was planned from")

func (d described) Refs() []value.Ref                    { return nil }
func (d described) Eval(value.Lookup) (any, bool, error) { return nil, false, errDescribed }
func (d described) MarshalJSON() ([]byte, error)         { return []byte(d), nil }
