package tfmodule

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseSource: sources normalize to what OpenTofu 1.12 records in
// modules.json (its addrs tests' cases, and go-getter's detectors), so a
// manifest either tool wrote is read by the other without asking for an
// init; what Kyku does not fetch is refused with the reason.
func TestParseSource(t *testing.T) {
	for _, tc := range []struct {
		in      string
		kind    Kind
		want    string // String()
		subdir  string
		wantErr string
	}{
		{in: "./child", kind: Local, want: "./child"},
		{in: "./nope/../child", kind: Local, want: "./child"},
		{in: "../sibling", kind: Local, want: "../sibling"},
		{in: "./nope/../../sibling", kind: Local, want: "../sibling"},
		{in: `.\nope\..\child`, kind: Local, want: "./child"},
		{in: `./nope\nope/why\./please\don't`, kind: Local, want: "./nope/nope/why/please/don't"},
		{in: "../", kind: Local, want: "./.."},
		{in: ".//modules//x/", kind: Local, want: "./modules/x"},

		{in: "hashicorp/subnets/cidr", kind: Registry, want: "registry.opentofu.org/hashicorp/subnets/cidr"},
		{in: "hashicorp/subnets/cidr//examples/foo", kind: Registry, want: "registry.opentofu.org/hashicorp/subnets/cidr//examples/foo", subdir: "examples/foo"},
		{in: "HashiCorp/Consul/aws", kind: Registry, want: "registry.opentofu.org/HashiCorp/Consul/aws"},
		{in: "Example.com:1234/HashiCorp/Consul/aws", kind: Registry, want: "example.com:1234/HashiCorp/Consul/aws"},
		{in: "example.com:443/acme/net/aws", kind: Registry, want: "example.com/acme/net/aws"},
		{in: "127.0.0.1:8443/acme/net/aws", kind: Registry, want: "127.0.0.1:8443/acme/net/aws"},
		{in: "hashicorp/subnets/cidr//../nope", wantErr: `subdirectory path "../nope" leads outside of the module package`},

		{in: "github.com/hashicorp/terraform-cidr-subnets", kind: Remote, want: "git::https://github.com/hashicorp/terraform-cidr-subnets.git"},
		{in: "github.com/hashicorp/terraform-cidr-subnets//example/foo", kind: Remote, want: "git::https://github.com/hashicorp/terraform-cidr-subnets.git//example/foo", subdir: "example/foo"},
		{in: "github.com/hashicorp/terraform-cidr-subnets//example/foo?ref=bar", kind: Remote, want: "git::https://github.com/hashicorp/terraform-cidr-subnets.git//example/foo?ref=bar", subdir: "example/foo"},
		{in: "github.com/hashicorp/terraform-cidr-subnets//example/foo?", kind: Remote, want: "git::https://github.com/hashicorp/terraform-cidr-subnets.git//example/foo", subdir: "example/foo"},
		{in: "github.com/hashicorp/terraform-cidr-subnets//example/foo?ref=bar/baz", kind: Remote, want: "git::https://github.com/hashicorp/terraform-cidr-subnets.git//example/foo?ref=bar/baz", subdir: "example/foo"},
		{in: "github.com/org/repo/modules/vpc?ref=v1", kind: Remote, want: "git::https://github.com/org/repo.git//modules/vpc?ref=v1", subdir: "modules/vpc"},
		{in: "github.com/org", wantErr: "GitHub URLs should be github.com/username/repo"},
		{in: "git::https://example.com/code/baz.git", kind: Remote, want: "git::https://example.com/code/baz.git"},
		{in: "git::https://example.com/code/baz.git//bleep/bloop?otherthing=blah", kind: Remote, want: "git::https://example.com/code/baz.git//bleep/bloop?otherthing=blah", subdir: "bleep/bloop"},
		{in: "git::ssh://git@example.com/code/baz.git//bleep/bloop", kind: Remote, want: "git::ssh://git@example.com/code/baz.git//bleep/bloop", subdir: "bleep/bloop"},
		{in: "git::git@example.com:code/baz.git//bleep/bloop", kind: Remote, want: "git::ssh://git@example.com/code/baz.git//bleep/bloop", subdir: "bleep/bloop"},
		{in: "git@github.com:org/repo.git?ref=v1.2.0", kind: Remote, want: "git::ssh://git@github.com/org/repo.git?ref=v1.2.0"},
		{in: "git://example.com/code/baz.git", kind: Remote, want: "git://example.com/code/baz.git"},
		{in: "https://example.com/mod.tar.gz//mod?archive=tgz", kind: Remote, want: "https://example.com/mod.tar.gz//mod?archive=tgz", subdir: "mod"},
		{in: "git::https://example.com/x.git//../../etc", wantErr: `subdirectory path "../../etc" leads outside of the module package`},
		{in: "/srv/modules/net", kind: Remote, want: "file:///srv/modules/net"},
		{in: "hashicorp/consul/aws?ref=x", wantErr: `Kyku cannot detect a supported external module source type for hashicorp/consul/aws?ref=x`},
		{in: "modules/net", wantErr: `Kyku cannot detect a supported external module source type for modules/net`},
		{in: "bitbucket.org/acme/net", wantErr: "not supported: Bitbucket shorthand"},
		{in: "s3-eu-west-1.amazonaws.com/acme-modules/vpc.zip", wantErr: "not supported: S3 module source"},
		{in: "www.googleapis.com/storage/v1/BUCKET/PATH", wantErr: "not supported: Google Cloud Storage"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSource(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseSource: %v, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSource: %v", err)
			}
			if got.Kind != tc.kind || got.String() != tc.want || got.Subdir != tc.subdir {
				t.Errorf("ParseSource = %s %q (subdir %q), want %s %q (subdir %q)", got.Kind, got, got.Subdir, tc.kind, tc.want, tc.subdir)
			}
		})
	}
}

// TestParseRegistryErrors: with a version argument the source must be a
// registry address, and says why not in OpenTofu's words.
func TestParseRegistryErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"---.com/HashiCorp/Consul/aws", `invalid module registry hostname "---.com"; internationalized domain names must be given as direct unicode characters, not in punycode`},
		{"foo/var/baz/qux", "invalid module registry hostname: must contain at least one dot"},
		{"foo/var/no-no-no", `invalid target system "no-no-no": must be between one and 64 ASCII letters or digits`},
		{"boop!/var/baz", `invalid namespace "boop!": must be between one and 64 characters, including ASCII letters, digits, dashes, and underscores, where dashes and underscores may not be the prefix or suffix`},
		{"foo.com/var/baz", "source address must have three more components after the hostname: the namespace, the name, and the target system"},
		{"foo/var/baz?otherthing", "module registry addresses may not include a query string portion"},
		{"github.com/HashiCorp/Consul/aws", `can't use "github.com" as a module registry host, because it's reserved for installing directly from version control repositories`},
		{"Испытание.com/acme/net/aws", `invalid module registry hostname "Испытание.com": Kyku takes host names in ASCII only`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, _, err := parseRegistry(tc.in)
			if err == nil {
				t.Fatal("parseRegistry succeeded")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMaybeRelativeError(t *testing.T) {
	_, err := ParseSource("modules/net")
	var e *MaybeRelativeError
	if !errors.As(err, &e) || e.Addr != "modules/net" {
		t.Fatalf("ParseSource: %v, want a MaybeRelativeError for modules/net", err)
	}
}
