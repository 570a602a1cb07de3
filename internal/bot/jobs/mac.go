package jobs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// MAC is the HMAC-SHA256 of body under the webhook secret: GitHub's
// X-Hub-Signature-256 of a delivery, and what a Record's MAC holds (hex)
// for the bot's own work.
func MAC(secret, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return m.Sum(nil)
}

// ValidMAC reports, in constant time, whether mac is body's MAC under
// secret; never without a secret.
func ValidMAC(secret, body, mac []byte) bool {
	return len(secret) > 0 && hmac.Equal(mac, MAC(secret, body))
}

// Signed reports whether r's MAC is its body's under secret: a record
// planted in the store without the secret is not.
func (r Record) Signed(secret []byte) bool {
	mac, err := hex.DecodeString(r.MAC)
	return err == nil && ValidMAC(secret, r.Body, mac)
}
