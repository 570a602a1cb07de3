package provider

// Resource is what the engine asks a provider to create or update: the
// desired properties with every reference already resolved to provider IDs
// or output values. Name is the Kyku name; never send it where the cloud
// wants an ID.
type Resource struct {
	Name       string         // Kyku name, e.g. "web"
	Type       string         // Kyku type, e.g. "Vm"
	CloudName  string         // name in the cloud, "<prefix>-<name>" for new resources
	Prefix     string         // deploy prefix (tagging)
	Properties map[string]any // canonical values (package value)
	// Planned, for a type with OwnState, is the provider's plan of this
	// change (ChangePlan.Planned as the plan carries it): Create and
	// Update carry out exactly that. Stored is the object before an
	// update. Both nil for Kyku's own types.
	Planned *Planned
	Stored  *Stored
	// AnswerTo, for a create whose intent the engine journaled, is where
	// a Terraform provider's answer is kept by its journal keeper before
	// the engine has it (state.Answer; tfplugin.ApplyRequest.AnswerTo);
	// empty: nowhere. AnswerNote is the Note of the note there
	// (state.Answer.Note): the keeper makes the create only while the
	// note there is that one.
	AnswerTo, AnswerNote string
}

// Object is a cloud object as the provider sees it.
type Object struct {
	ID         string         // provider-native, opaque (e.g. "12224210", "vpc-0abc123")
	CloudName  string         // its name in the cloud
	Properties map[string]any // Kyku property vocabulary; references as provider IDs
	Outputs    map[string]any // at least "id"
	// Stored is the provider's own form of the object, for a type with
	// OwnState (see Stored); nil for Kyku's own types.
	Stored *Stored
}

// NewObject returns the Object with provider ID id: outputs (nil for none)
// always carry "id", as the engine's references to the object expect.
func NewObject(id, cloudName string, props, outputs map[string]any) Object {
	if outputs == nil {
		outputs = map[string]any{}
	}
	outputs["id"] = id
	return Object{ID: id, CloudName: cloudName, Properties: props, Outputs: outputs}
}

// Ref names one cloud object: its type and provider ID. Provider IDs are
// only unique per type (a Hetzner server and a network may share a
// number), so bulk reads key their results by Ref.
type Ref struct {
	Type string // e.g. "Vm"
	ID   string // provider ID
}

// Stored is what state keeps of one object of a type with OwnState: the
// version of the type's schema its values were written with, the
// provider's private data, and its attribute values
// (state.Resource.Outputs: every attribute of the object, null ones left
// out). Value, when set, is the provider's own exact form of the same
// values as it last read them (within one run; never persisted).
type Stored struct {
	SchemaVersion int64
	Private       []byte
	Attributes    map[string]any
	Value         any
	// Sensitive (from the provider) lists the top-level attributes its
	// schema marks sensitive (or that hold such a value).
	Sensitive []string
}
