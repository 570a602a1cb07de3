package tfplugin

import "google.golang.org/protobuf/encoding/protowire"

// The field numbers of the messages Kyku encodes and decodes, as
// tfplugin5.proto and tfplugin6.proto declare them, one constant block
// per message. A block's comment starts "Fields of" and names its
// messages (a protocol's own with " (5)" or " (6)"); each constant's
// comment names its field. fields_test.go reads this file and checks each
// number and wire type against the .proto files of the terraform-plugin-go
// version the test providers are built with, and that no field number is
// written anywhere else.

// bytesField numbers a length-delimited field: a string, bytes, a
// message, a map, or one of those repeated.
type bytesField protowire.Number

// varintField numbers a varint field: an integer, a bool or an enum.
type varintField protowire.Number

// Fields of DynamicValue.
const (
	dynMsgpack bytesField = 1 // msgpack
	dynJSON    bytesField = 2 // json
)

// Fields of ClientCapabilities.
const (
	capsWriteOnlyAllowed varintField = 2 // write_only_attributes_allowed
)

// Fields of Diagnostic.
const (
	diagSeverity  varintField = 1 // severity
	diagSummary   bytesField  = 2 // summary
	diagDetail    bytesField  = 3 // detail
	diagAttribute bytesField  = 4 // attribute
)

// Fields of AttributePath.
const (
	pathSteps bytesField = 1 // steps
)

// Fields of AttributePath.Step.
const (
	stepAttributeName    bytesField  = 1 // attribute_name
	stepElementKeyString bytesField  = 2 // element_key_string
	stepElementKeyInt    varintField = 3 // element_key_int
)

// Fields of RawState.
const (
	rawStateJSON bytesField = 1 // json
)

// Fields of PrepareProviderConfig.Request (5), ValidateProviderConfig.Request (6).
const (
	validateProviderReqConfig bytesField = 1 // config
)

// Fields of PrepareProviderConfig.Response (5), ValidateProviderConfig.Response (6).
const (
	validateProviderRespDiagnostics bytesField = 2 // diagnostics
)

// Fields of PrepareProviderConfig.Response (5).
const (
	prepareProviderRespPreparedConfig bytesField = 1 // prepared_config
)

// Fields of ValidateResourceTypeConfig.Request (5), ValidateResourceConfig.Request (6),
// ValidateDataSourceConfig.Request (5), ValidateDataResourceConfig.Request (6).
const (
	validateReqTypeName bytesField = 1 // type_name
	validateReqConfig   bytesField = 2 // config
)

// Fields of ValidateResourceTypeConfig.Request (5), ValidateResourceConfig.Request (6).
const (
	validateResourceReqCapabilities bytesField = 3 // client_capabilities
)

// Fields of ValidateResourceTypeConfig.Response (5), ValidateResourceConfig.Response (6),
// ValidateDataSourceConfig.Response (5), ValidateDataResourceConfig.Response (6).
const (
	validateRespDiagnostics bytesField = 1 // diagnostics
)

// Fields of Configure.Request (5), ConfigureProvider.Request (6).
const (
	configureReqTerraformVersion bytesField = 1 // terraform_version
	configureReqConfig           bytesField = 2 // config
	configureReqCapabilities     bytesField = 3 // client_capabilities
)

// Fields of Configure.Response (5), ConfigureProvider.Response (6).
const (
	configureRespDiagnostics bytesField = 1 // diagnostics
)

// Fields of UpgradeResourceState.Request.
const (
	upgradeReqTypeName bytesField  = 1 // type_name
	upgradeReqVersion  varintField = 2 // version
	upgradeReqRawState bytesField  = 3 // raw_state
)

// Fields of UpgradeResourceState.Response.
const (
	upgradeRespUpgradedState bytesField = 1 // upgraded_state
	upgradeRespDiagnostics   bytesField = 2 // diagnostics
)

// Fields of ReadResource.Request.
const (
	readReqTypeName     bytesField = 1 // type_name
	readReqCurrentState bytesField = 2 // current_state
	readReqPrivate      bytesField = 3 // private
	readReqProviderMeta bytesField = 4 // provider_meta
	readReqCapabilities bytesField = 5 // client_capabilities
)

// Fields of ReadResource.Response.
const (
	readRespNewState    bytesField = 1 // new_state
	readRespDiagnostics bytesField = 2 // diagnostics
	readRespPrivate     bytesField = 3 // private
)

// Fields of PlanResourceChange.Request.
const (
	planReqTypeName         bytesField = 1 // type_name
	planReqPriorState       bytesField = 2 // prior_state
	planReqProposedNewState bytesField = 3 // proposed_new_state
	planReqConfig           bytesField = 4 // config
	planReqPriorPrivate     bytesField = 5 // prior_private
	planReqProviderMeta     bytesField = 6 // provider_meta
	planReqCapabilities     bytesField = 7 // client_capabilities
)

// Fields of PlanResourceChange.Response.
const (
	planRespPlannedState     bytesField  = 1 // planned_state
	planRespRequiresReplace  bytesField  = 2 // requires_replace
	planRespPlannedPrivate   bytesField  = 3 // planned_private
	planRespDiagnostics      bytesField  = 4 // diagnostics
	planRespLegacyTypeSystem varintField = 5 // legacy_type_system
)

// Fields of ApplyResourceChange.Request.
const (
	applyReqTypeName       bytesField = 1 // type_name
	applyReqPriorState     bytesField = 2 // prior_state
	applyReqPlannedState   bytesField = 3 // planned_state
	applyReqConfig         bytesField = 4 // config
	applyReqPlannedPrivate bytesField = 5 // planned_private
	applyReqProviderMeta   bytesField = 6 // provider_meta
)

