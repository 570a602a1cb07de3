provider "kyku" {
  name = "sim"
}

resource "terraform_data" "owner" {
  input = "team-a"
}

resource "kyku_vpc" "net" {
  cidr = "10.0.0.0/16"
  tags = { owner = terraform_data.owner.output }
}

resource "kyku_security_group" "web" {
  network = kyku_vpc.net.id
  ingress = [{ port = 443, cidr = "0.0.0.0/0" }]
}

resource "kyku_vm" "web" {
  count           = 2
  network         = kyku_vpc.net.id
  security_groups = [kyku_security_group.web.id]
  image           = "debian-12"
  user_data       = "s3cr3t"
}

resource "terraform_data" "ip" {
  input = kyku_vm.web[0].public_ip
}

output "ips" {
  value = kyku_vm.web[*].public_ip
}
