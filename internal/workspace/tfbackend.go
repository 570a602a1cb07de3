package workspace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/statemgr/httpstate"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/tfstate"
)

// TerraformState says where a Terraform root's state is: its backend
// block merged with -backend-config (tfconfig.RootBackend). Such a state
// is OpenTofu's, in its place, format and lock protocol
// (statemgr/tflayout); the workspace is Settings.Env ("default" when "").
type TerraformState struct {
	// Type is the backend's type; "" or "local": OpenTofu's local backend.
	Type string
	// Args are its arguments (string, bool, float64, map[string]any).
	Args map[string]any
	// Dir is the root's directory: a local state's paths are relative to
	// it, as OpenTofu's are to the directory it runs in.
	Dir string
	// Where names the block in errors ("main.tf:3:3"; "" when none).
	Where string
	// Provider is the provider configuration address of a resource new to
	// the state (nil: the one its type implies).
	Provider func(tfstate.InstanceAddr) string
	// KykuType is the type Kyku's model gives a resource of the state by
	// its provider configuration (tfconfig.KykuType; nil: its own).
	KykuType func(typ, provider string) string
}

// backendArgs are the arguments Kyku reads of a backend of type typ
// (ok false: not a type Kyku reads); any other is refused, naming what to
// do instead. A function, not a map: nothing is built when kyku starts.
func backendArgs(typ string) (args []string, ok bool) {
	switch typ {
	case "local":
		return []string{"path", "workspace_dir"}, true
	case "s3":
		return []string{"bucket", "key", "region", "endpoint", "endpoints", "use_path_style", "force_path_style", "workspace_key_prefix",
			"use_lockfile", "dynamodb_table", "kms_key_id", "encrypt", "skip_credentials_validation", "skip_region_validation",
			"skip_requesting_account_id", "skip_metadata_api_check", "skip_s3_checksum"}, true
	case "gcs":
		return []string{"bucket", "prefix", "access_token", "storage_custom_endpoint"}, true
	case "http":
		return []string{"address", "lock_address", "unlock_address", "username", "password", "update_method", "lock_method", "unlock_method", "retry_max"}, true
	}
	return nil, false
}

// refusedArg says why an argument OpenTofu takes is not read (refused
// false: it is not one of those).
func refusedArg(name string) (why string, refused bool) {
	switch name {
	case "profile":
		return "kyku uses the AWS SDK's default credential chain: set AWS_PROFILE instead", true
	case "shared_credentials_files":
		return "kyku uses the AWS SDK's default credential chain: set AWS_SHARED_CREDENTIALS_FILE instead", true
	case "access_key":
		return "credentials are not read from a backend's configuration: use the AWS SDK's default chain (environment, profile, role)", true
	case "secret_key":
		return "credentials are not read from a backend's configuration: use the AWS SDK's default chain (environment, profile, role)", true
	case "role_arn":
		return "assuming a role is not supported: run kyku with the role's credentials", true
	case "assume_role":
		return "assuming a role is not supported: run kyku with the role's credentials", true
	case "credentials":
		return "credentials are not read from a backend's configuration: use Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS)", true
	case "impersonate_service_account", "impersonate_service_account_delegates":
		return "impersonation is not supported: run kyku with the service account's credentials (or give its token as access_token, from GOOGLE_OAUTH_ACCESS_TOKEN)", true
	case "universe_domain":
		return "a universe other than googleapis.com is not supported: reach a Private Service Connect endpoint with storage_custom_endpoint", true
	case "encryption_key":
		return "a customer-supplied encryption key is not supported", true
	case "kms_encryption_key":
		return "a customer-managed encryption key is not supported", true
	}
	return "", false
}

