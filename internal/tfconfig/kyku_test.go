package tfconfig_test

import (
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestKykuTypesFromHCL: Kyku's own types from HCL (kyku_vpc, kyku_vm, …,
// arguments and attributes in snake case) plan and apply on the sim
// beside a Terraform provider's resource reading one of their
// attributes; the plan after is empty.
func TestKykuTypesFromHCL(t *testing.T) {
	w := newWorld(t, tfplugintestSDK)
	w.write(map[string]string{"main.tf": head + `
provider "kyku" {
  name = "sim"
}
resource "kyku_vpc" "main" {
  cidr = "10.0.0.0/16"
}
resource "kyku_security_group" "web" {
  network = kyku_vpc.main.id
  ingress = [{ port = 443, cidr = "0.0.0.0/0" }]
}
resource "kyku_vm" "web" {
  count           = 2
  network         = kyku_vpc.main.id
  security_groups = [kyku_security_group.web.id]
  image           = "debian-12"
  user_data       = "#!/bin/sh"
}
resource "TP_item" "ip" {
  name  = "ip"
  value = kyku_vm.web[1].public_ip
}
output "ips" {
  value = kyku_vm.web[*].public_ip
}
`})
	cfg := w.mustLoad(tfconfig.Inputs{})
	if r := cfg.Resource("kyku_vm.web[0]"); r == nil || r.Type != "Vm" || r.Properties["size"] != "small" {
		t.Fatalf("kyku_vm.web[0]: %+v", r)
	}
	res := w.apply(cfg)
	ips, ok := res.Outputs["ips"].([]any)
	if !ok || len(ips) != 2 || ips[0] == "" {
		t.Errorf("ips output: %#v", res.Outputs["ips"])
	}
	item := w.readState().Resources[w.tp.Type+"_item.ip"]
	if item == nil || item.Outputs["value"] != ips[1] {
		t.Errorf("the item's value %v, want kyku_vm.web[1].public_ip %v", item, ips)
	}
	if again := w.plan(w.mustLoad(tfconfig.Inputs{})); again.HasChanges() {
		t.Errorf("plan after apply: %v", actions(again))
	}
}
