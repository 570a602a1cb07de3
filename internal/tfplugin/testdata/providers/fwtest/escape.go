package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// fwtest_escape (a data source, and a resource that probes when it is
// created) is a provider trying to get out of its sandbox, as a hostile or
// misused one would (hashicorp/http and hashicorp/local read URLs and
// files a configuration names): it reads its parent's environment
// (/proc/<ppid>/environ), lists the processes it can see, reads the files
// in read (another process's /proc/<pid>/environ, a file of the bot's),
// writes the files in write, connects to the host:port addresses in
// connect, fetches the URLs in fetch through the HTTP proxy its
// environment names (even for a loopback address, where Go's own client
// would go direct: the tests' stand-in servers listen there) or directly
// without one, starts a process in a user namespace of its own, and reads
// the variables in env. Every outcome is reported
// ("error: …" for a failure), as maps and as one text, report, that a
// plan shows when a resource's property takes it.
type escapeModel struct {
	ID            types.String `tfsdk:"id"`
	Read          types.List   `tfsdk:"read"`
	Write         types.List   `tfsdk:"write"`
	Connect       types.List   `tfsdk:"connect"`
	Fetch         types.List   `tfsdk:"fetch"`
	Env           types.List   `tfsdk:"env"`
	UID           types.String `tfsdk:"uid"`
	ParentEnviron types.String `tfsdk:"parent_environ"`
	Pids          types.List   `tfsdk:"pids"`
	ReadResults   types.Map    `tfsdk:"read_results"`
	WriteResults  types.Map    `tfsdk:"write_results"`
	ConnectResult types.Map    `tfsdk:"connect_results"`
	FetchResults  types.Map    `tfsdk:"fetch_results"`
	EnvValues     types.Map    `tfsdk:"env_values"`
	Report        types.String `tfsdk:"report"`
}

var escapeInputs = []string{"read", "write", "connect", "fetch", "env"}

var escapeOutputs = map[string]attr.Type{
	"uid": types.StringType, "parent_environ": types.StringType, "pids": types.ListType{ElemType: types.StringType},
	"read_results": types.MapType{ElemType: types.StringType}, "write_results": types.MapType{ElemType: types.StringType},
	"connect_results": types.MapType{ElemType: types.StringType}, "fetch_results": types.MapType{ElemType: types.StringType},
	"env_values": types.MapType{ElemType: types.StringType}, "report": types.StringType,
}

// probe tries every escape m asks for and fills in its outcomes.
func (m *escapeModel) probe(ctx context.Context) diag.Diagnostics {
	var ds diag.Diagnostics
	list := func(l types.List) []string {
		var out []string
		ds.Append(l.ElementsAs(ctx, &out, false)...)
		return out
	}
	var report []string
	line := func(format string, args ...any) { report = append(report, fmt.Sprintf(format, args...)) }
	each := func(what string, items []string, try func(string) string) types.Map {
		got := map[string]string{}
		for _, it := range items {
			got[it] = try(it)
			line("%s %s: %s", what, it, got[it])
		}
		v, d := types.MapValueFrom(ctx, types.StringType, got)
		ds.Append(d...)
		return v
	}

	m.UID = types.StringValue(strconv.Itoa(os.Getuid()))
	line("uid: %d", os.Getuid())
	m.ParentEnviron = types.StringValue(readText(fmt.Sprintf("/proc/%d/environ", os.Getppid())))
	line("parent environ: %s", m.ParentEnviron.ValueString())
	line("user namespace: %s", userNamespace())
	pids := otherPids()
	m.Pids, _ = types.ListValueFrom(ctx, types.StringType, pids)
	line("pids: %s", strings.Join(pids, ", "))
	m.ReadResults = each("read", list(m.Read), readText)
	m.WriteResults = each("write", list(m.Write), func(p string) string {
		if err := os.WriteFile(p, []byte("written by fwtest_escape\n"), 0o644); err != nil {
			return "error: " + err.Error()
		}
		return "written"
	})
	m.ConnectResult = each("connect", list(m.Connect), func(addr string) string {
		c, err := net.DialTimeout("tcp", addr, 3*time.Second)
		if err != nil {
			return "error: " + err.Error()
		}
		c.Close()
		return "connected"
	})
	m.FetchResults = each("fetch", list(m.Fetch), fetch)
	m.EnvValues = each("env", list(m.Env), func(k string) string {
		if v, ok := os.LookupEnv(k); ok {
			return v
		}
		return "(unset)"
	})
	m.Report = types.StringValue(strings.Join(report, "\n"))
	return ds
}

