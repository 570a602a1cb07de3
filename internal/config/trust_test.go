package config

import "testing"

// TrustAll: where no single configuration is known to be the trusted one
// (a bot judging a squash or rebase merge), a variable is sensitive when
// any of them says so, and a value given outside the files is sensitive
// unless every one of them declares the variable.
func TestTrustAll(t *testing.T) {
	trust := func(yaml string) *Trust { return TrustOf([]File{{Name: "kyku.yaml", Data: []byte(yaml)}}) }
	base := trust("variables:\n  pw: { type: string, sensitive: true }\n  size: { type: string }\n  region: { type: string }\n")
	pr := trust("variables:\n  pw: { type: string }\n  size: { type: string }\n")
	all := TrustAll(base, pr, nil)
	if !all.Sensitive("pw") {
		t.Error("pw: one of them declares it sensitive, the union does not")
	}
	if all.Sensitive("size") || all.Declares("size") {
		t.Errorf("size: sensitive %v, declared %v; want neither (the nil trust declares nothing)", all.Sensitive("size"), all.Declares("size"))
	}
	if all := TrustAll(base, pr); !all.Declares("size") || all.Declares("region") {
		t.Errorf("declares size %v (want: both declare it), region %v (want not: one does not)", all.Declares("size"), all.Declares("region"))
	}
	if TrustAll().Sensitive("pw") {
		t.Error("no trust declares something")
	}
}
