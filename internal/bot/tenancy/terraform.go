package tenancy

import (
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
)

// A Terraform root's state is where its backend block (on the default
// branch) says: the bot does not move it under the repository's
// namespace as it does a kyku.yaml backend's prefix, since the state is
// OpenTofu's, in its place. So the grant judges the place as written:
// the bucket must be granted, and the state's key (s3: key, and the
// workspace's key under workspace_key_prefix; gcs: prefix) must start
// with the bucket's terraform-keys prefix, which is the repository's
// namespace "repo.<ID>/" unless the policy names another: a repository
// granted a shared bucket can name no other repository's state.

// TerraformState is a Terraform root's backend, as its block and
// -backend-config say (tfconfig.BackendArgs).
type TerraformState struct {
	Type string         // "" or "local": OpenTofu's local backend
	Args map[string]any // string, bool, float64, map[string]any
	Pos  diag.Pos       // the block's place ("" file: no block)
	// SharedFiles: the bot keeps Kyku's additions to an http state (its
	// saved plans, backups and change journal, which OpenTofu's http
	// backend has no room for) where every replica and restart sees them.
	// cmd/bot keeps them beside the root, on one replica's disk, so it
	// never sets it, and an http backend is refused.
	SharedFiles bool
}

// OnDiskReason is why the bot refuses a Terraform root's backend of type
// typ ("" and "local": OpenTofu's local backend, the state itself; http:
// the files Kyku keeps beside it) whose files would be on its own disk.
func OnDiskReason(typ string) string {
	const unseen = ", which no other replica or restart sees: the bot opens a root's state in s3 or gcs"
	if typ == "" || typ == "local" {
		return "a Terraform root's local state is refused in the bot: it would be on the bot's disk" + unseen
	}
	return "a Terraform root's " + typ + " backend keeps Kyku's saved plans and backups on the bot's disk" + unseen
}

// terraformArgs are the arguments a repository may give a backend of the
// types the bot opens for a Terraform root; endpoint ones need the
// policy's allow-endpoint.
func terraformArgs(typ string) (plain, endpoint []string) {
	switch typ {
	case "s3":
		// Not dynamodb_table: the bot would write lock items into a table
		// of the repository's choosing with its own credentials
		// (use_lockfile keeps the lock beside the state instead).
		return []string{"bucket", "key", "region", "workspace_key_prefix", "use_lockfile", "kms_key_id", "encrypt"},
			[]string{"endpoint", "endpoints", "use_path_style", "force_path_style", "skip_credentials_validation", "skip_region_validation",
				"skip_requesting_account_id", "skip_metadata_api_check", "skip_s3_checksum"}
	case "gcs":
		// Not storage_custom_endpoint, even with allow-endpoint: the bot
		// would send its Google bearer token, as it is, to that address.
		return []string{"bucket", "prefix"}, nil
	case "http":
		return []string{"update_method", "lock_method", "unlock_method", "retry_max"},
			[]string{"address", "lock_address", "unlock_address", "username"}
	}
	return nil, nil
}