// readText is the file's content (NULs of an environ as spaces), or the
// error.
func readText(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// userNamespace tries to start a process in a user namespace of its own
// (where it would hold every capability): "created" when the namespace was
// made (the program itself does not exist, so nothing runs).
func userNamespace() string {
	cmd := exec.Command("/nonexistent/fwtest-userns")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
	err := cmd.Run()
	if errors.Is(err, fs.ErrNotExist) {
		return "created"
	}
	return fmt.Sprintf("error: %v", err)
}

// otherPids are the processes /proc shows besides this one.
func otherPids() []string {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	self := strconv.Itoa(os.Getpid())
	out := []string{}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err == nil && e.Name() != self {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// fetch GETs u through the proxy the environment names, if any.
func fetch(u string) string {
	proxy := os.Getenv("HTTPS_PROXY")
	if strings.HasPrefix(u, "http:") {
		proxy = os.Getenv("HTTP_PROXY")
	}
	tr := &http.Transport{}
	if proxy != "" {
		p, err := url.Parse(proxy)
		if err != nil {
			return "error: " + err.Error()
		}
		tr.Proxy = http.ProxyURL(p)
	}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(u)
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
}

// escapeData is the data source.
type escapeData struct{}

func (d *escapeData) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_escape"
}

func (d *escapeData) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]dschema.Attribute{"id": dschema.StringAttribute{Computed: true}}
	for _, k := range escapeInputs {
		attrs[k] = dschema.ListAttribute{ElementType: types.StringType, Optional: true}
	}
	for k, t := range escapeOutputs {
		switch t := t.(type) {
		case types.ListType:
			attrs[k] = dschema.ListAttribute{ElementType: t.ElemType, Computed: true}
		case types.MapType:
			attrs[k] = dschema.MapAttribute{ElementType: t.ElemType, Computed: true}
		default:
			attrs[k] = dschema.StringAttribute{Computed: true}
		}
	}
	resp.Schema = dschema.Schema{Attributes: attrs}
}

func (d *escapeData) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m escapeModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	m.ID = types.StringValue("escape")
	resp.Diagnostics.Append(m.probe(ctx)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// escapeResource probes when it is created (and on every update).
type escapeResource struct{}

func (r *escapeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_escape"
}

func (r *escapeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{"id": schema.StringAttribute{Computed: true}}
	for _, k := range escapeInputs {
		attrs[k] = schema.ListAttribute{ElementType: types.StringType, Optional: true}
	}
	for k, t := range escapeOutputs {
		switch t := t.(type) {
		case types.ListType:
			attrs[k] = schema.ListAttribute{ElementType: t.ElemType, Computed: true}
		case types.MapType:
			attrs[k] = schema.MapAttribute{ElementType: t.ElemType, Computed: true}
		default:
			attrs[k] = schema.StringAttribute{Computed: true}
		}
	}
	resp.Schema = schema.Schema{Attributes: attrs}
}

func (r *escapeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m escapeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.ID = types.StringValue("escape")
	resp.Diagnostics.Append(m.probe(ctx)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *escapeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m escapeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.ID = types.StringValue("escape")
	resp.Diagnostics.Append(m.probe(ctx)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *escapeResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse)       {}
func (r *escapeResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
