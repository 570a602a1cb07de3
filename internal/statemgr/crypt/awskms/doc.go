// Package awskms is the crypt.Key of AWS KMS: envelope encryption, a
// KMS-wrapped data key stored in each envelope. It is apart from package
// crypt so that a program that encrypts state with a passphrase only (the
// thin kyku executable) does not link the AWS SDK. A KMS key is safe for
// concurrent use.
package awskms
