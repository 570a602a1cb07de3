package store

import (
	"crypto/sha256"
	"encoding/hex"
)

// Generated is the secret the test cloud makes for a password named name
// (the providers' TP_password's result).
func Generated(name string) string { return "gen-" + name + "-Zq9hunter2-s3cr3t" }

// Digest is what the test cloud keeps of a write-only value it received
// (Item.Received): its sha256 in hex, "" for none.
func Digest(value string) string {
	if value == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}
