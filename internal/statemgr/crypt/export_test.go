package crypt

import "sync/atomic"

// CountDerivations makes k count the keys it derives (tests).
func CountDerivations(k *Passphrase) *atomic.Int64 {
	var n atomic.Int64
	kdf := k.kdf
	k.kdf = func(password, salt []byte, cost, r, p, keyLen int) ([]byte, error) {
		n.Add(1)
		return kdf(password, salt, cost, r, p, keyLen)
	}
	return &n
}
