# No security group lets the whole internet reach SSH (port 22).
#
# An ingress rule reaches port 22 when it names port 22, names no port
# (every port), or has protocol "all". UDP and ICMP rules do not carry SSH.
package kyku

ssh_open_cidrs := {"0.0.0.0/0", "::/0"}

ssh_reachable(rule) if rule.port == 22

ssh_reachable(rule) if not "port" in object.keys(rule)

ssh_reachable(rule) if rule.protocol == "all"

ssh_protocol(rule) if not "protocol" in object.keys(rule)

ssh_protocol(rule) if rule.protocol in {"tcp", "all"}

deny contains msg if {
	some name, r in input.resources
	r.type == "SecurityGroup"
	some rule in object.get(r.properties, "ingress", [])
	rule.cidr in ssh_open_cidrs
	ssh_protocol(rule)
	ssh_reachable(rule)
	msg := sprintf("SecurityGroup %q lets %s reach SSH (port 22): allow a narrower CIDR, or reach the machines through a bastion", [name, rule.cidr])
}