// OpenTerraformBackend opens the Terraform root's state ts names for s.Env.
func OpenTerraformBackend(ctx context.Context, ts *TerraformState, s Settings) (*tflayout.Backend, error) {
	if err := envname.Check(s.Env); err != nil {
		return nil, fmt.Errorf("open backend: %w", err)
	}
	typ := cmp.Or(ts.Type, "local")
	a := tfArgs{ts: ts, typ: typ}
	known, ok := backendArgs(typ)
	if !ok {
		return nil, a.errorf("backend type %q is not supported: kyku reads a Terraform state in a local, s3, gcs or http backend", typ)
	}
	for _, name := range sortedArgs(ts.Args) {
		if why, refused := refusedArg(name); refused {
			return nil, a.errorf("%s: %s", name, why)
		}
		if !slices.Contains(known, name) {
			return nil, a.errorf("%s: not an argument kyku reads for this backend (it reads %s)", name, strings.Join(known, ", "))
		}
	}
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	lay := tflayout.Options{LockTimeout: s.LockTimeout, PollInterval: s.PollInterval, Provider: ts.Provider, KykuType: ts.KykuType, Now: s.Engine.Now}
	var b *tflayout.Backend
	var err error
	switch typ {
	case "local":
		cfg := local.TerraformConfig{Dir: ts.Dir, Path: a.str("path"), WorkspaceDir: a.str("workspace_dir")}
		if s.StateDir != "" {
			// --state-dir: the local state's directory, as tofu's -state
			// names its file.
			if cfg.Path != "" || cfg.WorkspaceDir != "" {
				return nil, a.errorf("--state-dir cannot be given with the local backend's path or workspace_dir")
			}
			cfg.Dir = s.StateDir
		}
		if a.err != nil {
			return nil, a.err
		}
		b, err = local.NewTerraform(cfg, s.Env, lay, local.Options{Now: s.Engine.Now})
	case "s3":
		cfg := TerraformS3{
			Bucket: a.str("bucket"), Key: a.str("key"), Region: a.str("region"), Endpoint: a.str("endpoint"),
			UsePathStyle: a.flag("use_path_style") || a.flag("force_path_style"), UseLockfile: a.flag("use_lockfile"),
			DynamoDBTable: a.str("dynamodb_table"), KMSKeyID: a.str("kms_key_id"),
		}
		if eps, ok := ts.Args["endpoints"].(map[string]any); ok {
			if e, ok := eps["s3"].(string); ok {
				cfg.Endpoint = e
			}
		}
		if _, given := ts.Args["workspace_key_prefix"]; given {
			p := a.str("workspace_key_prefix")
			cfg.WorkspaceKeyPrefix = &p
		}
		if a.err != nil {
			return nil, a.err
		}
		var aws AWS
		if aws, err = s.aws("the s3 backend"); err == nil {
			b, err = aws.TerraformS3(ctx, cfg, lay, s)
		}
	case "gcs":
		b, err = a.gcs(ctx, s, lay, getenv)
	case "http":
		b, err = a.http(s, lay, getenv)
	}
	if err != nil {
		return nil, a.errorf("%w", err)
	}
	if a.err != nil {
		return nil, a.err
	}
	return b, nil
}

// gcs opens OpenTofu's gcs backend: access_token and
// storage_custom_endpoint fall back on the variables OpenTofu reads; the
// variables of what Kyku does not do are refused as the arguments are.
func (a *tfArgs) gcs(ctx context.Context, s Settings, lay tflayout.Options, getenv func(string) string) (*tflayout.Backend, error) {
	for _, v := range []struct{ env, arg string }{
		{"GOOGLE_BACKEND_IMPERSONATE_SERVICE_ACCOUNT", "impersonate_service_account"},
		{"GOOGLE_IMPERSONATE_SERVICE_ACCOUNT", "impersonate_service_account"},
		{"GOOGLE_ENCRYPTION_KEY", "encryption_key"},
		{"GOOGLE_KMS_ENCRYPTION_KEY", "kms_encryption_key"},
		{"GOOGLE_BACKEND_UNIVERSE_DOMAIN", "universe_domain"},
	} {
		if getenv(v.env) != "" {
			why, _ := refusedArg(v.arg)
			return nil, a.errorf("%s (%s): %s", v.env, v.arg, why)
		}
	}
	cfg := gcs.TerraformConfig{Bucket: a.str("bucket"), Prefix: a.str("prefix")}
	opts := gcs.Options{
		PollInterval: s.PollInterval, Getenv: getenv, Credentials: s.Google,
		AccessToken: cmp.Or(a.str("access_token"), getenv("GOOGLE_OAUTH_ACCESS_TOKEN")),
		Endpoint:    cmp.Or(a.str("storage_custom_endpoint"), getenv("GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT"), getenv("GOOGLE_STORAGE_CUSTOM_ENDPOINT")),
	}
	if a.err != nil {
		return nil, a.err
	}
	b, err := gcs.NewTerraform(ctx, cfg, s.Env, lay, opts)
	return b, notLinkedGoogle("the gcs backend", err)
}

