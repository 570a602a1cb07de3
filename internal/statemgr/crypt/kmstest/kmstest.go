// Package kmstest is an httptest server that speaks the AWS KMS JSON 1.1
// protocol for the two calls Kyku makes, GenerateDataKey and Decrypt, as
// the KMS API reference documents them (X-Amz-Target TrentService.*,
// base64 blobs, __type error names). It is mounted under a non-empty base
// path, so a client that drops the endpoint's path fails. Each key ID has a
// master key of its own; a ciphertext blob names the key that made it, so
// Decrypt with another KeyId fails with IncorrectKeyException, and a
// different encryption context with InvalidCiphertextException.
package kmstest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
)

// BasePath is where the server answers.
const BasePath = "/kms-base/"

// Server is a fake KMS.
type Server struct {
	URL string // endpoint, with BasePath
	// Calls counts requests by operation ("GenerateDataKey", "Decrypt").
	calls sync.Map

	mu      sync.Mutex
	masters map[string][]byte
	callers map[string]bool // access key IDs requests were signed with
}

// New starts a server that stops with t.
func New(t testing.TB) *Server {
	s := &Server{masters: map[string][]byte{}, callers: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc(BasePath, s.serve)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s.URL = ts.URL + BasePath
	return s
}

// Client returns a KMS client on the server.
func (s *Server) Client() *kms.Client {
	return kms.New(kms.Options{
		Region: "eu-central-1", BaseEndpoint: aws.String(s.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDKMSTEST", "secret", ""),
	})
}

// Calls returns how many times op was called.
func (s *Server) Calls(op string) int64 {
	v, ok := s.calls.Load(op)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

func (s *Server) count(op string) {
	v, _ := s.calls.LoadOrStore(op, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

// Callers lists the access key IDs requests were signed with (the
// Credential=<key id>/… of their SigV4 Authorization header), sorted.
func (s *Server) Callers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.callers))
	for k := range s.callers {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (s *Server) caller(auth string) {
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return
	}
	id, _, _ := strings.Cut(cred, "/")
	s.mu.Lock()
	s.callers[id] = true
	s.mu.Unlock()
}

func (s *Server) master(keyID string) cipher.AEAD {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.masters[keyID]
	if !ok {
		k = make([]byte, 32)
		_, _ = rand.Read(k)
		s.masters[keyID] = k
	}
	block, _ := aes.NewCipher(k)
	aead, _ := cipher.NewGCM(block)
	return aead
}

type request struct {
	KeyID             string            `json:"KeyId"`
	KeySpec           string            `json:"KeySpec"`
	NumberOfBytes     int               `json:"NumberOfBytes"`
	CiphertextBlob    []byte            `json:"CiphertextBlob"`
	EncryptionContext map[string]string `json:"EncryptionContext"`
}

// blob is what a ciphertext blob holds: the key ID, then a sealed key.
type blob struct {
	KeyID string `json:"k"`
	Nonce []byte `json:"n"`
	Data  []byte `json:"d"`
}

func contextAAD(c map[string]string) []byte {
	b, _ := json.Marshal(c) // map keys are sorted
	return b
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	op := strings.TrimPrefix(target, "TrentService.")
	if r.Method != http.MethodPost || op == target || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-amz-json-1.1") ||
		!strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		fail(w, 400, "ValidationException", "not a signed KMS JSON 1.1 request")
		return
	}
	s.count(op)
	s.caller(r.Header.Get("Authorization"))
	var in request
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		fail(w, 400, "SerializationException", err.Error())
		return
	}
	switch op {
	case "GenerateDataKey":
		if in.KeyID == "" || (in.KeySpec != "AES_256" && in.NumberOfBytes != 32) {
			fail(w, 400, "ValidationException", "KeyId and KeySpec AES_256 are required")
			return
		}
		if strings.Contains(in.KeyID, "missing") {
			fail(w, 400, "NotFoundException", "Key '"+in.KeyID+"' does not exist")
			return
		}
		plain := make([]byte, 32)
		_, _ = rand.Read(plain)
		aead := s.master(in.KeyID)
		b := blob{KeyID: in.KeyID, Nonce: make([]byte, aead.NonceSize())}
		_, _ = rand.Read(b.Nonce)
		b.Data = aead.Seal(nil, b.Nonce, plain, contextAAD(in.EncryptionContext))
		raw, _ := json.Marshal(b)
		reply(w, map[string]any{"KeyId": "arn:aws:kms:eu-central-1:111122223333:key/" + in.KeyID, "Plaintext": plain, "CiphertextBlob": raw})
	case "Decrypt":
		var b blob
		if json.Unmarshal(in.CiphertextBlob, &b) != nil || b.KeyID == "" {
			fail(w, 400, "InvalidCiphertextException", "")
			return
		}
		if in.KeyID != "" && in.KeyID != b.KeyID {
			fail(w, 400, "IncorrectKeyException", "The key ID in the request does not identify the key that encrypted the ciphertext.")
			return
		}
		plain, err := s.master(b.KeyID).Open(nil, b.Nonce, b.Data, contextAAD(in.EncryptionContext))
		if err != nil {
			fail(w, 400, "InvalidCiphertextException", "")
			return
		}
		reply(w, map[string]any{"KeyId": "arn:aws:kms:eu-central-1:111122223333:key/" + b.KeyID, "Plaintext": plain})
	default:
		fail(w, 400, "UnknownOperationException", op)
	}
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
}
