package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"golang.org/x/oauth2/google"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/tenancy"
	"github.com/kyku/action/internal/buildinfo"
	"github.com/kyku/action/internal/claim"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/hostcreds"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	awsprovider "github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfinstall/pgpverify"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// opener opens a project's provider and backend from its trusted config,
// which the bot has confined to the tenant (policy.Confine): the S3 prefix
// is under the repository's namespace, the bucket and provider are ones
// the policy allows. With the tenant's credentials (the policy's role,
// assumed for this repository) the S3 client and the aws provider use
// them instead of the bot's own. A sim's (relative, confined) dir is
// resolved under simRoot.
//
// The bot keeps nothing that matters on its disk, so a local backend is
// refused: several replicas and restarts must see the same state and locks.
func opener(getenv func(string) string, simRoot string) bot.Opener {
	return openerOf(getenv, simRoot, buildinfo.EngineVersion("", ""))
}

// openerOf is opener with Kyku's version (buildinfo.EngineVersion), which
// the engine records as the provider version of Kyku's own types: a plan
// after an upgrade of the bot reads those objects again, and only then.
func openerOf(getenv func(string) string, simRoot, version string) bot.Opener {
	// Private registries' tokens: the operator's (TF_TOKEN_<host>, the
	// CLI configuration of the bot's HOME), never a repository's.
	creds := hostcreds.New(hostcreds.Sources{Environ: os.Environ(), Getenv: getenv})
	return func(ctx context.Context, t bot.Tenant, cfg *config.Config, env string) (*review.Workspace, error) {
		bc := cfg.Backend
		if t.Terraform == nil && (bc == nil || bc.Type == "" || bc.Type == "local") {
			return nil, fmt.Errorf("open workspace: the bot needs a remote backend (s3, gcs, spaces or http) in the project's config (state on the bot's disk would be lost)")
		}
		if usesKMS(cfg.Encryption) && t.Credentials == nil {
			// tenancy.Confine refuses this already; the opener does not
			// rely on it: the bot's own AWS identity never opens a
			// repository's KMS key.
			return nil, fmt.Errorf("open workspace: %s: encryption key aws-kms needs the repository's role from the bot's policy", cfg.Encryption.Pos)
		}
		ws := workspace.Settings{Env: env, Getenv: getenv, AWS: awsstore.Store{Credentials: t.Credentials}, Google: google.DefaultClient}
		var (
			backend statemgr.Backend
			awsCfg  aws.Config
			err     error
		)
		switch {
		case t.Terraform != nil && (t.Terraform.Type == "" || t.Terraform.Type == "local" || t.Terraform.Type == "http"):
			// Kyku's additions to a local or http Terraform state (saved
			// plans, backups, the change journal) live on disk beside the
			// root: on the bot, a temporary directory no other replica
			// sees, so the plan a merge applies would be gone.
			// tenancy.ConfineTerraform refuses this already, at the
			// backend block; the opener does not rely on it.
			return nil, fmt.Errorf("open workspace: %s: %s", t.Terraform.Where, tenancy.OnDiskReason(t.Terraform.Type))
		case t.Terraform != nil:
			// A Terraform root's state where its backend block on the
			// default branch says, a place the policy has granted
			// (tenancy.ConfineTerraform: never local); s3 with the
			// bucket's role when the policy names one (ws.AWS's Credentials),
			// else the bot's own credentials.
			backend, err = workspace.OpenTerraformBackend(ctx, t.Terraform, ws)
		case bc.Type == "s3":
			backend, awsCfg, err = openS3(ctx, t, cfg, ws)
		default:
			// gcs, spaces and http: the bot's own credentials (the policy
			// grants roles for S3 buckets only).
			backend, err = workspace.OpenConfigBackend(ctx, cfg, ws)
		}
		if err != nil {
			return nil, fmt.Errorf("open workspace: %w", err)
		}
		reg := provider.Registry{
			"sim": func(ctx context.Context, settings map[string]string, getenv func(string) string) (provider.Provider, error) {
				s := maps.Clone(settings)
				if s == nil {
					s = map[string]string{}
				}
				if err := t.AdoptDir(simRoot, settings["dir"]); err != nil {
					return nil, err
				}
				s["dir"] = filepath.Join(simRoot, filepath.FromSlash(settings["dir"]))
				return sim.Factory(ctx, s, getenv)
			},
			"aws": func(ctx context.Context, settings map[string]string, getenv func(string) string) (provider.Provider, error) {
				if t.Credentials == nil {
					return awsprovider.New(ctx, settings, getenv)
				}
				region := settings["region"]
				if region == "" {
					region = awsCfg.Region
				}
				pc, err := loadAWS(ctx, region, false, t.Credentials)
				if err != nil {
					return nil, err
				}
				clients, err := awsprovider.ClientsFromConfig(ctx, pc, settings["endpoint"])
				if err != nil {
					return nil, err
				}
				return awsprovider.NewWithClients(clients, awsprovider.Options{}), nil
			},
			"hetzner": hetzner.New,
		}
		// Terraform providers (only sources the policy grants: Confine)
		// from the operator's mirror, or their registries into the bot's
		// cache; every package matches the default branch's lock; each
		// runs sandboxed with what the policy grants it and nothing else
		// of the bot's (sandbox.go).
		plugins := workspace.Plugins{Mirror: getenv("KYKU_PLUGIN_MIRROR"), CacheDir: filepath.Join(os.TempDir(), "kyku-bot-providers"), Lock: t.Lock, Verify: pgpverify.Verify,
			Credentials: creds,
			Confine: func(src tfinstall.Source) (workspace.Confinement, error) {
				return confinement(getenv, t.ProviderGrants.For(src))
			}}
		if dir := getenv("KYKU_PLUGIN_CACHE"); dir != "" {
			plugins.CacheDir = dir
		}
		// One scrubber for the engine and the providers (review reads it).
		book := &progress.SecretBook{}
		// terraform_remote_state reads another root's s3 or gcs state with
		// the bot's own credentials (never the tenant's role): as kyku-engine
		// and the Action give them.
		p, err := workspace.Provider(ctx, cfg, workspace.Settings{Env: env, Getenv: getenv, Plugins: plugins, Engine: engine.Options{Secrets: book},
			AWS: awsstore.Store{}, Google: google.DefaultClient}, reg)
		if err != nil {
			return nil, fmt.Errorf("open workspace: %w", err)
		}
		leases, err := workspace.Leases(ctx, cfg.Backend, backend, workspace.Settings{Env: env})
		if err != nil {
			workspace.Release(p)
			return nil, fmt.Errorf("open workspace: %w", err)
		}
		return &review.Workspace{Engine: engine.New(p, backend, engine.Options{Env: env, Secrets: book, Leases: leases, Version: version}), Backend: backend,
			Close: func() error { workspace.Release(p); return nil }}, nil
	}
}