// Fields of ApplyResourceChange.Response.
const (
	applyRespNewState         bytesField  = 1 // new_state
	applyRespPrivate          bytesField  = 2 // private
	applyRespDiagnostics      bytesField  = 3 // diagnostics
	applyRespLegacyTypeSystem varintField = 4 // legacy_type_system
)

// Fields of ImportResourceState.Request.
const (
	importReqTypeName     bytesField = 1 // type_name
	importReqID           bytesField = 2 // id
	importReqCapabilities bytesField = 3 // client_capabilities
)

// Fields of ImportResourceState.Response.
const (
	importRespImportedResources bytesField = 1 // imported_resources
	importRespDiagnostics       bytesField = 2 // diagnostics
)

// Fields of ImportResourceState.ImportedResource.
const (
	importedTypeName bytesField = 1 // type_name
	importedState    bytesField = 2 // state
	importedPrivate  bytesField = 3 // private
)

// Fields of ReadDataSource.Request.
const (
	readDataReqTypeName     bytesField = 1 // type_name
	readDataReqConfig       bytesField = 2 // config
	readDataReqProviderMeta bytesField = 3 // provider_meta
	readDataReqCapabilities bytesField = 4 // client_capabilities
)

// Fields of ReadDataSource.Response.
const (
	readDataRespState       bytesField = 1 // state
	readDataRespDiagnostics bytesField = 2 // diagnostics
)

// Fields of Stop.Response (5), StopProvider.Response (6).
const (
	stopRespError bytesField = 1 // Error
)

// Fields of GetProviderSchema.Response.
const (
	schemaRespProvider           bytesField = 1 // provider
	schemaRespResourceSchemas    bytesField = 2 // resource_schemas
	schemaRespDataSourceSchemas  bytesField = 3 // data_source_schemas
	schemaRespDiagnostics        bytesField = 4 // diagnostics
	schemaRespProviderMeta       bytesField = 5 // provider_meta
	schemaRespServerCapabilities bytesField = 6 // server_capabilities
	schemaRespFunctions          bytesField = 7 // functions
)

// Fields of GetFunctions.Response.
const (
	functionsRespFunctions   bytesField = 1 // functions
	functionsRespDiagnostics bytesField = 2 // diagnostics
)

// Fields of GetProviderSchema.Response.FunctionsEntry,
// GetFunctions.Response.FunctionsEntry.
const (
	functionEntryKey   bytesField = 1 // key
	functionEntryValue bytesField = 2 // value
)

// Fields of Function.
const (
	functionParameters        bytesField = 1 // parameters
	functionVariadicParameter bytesField = 2 // variadic_parameter
	functionReturn            bytesField = 3 // return
	functionSummary           bytesField = 4 // summary
)

// Fields of Function.Parameter.
const (
	paramName         bytesField  = 1 // name
	paramType         bytesField  = 2 // type
	paramAllowNull    varintField = 3 // allow_null_value
	paramAllowUnknown varintField = 4 // allow_unknown_values
)

// Fields of Function.Return.
const (
	returnType bytesField = 1 // type
)

// Fields of CallFunction.Request.
const (
	callFunctionReqName      bytesField = 1 // name
	callFunctionReqArguments bytesField = 2 // arguments
)

// Fields of CallFunction.Response.
const (
	callFunctionRespResult bytesField = 1 // result
	callFunctionRespError  bytesField = 2 // error
)

// Fields of FunctionError.
const (
	functionErrorText     bytesField  = 1 // text
	functionErrorArgument varintField = 2 // function_argument
)

// Fields of GetProviderSchema.Response.ResourceSchemasEntry,
// GetProviderSchema.Response.DataSourceSchemasEntry.
const (
	schemaEntryKey   bytesField = 1 // key
	schemaEntryValue bytesField = 2 // value
)

// Fields of ServerCapabilities.
const (
	serverCapsPlanDestroy               varintField = 1 // plan_destroy
	serverCapsGetProviderSchemaOptional varintField = 2 // get_provider_schema_optional
)

// Fields of Schema.
const (
	schemaVersion varintField = 1 // version
	schemaBlock   bytesField  = 2 // block
)

// Fields of Schema.Block.
const (
	blockAttributes bytesField  = 2 // attributes
	blockBlockTypes bytesField  = 3 // block_types
	blockDeprecated varintField = 6 // deprecated
)

// Fields of Schema.NestedBlock.
const (
	nestedBlockTypeName bytesField  = 1 // type_name
	nestedBlockBlock    bytesField  = 2 // block
	nestedBlockNesting  varintField = 3 // nesting
	nestedBlockMinItems varintField = 4 // min_items
	nestedBlockMaxItems varintField = 5 // max_items
)

// Fields of Schema.Attribute.
const (
	attrName       bytesField  = 1 // name
	attrType       bytesField  = 2 // type
	attrRequired   varintField = 4 // required
	attrOptional   varintField = 5 // optional
	attrComputed   varintField = 6 // computed
	attrSensitive  varintField = 7 // sensitive
	attrDeprecated varintField = 9 // deprecated
)

// Fields of Schema.Attribute (5).
const (
	attr5WriteOnly varintField = 10 // write_only
)

// Fields of Schema.Attribute (6).
const (
	attr6NestedType bytesField  = 10 // nested_type
	attr6WriteOnly  varintField = 11 // write_only
)

// Fields of Schema.Object (6).
const (
	objectAttributes bytesField  = 1 // attributes
	objectNesting    varintField = 3 // nesting
)

// Fields of StdioData (go-plugin): go-plugin's grpc_stdio.proto, the
// stream of what the provider writes to its stdout and stderr.
const (
	stdioData bytesField = 2 // data
)
