package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/go-cty/cty"
	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"kyku.test/providers/store"
)

// secretResource generates a secret (result, sensitive) and takes a
// write-only one (password_wo): the test cloud records only the sha256 of
// what it received; password_wo_version changes in place and sends it
// again. A password_wo holding "weak" is refused, quoted.
func secretResource() *schema.Resource {
	return &schema.Resource{
		CreateContext: passwordCreate,
		ReadContext:   passwordRead,
		UpdateContext: passwordUpdate,
		DeleteContext: passwordDelete,
		Schema: map[string]*schema.Schema{
			"name":                {Type: schema.TypeString, Required: true, ForceNew: true},
			"result":              {Type: schema.TypeString, Computed: true, Sensitive: true},
			"password_wo":         {Type: schema.TypeString, Optional: true, WriteOnly: true},
			"password_wo_version": {Type: schema.TypeInt, Optional: true},
		},
	}
}

// writeOnly is password_wo as configured (the plan and the state hold it
// null).
func writeOnly(d *schema.ResourceData) (string, diag.Diagnostics) {
	v, ds := d.GetRawConfigAt(cty.GetAttrPath("password_wo"))
	if ds.HasError() || v.IsNull() || !v.IsKnown() || !v.Type().Equals(cty.String) {
		return "", ds
	}
	return v.AsString(), nil
}

func passwordCreate(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	wo, ds := writeOnly(d)
	if ds.HasError() {
		return ds
	}
	if strings.Contains(wo, "weak") {
		return diag.Errorf("the test cloud refuses password %q: too weak", wo)
	}
	name := d.Get("name").(string)
	it, err := meta.(*store.Store).Create(store.Item{Name: name, Secret: store.Generated(name), Received: store.Digest(wo)})
	if err != nil {
		return diag.FromErr(err)
	}
	d.SetId(it.ID)
	return diag.FromErr(d.Set("result", it.Secret))
}

func passwordRead(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	it, err := meta.(*store.Store).Get(d.Id())
	if errors.Is(err, store.ErrNotFound) {
		d.SetId("")
		return nil
	}
	if err != nil {
		return diag.FromErr(err)
	}
	if err := d.Set("name", it.Name); err != nil {
		return diag.FromErr(err)
	}
	return diag.FromErr(d.Set("result", it.Secret))
}

func passwordUpdate(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	wo, ds := writeOnly(d)
	if ds.HasError() {
		return ds
	}
	s := meta.(*store.Store)
	it, err := s.Get(d.Id())
	if err == nil {
		it.Received = store.Digest(wo)
		_, err = s.Update(it)
	}
	if err != nil {
		return diag.FromErr(err)
	}
	return passwordRead(ctx, d, meta)
}

func passwordDelete(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	if err := meta.(*store.Store).Delete(d.Id()); err != nil && !errors.Is(err, store.ErrNotFound) {
		return diag.FromErr(err)
	}
	return nil
}

// echoResource quotes its input in its errors, as a cloud API echoing
// the request it refuses: refuse makes its create fail, and a plan that
// changes its input is refused, quoting the old and the new one.
func echoResource() *schema.Resource {
	return &schema.Resource{
		CreateContext: func(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
			in := d.Get("input").(string)
			if d.Get("refuse").(bool) {
				return diag.Errorf("the test cloud refuses input %q (it echoes it: %s)", in, in)
			}
			it, err := meta.(*store.Store).Create(store.Item{Name: "echo", Value: in})
			if err != nil {
				return diag.FromErr(err)
			}
			d.SetId(it.ID)
			return nil
		},
		ReadContext: func(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
			if _, err := meta.(*store.Store).Get(d.Id()); errors.Is(err, store.ErrNotFound) {
				d.SetId("")
			}
			return nil
		},
		UpdateContext: func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
		DeleteContext: func(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
			if err := meta.(*store.Store).Delete(d.Id()); err != nil && !errors.Is(err, store.ErrNotFound) {
				return diag.FromErr(err)
			}
			return nil
		},
		CustomizeDiff: func(_ context.Context, d *schema.ResourceDiff, _ any) error {
			if d.Id() == "" || !d.HasChange("input") || !d.NewValueKnown("input") {
				return nil
			}
			o, n := d.GetChange("input")
			return fmt.Errorf("the test cloud cannot change input from %q to %q", o, n)
		},
		Schema: map[string]*schema.Schema{
			"input":  {Type: schema.TypeString, Optional: true},
			"refuse": {Type: schema.TypeBool, Optional: true},
		},
	}
}
