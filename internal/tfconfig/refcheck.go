package tfconfig

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/gocty"

	"github.com/kyku/action/internal/suggest"
)

// OpenTofu reads every reference of an expression before it evaluates
// it, and refuses, each with its own error, what is not a reference (a
// name alone, an object used whole or indexed where it has attributes,
// a reserved name), what names nothing the module declares, and an
// instance key a resource's count or for_each does not allow. checkRef
// refuses what it refuses, with its summary and detail, where it points:
// what HCL would have said in its place ("Unknown variable", "Unsupported
// attribute", "Invalid index") names no reference a Terraform user knows.
// The references it lets through are evaluated; what they read is
// checked there (an undeclared variable, count outside a counted block).

// checkRef is the error OpenTofu gives for reference t in s, or nil;
// rest is what t reads beyond the object it names (past a resource's or
// a module call's instance key and a module's output name: depends_on
// refuses any).
func (s scope) checkRef(t hcl.Traversal) (rest hcl.Traversal, _ *hcl.Diagnostic) {
	root := t.RootName()
	switch root {
	case "count", "each", "local", "var", "path", "terraform", "tofu":
		name, d := singleAttr(t)
		if d == nil {
			d = specialAttr(t, root, name)
		}
		if d == nil {
			d = s.outOfContext(t, root)
		}
		if d != nil {
			return nil, d
		}
		return t[2:], nil
	case "data":
		if len(t) < 3 {
			return nil, invalidRef(`The "data" object must be followed by two attribute names: the data source type and the resource name.`, t.SourceRange())
		}
		return s.checkResourceRef(Data, t[0].SourceRange(), t[1:])
	case "ephemeral":
		if len(t) < 3 {
			return nil, invalidRef(`The "ephemeral" object must be followed by two attribute names: the ephemeral resource type and its name.`, t.SourceRange())
		}
		typ, _ := stepName(t, 1)
		name, _ := stepName(t, 2)
		return nil, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reference to undeclared resource",
			Detail:   fmt.Sprintf("There is no ephemeral resource %q %q definition in %s.", typ, name, s.mi.moduleDisplay()),
			Subject:  t.SourceRange().Ptr(),
		}
	case "resource":
		if len(t) < 3 {
			return nil, invalidRef(`The "resource" object must be followed by two attribute names: the resource type and the resource name.`, t.SourceRange())
		}
		return s.checkResourceRef(Managed, t[0].SourceRange(), t[1:])
	case "module":
		return s.checkModuleRef(t)
	case "self":
		if s.self == "" {
			return nil, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid \"self\" reference",
				Detail:   "The \"self\" object is not available in this context. This object can be used only in resource provisioner, connection, and postcondition blocks.",
				Subject:  t.SourceRange().Ptr(),
			}
		}
		return t[1:], nil
	case "template", "lazy", "arg":
		return nil, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reserved symbol name",
			Detail:   fmt.Sprintf("The symbol name %q is reserved for use in a future OpenTofu version. If you are using a provider that already uses this as a resource type name, add the prefix \"resource.\" to force interpretation as a resource type name.", root),
			Subject:  t[0].SourceRange().Ptr(),
		}
	}
	return s.checkResourceRef(Managed, t[0].SourceRange(), t)
}

func invalidRef(detail string, rng hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid reference", Detail: detail, Subject: rng.Ptr()}
}

// singleAttr is the attribute an object of one level (var, local, path,
// count, …) is read by: it is used neither whole nor by index.
func singleAttr(t hcl.Traversal) (string, *hcl.Diagnostic) {
	root := t.RootName()
	if len(t) < 2 {
		return "", invalidRef(fmt.Sprintf("The %q object cannot be accessed directly. Instead, access one of its attributes.", root), t[0].SourceRange())
	}
	a, ok := t[1].(hcl.TraverseAttr)
	if !ok {
		return "", invalidRef(fmt.Sprintf("The %q object does not support this operation.", root), t[1].SourceRange())
	}
	return a.Name, nil
}

