package bot

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/bot/tenancy"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/workspace"
)

// Tenant is the repository a workspace is opened for.
type Tenant struct {
	Repo string // "owner/repo", for display
	ID   int64  // the repository's numeric ID, which its namespace is keyed by
	// Namespace is "repo.<ID>": the configuration the Opener gets already
	// keeps every backend key under it; an Opener that resolves relative
	// paths (a local backend, the sim's dir) resolves them under its own
	// root, so they stay under it too — after AdoptDir has moved there what
	// the repository had under its Legacy namespace.
	Namespace string
	// Legacy is the namespace the repository's objects lived under while
	// namespaces were keyed by its name ("<owner>/<repo>", lower case), and
	// Created when GitHub created the repository: objects older than that
	// are another repository's of the same name, and are not moved.
	Legacy  string
	Created time.Time
	// Credentials are the AWS credentials for the backend and the aws
	// provider: the role the policy names for the bucket, assumed for this
	// repository; nil means the bot's own.
	Credentials aws.CredentialsProvider
	// Lock is the lock file beside the project's configuration on the
	// default branch, which every Terraform provider package must match
	// (nil when the configuration declares none); a pull request's own
	// lock is never used.
	Lock *tfinstall.Lock
	// ProviderGrants are what the policy gives each Terraform provider of
	// the repository in its sandbox (variables of the bot's, files, the
	// metadata address); every provider runs in one, with nothing else.
	ProviderGrants tenancy.ProviderGrants
	// Terraform, when set, is a Terraform root's state, where its
	// backend block on the default branch says (the policy has judged the
	// place: tenancy.ConfineTerraform); cfg's own backend is then unused.
	Terraform *workspace.TerraformState

	log *slog.Logger // the bot's, for AdoptDir's line
}

// Opener opens a project's engine and backend for a tenant. The bot has
// already confined cfg to what the operator's policy grants the tenant
// (tenancy.Confine): a provider it allows, no endpoint or profile override
// it does not allow, a granted bucket, and every key under the tenant's
// namespace. An Opener that resolves relative paths calls t.AdoptDir for
// each before opening it.
type Opener func(ctx context.Context, t Tenant, cfg *config.Config, env string) (*review.Workspace, error)

// opener is the review.Opener of one repository: every workspace the bot
// opens for it goes through tenancy.Confine first, so its state can only
// live under its own namespace, whatever its config says; what the
// repository had under its name's namespace is moved there once, before
// the workspace is used.
func (rt *router) opener(ev event, src *sources, project settings.Project) review.Opener {
	grant := rt.cfg.Policy.For(ev.owner, ev.repo, ev.repoID)
	return func(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
		c, err := tenancy.Confine(cfg, grant)
		if err != nil {
			return nil, err
		}
		var lock *tfinstall.Lock
		if len(c.Config.Providers) > 0 {
			if lock, err = src.lock(ctx, project, ev.defaultBranch); err != nil {
				return nil, err
			}
		}
		creds, err := rt.roles.credentials(grant.Repo, c.Role)
		if err != nil {
			return nil, fmt.Errorf("credentials for %s: %w", grant.Repo, err)
		}
		t := Tenant{Repo: grant.Repo, ID: grant.ID, Namespace: grant.Namespace(), Legacy: grant.LegacyNamespace(),
			Created: ev.created, Credentials: creds, Lock: lock, ProviderGrants: grant.ProviderGrants, log: rt.log}
		ws, err := rt.open(ctx, t, c.Config, env)
		if err != nil {
			return nil, err
		}
		if err := rt.adopt(ctx, t, c, ws.Backend); err != nil {
			return nil, err
		}
		return ws, nil
	}
}
