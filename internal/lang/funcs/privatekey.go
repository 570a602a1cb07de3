package funcs

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// parsePrivateKey reads a PEM private key as rsadecrypt accepts it, as
// OpenTofu's does (x/crypto/ssh's ParseRawPrivateKey, whose messages these
// are): PKCS #1, PKCS #8, SEC 1 (EC) or OpenSSH, unencrypted. Of an
// OpenSSH key it reads RSA keys only, and returns the key type's name for
// any other (rsadecrypt refuses it as not RSA). It is written here, not
// taken from x/crypto/ssh, because kyku would otherwise link the SSH
// package, which builds its algorithm tables at every start, whatever the
// command (internal/deptest, TestKykuLinksNoEngineParts).
func parsePrivateKey(pemBytes []byte) (any, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("ssh: no key found")
	}
	if strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED") {
		return nil, errPassphrase
	}
	switch block.Type {
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(block.Bytes)
	case "PRIVATE KEY":
		return x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		return x509.ParseECPrivateKey(block.Bytes)
	case "OPENSSH PRIVATE KEY":
		return parseOpenSSHKey(block.Bytes)
	default:
		return nil, fmt.Errorf("ssh: unsupported key type %q", block.Type)
	}
}

var (
	errPassphrase = errors.New("ssh: this private key is passphrase protected")
	errShortRead  = errors.New("ssh: short read")
	errEmpty      = errors.New("ssh: parse error in message type 0")
)

// opensshMagic opens an OpenSSH private key (PROTOCOL.key in OpenSSH).
const opensshMagic = "openssh-key-v1\x00"

// parseOpenSSHKey reads the body of an "OPENSSH PRIVATE KEY" block: the
// magic, cipher, KDF and its options, the number of keys (one), the public
// key, then the private section: two equal check words, the key type and
// the key, its comment and padding 1, 2, 3….
func parseOpenSSHKey(b []byte) (any, error) {
	if !strings.HasPrefix(string(b), opensshMagic) {
		return nil, errors.New("ssh: invalid openssh private key format")
	}
	r := &wireReader{rest: b[len(opensshMagic):]}
	if len(r.rest) == 0 {
		return nil, errEmpty
	}
	const header = "openSSHEncryptedPrivateKey" // x/crypto/ssh's names, in its messages
	cipher, kdf, kdfOpts := r.text("CipherName", header), r.text("KdfName", header), r.text("KdfOpts", header)
	n := r.uint32()
	r.str() // the public key
	private := &wireReader{rest: r.str()}
	if r.err != nil {
		return nil, r.err
	}
	if n != 1 {
		return nil, errors.New("ssh: multi-key files are not supported")
	}
	if kdf != "none" || cipher != "none" {
		return nil, errPassphrase
	}
	if kdfOpts != "" {
		return nil, errors.New("ssh: invalid openssh private key")
	}
	check1, check2, typ := private.uint32(), private.uint32(), private.str()
	if private.err != nil || check1 != check2 {
		return nil, errors.New("ssh: malformed OpenSSH key")
	}
	if string(typ) != "ssh-rsa" {
		return string(typ), nil
	}
	if len(private.rest) == 0 {
		return nil, errEmpty
	}
	nn, e, d, _, p, q := private.mpint(), private.mpint(), private.mpint(), private.mpint(), private.mpint(), private.mpint()
	private.text("Comment", "openSSHRSAPrivateKey")
	if private.err != nil {
		return nil, private.err
	}
	for i, c := range private.rest {
		if int(c) != i+1 {
			return nil, errors.New("ssh: padding not as expected")
		}
	}
	switch {
	case nn.BitLen() > 16384:
		return nil, errors.New("ssh: rsa modulus too large")
	case p.BitLen() > 8192 || q.BitLen() > 8192:
		return nil, errors.New("ssh: rsa prime too large")
	case e.BitLen() > 24:
		return nil, errors.New("ssh: exponent too large")
	case e.Int64() < 3 || e.Int64()&1 == 0:
		return nil, errors.New("ssh: incorrect exponent")
	}
	key := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: nn, E: int(e.Int64())}, D: d, Primes: []*big.Int{p, q}}
	if err := key.Validate(); err != nil {
		return nil, err
	}
	key.Precompute()
	return key, nil
}

// wireReader reads the SSH wire format (RFC 4251, section 5); the first
// short read sets err, and every read after it returns zero values.
type wireReader struct {
	rest []byte
	err  error
}

func (r *wireReader) take(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if uint64(len(r.rest)) < n {
		r.err = errShortRead
		return nil
	}
	b := r.rest[:n]
	r.rest = r.rest[n:]
	return b
}

func (r *wireReader) uint32() uint32 {
	if b := r.take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

// str is a string: its length (uint32), then its bytes.
func (r *wireReader) str() []byte {
	n := r.uint32()
	return r.take(uint64(n))
}

// text is a string read into the field of a structure, as x/crypto/ssh
// names it when it is short.
func (r *wireReader) text(field, structure string) string {
	if r.err == nil {
		if len(r.rest) < 4 || uint64(len(r.rest)-4) < uint64(binary.BigEndian.Uint32(r.rest)) {
			r.err = fmt.Errorf("ssh: unmarshal error for field %s of type %s", field, structure)
		}
	}
	return string(r.str())
}

// mpint is a string holding a two's complement big-endian integer.
func (r *wireReader) mpint() *big.Int {
	b := r.str()
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return v
}
