package plan

// Reads say how much of the state a plan read from the cloud: Read of
// Objects (the state's objects the plan covers), under Refresh, the mode
// it ran with ("changed", "all" or "none").
type Reads struct {
	Refresh string `json:"refresh"`
	Read    int    `json:"read"`
	Objects int    `json:"objects"`
}
