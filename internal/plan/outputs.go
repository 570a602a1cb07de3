package plan

// OutputChange is how applying a plan changes one output state records:
// Create (an output state does not have yet), Update (its value changes)
// or Destroy (gone from the configuration, or a destroy plan). Old and
// New are canonical values, New with value.Unknown where known only after
// apply. A plan never holds a secret here: a sensitive output's values
// are Masked (Sensitive), and so is an old value state does not record as
// not sensitive.
type OutputChange struct {
	Name      string `json:"name"`
	Action    Action `json:"action"`
	Old       any    `json:"old"`
	New       any    `json:"new"`
	Sensitive bool   `json:"sensitive,omitempty"`
	Unknown   bool   `json:"unknown,omitempty"` // New is known only after apply, wholly or in part
}
