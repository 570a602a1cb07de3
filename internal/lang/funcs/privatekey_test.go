package funcs

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"testing"

	"golang.org/x/crypto/ssh"
)

// TestParsePrivateKeyAsSSH: rsadecrypt reads a private key as OpenTofu's
// does, through x/crypto/ssh's ParseRawPrivateKey, which kyku does not
// link: for every key below, and for the OpenSSH RSA key cut short at
// every length and with each of its bytes changed, parsePrivateKey
// returns the same RSA key or fails with the same message. Of a key
// OpenSSH calls anything but ssh-rsa it returns no key (rsadecrypt then
// says the key is not RSA, whatever ssh would have said of it).
func TestParsePrivateKeyAsSSH(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(rsaKey)
	if err != nil {
		t.Fatal(err)
	}
	sec1, err := x509.MarshalECPrivateKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}
	openssh := func(key any, passphrase string) *pem.Block {
		t.Helper()
		var b *pem.Block
		var err error
		if passphrase == "" {
			b, err = ssh.MarshalPrivateKey(key, "a comment")
		} else {
			b, err = ssh.MarshalPrivateKeyWithPassphrase(key, "a comment", []byte(passphrase))
		}
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	opensshRSA := openssh(rsaKey, "")
	withE := func(e int) []byte {
		k := *rsaKey
		k.E = e
		return pem.EncodeToMemory(openssh(&k, ""))
	}

	cases := map[string][]byte{
		"pkcs1":               pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}),
		"pkcs8":               pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		"sec1":                pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}),
		"openssh rsa":         pem.EncodeToMemory(opensshRSA),
		"openssh ecdsa":       pem.EncodeToMemory(openssh(ecKey, "")),
		"openssh ed25519":     pem.EncodeToMemory(openssh(edKey, "")),
		"openssh e too large": withE(1<<25 + 1),
		"openssh e even":      withE(65538),
		"openssh encrypted":   pem.EncodeToMemory(openssh(rsaKey, "secret")),
		"pem encrypted":       pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: []byte{1}}),
		"no pem":              []byte("key"),
		"unknown type":        pem.EncodeToMemory(&pem.Block{Type: "DSA PRIVATE KEY", Bytes: []byte{1}}),
		"pkcs1 bad asn1":      pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte{0x30, 1}}),
		"openssh no magic":    pem.EncodeToMemory(&pem.Block{Type: "OPENSSH PRIVATE KEY", Bytes: []byte("openssh-key-v2\x00")}),
		"openssh magic only":  pem.EncodeToMemory(&pem.Block{Type: "OPENSSH PRIVATE KEY", Bytes: []byte(opensshMagic)}),
	}
	body := opensshRSA.Bytes
	for n := len(opensshMagic) + 1; n < len(body); n++ {
		cases[fmt.Sprintf("openssh rsa cut to %d bytes", n)] = pem.EncodeToMemory(&pem.Block{Type: opensshRSA.Type, Bytes: body[:n]})
	}
	for i := len(opensshMagic); i < len(body); i++ {
		changed := append([]byte(nil), body...)
		changed[i] ^= 0x81
		cases[fmt.Sprintf("openssh rsa byte %d changed", i)] = pem.EncodeToMemory(&pem.Block{Type: opensshRSA.Type, Bytes: changed})
	}

	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			want, wantErr := ssh.ParseRawPrivateKey(in)
			got, gotErr := parsePrivateKey(in)
			if typ, ok := got.(string); ok && gotErr == nil {
				if _, isRSA := want.(*rsa.PrivateKey); isRSA || (wantErr == nil && typ == "ssh-rsa") {
					t.Fatalf("parsePrivateKey: an OpenSSH %q key; ssh: %T", typ, want)
				}
				return
			}
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("parsePrivateKey error: %v\nssh's: %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			wantRSA, wantIsRSA := want.(*rsa.PrivateKey)
			gotRSA, gotIsRSA := got.(*rsa.PrivateKey)
			switch {
			case wantIsRSA != gotIsRSA:
				t.Fatalf("parsePrivateKey: %T, ssh: %T", got, want)
			case wantIsRSA && !gotRSA.Equal(wantRSA):
				t.Fatalf("parsePrivateKey: another RSA key than ssh's")
			}
		})
	}
}
