# IP network functions, with the examples of their documentation.

output "ipnet" {
  value = {
    cidrhost         = [cidrhost("10.12.112.0/20", 16), cidrhost("10.12.112.0/20", 268), cidrhost("fd00:fd12:3456:7890:00a2::/72", 34), cidrhost("10.0.0.0/8", -1)]
    cidrnetmask      = cidrnetmask("172.16.0.0/12")
    cidrsubnet       = [cidrsubnet("172.16.0.0/12", 4, 2), cidrsubnet("10.1.2.0/24", 4, 15), cidrsubnet("fd00:fd12:3456:7890::/56", 16, 162)]
    cidrsubnets      = cidrsubnets("10.1.0.0/16", 4, 4, 8, 4)
    cidrsubnets_v6   = cidrsubnets("fd00:fd12:3456:7890::/56", 16, 16, 16, 32)
    cidrcontains     = [cidrcontains("192.168.2.0/24", "192.168.2.1"), cidrcontains("192.168.2.0/24", "192.168.3.0/25"), cidrcontains("fd00::/8", "fd00::1")]
    subnets_per_zone = [for i, z in ["a", "b", "c"] : { zone = z, cidr = cidrsubnet("10.0.0.0/16", 8, i + 10) }]
  }
}
