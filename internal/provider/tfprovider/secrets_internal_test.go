package tfprovider

import (
	"slices"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfschema"
)

func woSchema() *tfschema.Block {
	b := &tfschema.Block{Attributes: map[string]*tfschema.Attribute{
		"name":        {Type: cty.String, Required: true},
		"token":       {Type: cty.String, Optional: true, Sensitive: true},
		"password_wo": {Type: cty.String, Optional: true, WriteOnly: true},
	}}
	b.Finish()
	return b
}

// TestProviderAnsweringAWriteOnlyValueIsRefused: a provider's answer that
// holds a write-only value is refused naming the attribute, never the
// value; one that holds none passes.
func TestProviderAnsweringAWriteOnlyValueIsRefused(t *testing.T) {
	p := New(Config{Name: "fw"})
	b := woSchema()
	bad := cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("db"), "token": cty.NullVal(cty.String), "password_wo": cty.StringVal("leaked-Xy7kq")})
	err := p.writeOnlyAnswered(b, bad, func() string { return `the plan of fw_db "db"` })
	if err == nil || !strings.Contains(err.Error(), `provider fw answered the plan of fw_db "db" with a value for the write-only attribute "password_wo", which must be null`) ||
		strings.Contains(err.Error(), "Xy7kq") {
		t.Errorf("a write-only value answered: %v", err)
	}
	if err := p.writeOnlyAnswered(b, b.NullWriteOnly(bad), func() string { return "the plan" }); err != nil {
		t.Errorf("an answer without write-only values: %v", err)
	}
}

// TestDataSourceWriteOnlyRefused: a data source's configuration that sets
// a write-only attribute is refused at the attribute.
func TestDataSourceWriteOnlyRefused(t *testing.T) {
	b := woSchema()
	v := cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("db"), "token": cty.NullVal(cty.String), "password_wo": cty.StringVal("x")})
	ds := writeOnlyInData(b, v)
	if len(ds) != 1 || kykuPath(ds[0].Path) != "password_wo" || !strings.Contains(message(ds[0]), "only managed resources take write-only attributes") {
		t.Errorf("writeOnlyInData: %+v", ds)
	}
	if ds := writeOnlyInData(b, b.NullWriteOnly(v)); len(ds) != 0 {
		t.Errorf("an unset write-only attribute refused: %+v", ds)
	}
}

// TestProviderLearnsItsSecrets: what the schema marks sensitive or
// write-only is told to Config.Learn; the rest is not.
func TestProviderLearnsItsSecrets(t *testing.T) {
	var got []string
	p := New(Config{Name: "fw", Learn: func(texts ...string) { got = append(got, texts...) }})
	p.learn(woSchema(), cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("db"), "token": cty.StringVal("tok-secret"), "password_wo": cty.StringVal("wo-secret")}))
	slices.Sort(got)
	if !slices.Equal(got, []string{"tok-secret", "wo-secret"}) {
		t.Errorf("learnt %q, want the token and the write-only value", got)
	}
}
