package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/statemgr/crypt/kmstest"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// The bot keeps nothing that matters on its disk: a project whose config
// has no backend, or a local one, is refused instead of writing state to
// the container.
func TestOpenerRefusesLocalState(t *testing.T) {
	open := opener(func(string) string { return "" }, t.TempDir())
	for _, yaml := range []string{
		"resources: {}\n",
		"backend: { type: local, path: .kyku }\nresources: {}\n",
	} {
		cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := open(t.Context(), bot.Tenant{Repo: "acme/infra", Namespace: "acme/infra"}, cfg, "prod"); err == nil || !strings.Contains(err.Error(), "remote backend (s3, gcs, spaces or http)") {
			t.Errorf("%q: err = %v, want a refusal asking for a remote backend", yaml, err)
		}
	}
}

// TestOpenerUsesTheTenantsCredentials: with the tenant's credentials (the
// policy's role, assumed for the repository) the S3 backend uses them, not
// the bot's own (here: wrong ones in the environment), and writes under
// the confined prefix. Needs the S3 server (.ci/run provides it).
func TestOpenerUsesTheTenantsCredentials(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "bot-own-key", "AWS_SECRET_ACCESS_KEY": "bot-own-secret", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_REGION": s.Region,
	} {
		t.Setenv(k, v)
	}
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(fmt.Sprintf(
		"provider: sim\nbackend: { type: s3, bucket: %s, prefix: acme/infra/prod, region: %s, endpoint: %q, usePathStyle: true }\nresources: {}\n",
		bucket, s.Region, s.Endpoint))}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	open := opener(os.Getenv, t.TempDir())
	role := credentials.NewStaticCredentialsProvider(s.Access, s.Secret, "")
	ws, err := open(ctx, bot.Tenant{Repo: "acme/infra", Namespace: "acme/infra", Credentials: role}, cfg, "prod")
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Backend.PutObject(ctx, "plans/prod/pr-1-abc.json", []byte("{}")); err != nil {
		t.Fatalf("write with the tenant's credentials: %v", err)
	}
	if keys := s.Keys(t, bucket, ""); !slices.Equal(keys, []string{"acme/infra/prod/plans/prod/pr-1-abc.json"}) {
		t.Errorf("keys %v, want the one object under the confined prefix", keys)
	}

	// Without them, the bot's own (wrong) credentials are used and fail:
	// the write above did not succeed by accident.
	ws, err = open(ctx, bot.Tenant{Repo: "acme/infra", Namespace: "acme/infra"}, cfg, "prod")
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Backend.PutObject(ctx, "plans/prod/pr-2-abc.json", []byte("{}")); err == nil {
		t.Error("the bot's own wrong credentials wrote to the bucket")
	}
}