// usesKMS reports whether enc or its fallback is an aws-kms key.
func usesKMS(enc *config.Encryption) bool {
	for e := enc; e != nil; e = e.Fallback {
		if e.Key == "aws-kms" {
			return true
		}
	}
	return false
}

// openS3 opens an S3 backend with the tenant's credentials (the policy's
// role, assumed for the repository) when it has them, and the encryption the
// config names. It also returns the AWS configuration it used, for the aws
// provider's region.
func openS3(ctx context.Context, t bot.Tenant, cfg *config.Config, ws workspace.Settings) (statemgr.Backend, aws.Config, error) {
	bc := cfg.Backend
	awsCfg, err := loadAWS(ctx, bc.Region, bc.Endpoint != "", t.Credentials)
	if err != nil {
		return nil, aws.Config{}, err
	}
	if awsCfg.Region == "" {
		return nil, aws.Config{}, fmt.Errorf("no region for bucket %q: set backend.region in kyku.yaml or AWS_REGION on the bot", bc.Bucket)
	}
	codec, err := workspace.Codec(ctx, cfg.Encryption, ws)
	if err != nil {
		return nil, aws.Config{}, err
	}
	client := awss3.NewFromConfig(awsCfg, func(o *awss3.Options) {
		if bc.Endpoint != "" {
			o.BaseEndpoint = aws.String(bc.Endpoint)
		}
		o.UsePathStyle = bc.UsePathStyle
	})
	backend, err := s3.NewWithClient(client, s3.Config{
		Bucket: bc.Bucket, Prefix: bc.Prefix, Region: awsCfg.Region, Endpoint: bc.Endpoint,
		UsePathStyle: bc.UsePathStyle, KMSKeyID: bc.KMSKeyID, BackupRetention: bc.BackupRetention,
	}, ws.Env, s3.Options{Getenv: ws.Getenv, Codec: codec})
	if err != nil {
		return nil, aws.Config{}, err
	}
	return backend, awsCfg, nil
}

// loadAWS is the SDK's configuration with region, and creds instead of the
// default chain's when set.
func loadAWS(ctx context.Context, region string, customEndpoint bool, creds aws.CredentialsProvider) (aws.Config, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if region != "" {
		opts = append(opts, awsconfig.WithRegion(region))
	}
	if customEndpoint {
		// S3-compatible stores often reject the SDK's optional checksums.
		opts = append(opts, awsconfig.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired))
	}
	if creds != nil {
		opts = append(opts, awsconfig.WithCredentialsProvider(creds))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	return cfg, nil
}

// openStore opens the bot's own store (KYKU_BOT_STORE) with the bot's own
// credentials and checks that it can write there: a claim taken and
// released, so that a wrong bucket or missing permission stops the start,
// not the first webhook.
func openStore(ctx context.Context, sc *bot.StoreConfig, getenv func(string) string) (jobs.Objects, error) {
	b, err := workspace.OpenBackend(ctx, &config.Backend{
		Type: sc.Type, Bucket: sc.Bucket, Prefix: sc.Prefix, Region: sc.Region, Endpoint: sc.Endpoint, UsePathStyle: sc.UsePathStyle,
	}, workspace.Settings{Env: "bot", Getenv: getenv, AWS: awsstore.Store{}, Google: google.DefaultClient})
	if err != nil {
		return nil, err
	}
	c, ok := b.(jobs.Objects)
	if !ok {
		return nil, fmt.Errorf("%s offers no conditional writes", b.Describe())
	}
	host, _ := os.Hostname()
	probe, err := claim.New(c, claim.Options{}).Take(ctx, "probe/"+host+".json", host, "start-up check", time.Minute)
	if err != nil {
		return nil, fmt.Errorf("write a record: %w", err)
	}
	if err := claim.New(c, claim.Options{}).Release(ctx, probe); err != nil {
		return nil, fmt.Errorf("remove a record: %w", err)
	}
	return c, nil
}
