package engine

import "testing"

// TestAddressType: the resource type of a Terraform address, a module's
// instance key holding dots and brackets included; none for a kyku.yaml
// name.
func TestAddressType(t *testing.T) {
	for _, tt := range []struct {
		addr, typ string
		data      bool
	}{
		{"aws_vpc.main", "aws_vpc", false},
		{"aws_subnet.private[0]", "aws_subnet", false},
		{`module.net["a.b"].aws_subnet.x["k.y"]`, "aws_subnet", false},
		{"data.aws_ami.ubuntu", "aws_ami", true},
		{`module.m[1].data.local_file.f`, "local_file", true},
		{"module.m.datadog_monitor.x", "datadog_monitor", false},
		{"module.data.aws_vpc.x", "aws_vpc", false},
		{`module.data["x"].data.aws_ami.y[0]`, "aws_ami", true},
		{"web[0]", "", false},
		{"web", "", false},
	} {
		typ, data := addressType(tt.addr)
		if typ != tt.typ || data != tt.data {
			t.Errorf("addressType(%q) = %q, %v; want %q, %v", tt.addr, typ, data, tt.typ, tt.data)
		}
	}
}
