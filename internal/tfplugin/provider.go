package tfplugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"os/exec"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfschema"
)

// Provider is one running provider process and the client of its
// protocol. Safe for concurrent use: calls run in parallel over its one
// connection.
type Provider struct {
	cfg       Config
	cmd       *exec.Cmd
	jail      *jail         // its sandbox's, when it runs in one
	keeper    *keeperConn   // its journal keeper's, when one launched it (cmd is the keeper)
	done      chan struct{} // closed once the process has ended (waitErr set)
	waitErr   error
	rpc       *rpcConn
	protocol  int
	names     *methodNames
	tail      *tailBuffer
	stopStdio context.CancelFunc
	stdio     sync.WaitGroup
	closeOnce sync.Once
	stopOnce  sync.Once
	statm     statmFile // for Resident

	schemaMu  sync.Mutex
	schema    *tfschema.ProviderSchema
	metaValue *dynamicValue
	// ownPrefix is the prefix of the provider's types when the caller
	// names them with cfg.LocalName instead (set with schema; "": no
	// renaming).
	ownPrefix string
	// functions are those GetFunctions listed (Functions), when the
	// schema listed none.
	functions map[string]*tfschema.Function
}

// methodNames are the full gRPC method names of one protocol version.
type methodNames struct {
	schema, validateProvider, validateResource, validateData, upgrade, configure,
	read, plan, apply, importState, readData, stop string
	functions, callFunction string
}

// The method names are static data: nothing is built at package init.
var (
	methods5 = methodNames{
		schema:           "/tfplugin5.Provider/GetSchema",
		validateProvider: "/tfplugin5.Provider/PrepareProviderConfig",
		validateResource: "/tfplugin5.Provider/ValidateResourceTypeConfig",
		validateData:     "/tfplugin5.Provider/ValidateDataSourceConfig",
		upgrade:          "/tfplugin5.Provider/UpgradeResourceState",
		configure:        "/tfplugin5.Provider/Configure",
		read:             "/tfplugin5.Provider/ReadResource",
		plan:             "/tfplugin5.Provider/PlanResourceChange",
		apply:            "/tfplugin5.Provider/ApplyResourceChange",
		importState:      "/tfplugin5.Provider/ImportResourceState",
		readData:         "/tfplugin5.Provider/ReadDataSource",
		stop:             "/tfplugin5.Provider/Stop",
		functions:        "/tfplugin5.Provider/GetFunctions",
		callFunction:     "/tfplugin5.Provider/CallFunction",
	}
	methods6 = methodNames{
		schema:           "/tfplugin6.Provider/GetProviderSchema",
		validateProvider: "/tfplugin6.Provider/ValidateProviderConfig",
		validateResource: "/tfplugin6.Provider/ValidateResourceConfig",
		validateData:     "/tfplugin6.Provider/ValidateDataResourceConfig",
		upgrade:          "/tfplugin6.Provider/UpgradeResourceState",
		configure:        "/tfplugin6.Provider/ConfigureProvider",
		read:             "/tfplugin6.Provider/ReadResource",
		plan:             "/tfplugin6.Provider/PlanResourceChange",
		apply:            "/tfplugin6.Provider/ApplyResourceChange",
		importState:      "/tfplugin6.Provider/ImportResourceState",
		readData:         "/tfplugin6.Provider/ReadDataSource",
		stop:             "/tfplugin6.Provider/StopProvider",
		functions:        "/tfplugin6.Provider/GetFunctions",
		callFunction:     "/tfplugin6.Provider/CallFunction",
	}
)

// Protocol is the negotiated protocol version, 5 or 6.
func (p *Provider) Protocol() int { return p.protocol }

// Name is the provider's address as configured.
func (p *Provider) Name() string { return p.cfg.Name }

// invoke makes one call. A failed call of a provider whose process has
// ended is a *CrashError.
func (p *Provider) invoke(ctx context.Context, method string, req message, resp decoder) error {
	return p.named(ctx, method, p.rpc.invoke(ctx, method, req, resp))
}

// named is the error of call method: nil for none, a *CrashError when the
// process has ended, else err naming the provider and the call.
func (p *Provider) named(ctx context.Context, method string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("provider %s: %s: %w", p.cfg.Name, shortName(method), context.Cause(ctx))
	}
	if c := rpcCode(err); c == codeUnavailable || c == codeCanceled || c == codeInternal {
		if p.waitExited(2 * time.Second) {
			return &CrashError{Provider: p.cfg.Name, Method: shortName(method), Output: p.tail.String()}
		}
	}
	return fmt.Errorf("provider %s: %s: %w", p.cfg.Name, shortName(method), err)
}

// waitExited waits up to d for the process to end (the connection drops
// a little before the process is reaped).
func (p *Provider) waitExited(d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	select {
	case <-p.done:
		return true
	case <-deadline.C:
		return false
	}
}

func shortName(method string) string {
	for i := len(method) - 1; i >= 0; i-- {
		if method[i] == '/' {
			return method[i+1:]
		}
	}
	return method
}

// CrashError is a call that failed because the provider process ended
// (it panicked or exited): what the call was doing may or may not have
// happened in the cloud. Output is the end of the provider's standard
// error (its panic and stack trace).
type CrashError struct {
	Provider, Method string
	Output           string
}

