// Package workspace owns turning a configuration and the environment a
// front door runs in (CLI flags, Action inputs, bot settings) into a ready
// engine: the provider from an explicit registry and the state backend the
// config names. It holds no state of its own.
package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/statemgr/httpstate"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// Settings are what a front door decides.
type Settings struct {
	Env      string
	Provider string // overrides the config's provider when set
	StateDir string // local backend directory (default StateDirName, relative to BaseDir)
	// BaseDir is the configuration's directory: a relative local backend
	// path and the sim's dir are relative to it (see location.go); "":
	// the working directory, and no check of a former place.
	BaseDir string
	// FormerBaseDir is what those paths were relative to before they
	// followed the configuration ("": the working directory); state found
	// only there is refused with a *MovedStateError.
	FormerBaseDir string
	// NoFormerCheck skips that check: for what reads no state
	// (validation), where state is does not matter.
	NoFormerCheck bool
	LockTimeout   time.Duration
	// Lock tuning (zero: the backend's defaults); tests shorten these.
	StaleAfter, Heartbeat, PollInterval time.Duration
	Engine                              engine.Options // Env is set from Env; the Terraform providers feed Secrets too
	Getenv                              func(string) string
	// AcceptClearState lets the codec read data stored in clear although
	// encryption is configured (kyku state rekey, which encrypts it).
	AcceptClearState bool
	// ScryptCost overrides the passphrase KDF's cost N (0: the default;
	// tests lower it).
	ScryptCost int
	// AWS opens the s3 and spaces backends and aws-kms keys (aws.go); nil:
	// a configuration that uses them is refused (*NotLinkedError). The
	// bot's store carries a tenant's assumed role, used for an aws-kms
	// key and a Terraform root's s3 state.
	AWS AWS
	// Google carries Application Default Credentials to the gcs backend
	// (golang.org/x/oauth2/google's DefaultClient; google.go); nil: a gcs
	// backend on a real bucket is refused (*NotLinkedError), one on an
	// emulator (STORAGE_EMULATOR_HOST) opens.
	Google gcs.Credentials
	// Plugins says how the configuration's Terraform providers are
	// installed and run (see plugins.go).
	Plugins Plugins
	// Notify, when set, is told the one-line notice of local state moved
	// from the old layout (layoutmove.go).
	Notify func(notice string)
	// AnswerDir is this machine's directory of the answers journal
	// keepers kept for remote states (answers.go), never one a pull
	// request writes: the user's state directory's kyku/answers; "":
	// none, and an interrupted create of a remote state stays refused.
	AnswerDir string
	// Terraform, when set, is where a Terraform root's state is: it is
	// opened as OpenTofu keeps it (tfbackend.go), the config's backend
	// left aside.
	Terraform *TerraformState
	// TerraformBackend, when set, is Terraform's backend already opened
	// with these settings (the CLI opens it as soon as the configuration
	// is parsed, to read its state ahead: tflayout.Backend.ReadAhead);
	// Open takes it rather than opening another.
	TerraformBackend *tflayout.Backend
}

// Workspace is an opened engine with its provider and backend. Close it:
// it stops the processes of the configuration's Terraform providers.
type Workspace struct {
	Engine   *engine.Engine
	Provider provider.Provider
	Backend  statemgr.Backend
}

// Close stops what the workspace's provider runs (Terraform providers'
// processes) and waits for it. Safe to call more than once.
func (w *Workspace) Close() error {
	if w != nil {
		Release(w.Provider)
	}
	return nil
}

// Open builds the provider and backend that cfg names and an engine on them.
// The engine and the configuration's Terraform providers feed one
// scrubber: s.Engine.Secrets, or a book of Open's own (Engine.Secrets).
func Open(ctx context.Context, cfg *config.Config, s Settings, reg provider.Registry) (*Workspace, error) {
	if s.Engine.Secrets == nil {
		s.Engine.Secrets = &progress.SecretBook{}
	}
	// The backend first: local state in the old layout is moved (with the
	// sim's cloud beside it), and state found only at its former place is
	// reported before the sim's cloud.
	b, err := OpenConfigBackend(ctx, cfg, s)
	if err != nil {
		return nil, err
	}
	p, err := Provider(ctx, cfg, s, reg)
	if err != nil {
		return nil, err
	}
	opts := s.Engine
	opts.Env = s.Env
	opts.Answers = answerBox(b, s)
	if opts.NoteWait == 0 {
		opts.NoteWait = s.LockTimeout // a keeper's note is waited for as a state lock is
	}
	if s.Terraform == nil {
		if opts.Leases, err = Leases(ctx, cfg.Backend, b, s); err != nil {
			return nil, err
		}
	}
	return &Workspace{Engine: engine.New(p, b, opts), Provider: p, Backend: b}, nil
}

