package bot

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
)

// roles hands out AWS credentials for the IAM role the operator's policy
// names for a repository's bucket, assumed through STS with a session
// name naming the repository (so CloudTrail says which repository acted).
// One cached provider per repository and role renews them before they
// expire.
type roles struct {
	sts stscreds.AssumeRoleAPIClient

	mu    sync.Mutex
	cache map[string]aws.CredentialsProvider
}

func newRoles(sts stscreds.AssumeRoleAPIClient) *roles {
	return &roles{sts: sts, cache: map[string]aws.CredentialsProvider{}}
}

// credentials returns the credentials of role assumed for repo (nil for
// role "": the bot's own).
func (r *roles) credentials(repo, role string) (aws.CredentialsProvider, error) {
	if role == "" {
		return nil, nil
	}
	if r.sts == nil {
		return nil, fmt.Errorf("the bot's policy names role %s for %s, but the bot has no STS client to assume it", role, repo)
	}
	key := strings.ToLower(repo) + "\x00" + role
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.cache[key]; c != nil {
		return c, nil
	}
	c := aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(r.sts, role, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = SessionName(repo)
	}))
	r.cache[key] = c
	return c, nil
}

var sessionUnsafe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[^A-Za-z0-9+=,.@_-]`)
})

// SessionName is the STS role session name for repository owner/repo:
// "kyku@owner.repo" with characters STS does not accept replaced by "-",
// cut to STS's 64 characters with a hash of the full name when longer.
func SessionName(repo string) string {
	s := "kyku@" + sessionUnsafe().ReplaceAllString(strings.Replace(repo, "/", ".", 1), "-")
	if len(s) <= 64 {
		return s
	}
	sum := sha256.Sum256([]byte(repo))
	return s[:64-9] + "-" + hex.EncodeToString(sum[:4])
}
