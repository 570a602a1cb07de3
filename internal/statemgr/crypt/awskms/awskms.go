package awskms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"

	"github.com/kyku/action/internal/statemgr/crypt"
)

// KMSAPI is the part of the KMS client this package uses (*kms.Client has it).
type KMSAPI interface {
	GenerateDataKey(ctx context.Context, in *kms.GenerateDataKeyInput, optFns ...func(*kms.Options)) (*kms.GenerateDataKeyOutput, error)
	Decrypt(ctx context.Context, in *kms.DecryptInput, optFns ...func(*kms.Options)) (*kms.DecryptOutput, error)
}

// KMS is envelope encryption with AWS KMS: each process asks KMS for one
// AES-256 data key (GenerateDataKey) and stores the KMS-encrypted copy in
// every envelope; opening asks KMS to decrypt it (Decrypt), once per data
// key. The key never leaves KMS; the encryption context {"kyku": "state"}
// is bound to every data key.
type KMS struct {
	api   KMSAPI
	keyID string
}

var _ crypt.Key = (*KMS)(nil)

// New returns the key keyID (ID, ARN or alias/NAME) reached through api.
func New(api KMSAPI, keyID string) *KMS { return &KMS{api: api, keyID: keyID} }

var kmsContext = sync.OnceValue(func() map[string]string {
	return map[string]string{"kyku": "state"}
})

type kmsDesc struct {
	Type  string `json:"type"`
	KeyID string `json:"keyId"`
	Blob  []byte `json:"blob"`
}

func (k *KMS) Kind() string     { return "aws-kms" }
func (k *KMS) Describe() string { return "aws-kms " + k.keyID }

func (k *KMS) NewDataKey(ctx context.Context) ([]byte, json.RawMessage, error) {
	out, err := k.api.GenerateDataKey(ctx, &kms.GenerateDataKeyInput{
		KeyId: aws.String(k.keyID), KeySpec: types.DataKeySpecAes256, EncryptionContext: kmsContext(),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("aws-kms GenerateDataKey with %s: %w", k.keyID, err)
	}
	if len(out.Plaintext) != 32 || len(out.CiphertextBlob) == 0 {
		return nil, nil, fmt.Errorf("aws-kms GenerateDataKey with %s: got a %d-byte key, want 32", k.keyID, len(out.Plaintext))
	}
	raw, err := json.Marshal(kmsDesc{Type: "aws-kms", KeyID: k.keyID, Blob: out.CiphertextBlob})
	return out.Plaintext, raw, err
}

func (k *KMS) DataKey(ctx context.Context, raw json.RawMessage) ([]byte, error) {
	var d kmsDesc
	if err := json.Unmarshal(raw, &d); err != nil || d.Type != "aws-kms" || len(d.Blob) == 0 {
		return nil, crypt.ErrNotMine
	}
	out, err := k.api.Decrypt(ctx, &kms.DecryptInput{CiphertextBlob: d.Blob, KeyId: aws.String(k.keyID), EncryptionContext: kmsContext()})
	var wrong *types.IncorrectKeyException
	var invalid *types.InvalidCiphertextException
	switch {
	case errors.As(err, &wrong):
		return nil, fmt.Errorf("%w: sealed under KMS key %s, not %s", crypt.ErrWrongKey, d.KeyID, k.keyID)
	case errors.As(err, &invalid):
		return nil, fmt.Errorf("%w: KMS refused its data key as invalid ciphertext", crypt.ErrAuthentication)
	case err != nil:
		return nil, fmt.Errorf("aws-kms Decrypt with %s: %w", k.keyID, err)
	}
	if len(out.Plaintext) != 32 {
		return nil, fmt.Errorf("aws-kms Decrypt with %s: got a %d-byte key, want 32", k.keyID, len(out.Plaintext))
	}
	return out.Plaintext, nil
}
