package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"kyku.test/providers/store"
)

// listData (TP_list) lists the items whose name starts with prefix:
// their names (a list) and their values by name (a map).
func listData() *schema.Resource {
	return &schema.Resource{
		ReadContext: func(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
			prefix := d.Get("prefix").(string)
			items, err := meta.(*store.Store).Named(prefix)
			if err != nil {
				return diag.FromErr(err)
			}
			names := []any{}
			values := map[string]any{}
			for _, it := range items {
				names = append(names, it.Name)
				values[it.Name] = it.Value
			}
			d.SetId("names-" + prefix)
			if err := d.Set("names", names); err != nil {
				return diag.FromErr(err)
			}
			return diag.FromErr(d.Set("values", values))
		},
		Schema: map[string]*schema.Schema{
			"prefix": {Type: schema.TypeString, Optional: true},
			"names":  {Type: schema.TypeList, Computed: true, Elem: &schema.Schema{Type: schema.TypeString}},
			"values": {Type: schema.TypeMap, Computed: true, Elem: &schema.Schema{Type: schema.TypeString}},
		},
	}
}
