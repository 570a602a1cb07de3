package state

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"

	"github.com/kyku/action/internal/value"
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
	// Note tells one note of the address from another (random: NewNote,
	// made by the engine or the answer box): a record in a keeper's log
	// (AnswerRecords) is of the note whose Note it holds, and of no later
	// one.
	Note string `json:"note,omitempty"`
}

// NewNote is a new Answer.Note: 96 random bits, in hex.
func NewNote() string {
	var id [12]byte
	_, _ = rand.Read(id[:])
	return hex.EncodeToString(id[:])
}

// Beyond reports whether a says the create went further than b: asked
// where b was not, or answered where b was not.
func (a Answer) Beyond(b Answer) bool {
	stage := func(x Answer) int {
		switch {
		case x.Response != nil:
			return 2
		case x.Asked:
			return 1
		}
		return 0
	}
	return stage(a) > stage(b)
}

// AnswerName is the file (or object) name of address's answer: a hash,
// so that no address makes a path; the decoded answer must name the
// same address (DecodeAnswer).
func AnswerName(address string) string {
	sum := sha256.Sum256([]byte(address))
	var name [32 + len(".json")]byte
	hex.Encode(name[:32], sum[:16])
	copy(name[32:], ".json")
	return string(name[:])
}

// EncodeAnswer is a's stored form: the bytes json.Marshal writes of it,
// written without reflection (the engine writes one for each create whose
// intent it journals).
func EncodeAnswer(a Answer) ([]byte, error) {
	b := make([]byte, 0, 64+len(a.Address)+len(a.Type)+len(a.Note)+base64.StdEncoding.EncodedLen(len(a.Response)))
	b = value.AppendString(append(b, `{"address":`...), a.Address)
	b = value.AppendString(append(b, `,"type":`...), a.Type)
	if a.Asked {
		b = append(b, `,"asked":true`...)
	}
	if len(a.Response) > 0 {
		b = append(base64.StdEncoding.AppendEncode(append(b, `,"response":"`...), a.Response), '"')
	}
	if a.Note != "" {
		b = value.AppendString(append(b, `,"note":`...), a.Note)
	}
	return append(b, '}'), nil
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

// A journal keeper makes its answers durable in batches: it writes each
// to its note's file (surviving its processes' death, not the machine's)
// and appends it to a log of its own, whose one data sync covers the
// answers of every create in flight (group commit). A record is a 4-byte
// big-endian length, the CRC-32C of what follows, and the encoded answer
// (EncodeAnswer).

// answerCRC is the records' checksum table (made once, by crc32, at
// the first use: nothing at start).
func answerCRC() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// KeeperLogs is the directory of the keepers' logs of the answer box in
// directory box; KeeperLogPattern matches the logs' names in it (a
// leading dot: no answer's name).
func KeeperLogs(box string) string { return box + ".kept" }

// KeeperLogPattern: see KeeperLogs.
const KeeperLogPattern = ".keeper-*.log"

// AppendAnswerRecord appends to b the record, in a keeper's log, of
// data, an answer as EncodeAnswer wrote it.
func AppendAnswerRecord(b, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(data, answerCRC()))
	return append(b, data...)
}

// AnswerRecords are the answers of a keeper's log, in order, up to its
// first record cut short or corrupt (a machine that crashed while the
// keeper wrote: nothing after it was synced).
func AnswerRecords(log []byte) []Answer {
	var out []Answer
	for len(log) >= 8 {
		n, sum := binary.BigEndian.Uint32(log), binary.BigEndian.Uint32(log[4:])
		if uint64(n) > uint64(len(log)-8) {
			break
		}
		data := log[8 : 8+n]
		if crc32.Checksum(data, answerCRC()) != sum {
			break
		}
		var a Answer
		if json.Unmarshal(data, &a) != nil {
			break
		}
		out = append(out, a)
		log = log[8+n:]
	}
	return out
}
