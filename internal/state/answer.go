package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Answer is what a provider answered to the create of an address whose
// intent is journaled (File.Interrupted), as the journal keeper (package
// tfplugin, keeper.go) wrote it, durably, before handing it to the
// apply: an apply killed between the provider's answer and recording it
// leaves this, and the next apply folds it into the state. Response is
// the provider's ApplyResourceChange answer exactly as it was sent (a
// protobuf message), decoded with the provider's schema when folded.
//
// Before that, the file says how far the create went: written by the
// engine before it journals the intent (neither Asked nor Response), it
// says the provider was not asked yet; the keeper writes it again,
// Asked, durably, before it asks the provider. So an open intent whose
// answer is neither is a create the provider never heard of.
type Answer struct {
	Address  string `json:"address"`
	Type     string `json:"type"`
	Asked    bool   `json:"asked,omitempty"`
	Response []byte `json:"response,omitempty"`
}

// AnswerName is the file (or object) name of address's answer: a hash,
// so that no address makes a path; the decoded answer must name the
// same address (DecodeAnswer).
func AnswerName(address string) string {
	sum := sha256.Sum256([]byte(address))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// EncodeAnswer is a's stored form.
func EncodeAnswer(a Answer) ([]byte, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("encode the answer for %s: %w", a.Address, err)
	}
	return b, nil
}

// DecodeAnswer reads the answer stored under name: it is input like the
// state, and one whose address is not the one its name was made from
// (AnswerName) is refused, wrapping ErrCorrupt.
func DecodeAnswer(name string, data []byte) (Answer, error) {
	var a Answer
	if err := json.Unmarshal(data, &a); err != nil {
		return Answer{}, fmt.Errorf("answer %s: %w: %v", name, ErrCorrupt, err)
	}
	if a.Address == "" || a.Type == "" {
		return Answer{}, fmt.Errorf("answer %s: %w: no address or type", name, ErrCorrupt)
	}
	if AnswerName(a.Address) != name {
		return Answer{}, fmt.Errorf("answer %s: %w: it names %q, whose answer is not stored under this name", name, ErrCorrupt, a.Address)
	}
	return a, nil
}
