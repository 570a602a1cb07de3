package funcs

import (
	"crypto/md5"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/gocty"
	"golang.org/x/crypto/bcrypt"
)

// addCrypto adds the hash and crypto functions.
func addCrypto(t map[string]function.Function, opts Options) {
	f := filesOf(opts)
	b64 := base64.StdEncoding.EncodeToString
	for name, h := range map[string]struct {
		new func() hash.Hash
		enc func([]byte) string
	}{
		"md5":          {md5.New, hex.EncodeToString},
		"sha1":         {sha1.New, hex.EncodeToString},
		"sha256":       {sha256.New, hex.EncodeToString},
		"sha512":       {sha512.New, hex.EncodeToString},
		"base64sha256": {sha256.New, b64},
		"base64sha512": {sha512.New, b64},
	} {
		t[name] = stringHashFunc(h.new, h.enc)
		t["file"+name] = fileHashFunc(f, h.new, h.enc)
	}
	t["bcrypt"] = bcryptFunc()
	t["rsadecrypt"] = rsaDecryptFunc()
	t["uuid"] = uuidFunc(opts.Rand)
	t["uuidv5"] = uuidV5Func()
}

// stringHashFunc hashes a string's UTF-8 bytes.
func stringHashFunc(newHash func() hash.Hash, enc func([]byte) string) function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("str")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			h := newHash()
			io.WriteString(h, args[0].AsString())
			return cty.StringVal(enc(h.Sum(nil))), nil
		},
	})
}

// fileHashFunc hashes a file's bytes, read as the file function reads.
func fileHashFunc(f files, newHash func() hash.Hash, enc func([]byte) string) function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("path")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			fh, err := f.open(args[0].AsString())
			if errors.Is(err, errOutside) {
				return cty.UnknownVal(cty.String), fmt.Errorf("%s %w", shownPath(args[0].AsString()), err)
			}
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			defer fh.Close()
			h := newHash()
			if _, err := io.Copy(h, fh); err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(enc(h.Sum(nil))), nil
		},
	})
}

// bcryptFunc hashes a password with a random salt at the given cost
// (10 by default).
func bcryptFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("str")},
		VarParam:     &function.Parameter{Name: "cost", Type: cty.Number},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			cost := bcrypt.DefaultCost
			if len(args) > 2 {
				return cty.UnknownVal(cty.String), errors.New("bcrypt() takes no more than two arguments")
			}
			if len(args) == 2 {
				if err := gocty.FromCtyValue(args[1], &cost); err != nil {
					return cty.UnknownVal(cty.String), err
				}
			}
			out, err := bcrypt.GenerateFromPassword([]byte(args[0].AsString()), cost)
			if err != nil {
				return cty.UnknownVal(cty.String), fmt.Errorf("error occurred generating password %w", err)
			}
			return cty.StringVal(string(out)), nil
		},
	})
}

// rsaDecryptFunc decrypts Base64 ciphertext (RSA PKCS #1 v1.5) with a
// PEM private key (PKCS #1, PKCS #8 or OpenSSH).
func rsaDecryptFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("ciphertext"), strParam("privatekey")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			text := args[0].AsString()
			b, err := base64.StdEncoding.DecodeString(text)
			if err != nil {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "failed to decode input %q: cipher text must be base64-encoded", text)
			}
			raw, err := parsePrivateKey([]byte(args[1].AsString()))
			if err != nil {
				var syntax asn1.SyntaxError
				var structural asn1.StructuralError
				msg := "invalid private key: " + err.Error()
				switch {
				case errors.As(err, &syntax):
					msg = strings.ReplaceAll(syntax.Error(), "asn1: syntax error", "invalid ASN1 data in the given private key")
				case errors.As(err, &structural):
					msg = strings.ReplaceAll(structural.Error(), "asn1: structure error", "invalid ASN1 data in the given private key")
				}
				return cty.UnknownVal(cty.String), function.NewArgErrorf(1, "%s", msg)
			}
			key, ok := raw.(*rsa.PrivateKey)
			if !ok {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(1, "the private key is not an RSA key")
			}
			//lint:ignore SA1019 rsadecrypt is OpenTofu's function: PKCS #1 v1.5, as what encrypted it (e.g. EC2's Windows password) uses
			out, err := rsa.DecryptPKCS1v15(nil, key, b)
			if err != nil {
				return cty.UnknownVal(cty.String), fmt.Errorf("failed to decrypt: %w", err)
			}
			return cty.StringVal(string(out)), nil
		},
	})
}

// uuidFunc is 16 random bytes written as a UUID. Like OpenTofu's, it
// sets no version or variant bits.
func uuidFunc(rand io.Reader) function.Function {
	return function.New(&function.Spec{
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			var b [16]byte
			if _, err := io.ReadFull(rand, b[:]); err != nil {
				return cty.UnknownVal(cty.String), fmt.Errorf("read random bytes: %w", err)
			}
			return cty.StringVal(formatUUID(b)), nil
		},
	})
}

func formatUUID(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// uuidV5Func is the name-based (SHA-1) UUID of RFC 4122 §4.3 in a
// namespace: "dns", "url", "oid", "x500" or a UUID.
func uuidV5Func() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("namespace"), strParam("name")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			nsName := args[0].AsString()
			ns, err := parseUUID(wellKnownNamespace(nsName))
			if err != nil {
				return cty.UnknownVal(cty.String), fmt.Errorf("uuidv5() doesn't support namespace %s (%w)", nsName, err)
			}
			h := sha1.New()
			h.Write(ns[:])
			io.WriteString(h, args[1].AsString())
			var id [16]byte
			copy(id[:], h.Sum(nil))
			id[6] = id[6]&0x0f | 0x50 // version 5
			id[8] = id[8]&0x3f | 0x80 // RFC 4122 variant
			return cty.StringVal(formatUUID(id)), nil
		},
	})
}

// wellKnownNamespace is the UUID of RFC 4122's namespaces by name;
// anything else is returned as it is.
func wellKnownNamespace(name string) string {
	const base = "6ba7b81%c-9dad-11d1-80b4-00c04fd430c8"
	switch name {
	case "dns":
		return fmt.Sprintf(base, '0')
	case "url":
		return fmt.Sprintf(base, '1')
	case "oid":
		return fmt.Sprintf(base, '2')
	case "x500":
		return fmt.Sprintf(base, '4')
	}
	return name
}

// parseUUID reads a UUID as 32 hex digits, hyphenated, in braces or
// as a "urn:uuid:" URN.
func parseUUID(s string) ([16]byte, error) {
	var id [16]byte
	switch len(s) {
	case 45:
		if !strings.EqualFold(s[:9], "urn:uuid:") {
			return id, fmt.Errorf("invalid urn prefix: %q", s[:9])
		}
		s = s[9:]
	case 38:
		if s[0] != '{' || s[37] != '}' {
			return id, errors.New("invalid UUID format")
		}
		s = s[1:37]
	case 36, 32:
	default:
		return id, fmt.Errorf("invalid UUID length: %d", len(s))
	}
	if len(s) == 36 {
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return id, errors.New("invalid UUID format")
		}
		s = s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, errors.New("invalid UUID format")
	}
	return id, nil
}
