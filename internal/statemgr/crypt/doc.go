// Package crypt owns Kyku's encryption of stored state (the seed's
// "crypto"): a statemgr.Codec that seals the state, journal entries,
// backups, saved plans and audit records with AES-256-GCM before any
// backend stores them, under a data key from a passphrase (scrypt, with the
// salt stored in each envelope) or from AWS KMS (package awskms, apart so
// that what does not use KMS does not link the AWS SDK: envelope
// encryption, a KMS-wrapped data key stored in each envelope). A fallback key opens what
// the previous key sealed, so keys can be rotated (kyku state rekey).
//
// An envelope is one line of JSON:
//
//	{"kykuEncrypted":1,"alg":"AES-256-GCM","key":{…key descriptor…},"nonce":"…","data":"…"}
//
// The object's role (its statemgr label) and the key descriptor are the
// additional authenticated data: a tampered byte anywhere, or an object moved
// to another role, fails authentication and nothing of it is returned.
//
// A Codec is safe for concurrent use. It derives (passphrase) or fetches
// (KMS) one data key per process for sealing and caches the data keys it
// opened.
package crypt
