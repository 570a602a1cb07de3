package awswire

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
)

// decodeXML decodes a Query answer into out (a rooted: Query always
// checks the answer's root, whether its output is read or not).
func decodeXML(op string, body []byte, out *rooted) error {
	if err := xml.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: decode the answer: %w", op, err)
	}
	return nil
}

// encodeJSON is in as a JSON 1.1 request body; nil is "{}".
func encodeJSON(in any) ([]byte, error) {
	if in == nil {
		return []byte("{}"), nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	return b, nil
}

// decodeJSON decodes a JSON 1.1 answer into out; nil out ignores it, and
// an empty answer leaves out as it is.
func decodeJSON(op string, body []byte, out any) error {
	if out == nil || len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: decode the answer: %w", op, err)
	}
	return nil
}
