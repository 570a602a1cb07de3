package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hashicorp/go-cty/cty"
	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"kyku.test/providers/store"
)

func newProvider() *schema.Provider {
	return &schema.Provider{
		Schema: map[string]*schema.Schema{
			"dir":   {Type: schema.TypeString, Required: true},
			"token": {Type: schema.TypeString, Optional: true, Sensitive: true},
		},
		ConfigureContextFunc: func(_ context.Context, d *schema.ResourceData) (any, diag.Diagnostics) {
			if d.Get("token").(string) == "wrong" {
				return nil, diag.Diagnostics{{Severity: diag.Error, Summary: "Invalid token",
					AttributePath: cty.GetAttrPath("token")}}
			}
			return &store.Store{Dir: d.Get("dir").(string)}, nil
		},
		ResourcesMap: map[string]*schema.Resource{
			"sdktest_item":  itemResource(),
			"sdktest_crash": crashResource(),
			"sdktest_slow":  slowResource(),

			"sdktest_password": passwordResource(),
			"sdktest_secret":   secretResource(), "sdktest_echo": echoResource(), // secrets.go
		},
		DataSourcesMap: map[string]*schema.Resource{
			"sdktest_item": itemData(),
			"sdktest_list": listData(),
		},
	}
}

// itemResource: name forces a replace (ForceNew), value and tags change
// in place, secret is sensitive, revision is computed on every change
// (CustomizeDiff marks it unknown), rule is a nested block.
func itemResource() *schema.Resource {
	return &schema.Resource{
		CreateContext: itemCreate,
		ReadContext:   itemRead,
		UpdateContext: itemUpdate,
		DeleteContext: itemDelete,
		Importer:      &schema.ResourceImporter{StateContext: schema.ImportStatePassthroughContext},
		CustomizeDiff: func(_ context.Context, d *schema.ResourceDiff, _ any) error {
			if d.Id() != "" && d.HasChanges("value", "secret", "tags", "rule") {
				return d.SetNewComputed("revision")
			}
			return nil
		},
		Schema: map[string]*schema.Schema{
			"name": {Type: schema.TypeString, Required: true, ForceNew: true},
			"value": {Type: schema.TypeString, Optional: true,
				ValidateDiagFunc: func(v any, p cty.Path) diag.Diagnostics {
					if strings.Contains(v.(string), " ") {
						return diag.Diagnostics{{Severity: diag.Error, Summary: "Invalid value",
							Detail: "the test cloud refuses spaces in value", AttributePath: p}}
					}
					return nil
				}},
			"secret":   {Type: schema.TypeString, Optional: true, Sensitive: true},
			"tags":     {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
			"revision": {Type: schema.TypeInt, Computed: true},
			"rule": {Type: schema.TypeList, Optional: true, MaxItems: 3, Elem: &schema.Resource{Schema: map[string]*schema.Schema{
				"port": {Type: schema.TypeInt, Required: true},
				"cidr": {Type: schema.TypeString, Optional: true, Default: "0.0.0.0/0"},
			}}},
		},
	}
}

func toItem(d *schema.ResourceData) store.Item {
	it := store.Item{ID: d.Id(), Name: d.Get("name").(string), Value: d.Get("value").(string), Secret: d.Get("secret").(string)}
	if m := d.Get("tags").(map[string]any); len(m) > 0 {
		it.Tags = map[string]string{}
		for k, v := range m {
			it.Tags[k] = v.(string)
		}
	}
	return it
}

func fromItem(it store.Item, d *schema.ResourceData) diag.Diagnostics {
	d.SetId(it.ID)
	for k, v := range map[string]any{"name": it.Name, "value": it.Value, "secret": it.Secret, "tags": it.Tags, "revision": int(it.Revision)} {
		if err := d.Set(k, v); err != nil {
			return diag.FromErr(err)
		}
	}
	return nil
}

func itemCreate(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	it, err := meta.(*store.Store).Create(toItem(d))
	if err != nil {
		return diag.FromErr(err)
	}
	return fromItem(it, d)
}

func itemRead(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	it, err := meta.(*store.Store).Get(d.Id())
	if errors.Is(err, store.ErrNotFound) {
		d.SetId("")
		return nil
	}
	if err != nil {
		return diag.FromErr(err)
	}
	return fromItem(it, d)
}

func itemUpdate(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	it, err := meta.(*store.Store).Update(toItem(d))
	if err != nil {
		return diag.FromErr(err)
	}
	return fromItem(it, d)
}

func itemDelete(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	if err := meta.(*store.Store).Delete(d.Id()); err != nil && !errors.Is(err, store.ErrNotFound) {
		return diag.FromErr(err)
	}
	return nil
}

// crashResource's create makes the provider process panic, once per
// cloud (the next run's create succeeds).
func crashResource() *schema.Resource {
	return &schema.Resource{
		CreateContext: func(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
			if meta.(*store.Store).CrashOnce() {
				panic("sdktest: crash in the middle of an apply")
			}
			d.SetId("crash-" + d.Get("name").(string))
			return nil
		},
		ReadContext:   func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
		DeleteContext: func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
		Schema:        map[string]*schema.Schema{"name": {Type: schema.TypeString, Required: true, ForceNew: true}},
	}
}

// slowResource's create stores the item, then waits until the provider is
// told to stop (or a minute), and answers with the item and an error.
func slowResource() *schema.Resource {
	return &schema.Resource{
		CreateContext: func(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
			it, err := meta.(*store.Store).Create(store.Item{Name: d.Get("name").(string)})
			if err != nil {
				return diag.FromErr(err)
			}
			d.SetId(it.ID)
			select {
			case <-ctx.Done():
				return diag.Errorf("interrupted: the item exists")
			case <-time.After(time.Minute):
			}
			return nil
		},
		ReadContext:   func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
		DeleteContext: func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
		Schema:        map[string]*schema.Schema{"name": {Type: schema.TypeString, Required: true, ForceNew: true}},
	}
}

func itemData() *schema.Resource {
	return &schema.Resource{
		ReadContext: func(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
			it, err := meta.(*store.Store).ByName(d.Get("name").(string))
			if err != nil {
				return diag.Diagnostics{{Severity: diag.Error, Summary: "no such item", Detail: err.Error(),
					AttributePath: cty.GetAttrPath("name")}}
			}
			d.SetId(it.ID)
			return diag.FromErr(d.Set("value", it.Value))
		},
		Schema: map[string]*schema.Schema{
			"name":  {Type: schema.TypeString, Required: true},
			"value": {Type: schema.TypeString, Computed: true},
		},
	}
}
