package main

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// passwordResource is random_password's shape: its import ID is the
// password itself, its id is always "none", so importing again by the id
// gives another object (the password "none"). length and keepers force a
// replace; result is sensitive. Nothing lives in the test cloud.
func passwordResource() *schema.Resource {
	return &schema.Resource{
		CreateContext: func(_ context.Context, d *schema.ResourceData, _ any) diag.Diagnostics {
			d.SetId("none")
			return diag.FromErr(d.Set("result", strings.Repeat("k", d.Get("length").(int))))
		},
		ReadContext:   func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
		DeleteContext: func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
		Importer: &schema.ResourceImporter{StateContext: func(_ context.Context, d *schema.ResourceData, _ any) ([]*schema.ResourceData, error) {
			value := d.Id()
			d.SetId("none")
			if err := d.Set("result", value); err != nil {
				return nil, err
			}
			if err := d.Set("length", len(value)); err != nil {
				return nil, err
			}
			return []*schema.ResourceData{d}, nil
		}},
		Schema: map[string]*schema.Schema{
			"length":  {Type: schema.TypeInt, Required: true, ForceNew: true},
			"keepers": {Type: schema.TypeMap, Optional: true, ForceNew: true, Elem: &schema.Schema{Type: schema.TypeString}},
			"result":  {Type: schema.TypeString, Computed: true, Sensitive: true},
		},
	}
}
