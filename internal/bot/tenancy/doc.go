// Package tenancy owns the bot operator's policy (the file KYKU_BOT_POLICY
// names) and the confinement of one repository's configuration to what it
// grants: which repositories (owner/repo globs) may use which S3 buckets,
// the IAM role Kyku assumes for each bucket, which providers they may use
// (Kyku's own, and the Terraform provider sources under
// terraform-providers, with what each gets in its sandbox under
// provider-grants), and whether they may override the `endpoint` or the
// AWS `profile`.
//
// Whatever the policy says, every key a repository's state, locks, saved
// plans and audit records are stored under is built under its namespace
// "repo.<numeric ID>/": Confine rewrites the backend's prefix, or a local
// backend's path, under it; a config's own prefix is taken relative to it
// and ".." or an absolute path is refused, so one repository can never
// name another's keys. The namespace is keyed by the ID, not the name: a
// renamed repository keeps its state, one registered again under an old
// name does not inherit it. Confined.Legacy names where a repository's
// objects lived while namespaces were keyed by "<owner>/<repo>", for the
// bot to move them once. Parse reports every mistake of a policy file as
// FILE:LINE:COL: key.path: message and refuses a policy that grants
// nothing. Without a policy (a nil *Policy) every provider is refused
// (aws and hetzner would act with the bot's own credentials, the sim on
// its disk), as are `endpoint`/`profile` overrides. Whatever the policy, an `import` and an aws-kms key act with
// the repository's role (a bucket granted with one) or not at all, unless
// the policy says allow-import.
//
// It is pure: no I/O. Concurrency: a parsed *Policy and a Grant are
// immutable and safe to share.
package tenancy