// Provider builds the provider cfg names (s.Provider overrides it; "sim"
// when neither says), and, when cfg has a providers: section, the router
// to its Terraform providers in front of it (installed and checked
// against the lock; started when first used): Release it when done.
func Provider(ctx context.Context, cfg *config.Config, s Settings, reg provider.Registry) (provider.Provider, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	name := cfg.Provider.Name
	if s.Provider != "" {
		name = s.Provider
	}
	if name == "" {
		name = "sim"
	}
	settings := cfg.Provider.Settings
	if name == "sim" {
		var err error
		if settings, err = simSettings(settings, s, getenv); err != nil {
			return nil, err
		}
	}
	base, err := reg.New(ctx, name, settings, getenv)
	if err != nil {
		return nil, err
	}
	return withPlugins(ctx, cfg, s, base)
}

// OpenBackend opens the backend bc describes (nil: local state in
// StateDir), without encryption: encrypted state fails to read. Front doors
// use OpenConfigBackend.
func OpenBackend(ctx context.Context, bc *config.Backend, s Settings) (statemgr.Backend, error) {
	return openBackend(ctx, bc, nil, s)
}

// OpenConfigBackend opens the backend cfg names with the encryption cfg
// names (KYKU_STATE_PASSPHRASE, AWS KMS), after moving local state from
// the old layout (layoutmove.go).
func OpenConfigBackend(ctx context.Context, cfg *config.Config, s Settings) (statemgr.Backend, error) {
	if s.Terraform != nil {
		if err := refuseEncryption(cfg.Encryption); err != nil {
			return nil, err
		}
		if s.TerraformBackend != nil {
			return s.TerraformBackend, nil
		}
		return OpenTerraformBackend(ctx, s.Terraform, s)
	}
	if err := s.moveLayout(ctx, cfg); err != nil {
		return nil, err
	}
	codec, err := Codec(ctx, cfg.Encryption, s)
	if err != nil {
		return nil, err
	}
	return openBackend(ctx, cfg.Backend, codec, s)
}

func openBackend(ctx context.Context, bc *config.Backend, codec statemgr.Codec, s Settings) (statemgr.Backend, error) {
	if err := envname.Check(s.Env); err != nil {
		return nil, fmt.Errorf("open backend: %w", err)
	}
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	typ := "local"
	if bc != nil && bc.Type != "" {
		typ = bc.Type
	}
	var retention int
	if bc != nil {
		retention = bc.BackupRetention
	}
	switch typ {
	case "local":
		dir := s.StateDir
		if bc != nil && bc.Path != "" && dir == "" {
			dir = bc.Path
		}
		if dir == "" {
			dir = StateDirName
		}
		dir, err := localDir(dir, s.Env, s)
		if err != nil {
			return nil, err
		}
		// The directory is created by the first write (or the lock), not
		// here: a plan writes nothing. Local state holds secrets in clear:
		// its first write keeps the directory out of git — unless it is
		// named .kyku, which holds the settings a team commits too.
		return local.New(dir, s.Env, local.Options{
			LockTimeout: s.LockTimeout, StaleAfter: s.StaleAfter, Heartbeat: s.Heartbeat,
			PollInterval: s.PollInterval, BackupRetention: retention, Codec: codec,
			GitIgnore: filepath.Base(dir) != SettingsDirName,
		}), nil
	case "s3", "spaces":
		a, err := s.aws("the " + typ + " backend")
		if err != nil {
			return nil, fmt.Errorf("open %s backend: %w", typ, err)
		}
		return a.Backend(ctx, bc, codec, s)
	case "gcs":
		b, err := gcs.New(ctx, gcs.Config{Bucket: bc.Bucket, Prefix: strings.Trim(bc.Prefix, "/"), BackupRetention: retention}, s.Env, gcs.Options{
			LockTimeout: s.LockTimeout, StaleAfter: s.StaleAfter, Heartbeat: s.Heartbeat, PollInterval: s.PollInterval, Codec: codec,
			Getenv: getenv, Credentials: s.Google,
		})
		if err != nil {
			return nil, fmt.Errorf("open gcs backend: %w", notLinkedGoogle("the gcs backend", err))
		}
		return b, nil
	case "http":
		h := bc.HTTP
		b, err := httpstate.New(httpstate.Config{
			Address: h.Address, LockAddress: h.LockAddress, UnlockAddress: h.UnlockAddress,
			Username: h.Username, Password: getenv("KYKU_HTTP_PASSWORD"),
			UpdateMethod: h.UpdateMethod, LockMethod: h.LockMethod, UnlockMethod: h.UnlockMethod,
			RetryMax: h.RetryMax, BackupRetention: retention,
		}, s.Env, httpstate.Options{LockTimeout: s.LockTimeout, PollInterval: s.PollInterval, Codec: codec})
		if err != nil {
			return nil, fmt.Errorf("open http backend: %w", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("unknown backend type %q (want local, s3, gcs, spaces or http)", typ)
}