// specialAttr refuses an attribute the special objects do not have.
func specialAttr(t hcl.Traversal, root, name string) *hcl.Diagnostic {
	rng := hcl.RangeBetween(t[0].SourceRange(), t[1].SourceRange()).Ptr()
	attrErr := func(detail string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf("Invalid %q attribute", root), Detail: detail, Subject: rng}
	}
	switch root {
	case "count":
		if name != "index" {
			return attrErr(fmt.Sprintf(`The "count" object does not have an attribute named %q. The only supported attribute is count.index, which is the index of each instance of a resource block that has the "count" argument set.`, name))
		}
	case "each":
		if name != "key" && name != "value" {
			return attrErr(fmt.Sprintf(`The "each" object does not have an attribute named %q. The supported attributes are each.key and each.value, the current key and value pair of the "for_each" attribute set.`, name))
		}
	case "path":
		if name != "cwd" && name != "module" && name != "root" {
			return attrErr(fmt.Sprintf(`The "path" object does not have an attribute named %q.%s`, name, suggest.Terraform(name, []string{"cwd", "module", "root"})))
		}
	case "terraform", "tofu":
		switch name {
		case "workspace":
		case "applying":
			return unsupported(*rng, "Ephemeral values are not supported",
				fmt.Sprintf("%s.applying is an ephemeral value (true only while an apply runs): Kyku does not run ephemeral values yet.", root))
		case "env":
			return attrErr(fmt.Sprintf(`The %s.env attribute was deprecated in v0.10 and removed in v0.12. The "state environment" concept was renamed to "workspace" in v0.12, and so the workspace name can now be accessed using the %s.workspace attribute.`, root, root))
		default:
			return attrErr(fmt.Sprintf(`The %q object does not have an attribute named %q. The only supported attribute is %s.workspace, the name of the currently-selected workspace.`, root, name, root))
		}
	}
	return nil
}

// outOfContext refuses count and each where the block has no count or
// for_each.
func (s scope) outOfContext(t hcl.Traversal, root string) *hcl.Diagnostic {
	switch {
	case root == "count" && s.key.rep != counted:
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  `Reference to "count" in non-counted context`,
			Detail:   `The "count" object can only be used in "module", "resource", and "data" blocks, and only when the "count" argument is set.`,
			Subject:  t.SourceRange().Ptr(),
		}
	case root == "each" && s.key.rep != eached:
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  `Reference to "each" in context without for_each`,
			Detail:   `The "each" object can be used only in "module" or "resource" blocks, and only when the "for_each" argument is set.`,
			Subject:  t.SourceRange().Ptr(),
		}
	}
	return nil
}

// reportRefs adds to the evaluator's errors what checkRef finds in travs:
// those of an expression the expansion does not evaluate (it reads
// resources, or its block has no instance), which OpenTofu gives before
// anything is planned as it gives the others.
func (s scope) reportRefs(travs []hcl.Traversal) {
	for _, t := range travs {
		if _, d := s.checkRef(t); d != nil {
			s.mi.ev.diags = append(s.mi.ev.diags, d)
		}
	}
}

// checkResourceRef checks a reference to a resource of mode, rt being
// its type's step onwards and start the range its reference starts at
// (checkRef).
func (s scope) checkResourceRef(mode Mode, start hcl.Range, rt hcl.Traversal) (hcl.Traversal, *hcl.Diagnostic) {
	if len(rt) < 2 {
		return nil, invalidRef("A reference to a resource type must be followed by at least one attribute access, specifying the resource name.",
			hcl.RangeBetween(rt[0].SourceRange(), rt[len(rt)-1].SourceRange()))
	}
	var typ string
	switch st := rt[0].(type) {
	case hcl.TraverseRoot:
		typ = st.Name
	case hcl.TraverseAttr:
		typ = st.Name
	default:
		// OpenTofu says "data" whichever object was indexed.
		return nil, invalidRef(`The "data" object does not support this operation.`, rt[0].SourceRange())
	}
	nameStep, ok := rt[1].(hcl.TraverseAttr)
	if !ok {
		what := "a resource type"
		if mode == Data {
			what = "a data source"
		}
		return nil, invalidRef(fmt.Sprintf("A reference to %s must be followed by at least one attribute access, specifying the resource name.", what), rt[1].SourceRange())
	}
	rng := hcl.RangeBetween(start, nameStep.SrcRange)
	rest := rt[2:]
	keyed := false
	if len(rest) > 0 {
		if idx, isIndex := rest[0].(hcl.TraverseIndex); isIndex {
			if d := badKey(idx, "resource instance"); d != nil {
				return nil, d
			}
			keyed, rest = true, rest[1:]
			rng = hcl.RangeBetween(rng, idx.SrcRange)
		}
	}
	r := &Resource{Mode: mode, Type: typ, Name: nameStep.Name}
	addr := r.Key()
	cfg := s.mi.mod.Resources[addr]
	if cfg == nil {
		return nil, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reference to undeclared resource",
			Detail:   fmt.Sprintf("There is no %s resource %q %q definition in %s.%s", modeAdjective(mode), typ, nameStep.Name, s.mi.moduleDisplay(), s.otherMode(r)),
			Subject:  rng.Ptr(),
		}
	}
	switch {
	case !keyed && len(rest) > 0 && cfg.Count != nil:
		return nil, missingKey(addr, "count", "count.index", rng)
	case !keyed && len(rest) > 0 && cfg.ForEach != nil:
		return nil, missingKey(addr, "for_each", "each.key", rng)
	case keyed && cfg.Count == nil && cfg.ForEach == nil:
		return nil, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unexpected resource instance key",
			Detail:   fmt.Sprintf(`Because %s does not have "count" or "for_each" set, references to it must not include an index key. Remove the bracketed index to refer to the single instance of this resource.`, addr),
			Subject:  rng.Ptr(),
		}
	}
	if len(rest) > 0 {
		if a, ok := rest[0].(hcl.TraverseAttr); ok && a.Name == "count" {
			return nil, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid resource count attribute",
				Detail:   fmt.Sprintf(`The special "count" attribute is no longer supported after OpenTofu v0.12. Instead, use length(%s) to count resource instances.`, addr),
				Subject:  rng.Ptr(),
			}
		}
	}
	return rest, nil
}

