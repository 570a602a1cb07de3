package workspace_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

const resources = `resources:
  net:
    type: Vpc
    properties: { cidr: 10.42.0.0/16 }
  deploy-key:
    type: SshKey
    properties: { publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKykuSecretDeployKey" }
  web:
    type: Vm
    properties:
      network: "${net}"
      image: debian-13
      tags: { build: private-build-7731 }
      sshKeys: [ "${deploy-key}" ]
      userData: "#cloud-config\npassword: hunter2-kyku-secret\n"
`

// store is one backend under test: its config section, the environment it
// needs, and a reader of everything it stored, byte for byte.
type store struct {
	backend string
	env     map[string]string
	raw     func(t *testing.T) map[string][]byte
}

func stores(t *testing.T) map[string]store {
	out := map[string]store{}
	dir := t.TempDir()
	out["local"] = store{backend: fmt.Sprintf("backend: { type: local, path: %q }\n", dir), raw: func(t *testing.T) map[string][]byte {
		files := map[string][]byte{}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files[p], _ = os.ReadFile(p)
			}
			return err
		})
		return files
	}}
	hs := httpstatetest.New(t)
	out["http"] = store{backend: fmt.Sprintf("backend: { type: http, address: %q, lockAddress: %q }\n", hs.URL+"kyku-{env}", hs.URL+"kyku-{env}"),
		raw: func(t *testing.T) map[string][]byte { return hs.Documents() }}
	if srv := s3test.Require(t); srv != nil {
		bucket := srv.NewBucket(t)
		raw := func(t *testing.T) map[string][]byte {
			objs := map[string][]byte{}
			for _, k := range srv.Keys(t, bucket, "") {
				o, err := srv.Client.GetObject(t.Context(), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)})
				if err != nil {
					t.Fatal(err)
				}
				objs[k], _ = io.ReadAll(o.Body)
				o.Body.Close()
			}
			return objs
		}
		out["s3"] = store{backend: fmt.Sprintf("backend: { type: s3, bucket: %s, prefix: s3, region: %s, endpoint: %q, usePathStyle: true }\n", bucket, srv.Region, srv.Endpoint),
			env: map[string]string{"AWS_ACCESS_KEY_ID": srv.Access, "AWS_SECRET_ACCESS_KEY": srv.Secret}, raw: raw}
		out["spaces"] = store{backend: fmt.Sprintf("backend: { type: spaces, bucket: %s, prefix: spaces, region: fra1, endpoint: %q, usePathStyle: true }\n", bucket, srv.Endpoint),
			env: map[string]string{"SPACES_ACCESS_KEY_ID": srv.Access, "SPACES_SECRET_ACCESS_KEY": srv.Secret}, raw: raw}
	}
	if srv := gcstest.Require(t); srv != nil {
		bucket := srv.NewBucket(t)
		out["gcs"] = store{backend: fmt.Sprintf("backend: { type: gcs, bucket: %s, prefix: infra }\n", bucket),
			env: map[string]string{"STORAGE_EMULATOR_HOST": srv.Host},
			raw: func(t *testing.T) map[string][]byte { return srv.Objects(t, bucket, "") }}
	}
	return out
}

// After an apply with encryption on, no string property or output value of
// any resource appears in any object the backend stored (every backend);
// reading without the passphrase fails with a message naming it; with it,
// the state comes back whole.
func TestNoPropertyValueStoredInClear(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			env := map[string]string{"KYKU_SIM_DIR": t.TempDir(), "KYKU_STATE_PASSPHRASE": "workspace test passphrase"}
			for k, v := range st.env {
				env[k] = v
			}
			if name == "s3" {
				for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": st.env["AWS_ACCESS_KEY_ID"], "AWS_SECRET_ACCESS_KEY": st.env["AWS_SECRET_ACCESS_KEY"],
					"AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"), "AWS_EC2_METADATA_DISABLED": "true"} {
					t.Setenv(k, v) // the AWS SDK reads its own environment
				}
			}
			cfg := parse(t, st.backend+"encryption: { key: passphrase }\n"+resources)
			s := workspace.Settings{AWS: awsstore.Store{}, Env: "prod", Getenv: func(k string) string { return env[k] }, ScryptCost: 1 << 10, Engine: engine.Options{DeployPrefix: "enc"}}
			ws, err := workspace.Open(ctx, cfg, s, provider.Registry{"sim": sim.Factory})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ws.Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil)
			if err == nil {
				err = res.Err()
			}
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if err := ws.Backend.PutObject(ctx, "plans/prod/pr-1-abc.json", []byte(`{"userData":"#cloud-config\npassword: hunter2-kyku-secret\n"}`)); err != nil {
				t.Fatal(err)
			}
			st0, err := ws.Engine.ReadState(ctx)
			if err != nil || len(st0.Resources) != 3 {
				t.Fatalf("state after apply: %v, %v", st0, err)
			}
			var values []string
			for _, r := range st0.Resources {
				values = append(values, stringValues(r.Config)...)
				values = append(values, stringValues(r.Outputs)...)
			}
			sort.Strings(values)
			if len(values) < 6 {
				t.Fatalf("only %d string values to look for: %v", len(values), values)
			}
			objects := st.raw(t)
			if len(objects) == 0 {
				t.Fatal("the backend stored nothing")
			}
			for obj, data := range objects {
				for _, v := range values {
					if bytes.Contains(data, []byte(v)) || bytes.Contains(data, []byte(strings.Trim(fmt.Sprintf("%q", v), `"`))) {
						t.Errorf("%s holds %q in clear", obj, v)
					}
				}
			}
			delete(env, "KYKU_STATE_PASSPHRASE")
			if _, err := workspace.OpenConfigBackend(ctx, cfg, s); err == nil || !strings.Contains(err.Error(), "KYKU_STATE_PASSPHRASE") {
				t.Errorf("open without the passphrase: %v; want an error naming KYKU_STATE_PASSPHRASE", err)
			}
			clear := parse(t, st.backend+resources)
			b, err := workspace.OpenConfigBackend(ctx, clear, s)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Read(ctx); err == nil || !strings.Contains(err.Error(), "KYKU_STATE_PASSPHRASE") {
				t.Errorf("read without encryption configured: %v; want an error naming KYKU_STATE_PASSPHRASE", err)
			}
		})
	}
}

func parse(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// stringValues returns the string leaves of v that are long enough to mean
// something (numbers and booleans are not looked for: "1" is in every key).
func stringValues(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		if len(x) >= 6 {
			out = append(out, x)
		}
	case map[string]any:
		for _, e := range x {
			out = append(out, stringValues(e)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, stringValues(e)...)
		}
	}
	return out
}
