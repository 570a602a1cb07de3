package cli_test

import (
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformProviderFunctions: a configuration calling a provider's
// functions, the provider required for nothing else, is installed by
// kyku init (which asks no function of it), planned and applied with the
// functions' values, each command starting the provider once for them
// and stopping it when the command ends; validate and plan refuse a
// function the provider lacks, where it is called.
func TestTerraformProviderFunctions(t *testing.T) {
	k, run := newTerraformKyku(t, tfplugintest.Framework, map[string]string{"main.tf": `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
locals {
  net = provider::TP::parse_cidr("10.8.0.0/14")
}
resource "terraform_data" "subnets" {
  count = local.net.bits - 12
  input = provider::TP::join_upper("/", local.net.address, count.index)
}
output "first" {
  value = terraform_data.subnets[0].output
}
`})
	var mu sync.Mutex
	var started []int
	k.providerStarted = func(pid int) {
		mu.Lock()
		defer mu.Unlock()
		started = append(started, pid)
	}
	code, out, errOut := run("apply", "--auto-approve")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "terraform_data.subnets[1]") || strings.Contains(out, "subnets[2]") || !strings.Contains(out, "first = 10.8.0.0/0") {
		t.Errorf("apply: want two subnets (/14 - 12), the first named 10.8.0.0/0:\n%s", out)
	}
	mu.Lock()
	pids := append([]int(nil), started...)
	mu.Unlock()
	if len(pids) != 1 {
		t.Fatalf("provider processes started by the apply: %v, want one, for the functions", pids)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pids[0], 0) == nil || !errors.Is(syscall.Kill(pids[0], 0), syscall.ESRCH) {
		if time.Now().After(deadline) {
			t.Fatalf("the provider started for its functions (pid %d) still runs after the command ended", pids[0])
		}
		time.Sleep(20 * time.Millisecond)
	}

	k.providerStarted = nil
	writeFiles(t, k.dir+"/tf", map[string]string{"main.tf": `terraform {
  required_providers {
    fwtest = { source = "kyku/fwtest" }
  }
}
output "x" {
  value = provider::fwtest::lower("A")
}
`})
	for _, cmd := range []string{"validate", "plan"} {
		code, out, errOut = run(cmd)
		if code != 1 || !strings.Contains(errOut, `main.tf:7:11: Function not found in provider: Function "provider::fwtest::lower" was not registered by provider`) {
			t.Errorf("%s of an undefined function: exit %d, want 1 and the call refused\n%s%s", cmd, code, out, errOut)
		}
	}
}