func missingKey(addr, arg, example string, rng hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Missing resource instance key",
		Detail:   fmt.Sprintf("Because %s has %q set, its attributes must be accessed on specific instances.\n\nFor example, to correlate with indices of a referring resource, use:\n    %s[%s]", addr, arg, addr, example),
		Subject:  rng.Ptr(),
	}
}

func modeAdjective(m Mode) string {
	if m == Data {
		return "data"
	}
	return "managed"
}

// otherMode is OpenTofu's hint when the module declares r's type and name
// in the other mode (the "data." prefix left out, or given in excess).
func (s scope) otherMode(r *Resource) string {
	other := &Resource{Mode: Managed, Type: r.Type, Name: r.Name}
	block := "resource"
	if r.Mode == Managed {
		other.Mode, block = Data, "data"
	}
	if s.mi.mod.Resources[other.Key()] == nil {
		return ""
	}
	return fmt.Sprintf("\n\nDid you mean the %s resource %s?", block, other.Key())
}

// badKey refuses an index that cannot be an instance key of what (a
// resource or module instance): a string, or a whole number.
func badKey(idx hcl.TraverseIndex, what string) *hcl.Diagnostic {
	why := "either a string or an integer is required"
	switch idx.Key.Type() {
	case cty.String:
		return nil
	case cty.Number:
		var i int
		err := gocty.FromCtyValue(idx.Key, &i)
		if err == nil {
			return nil
		}
		why = err.Error()
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid index key",
		Detail:   fmt.Sprintf("Invalid index for %s: %s.", what, why),
		Subject:  idx.SrcRange.Ptr(),
	}
}

// checkModuleRef checks a reference to a module call: by name, then
// maybe an instance key, then maybe an output (checkRef).
func (s scope) checkModuleRef(t hcl.Traversal) (hcl.Traversal, *hcl.Diagnostic) {
	name, d := singleAttr(t)
	if d != nil {
		return nil, d
	}
	rest := t[2:]
	if len(rest) > 0 {
		if idx, ok := rest[0].(hcl.TraverseIndex); ok {
			if d := badKey(idx, "module instance"); d != nil {
				return nil, d
			}
			rest = rest[1:]
		}
	}
	if len(rest) > 0 {
		if _, ok := rest[0].(hcl.TraverseAttr); !ok {
			return nil, invalidRef("Module instance objects do not support this operation.", rest[0].SourceRange())
		}
		rest = rest[1:] // the output
	}
	if s.mi.mod.Calls[name] == nil {
		return nil, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reference to undeclared module",
			Detail:   fmt.Sprintf("No module call named %q is declared in %s.%s", name, s.mi.moduleDisplay(), suggest.Terraform(name, sortedKeys(s.mi.mod.Calls))),
			Subject:  hcl.RangeBetween(t[0].SourceRange(), t[1].SourceRange()).Ptr(),
		}
	}
	return rest, nil
}
