package bot

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/bot/tenancy"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/review"
)

// Tenant is the repository a workspace is opened for.
type Tenant struct {
	Repo string // "owner/repo"
	// Namespace is "<owner>/<repo>" (lower case): the configuration the
	// Opener gets already keeps every backend key under it; an Opener that
	// resolves relative paths (a local backend, the sim's dir) resolves
	// them under its own root, so they stay under it too.
	Namespace string
	// Credentials are the AWS credentials for the backend and the aws
	// provider: the role the policy names for the bucket, assumed for this
	// repository; nil means the bot's own.
	Credentials aws.CredentialsProvider
}

// Opener opens a project's engine and backend for a tenant. The bot has
// already confined cfg to what the operator's policy grants the tenant
// (tenancy.Confine): a provider it allows, no endpoint or profile override
// it does not allow, a granted bucket, and every key under the tenant's
// namespace.
type Opener func(ctx context.Context, t Tenant, cfg *config.Config, env string) (*review.Workspace, error)

// opener is the review.Opener of one repository: every workspace the bot
// opens for it goes through tenancy.Confine first, so its state can only
// live under its own namespace, whatever its config says.
func (b *Bot) opener(ev event) review.Opener {
	grant := b.cfg.Policy.For(ev.owner, ev.repo)
	return func(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
		c, err := tenancy.Confine(cfg, grant)
		if err != nil {
			return nil, err
		}
		creds, err := b.roles.credentials(grant.Repo, c.Role)
		if err != nil {
			return nil, fmt.Errorf("credentials for %s: %w", grant.Repo, err)
		}
		return b.open(ctx, Tenant{Repo: grant.Repo, Namespace: grant.Namespace(), Credentials: creds}, c.Config, env)
	}
}