// http opens OpenTofu's http backend: each argument falls back on its
// TF_HTTP_* variable, as OpenTofu's does; the password is never read
// from a file. Kyku's additions live in .kyku/http beside the root.
func (a *tfArgs) http(s Settings, lay tflayout.Options, getenv func(string) string) (*tflayout.Backend, error) {
	if _, inFile := a.ts.Args["password"]; inFile {
		return nil, a.errorf("password: a password in the configuration is in the repository's history; set TF_HTTP_PASSWORD instead")
	}
	or := func(name string) string { return cmp.Or(a.str(name), getenv("TF_HTTP_"+strings.ToUpper(name))) }
	cfg := httpstate.Config{
		Address: or("address"), LockAddress: or("lock_address"), UnlockAddress: or("unlock_address"),
		Username: or("username"), Password: cmp.Or(getenv("TF_HTTP_PASSWORD"), getenv("KYKU_HTTP_PASSWORD")),
		UpdateMethod: or("update_method"), LockMethod: or("lock_method"), UnlockMethod: or("unlock_method"),
	}
	if r := or("retry_max"); r != "" {
		n, err := strconv.Atoi(r)
		if err != nil || n < 0 {
			return nil, a.errorf("retry_max %q is not a whole number", r)
		}
		cfg.RetryMax = n
	}
	aside := local.New(filepath.Join(cmp.Or(s.StateDir, filepath.Join(a.ts.Dir, ".kyku")), "http"), "", local.Options{Now: s.Engine.Now})
	return httpstate.NewTerraform(cfg, s.Env, aside, lay, httpstate.Options{PollInterval: s.PollInterval, Now: s.Engine.Now})
}

// tfArgs reads a backend's arguments, keeping the first error.
type tfArgs struct {
	ts  *TerraformState
	typ string
	err error
}

func (a *tfArgs) errorf(format string, args ...any) error {
	where := "backend " + strconv.Quote(a.typ)
	if a.ts.Where != "" {
		where = a.ts.Where + ": " + where
	}
	return fmt.Errorf("%s: "+format, append([]any{where}, args...)...)
}

// str is a string argument ("" when not given); a number is written as
// OpenTofu converts it.
func (a *tfArgs) str(name string) string {
	switch v := a.ts.Args[name].(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	a.fail(a.errorf("%s: a string is required", name))
	return ""
}

// flag is a bool argument: true, false, or (a -backend-config pair) the
// text "true" or "false".
func (a *tfArgs) flag(name string) bool {
	switch v := a.ts.Args[name].(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		if b, err := strconv.ParseBool(v); err == nil && (v == "true" || v == "false") {
			return b
		}
	}
	a.fail(a.errorf("%s: a bool (true or false) is required", name))
	return false
}

func (a *tfArgs) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

func sortedArgs(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// refuseEncryption says that Kyku's encryption is not for a Terraform
// state: OpenTofu could not read what it sealed.
func refuseEncryption(enc *config.Encryption) error {
	if enc == nil {
		return nil
	}
	return errors.New(`a Terraform state is kept as OpenTofu keeps it: kyku's "encryption:" is not for it (OpenTofu could not read what kyku sealed)`)
}
