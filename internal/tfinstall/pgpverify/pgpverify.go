// Package pgpverify checks the OpenPGP signature a provider registry
// publishes of a package's SHA256SUMS (tfinstall.Registry.Verify). It is
// apart from package tfinstall so that a program that installs no
// provider from a registry does not link OpenPGP and its curves (the kyku
// executable; kyku-engine passes Verify: docs/architecture.md, "Two
// executables"). Safe for concurrent use.
package pgpverify

import (
	"bytes"
	"errors"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
)

// Verify checks sig, a detached signature of signed, against the
// ASCII-armored keys; badKey is the index of a key it could not read
// (with its error), -1 otherwise.
func Verify(signed, sig []byte, armoredKeys []string) (badKey int, err error) {
	var ring openpgp.EntityList
	for i, k := range armoredKeys {
		es, err := openpgp.ReadArmoredKeyRing(strings.NewReader(k))
		if err != nil {
			return i, err
		}
		ring = append(ring, es...)
	}
	if len(ring) == 0 {
		return -1, errors.New("the keys hold no key")
	}
	_, err = openpgp.CheckDetachedSignature(ring, bytes.NewReader(signed), bytes.NewReader(sig), nil)
	return -1, err
}
