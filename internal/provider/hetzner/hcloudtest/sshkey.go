package hcloudtest

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
)

// SSHKey is a fake SSH key.
type SSHKey struct {
	ID                           int64
	Name, PublicKey, Fingerprint string
	Labels                       map[string]string
	Created                      string
}

var keyTypes = map[string]bool{
	"ssh-ed25519": true, "ssh-rsa": true, "ecdsa-sha2-nistp256": true, "ecdsa-sha2-nistp384": true,
	"ecdsa-sha2-nistp521": true, "sk-ssh-ed25519@openssh.com": true,
}

// fingerprint parses an OpenSSH public key line as the API does and
// returns its MD5 fingerprint (aa:bb:…), or an error naming the problem.
func fingerprint(line string) (string, error) {
	fields := strings.Fields(line)
	if len(fields) < 2 || !keyTypes[fields[0]] {
		return "", fmt.Errorf("not an OpenSSH public key (want \"<type> <base64> [comment]\")")
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		return "", fmt.Errorf("key data is not base64")
	}
	// The blob starts with the key type as an SSH string; an ed25519 key
	// then holds one 32-byte string.
	read := func(b []byte) ([]byte, []byte, bool) {
		if len(b) < 4 {
			return nil, nil, false
		}
		n := binary.BigEndian.Uint32(b)
		if uint64(len(b)-4) < uint64(n) {
			return nil, nil, false
		}
		return b[4 : 4+n], b[4+n:], true
	}
	typ, rest, ok := read(blob)
	if !ok || string(typ) != fields[0] {
		return "", fmt.Errorf("key data does not match key type %s", fields[0])
	}
	if fields[0] == "ssh-ed25519" {
		pub, rest, ok := read(rest)
		if !ok || len(pub) != 32 || len(rest) != 0 {
			return "", fmt.Errorf("malformed ed25519 key")
		}
	}
	sum := md5.Sum(blob)
	hexes := make([]string, len(sum))
	for i, b := range sum {
		hexes[i] = fmt.Sprintf("%02x", b)
	}
	return strings.Join(hexes, ":"), nil
}

func (c *Cloud) wireKey(k *SSHKey) any {
	return map[string]any{"id": k.ID, "name": k.Name, "fingerprint": k.Fingerprint, "public_key": k.PublicKey, "labels": k.Labels, "created": c.created(k.Created)}
}

func (c *Cloud) sshKeyKind() *kind[SSHKey] {
	return &kind[SSHKey]{
		c: c, what: "ssh_key", plural: "ssh_keys", taken: "SSH key with the same name already exists",
		all:    func() map[int64]*SSHKey { return c.st.SSHKeys },
		id:     func(k *SSHKey) int64 { return k.ID },
		name:   func(k *SSHKey) *string { return &k.Name },
		labels: func(k *SSHKey) *map[string]string { return &k.Labels },
		wire:   c.wireKey,
		match: func(r *http.Request, k *SSHKey) bool {
			fp := r.URL.Query().Get("fingerprint")
			return fp == "" || k.Fingerprint == fp
		},
	}
}

func (c *Cloud) sshKeyRoutes() {
	k := c.sshKeys
	k.routes()
	c.handle("POST /ssh_keys", func(r *http.Request, body []byte) (int, any, *apiError) {
		var in struct {
			Name      string            `json:"name"`
			PublicKey string            `json:"public_key"`
			Labels    map[string]string `json:"labels"`
		}
		if e := decode(body, &in); e != nil {
			return 0, nil, e
		}
		if in.Name == "" {
			return 0, nil, invalid("name", "is required")
		}
		fp, err := fingerprint(in.PublicKey)
		if err != nil {
			return 0, nil, invalid("public_key", "%v", err)
		}
		if e := checkLabels(in.Labels); e != nil {
			return 0, nil, e
		}
		for _, k := range c.st.SSHKeys {
			if k.Name == in.Name {
				return 0, nil, fail("uniqueness_error", "SSH key with the same name already exists")
			}
			if k.Fingerprint == fp {
				return 0, nil, fail("uniqueness_error", "SSH key with the same fingerprint already exists")
			}
		}
		key := &SSHKey{ID: c.id(), Name: in.Name, PublicKey: in.PublicKey, Fingerprint: fp, Labels: copyLabels(in.Labels), Created: c.timestamp()}
		c.st.SSHKeys[key.ID] = key
		return 201, k.answer(key), nil
	})
}