// Every remote backend is accepted, with the config's encryption: here the
// HTTP backend protocol with a passphrase. What reaches the server is
// sealed.
func TestOpenerAcceptsRemoteBackends(t *testing.T) {
	srv := httpstatetest.New(t)
	env := map[string]string{"KYKU_STATE_PASSPHRASE": "a long enough bot passphrase"}
	open := opener(func(k string) string { return env[k] }, t.TempDir())
	yaml := "provider: { name: sim, dir: cloud }\n" +
		"backend: { type: http, address: \"" + srv.URL + "app-{env}\", lockAddress: \"" + srv.URL + "app-{env}\" }\n" +
		"encryption: { key: passphrase }\nresources: {}\n"
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ws, err := open(ctx, bot.Tenant{Repo: "acme/infra", Namespace: "acme/infra"}, cfg, "prod")
	if err != nil {
		t.Fatalf("open with an http backend: %v", err)
	}
	if !strings.Contains(ws.Backend.Describe(), "app-prod") {
		t.Errorf("backend %s, want the app-prod document", ws.Backend.Describe())
	}
	const secret = "plan-body-that-must-not-be-stored-in-clear"
	if err := ws.Backend.PutObject(ctx, "plans/prod/pr-1-abc.json", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	docs := srv.Documents()
	if len(docs) == 0 {
		t.Fatal("nothing reached the http backend")
	}
	for name, d := range docs {
		if strings.Contains(string(d), secret) {
			t.Errorf("document %s holds the object in clear: the config's encryption was not applied", name)
		}
	}
}

// TestOpenerUsesTheTenantsRoleForKMS: an aws-kms key is reached with the
// tenant's credentials (the policy's role, assumed for the repository),
// never with the bot's own: KMS sees only the tenant's access key, and
// without tenant credentials the opener refuses.
func TestOpenerUsesTheTenantsRoleForKMS(t *testing.T) {
	kms := kmstest.New(t)
	srv := httpstatetest.New(t)
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIDBOTOWN", "AWS_SECRET_ACCESS_KEY": "bot-own-secret", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_ENDPOINT_URL_KMS": kms.URL,
	} {
		t.Setenv(k, v)
	}
	yaml := "provider: { name: sim, dir: cloud }\n" +
		"backend: { type: http, address: \"" + srv.URL + "app-{env}\", lockAddress: \"" + srv.URL + "app-{env}\" }\n" +
		"encryption: { key: aws-kms, keyId: alias/acme, region: eu-central-1 }\nresources: {}\n"
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	open := opener(os.Getenv, t.TempDir())
	role := credentials.NewStaticCredentialsProvider("AKIDTENANTROLE", "tenant-secret", "session")
	ws, err := open(ctx, bot.Tenant{Repo: "acme/infra", Namespace: "acme/infra", Credentials: role}, cfg, "prod")
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Backend.PutObject(ctx, "plans/prod/pr-1-abc.json", []byte("{}")); err != nil {
		t.Fatalf("seal with the tenant's KMS key: %v", err)
	}
	if got := kms.Callers(); !slices.Equal(got, []string{"AKIDTENANTROLE"}) {
		t.Errorf("KMS was called as %v, want only the tenant's role", got)
	}

	_, err = open(ctx, bot.Tenant{Repo: "acme/infra", Namespace: "acme/infra"}, cfg, "prod")
	if err == nil || !strings.Contains(err.Error(), "kyku.yaml:3:1: encryption key aws-kms needs the repository's role") {
		t.Errorf("open without tenant credentials = %v; want a refusal naming the encryption", err)
	}
	if got := kms.Callers(); slices.Contains(got, "AKIDBOTOWN") {
		t.Errorf("KMS was called with the bot's own credentials: %v", got)
	}
}

// TestStoreFromItsURL: KYKU_BOT_STORE names an S3 bucket on the real S3
// server; the bot opens it with its own credentials and checks at start
// that it can write there, so a bucket it cannot use stops the start.
func TestStoreFromItsURL(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": s.Access, "AWS_SECRET_ACCESS_KEY": s.Secret, "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
	} {
		t.Setenv(k, v)
	}
	ctx := t.Context()
	url := func(bucket string) string {
		return "s3://" + bucket + "/kyku-bot?region=" + s.Region + "&endpoint=" + s.Endpoint + "&path-style=true"
	}
	sc, err := bot.ParseStore(url(bucket))
	if err != nil {
		t.Fatal(err)
	}
	store, err := openStore(ctx, sc, os.Getenv)
	if err != nil {
		t.Fatalf("open the store: %v", err)
	}
	if _, err := store.CreateObject(ctx, "deliveries/x.json", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if keys := s.Keys(t, bucket, ""); !slices.Equal(keys, []string{"kyku-bot/deliveries/x.json"}) {
		t.Errorf("the bucket holds %v, want the record under the prefix and no start-up probe left", keys)
	}
	sc, err = bot.ParseStore(url("no-such-bucket-" + strings.ToLower(t.Name())))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openStore(ctx, sc, os.Getenv); err == nil {
		t.Error("a bucket that does not exist opened")
	}
}
