package engine

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// orderReplaces decides the order of every replace among changes: create
// before destroy where the configuration says so (createBeforeDestroy,
// Terraform's lifecycle setting), or where the provider asked for it
// (decide marked it) and a resource that stays — an update — uses the
// object, since the cloud would not delete it while used; destroy before
// create otherwise (createFirst decides). A create-before-destroy
// replacement of one of Kyku's types gets another cloud name (the old
// object keeps its own until it goes), checked as a create's is; a
// provider's resource has no cloud name of Kyku's making.
func (e *Engine) orderReplaces(diags *diag.Diagnostics, cfg *config.Config, st *state.File, changes []plan.Change) {
	cbd := createFirst(cfg, changes)
	for i := range changes {
		c := &changes[i]
		switch {
		case c.Action != plan.Replace:
			c.ReplaceOrder = ""
		case skipsDestroy(cfg, c.ResourceID):
			c.ReplaceOrder = plan.ForgetThenCreate // lifecycle destroy = false: nothing is destroyed
		case cbd[c.ResourceID] && e.ownState(c.Type):
			c.ReplaceOrder = plan.CreateBeforeDestroy
		case cbd[c.ResourceID]:
			c.ReplaceOrder = plan.CreateBeforeDestroy
			name := cloudName(st.Metadata.Prefix, c.ResourceID)
			if name == c.CloudName || takenName(st, c.Type, name) {
				name = replacementName(name, c.ProviderID)
			}
			c.PriorCloudName, c.CloudName = c.CloudName, name
			if r := cfg.Resource(c.ResourceID); r != nil {
				e.checkName(diags, r, *c)
			}
		default:
			c.ReplaceOrder = plan.DestroyBeforeCreate
		}
	}
}

// skipsDestroy reports whether cfg's resource name says lifecycle
// destroy = false.
func skipsDestroy(cfg *config.Config, name string) bool {
	r := cfg.Resource(name)
	return r != nil && r.SkipDestroy
}

// createFirst is the set of replaces among changes made create before
// destroy. As in Terraform, what such a replacement depends on and is
// replaced too is replaced create-before-destroy as well (its replacement
// must exist first); one that cannot be (a change of type) makes its
// dependents destroy-before-create.
func createFirst(cfg *config.Config, changes []plan.Change) map[string]bool {
	at := make(map[string]int, len(changes))
	usedByUpdate := map[string]bool{}
	for i, c := range changes {
		at[c.ResourceID] = i
		if c.Action == plan.Update {
			for _, d := range c.Dependencies {
				usedByUpdate[d] = true
			}
		}
	}
	eligible := func(c *plan.Change) bool { return c.Action == plan.Replace && c.PriorType == "" && c.ProviderID != "" }
	cbd := map[string]bool{}
	var work []string
	for i := range changes {
		c := &changes[i]
		declared := false
		if r := cfg.Resource(c.ResourceID); r != nil {
			declared = r.CreateBeforeDestroy
		}
		if eligible(c) && (declared || c.ReplaceOrder == plan.CreateBeforeDestroy && usedByUpdate[c.ResourceID]) {
			cbd[c.ResourceID] = true
			work = append(work, c.ResourceID)
		}
	}
	for len(work) > 0 { // what a replacement made first depends on is made first too
		n := work[len(work)-1]
		work = work[:len(work)-1]
		for _, d := range changes[at[n]].Dependencies {
			if j, ok := at[d]; ok && eligible(&changes[j]) && !cbd[d] {
				cbd[d] = true
				work = append(work, d)
			}
		}
	}
	for again := true; again; { // unless one of them cannot be
		again = false
		for n := range cbd {
			for _, d := range changes[at[n]].Dependencies {
				if j, ok := at[d]; ok && changes[j].Action == plan.Replace && !cbd[d] {
					delete(cbd, n)
					again = true
				}
			}
		}
	}
	return cbd
}

// refuseKeptDeletes refuses what apply could only fail at: a replace that
// destroys the object first while a resource that stays — updated, left
// as it is, or outside --target — uses it, where the cloud does not delete
// an object in use (provider.TypeSchema.KeptBy). What uses the object is what its
// users hold in state, as the cloud does; a user destroyed or replaced
// goes first. changes are the plan's, destroys those it adds (only a
// change of changes can be such a replace).
func (e *Engine) refuseKeptDeletes(diags *diag.Diagnostics, cfg *config.Config, st *state.File, changes, destroys []plan.Change) {
	var first map[string]bool // destroyed (or replaced) before what they use; made once needed
	for i := range changes {
		c := &changes[i]
		if c.Action != plan.Replace || c.ReplaceOrder != plan.DestroyBeforeCreate || c.ProviderID == "" {
			continue
		}
		if first == nil {
			first = map[string]bool{}
			for _, cs := range [][]plan.Change{changes, destroys} {
				for k := range cs {
					if a := cs[k].Action; a == plan.Replace || a == plan.Destroy || a == plan.Forget {
						first[cs[k].ResourceID] = true
					}
				}
			}
		}
		typ := c.Type
		if c.PriorType != "" {
			typ = c.PriorType
		}
		uses := e.provider.Schema(typ).KeptBy
		if len(uses) == 0 {
			continue
		}
		for _, n := range st.Names() {
			sr := st.Resources[n]
			if first[n] {
				continue
			}
			for _, use := range uses {
				if use.Type != sr.Type || !provider.RefersTo(sr.Config[use.Property], c.ProviderID) {
					continue
				}
				var pos diag.Pos
				if r := cfg.Resource(c.ResourceID); r != nil {
					pos = r.Pos
				}
				fix := "Replace " + value.QuoteName(n) + " too (--replace " + value.QuoteName(n) + "), or change " + value.QuoteName(c.ResourceID)
				if r := cfg.Resource(n); sr.Protect || (r != nil && r.Protect) {
					fix = "Change " + value.QuoteName(c.ResourceID) // a protected user is never replaced
				}
				diags.Add(pos, "resource %s would be destroyed before its replacement is made, but %s (%s) stays and uses it (%s), and the cloud does not delete an object in use: apply would fail there. %s so that its replacement can be made first",
					value.QuoteName(c.ResourceID), value.QuoteName(n), sr.Type, use.Property, fix)
				break
			}
		}
	}
}

// takenName reports whether an object in st of typ has cloudName.
func takenName(st *state.File, typ, cloudName string) bool {
	for _, r := range st.Resources {
		if r.Type == typ && r.CloudName == cloudName {
			return true
		}
	}
	return false
}

// replacementName is the cloud name of a create-before-destroy
// replacement of object id when its resource's own cloud name, base, is
// taken (by the object, or a deposed one): base and a short digest of id.
// The replacement of a replacement gets base back. Deterministic, so a
// plan made again names it the same, and a create interrupted and run
// again finds it by that name.
func replacementName(base, id string) string {
	sum := sha256.Sum256([]byte(id))
	return base + "-" + hex.EncodeToString(sum[:3])
}
