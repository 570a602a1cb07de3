package tfconfig

import (
	"fmt"
	"slices"
	"strings"

	version "github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kyku/action/internal/lang/marks"
)

// Which OpenTofu versions a module says it works with, as OpenTofu 1.12
// reads it: a language block's compatible_with { opentofu = "…" }, and
// required_version in a terraform block of a .tofu (or .tofu.json) file
// only. A terraform block's required_version in a .tf file is taken to
// constrain Terraform, and ignored, as OpenTofu ignores it (a repository
// pinning `required_version = "~> 1.5.0"` for Terraform plans as is).
// A module that excludes OpenTofuVersion is "Incompatible module", and
// nothing else its files have is said (they may use a later version's
// language).

// incompatible marks a diagnostic saying a module excludes the version
// Kyku follows (hcl.Diagnostic.Extra): Load then reports those alone.
type incompatible struct{}

// onlyIncompatible is diags without the others when one says a module is
// incompatible.
func onlyIncompatible(diags hcl.Diagnostics) hcl.Diagnostics {
	if !slices.ContainsFunc(diags, isIncompatible) {
		return diags
	}
	return slices.DeleteFunc(slices.Clone(diags), func(d *hcl.Diagnostic) bool { return !isIncompatible(d) })
}

func isIncompatible(d *hcl.Diagnostic) bool {
	_, ok := d.Extra.(incompatible)
	return ok
}

var (
	compatRootSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "terraform"}, {Type: "language"}}}
	compatLegacy     = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "required_version"}}}
	languageSchema   = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "edition"}, {Name: "experiments"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "compatible_with"}},
	}
	compatWithSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "opentofu"}}}
)

// firstEdition is the one language edition OpenTofu has.
const firstEdition = "tofu2024"

// checkCompat checks the version constraints of one file (name, its
// body), and its language blocks (refused in an override file).
func checkCompat(body hcl.Body, name string, override bool) hcl.Diagnostics {
	tofuFile := strings.HasSuffix(name, ".tofu") || strings.HasSuffix(name, ".tofu.json")
	if native, ok := body.(*hclsyntax.Body); ok && !slices.ContainsFunc(native.Blocks, func(b *hclsyntax.Block) bool {
		return b.Type == "language" || tofuFile && b.Type == "terraform"
	}) {
		return nil // nothing to check (PartialContent would copy a body of 50,000 blocks)
	}
	current := version.Must(version.NewVersion(OpenTofuVersion))
	root, _, diags := body.PartialContent(compatRootSchema)
	check := func(a *hcl.Attribute) {
		c, ds := decodeVersionConstraint(a)
		diags = append(diags, ds...)
		if c != nil && !c.Check(current) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Incompatible module",
				Detail:   fmt.Sprintf("This module is not compatible with OpenTofu v%s, the version Kyku follows.\n\nTo proceed, either choose another supported OpenTofu version or update this version constraint. Version constraints are normally set for good reason, so updating the constraint may lead to other errors or unexpected behavior.", OpenTofuVersion),
				Subject:  a.Range.Ptr(),
				Extra:    incompatible{},
			})
		}
	}
	for _, b := range root.Blocks {
		switch b.Type {
		case "terraform":
			if !tofuFile {
				continue // Terraform's
			}
			content, _, ds := b.Body.PartialContent(compatLegacy)
			diags = append(diags, ds...)
			if a := content.Attributes["required_version"]; a != nil {
				check(a)
			}
		case "language":
			if override {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Language selections in override file",
					Detail:   "Language-related settings in \"language\" blocks are not allowed in override files. Place these settings in a normal configuration file.",
					Subject:  b.DefRange.Ptr(),
				})
				continue
			}
			diags = append(diags, checkLanguage(b, check)...)
		}
	}
	return diags
}

