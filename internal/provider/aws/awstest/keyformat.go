package awstest

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math/big"
	"strings"
)

// parseOpenSSHKey checks an OpenSSH public key line ("<type> <base64>
// [comment]") the way EC2's ImportKeyPair does: the types it supports
// (ssh-rsa of 1024 bits or more, ssh-ed25519), a blob that is valid
// base64 and whose wire format (RFC 4253 §6.6, RFC 8709) names the same
// type and holds exactly the key, nothing more. It returns the type.
func parseOpenSSHKey(line string) (string, error) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return "", errors.New("want \"<type> <base64 key> [comment]\"")
	}
	blob, err := base64.StdEncoding.DecodeString(f[1])
	if err != nil {
		return "", errors.New("the key is not valid base64")
	}
	typ, rest, ok := sshString(blob)
	if !ok || string(typ) != f[0] {
		return "", errors.New("the key's encoded type does not match " + f[0])
	}
	switch f[0] {
	case "ssh-ed25519":
		key, rest, ok := sshString(rest)
		if !ok || len(key) != 32 || len(rest) != 0 {
			return "", errors.New("an ed25519 key is 32 bytes")
		}
	case "ssh-rsa":
		e, rest, ok := sshString(rest)
		if !ok || len(e) == 0 {
			return "", errors.New("malformed RSA exponent")
		}
		n, rest, ok := sshString(rest)
		if !ok || len(rest) != 0 || new(big.Int).SetBytes(n).BitLen() < 1024 {
			return "", errors.New("an RSA key needs a modulus of 1024 bits or more")
		}
	default:
		return "", errors.New("key type " + f[0] + " is not supported (use ssh-ed25519 or ssh-rsa)")
	}
	return f[0], nil
}

// sshString reads one uint32-length-prefixed string.
func sshString(b []byte) (s, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}