// ConfineTerraform checks a Terraform root's configuration (its
// Terraform providers and imports) and its state's place ts, for
// workspace env ("" is "default"), against g, reporting every problem
// at once with the backend block's place: a local backend (always: the
// bot's disk is not the repository's) and an http one unless
// ts.SharedFiles (OnDiskReason), a type the bot does not open, an
// argument the policy does not let the repository set, a bucket it does
// not grant, a key outside the bucket's terraform-keys prefix. It
// returns a copy of cfg and, for an s3 bucket granted with a role, that
// role (Confined.Role), which the bot assumes for the state as it does
// for a kyku.yaml backend's; the state's place is not changed.
func ConfineTerraform(cfg *config.Config, ts TerraformState, env string, g Grant) (*Confined, error) {
	var ds diag.Diagnostics
	var role string
	pos := ts.Pos
	if g.Namespace() == "" {
		ds.Add(pos, "the repository %s has no numeric ID, which its namespace is keyed by", g.Repo)
		return nil, ds
	}
	who := "for " + g.Repo + " by the bot's policy"
	if !g.Governed {
		who = "in the bot without an operator policy (KYKU_BOT_POLICY)"
	} else if !g.Matched {
		ds.Add(pos, "the bot's policy (KYKU_BOT_POLICY) grants %s nothing: ask the bot's operator to add it", g.Repo)
		return nil, ds
	}
	for _, pp := range cfg.Providers {
		if !isBuiltin(pp.Source) && !g.AllowsSource(pp.Source) {
			ds.Add(pp.SourcePos, "Terraform provider %q (source %s) is not allowed %s; the operator allows it with terraform-providers: [%s] in a rule of KYKU_BOT_POLICY matching %s",
				pp.Name, pp.Source, who, pp.Source, g.Repo)
		}
	}
	switch ts.Type {
	case "", "local":
		ds.Add(pos, "%s", OnDiskReason(ts.Type))
	case "s3", "gcs", "http":
		if ts.Type == "http" && !ts.SharedFiles {
			ds.Add(pos, "%s", OnDiskReason(ts.Type))
		}
		role = confineTerraformState(&ds, ts, env, g, who)
	default:
		ds.Add(pos, "backend type %q is not one the bot opens for a Terraform root (s3, gcs or http)", ts.Type)
	}
	confineRemoteStates(&ds, cfg, g, who)
	confineImports(&ds, cfg, g, "", "", who)
	if err := ds.Err(); err != nil {
		return nil, err
	}
	out := &Confined{Config: cfg.Clone(), Role: role}
	if name := out.Config.Provider.Name; name == "" || name == "sim" {
		// A root's resources are its Terraform providers'; the opener
		// still builds the base provider, the sim: its cloud stays under
		// the repository's namespace, as Confine keeps a kyku.yaml's.
		out.Config.Provider.Settings = map[string]string{"dir": g.Namespace() + "/sim"}
	}
	return out, nil
}

// confineRemoteStates judges the state each terraform_remote_state data
// source reads as the root's own: the built-in provider reads it with
// the bot's credentials, so a repository's default branch could
// otherwise read any state those reach (another tenant's outputs). Its
// backend, config and workspace must be known from the files.
func confineRemoteStates(ds *diag.Diagnostics, cfg *config.Config, g Grant, who string) {
	for _, r := range cfg.Resources {
		if !r.Data || r.Type != "terraform_remote_state" {
			continue
		}
		typ, okType := r.Properties["backend"].(string)
		args, okArgs := r.Properties["config"].(map[string]any)
		if r.Properties["config"] == nil {
			args, okArgs = map[string]any{}, true
		}
		env, okEnv := r.Properties["workspace"].(string)
		if r.Properties["workspace"] == nil {
			okEnv = true
		}
		if !okType || !okArgs || !okEnv || unresolved(args) || strings.Contains(typ+env, "${") {
			ds.Add(r.Pos, "data.terraform_remote_state.%s: its backend, config and workspace must be known from the files in the bot, which judges the state it reads by its policy", r.Name)
			continue
		}
		ts := TerraformState{Type: typ, Args: args, Pos: r.Pos}
		switch typ {
		case "", "local":
			ds.Add(r.Pos, "data.terraform_remote_state.%s reads a local state, which is refused in the bot: it would be the bot's disk, not the repository's", r.Name)
		case "s3", "gcs", "http":
			if role := confineTerraformState(ds, ts, env, g, who); role != "" {
				// The built-in provider reads with the bot's own
				// credentials: a bucket the operator grants only through
				// a role is not read with them.
				ds.Add(r.Pos, "data.terraform_remote_state.%s reads bucket %q, which the bot's policy grants with an IAM role: "+
					"the bot reads a terraform_remote_state with its own credentials, never a bucket's role; read the outputs another way, "+
					"or ask the bot's operator to grant the bucket without a role", r.Name, ts.Args["bucket"])
			}
		default:
			ds.Add(r.Pos, "data.terraform_remote_state.%s: backend type %q is not one the bot reads (s3, gcs or http)", r.Name, typ)
		}
	}
}