func (e *CrashError) Error() string {
	msg := fmt.Sprintf("provider %s crashed during %s", e.Provider, e.Method)
	if e.Output != "" {
		msg += "; its last output:\n" + e.Output
	}
	return msg
}

// IsCrash reports whether err is (or wraps) a provider crash.
func IsCrash(err error) bool {
	var c *CrashError
	return errors.As(err, &c)
}

// Schema returns the provider's schema, asked once per process
// (GetProviderSchema) and kept. Error diagnostics are an error.
func (p *Provider) Schema(ctx context.Context) (*tfschema.ProviderSchema, error) {
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	if p.schema != nil {
		return p.schema, nil
	}
	d := &schemaDecoder{protocol: p.protocol}
	if err := p.invoke(ctx, p.names.schema, empty{}, d); err != nil {
		return nil, err
	}
	if err := d.diags.Err(); err != nil {
		return nil, fmt.Errorf("provider %s: schema: %w", p.cfg.Name, err)
	}
	if d.out.Provider == nil {
		d.out.Provider = &tfschema.Schema{Block: emptyBlock()}
	}
	p.schema = &d.out
	p.ownPrefix = renameTypes(p.schema, p.cfg.LocalName)
	if m := d.out.ProviderMeta; m != nil {
		ty := m.Block.ImpliedType()
		dv, err := encode(cty.NullVal(ty), ty)
		if err != nil {
			return nil, fmt.Errorf("provider %s: provider_meta: %w", p.cfg.Name, err)
		}
		p.metaValue = &dv
	}
	return p.schema, nil
}

// ReuseSchema gives p the schema an earlier process of the same
// provider executable returned, instead of asking for it again, when that
// process said the call was optional (its server capability
// get_provider_schema_optional, which OpenTofu honours the same way); it
// reports whether it did. A provider that did not say so is asked again
// at its first call: some need GetProviderSchema before anything else.
func (p *Provider) ReuseSchema(prev *Provider) bool {
	prev.schemaMu.Lock()
	s, prefix, meta := prev.schema, prev.ownPrefix, prev.metaValue
	prev.schemaMu.Unlock()
	if s == nil || !s.GetProviderSchemaOptional {
		return false
	}
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	p.schema, p.ownPrefix, p.metaValue = s, prefix, meta
	return true
}

// renameTypes gives the resource types and data sources of s the prefix
// local instead of the one they all share, and returns that one; it
// returns "" and leaves s as it is when local is empty or already theirs,
// or when they do not share one prefix (their names are then the
// provider's own).
func renameTypes(s *tfschema.ProviderSchema, local string) string {
	if local == "" {
		return ""
	}
	own := ""
	for _, m := range []map[string]*tfschema.Schema{s.ResourceTypes, s.DataSources} {
		for name := range m {
			prefix, _, ok := strings.Cut(name, "_")
			if !ok || own != "" && prefix != own {
				return ""
			}
			own = prefix
		}
	}
	if own == "" || own == local {
		return ""
	}
	rename := func(m map[string]*tfschema.Schema) map[string]*tfschema.Schema {
		out := make(map[string]*tfschema.Schema, len(m))
		for name, rs := range m {
			out[swapPrefix(name, own, local)] = rs
		}
		return out
	}
	s.ResourceTypes, s.DataSources = rename(s.ResourceTypes), rename(s.DataSources)
	return own
}

// swapPrefix is typ with the type prefix from (the part before its first
// "_") replaced by to; typ itself when it is not from's or either is "".
func swapPrefix(typ, from, to string) string {
	if rest, ok := strings.CutPrefix(typ, from+"_"); ok && from != "" && to != "" {
		return to + "_" + rest
	}
	return typ
}

// wireType is the provider's name for the caller's type name typ.
// Schema has run (every call looks its type up first).
func (p *Provider) wireType(typ string) string {
	return swapPrefix(typ, p.cfg.LocalName, p.ownPrefix)
}

// OwnType is the provider's own name of the caller's type name typ: typ
// itself unless Config.LocalName renames the provider's types (which
// Schema decides: before it, nothing is renamed).
func (p *Provider) OwnType(typ string) string {
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	return p.wireType(typ)
}

// localType is the caller's name for the provider's type name typ.
func (p *Provider) localType(typ string) string {
	return swapPrefix(typ, p.ownPrefix, p.cfg.LocalName)
}

// resourceSchema is the schema of a resource type or data source.
func (p *Provider) resourceSchema(ctx context.Context, typeName string, data bool) (*tfschema.Schema, error) {
	s, err := p.Schema(ctx)
	if err != nil {
		return nil, err
	}
	m, what := s.ResourceTypes, "resource type"
	if data {
		m, what = s.DataSources, "data source"
	}
	rs, ok := m[typeName]
	if !ok {
		return nil, fmt.Errorf("provider %s has no %s %q", p.cfg.Name, what, typeName)
	}
	return rs, nil
}

// meta is the provider_meta value sent with resource calls: null of the
// provider's meta schema, when it has one (Kyku has no provider_meta
// blocks); nil otherwise. Schema computes it once.
func (p *Provider) meta() *dynamicValue {
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	return p.metaValue
}