// checkLanguage checks a language block: its edition, experiments (none
// exist yet) and compatible_with blocks, whose opentofu constraint check
// holds to the version Kyku follows.
func checkLanguage(b *hcl.Block, check func(*hcl.Attribute)) hcl.Diagnostics {
	content, diags := b.Body.Content(languageSchema)
	if a := content.Attributes["edition"]; a != nil {
		kw := hcl.ExprAsKeyword(a.Expr)
		var detail string
		switch {
		case kw == "":
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid language edition",
				Detail:  fmt.Sprintf("The \"edition\" argument expects a bare language edition keyword. OpenTofu %s supports only language edition %s, which is the default.", OpenTofuVersion, firstEdition),
				Subject: a.Expr.Range().Ptr()})
		case strings.HasPrefix(kw, "TF"):
			detail = fmt.Sprintf("OpenTofu v%s does not support language edition %q. This module may be intended for use with other software.", OpenTofuVersion, firstEdition)
		case kw > firstEdition:
			detail = fmt.Sprintf("OpenTofu v%s only supports language edition %s. This module requires a newer version of OpenTofu CLI.", OpenTofuVersion, firstEdition)
		case kw != firstEdition:
			detail = fmt.Sprintf("OpenTofu v%s only supports language edition %s. This module requires a different version of OpenTofu CLI.", OpenTofuVersion, firstEdition)
		}
		if detail != "" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported language edition", Detail: detail, Subject: a.Expr.Range().Ptr()})
		}
	}
	if a := content.Attributes["experiments"]; a != nil {
		exprs, ds := hcl.ExprList(a.Expr)
		diags = append(diags, ds...)
		for _, e := range exprs {
			kw := hcl.ExprAsKeyword(e)
			if kw == "" {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid experiment keyword",
					Detail: "Elements of \"experiments\" must all be keywords representing active experiments.", Subject: e.Range().Ptr()})
				continue
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown experiment keyword",
				Detail: fmt.Sprintf("There is no current experiment with the keyword %q.", kw), Subject: e.Range().Ptr()})
		}
	}
	var first *hcl.Attribute
	for _, inner := range content.Blocks {
		c, _, ds := inner.Body.PartialContent(compatWithSchema)
		diags = append(diags, ds...)
		a := c.Attributes["opentofu"]
		if a == nil {
			continue // another tool's
		}
		if first != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate compatible_with block",
				Detail:  fmt.Sprintf("Each language block may have at most one compatible_with block referring to OpenTofu. The OpenTofu version constraint was already declared at %s.", first.Range),
				Subject: b.DefRange.Ptr()})
			continue
		}
		first = a
		check(a)
		if c, ds := decodeVersionConstraint(a); !ds.HasErrors() && c != nil && c.Check(version.Must(version.NewVersion("1.11.0"))) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Ineffective version constraint",
				Detail:  "The compatible_with block was added in OpenTofu v1.12.0, so any constraint specified this way should exclude earlier versions of OpenTofu, such as by including \">= 0.12.0\".\n\nIf your module must be compatible with earlier versions of OpenTofu, use the required_version argument in a \"terraform\" block in a file named with the .tofu suffix, which is an older way to specify OpenTofu version constraints.",
				Subject: a.Range.Ptr()})
		}
	}
	return diags
}

// decodeVersionConstraint reads a version constraint argument, a constant
// string (nil: none, or null), in OpenTofu's words when it is not one;
// a prerelease version in it is refused, as OpenTofu refuses it.
func decodeVersionConstraint(a *hcl.Attribute) (version.Constraints, hcl.Diagnostics) {
	invalid := func(detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid version constraint", Detail: detail, Subject: a.Expr.Range().Ptr()}}
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return nil, diags
	}
	if v.HasMark(marks.Sensitive) {
		return nil, invalid(fmt.Sprintf("Sensitive values, or values derived from sensitive values, cannot be used as %s arguments.", a.Name))
	}
	v, err := convert.Convert(v, cty.String)
	if err != nil {
		return nil, invalid(fmt.Sprintf("A string value is required for %s.", a.Name))
	}
	if v.IsNull() || !v.IsWhollyKnown() {
		return nil, nil
	}
	c, err := version.NewConstraint(v.AsString())
	if err != nil {
		return nil, invalid("This string does not use correct version constraint syntax.")
	}
	for _, one := range c {
		if one.Prerelease() {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid required_version constraint",
				Detail:  fmt.Sprintf("Prerelease version constraints are not supported: %s. Remove the prerelease information from the constraint. Prerelease versions of OpenTofu will match constraints using their version core only.", one),
				Subject: a.Range.Ptr()}}
		}
	}
	return c, nil
}