// unresolved reports whether a value of args is not a plain string,
// bool or number, or holds an expression left for later.
func unresolved(args map[string]any) bool {
	for _, v := range args {
		switch v := v.(type) {
		case string:
			if strings.Contains(v, "${") {
				return true
			}
		case bool, float64, int, int64:
		case map[string]any:
			if unresolved(v) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// confineTerraformState judges the state ts at workspace env, and
// returns the role its bucket is granted with ("" none, or refused).
func confineTerraformState(ds *diag.Diagnostics, ts TerraformState, env string, g Grant, who string) (role string) {
	pos := ts.Pos
	plain, endpoint := terraformArgs(ts.Type)
	for _, name := range slices.Sorted(maps.Keys(ts.Args)) {
		switch {
		case slices.Contains(plain, name):
		case slices.Contains(endpoint, name):
			if !g.AllowEndpoint {
				ds.Add(pos, "backend %s argument %s is not allowed %s: it points the bot at an address of the repository's choosing (the policy's allow-endpoint)", ts.Type, name, who)
			}
		default:
			ds.Add(pos, "backend %s argument %s is not one the bot lets a repository set (credentials, profiles and roles are the operator's: "+
				"the role a bucket is used with is its grant's role in KYKU_BOT_POLICY)", ts.Type, name)
		}
	}
	if ts.Type == "http" {
		if _, ok := ts.Args["address"]; !ok {
			ds.Add(pos, "backend http needs its address in the block: the bot reads no TF_HTTP_* variable of its own for a repository")
		}
		return ""
	}
	name, _ := ts.Args["bucket"].(string)
	bucket, ok := g.Bucket(name)
	if !ok {
		ds.Add(pos, "bucket %q is not granted to %s by the bot's policy", name, g.Repo)
		return ""
	}
	if bucket.Role != "" && ts.Type != "s3" {
		ds.Add(pos, "bucket %q is granted with an IAM role, which only an s3 backend can assume: use backend \"s3\", or ask the bot's operator to grant it without a role", name)
		return ""
	}
	prefix := bucket.TerraformKeys
	if prefix == "" {
		prefix = g.Namespace() + "/"
	}
	for _, key := range stateKeys(ts, env) {
		if !strings.HasPrefix(key, prefix) || slices.Contains(strings.Split(key, "/"), "..") {
			ds.Add(pos, "the state's key %q in bucket %q is outside %q, where the bot's policy lets %s keep Terraform state (the bucket's terraform-keys)", key, name, prefix, g.Repo)
		}
	}
	return bucket.Role
}

// stateKeys are the object names of the state of workspace env as
// OpenTofu names them: s3's key ("default") or
// <workspace_key_prefix>/<env>/<key> (prefix "env:" when not set); gcs's
// <prefix>/<env>.tfstate.
func stateKeys(ts TerraformState, env string) []string {
	if env == "" {
		env = "default"
	}
	str := func(k string) string { s, _ := ts.Args[k].(string); return s }
	if ts.Type == "gcs" {
		p := strings.TrimSuffix(str("prefix"), "/")
		if p == "" {
			return []string{env + ".tfstate"}
		}
		return []string{p + "/" + env + ".tfstate"}
	}
	if env == "default" {
		return []string{str("key")}
	}
	wkp := "env:"
	if _, given := ts.Args["workspace_key_prefix"]; given {
		wkp = str("workspace_key_prefix")
	}
	return []string{wkp + "/" + env + "/" + str("key")}
}

// isBuiltin reports whether source is OpenTofu's built-in provider
// (terraform_data, terraform_remote_state), which runs in the bot's
// process and reaches nothing of the operator's.
func isBuiltin(source string) bool {
	return source == "terraform.io/builtin/terraform"
}
