package tfinstall

import (
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// copyLock is a deep copy of l: each tenant has a lock of its own.
func copyLock(l *Lock) *Lock {
	out := &Lock{Providers: map[Source]*Locked{}}
	for s, e := range l.Providers {
		c := *e
		c.Hashes = slices.Clone(e.Hashes)
		out.Providers[s] = &c
	}
	return out
}

// otherH1 is the h1 hash of a package that is not the registry's.
func otherH1(t *testing.T) Hash {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/terraform-provider-fake_v1.0.0", []byte("#!/bin/sh\n# another build\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestOneLocksRefusalKeepsAnothersPackage: two tenants share the bot's
// provider cache. Tenant A installs a provider; tenant B's lock names the
// same version with hashes of another package, so B is refused. A's
// package stays where it was: A's next run finds it without the network,
// and a run that had already started it can start it again.
func TestOneLocksRefusalKeepsAnothersPackage(t *testing.T) {
	for _, tc := range []struct {
		name string
		lock func(t *testing.T, trusted *Locked) *Locked
	}{
		{"a wrong h1 only (a lock written from a mirror)", func(t *testing.T, trusted *Locked) *Locked {
			return &Locked{Version: trusted.Version, Hashes: []Hash{otherH1(t)}}
		}},
		{"a wrong h1 and a wrong zh", func(t *testing.T, trusted *Locked) *Locked {
			return &Locked{Version: trusted.Version, Hashes: []Hash{otherH1(t), Hash("zh:" + strings.Repeat("0", 62) + "ff")}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newTestRegistry(t)
			reg.publish(t, "kyku", "fake", "1.0.0", fakePackage("fake", "1.0.0"))
			src := reg.source("kyku", "fake")
			shared := t.TempDir()
			ctx := t.Context()
			req := []Requirement{{Source: src}}

			lockA := &Lock{}
			tenantA := &Installer{CacheDir: shared, Registry: reg.client(), Platform: testPlatform}
			gotA, err := tenantA.Install(ctx, req, lockA, false)
			if err != nil {
				t.Fatal(err)
			}

			lockB := &Lock{Providers: map[Source]*Locked{src: tc.lock(t, lockA.Providers[src])}}
			_, err = (&Installer{CacheDir: shared, Registry: reg.client(), Platform: testPlatform}).Install(ctx, req, lockB, false)
			var ce *ChecksumError
			if !errors.As(err, &ce) {
				t.Fatalf("tenant B's lock: %v, want a ChecksumError", err)
			}

			offline := &Installer{CacheDir: shared, Registry: &Registry{Client: &http.Client{Transport: failing{}}}, Platform: testPlatform}
			again, err := offline.Install(ctx, req, copyLock(lockA), false)
			if err != nil {
				t.Fatalf("tenant A after tenant B's refusal: %v (its package was removed from the cache)", err)
			}
			if again[0].Executable != gotA[0].Executable {
				t.Errorf("tenant A's package moved: %s, was %s", again[0].Executable, gotA[0].Executable)
			}
			if _, err := os.Stat(gotA[0].Executable); err != nil {
				t.Errorf("the executable tenant A started: %v", err)
			}
		})
	}
}

// TestConcurrentInstallsShareTheCache: tenants install the same provider
// into one cache at once, some with the right lock, some with a lock of
// another package. Every right one gets the registry's package, whole;
// every wrong one is refused; the cache ends with the package in it.
func TestConcurrentInstallsShareTheCache(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish(t, "kyku", "fake", "1.0.0", fakePackage("fake", "1.0.0"))
	src := reg.source("kyku", "fake")
	ctx := t.Context()
	req := []Requirement{{Source: src}}
	trusted := &Lock{}
	if _, err := (&Installer{CacheDir: t.TempDir(), Registry: reg.client(), Platform: testPlatform}).Install(ctx, req, trusted, false); err != nil {
		t.Fatal(err)
	}
	wrong := &Lock{Providers: map[Source]*Locked{src: {Version: "1.0.0", Hashes: []Hash{otherH1(t)}}}}
	want := fakePackage("fake", "1.0.0")["terraform-provider-fake_v1.0.0"]

	shared := t.TempDir()
	const tenants = 12
	var wg sync.WaitGroup
	errs := make([]error, tenants)
	got := make([][]Installed, tenants)
	for i := range tenants {
		lock := copyLock(trusted)
		if i%3 == 2 {
			lock = copyLock(wrong)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := &Installer{CacheDir: shared, Registry: reg.client(), Platform: testPlatform}
			got[i], errs[i] = in.Install(ctx, req, lock, false)
		}()
	}
	wg.Wait()
	for i := range tenants {
		var ce *ChecksumError
		switch {
		case i%3 == 2 && !errors.As(errs[i], &ce):
			t.Errorf("tenant %d (a wrong lock): %v, want a ChecksumError", i, errs[i])
		case i%3 != 2 && errs[i] != nil:
			t.Errorf("tenant %d: %v", i, errs[i])
		case i%3 != 2:
			if b, err := os.ReadFile(got[i][0].Executable); err != nil || string(b) != string(want) {
				t.Errorf("tenant %d's executable %s: %q, %v", i, got[i][0].Executable, b, err)
			}
		}
	}
	offline := &Installer{CacheDir: shared, Registry: &Registry{Client: &http.Client{Transport: failing{}}}, Platform: testPlatform}
	if _, err := offline.Install(ctx, req, copyLock(trusted), false); err != nil {
		t.Errorf("after the installs the cache lacks the package: %v", err)
	}
}
