// Package tfplugin is Kyku's client of Terraform provider plugins: it
// launches a provider's executable and handshakes as Terraform does
// (hashicorp/go-plugin's handshake: its magic cookie TF_PLUGIN_MAGIC_COOKIE,
// gRPC over automatic mutual TLS, protocol 5 or 6, whichever the provider
// offers), and speaks the protocol: GetProviderSchema, ValidateProviderConfig
// (PrepareProviderConfig in 5), ConfigureProvider, ValidateResourceConfig,
// ValidateDataResourceConfig, UpgradeResourceState, ReadResource,
// PlanResourceChange, ApplyResourceChange, ImportResourceState,
// ReadDataSource and StopProvider. Values are cty values of the schema's
// types (package tfschema), sent as msgpack.
//
// The client side of go-plugin's handshake and of gRPC is Kyku's own
// (launch.go, rpc.go: unary calls and go-plugin's stdio stream over an
// HTTP/2 client of its own, rpcconn.go and rpcstream.go, on x/net's
// framer and HPACK codec: net/http's client spent a goroutine, a body
// pipe and header maps on every call): the gRPC library's tracing package, which
// cannot be left out without a build tag, keeps every exported method of
// every linked type in the binary, which cost every Kyku command 25 MB of
// memory at start. The test providers, served by go-plugin itself, hold
// the client to the library's behaviour.
//
// The messages are encoded and decoded by hand on the protobuf wire
// (wire.go, messages.go, schema.go): terraform-plugin-go's generated code
// is internal to its module, and a hand codec reads only what Kyku uses
// (descriptions are skipped) without reflection. The test providers
// (testdata/providers, a module of its own, built by package
// tfplugintest) are written with HashiCorp's framework and SDK and hold
// the codec to what real providers send.
//
// Values travel in cty/msgpack's encoding, written and read by a codec of
// Kyku's own (ctymsgpack.go: AppendMsgpack, UnmarshalMsgpack): the bytes
// are cty/msgpack's exactly, since a saved plan holds them and apply
// sends them back byte for byte, and what it does not handle itself
// (marked values, values needing a conversion, malformed input) it leaves
// to cty/msgpack, so errors read as cty's. Its tests hold it to
// cty/msgpack by table, by values generated from fuzzed seeds and by
// fuzzed bytes. It refuses, where cty/msgpack panics or runs out of
// memory, a NaN, an array or map longer than its input, a collection of
// dynamic values of different types and refinements no value satisfies.
//
// The calls of a create need no cty value at all where the values are
// plain (configmsgpack.go, valuesmsgpack.go, plankept.go): EncodeConfig
// writes tfschema.Config's value straight from Kyku's properties (the
// same bytes and diagnostics; anything else goes through Config),
// DecodeValues reads an answer straight into Kyku's values (what
// tfschema.FromCtyObject of its cty value gives; anything else goes that
// way), and PlanKept compares a new state with its plan at the bytes.
// Each is held to the cty path it stands for by tables and seeded fuzz
// tests.
//
// # Processes and concurrency
//
// One Provider is one process and one gRPC connection; its methods are
// safe for concurrent use and share the connection. The schema is asked
// once per process. Start ties the process to its context only while it
// launches; after that the process lives until Close, which asks it to
// exit, kills it after two seconds, and returns once the process and the
// goroutines serving it are gone. Every call but ApplyResourceChange ends
// when its context does; an apply, whose answer holds what the provider
// did in its cloud, is not cut: the provider is asked to stop and its
// answer awaited for Config.StopGrace. A provider that exits (a panic)
// fails the call in flight and every later one with a *CrashError that
// carries the end of its standard error. The environment of the process
// is Config.Env only: nothing is read from Kyku's own. With Config.Sandbox
// the process runs in bubblewrap (sandbox.go): its own user, processes and
// files, and as root a network of its own reached through Kyku's HTTP
// proxy (egress.go), which refuses the metadata addresses; CheckSandbox
// says whether one can be had here.
//
// # For the engine (phase 2 of "any Terraform provider")
//
// The engine starts one Provider per provider configuration per run,
// lazily (the first resource of that provider needs it), and closes them
// all when the run ends, with a defer that also runs on Ctrl-C. Per
// provider it calls Schema, ValidateProviderConfig and ConfigureProvider
// once; per resource at plan: UpgradeResourceState and ReadResource for
// what state holds, ValidateResourceConfig, then PlanResourceChange with
// tfschema.ProposedNew (RequiresReplace decides replace against update;
// a replace plans a destroy, PlannedState null, and a create). Apply
// sends back the planned state (ApplyRequest.PlannedMsgpack: the bytes a
// saved plan holds) and PlannedPrivate unchanged. A data source is read at plan
// when its configuration is known, at apply otherwise.
//
// Nothing here runs at package init; the codec allocates one buffer per
// request and copies each answer once.
package tfplugin
