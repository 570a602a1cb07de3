package value

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAddress(t *testing.T) {
	tests := []struct {
		in    string
		want  Address
		canon string
		ok    bool
	}{
		{"web", Address{Name: "web"}, "web", true},
		{"web[0]", Address{Name: "web", Kind: IntIndex}, "web[0]", true},
		{"web[12]", Address{Name: "web", Kind: IntIndex, Index: 12}, "web[12]", true},
		{`edge["a"]`, Address{Name: "edge", Kind: KeyIndex, Key: "a"}, `edge["a"]`, true},
		{`edge[eu-1]`, Address{Name: "edge", Kind: KeyIndex, Key: "eu-1"}, `edge["eu-1"]`, true},
		{`edge["0"]`, Address{Name: "edge", Kind: KeyIndex, Key: "0"}, `edge["0"]`, true},
		{"web[*]", Address{Name: "web", Kind: AllIndex}, "web[*]", true},
		{"web[01]", Address{}, "", false},
		{"web[]", Address{}, "", false},
		{`edge[""]`, Address{}, "", false},
		{`edge["a b"]`, Address{}, "", false},
		{`edge["a"`, Address{}, "", false},
		{"web[0]x", Address{}, "", false},
		{"-web", Address{}, "", false},
		{"", Address{}, "", false},
		{"web[-1]", Address{Name: "web", Kind: KeyIndex, Key: "-1"}, `web["-1"]`, true},
		// Terraform addresses.
		{"aws_subnet.public", Address{Name: "aws_subnet.public"}, "aws_subnet.public", true},
		{"aws_subnet.public[3]", Address{Name: "aws_subnet.public", Kind: IntIndex, Index: 3}, "aws_subnet.public[3]", true},
		{`aws_subnet.public["a b.c/d"]`, Address{Name: "aws_subnet.public", Kind: KeyIndex, Key: "a b.c/d"}, `aws_subnet.public["a b.c/d"]`, true},
		{"data.aws_ami.ubuntu", Address{Name: "data.aws_ami.ubuntu"}, "data.aws_ami.ubuntu", true},
		{`module.net["eu"].aws_subnet.private[0]`, Address{Name: `module.net["eu"].aws_subnet.private`, Kind: IntIndex}, `module.net["eu"].aws_subnet.private[0]`, true},
		{`module.net[1].module.sub.x.y`, Address{Name: `module.net[1].module.sub.x.y`}, `module.net[1].module.sub.x.y`, true},
		{"aws_subnet.public[*]", Address{Name: "aws_subnet.public", Kind: AllIndex}, "aws_subnet.public[*]", true},
		{`aws_subnet.public["a\"b"]`, Address{}, "", false},
		{"aws_subnet.", Address{}, "", false},
		{"aws_subnet..x", Address{}, "", false},
		{"module.net[*].x.y", Address{}, "", false},
	}
	for _, tt := range tests {
		got, ok := ParseAddress(tt.in)
		if ok != tt.ok {
			t.Errorf("ParseAddress(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseAddress(%q) (-want +got):\n%s", tt.in, diff)
		}
		if got.String() != tt.canon {
			t.Errorf("ParseAddress(%q).String() = %q, want %q", tt.in, got.String(), tt.canon)
		}
	}
}

func TestRefsWithInstances(t *testing.T) {
	got := Refs([]any{"${web[0]}", `${edge["a"].id}`, "x ${web[*].publicIp} y", "${web[0}", "${web}"})
	want := []Ref{{Resource: "web[0]"}, {Resource: `edge["a"]`, Attr: "id"}, {Resource: "web[*]", Attr: "publicIp"}, {Resource: "web"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if r, ok := ParseRef(`${edge["a"]}`); !ok || r.Resource != `edge["a"]` {
		t.Errorf("ParseRef = %v, %v", r, ok)
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"web": "web", "web[3]": "web-3", `edge["eu-1"]`: "edge-eu-1", "web_x[0]": "web_x-0",
		"kyku_vpc.main": "kyku-vpc-main", `module.a["x y"].kyku_vm.web[2]`: "module-a-x-y-kyku-vm-web-2",
	} {
		if got := SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompareNames(t *testing.T) {
	names := []string{"web[10]", "web-sg", "web[2]", "web", `edge["b"]`, `edge["a"]`, "app", "web[0]",
		"x.s[10]", "x.s[9]", `module.m[10].x.s`, `module.m[2].x.s[1]`, `module.m[2].x.s[0]`}
	slices.SortFunc(names, CompareNames)
	want := []string{"app", `edge["a"]`, `edge["b"]`, `module.m[10].x.s`, `module.m[2].x.s[0]`, `module.m[2].x.s[1]`,
		"web", "web[0]", "web[2]", "web[10]", "web-sg", "x.s[9]", "x.s[10]"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestSplitModule: a Terraform address's module instance path and its
// resource's address within it, brackets' contents (a key with dots)
// kept whole.
func TestSplitModule(t *testing.T) {
	for _, tt := range []struct{ addr, module, resource string }{
		{"aws_vpc.main", "", "aws_vpc.main"},
		{"web[0]", "", "web[0]"},
		{`module.net["a.b"].aws_subnet.x[0]`, `module.net["a.b"]`, "aws_subnet.x[0]"},
		{"module.a.module.b[1].data.aws_ami.y", "module.a.module.b[1]", "data.aws_ami.y"},
		{"module.data.aws_vpc.x", "module.data", "aws_vpc.x"},
	} {
		module, resource := SplitModule(tt.addr)
		if module != tt.module || resource != tt.resource {
			t.Errorf("SplitModule(%q) = %q, %q; want %q, %q", tt.addr, module, resource, tt.module, tt.resource)
		}
	}
}

// TestWithin: a name is within an address when it is the address, one of
// its instances, or inside it (a module's); never a name that merely
// starts with the same letters.
func TestWithin(t *testing.T) {
	for _, c := range []struct {
		name, addr string
		want       bool
	}{
		{"aws_vpc.main", "aws_vpc.main", true},
		{"aws_vpc.main[0]", "aws_vpc.main", true},
		{`module.net["a"].aws_subnet.x`, "module.net", true},
		{"module.net.aws_subnet.x", `module.net["a"]`, false},
		{"aws_vpc.mainline", "aws_vpc.main", false},
		{"aws_vpc.main", "aws_vpc.main[0]", false},
	} {
		if got := Within(c.name, c.addr); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.name, c.addr, got, c.want)
		}
	}
}
