// Package sim is Kyku's offline cloud simulator: a provider.Provider whose
// "cloud" is a directory on disk, for the quick start, tests and
// benchmarks. Nothing leaves the machine; every error says "sim: …".
//
// # The directory
//
// The cloud lives in Options.Dir (KYKU_SIM_DIR, default .kyku-state/sim; the CLI
// and the Action put the default and a relative dir setting next to the
// configuration, see package workspace):
//
//	.next-id          last ID handed out; IDs are decimal numbers, like Hetzner's
//	<Type>/<id>.json  one object per file, pretty-printed
//	<Type>/.index     the name index: "cloudName id" lines, the latest per name wins;
//	                  a line whose object file is missing means the name is free
//	<Type>/.tmp-*     leftovers of a write interrupted by a crash; ignored
//
// An object file holds:
//
//	{
//	  "id": "10000003",                 provider ID (the file name)
//	  "type": "Vm",                     Kyku type (the directory)
//	  "name": "web",                    Kyku name it was created for
//	  "cloudName": "1a2b3c4d-web",      its name in the cloud
//	  "created": "2025-01-02T03:04:05Z",
//	  "properties": { … },              references hold provider IDs, never Kyku names
//	  "outputs": { "id": …, "privateIp": …, "publicIp": … }
//	}
//
// To simulate drift, edit "properties" (Read returns them exactly as
// stored) or delete the file (Read and Lookup then report not found, and
// the next Create with that cloud name makes a new object with a new ID).
// To reset the cloud, delete the whole directory while nothing uses it.
//
// # Behaviour
//
// Create is idempotent by cloud name within a type: it returns the existing
// object as is. Requests are checked like a strict cloud API checks them:
// unknown or mistyped properties, missing required ones, values outside an
// enum, references that are not the ID of an existing object of the right
// type (a Kyku name where an ID belongs), and the values a real cloud
// refuses (strict.go: CIDR syntax and host bits, a subnet inside its
// network and overlapping no other, ports 1–65535, the zones, sizes and
// images the sim has, storage, names) fail permanently. The same checks
// run at plan time and at `kyku validate` (CheckResources), positioned in
// the config. Update refuses what the sim cannot change in place (fixed,
// check.go); planning follows the sim's replace rules (rules.go), which
// the conformance suite's agreement holds to it. Rename (for a moved
// resource) gives an object a new cloud name and Kyku name and keeps its
// ID; the old cloud name is free from then on. Outputs are deterministic given the ID:
// id always; Vm privateIp (inside its subnet's CIDR) and publicIp (from
// the RFC 5737 documentation ranges); Database and LoadBalancer endpoint.
//
// # Knobs (OptionsFromEnv, or the provider settings of the same name)
//
//	KYKU_SIM_LATENCY    10ms, or 5ms-200ms drawn uniformly per call (setting "latency")
//	KYKU_SIM_FAIL_RATE  0–1: probability that a call (but Zones) fails transiently
//	                    ("failRate"); for Create and Delete about half of these strike
//	                    after the change was made, as a lost response from a real
//	                    cloud would
//	KYKU_SIM_FAIL       op:Type:name,… calls that fail permanently ("fail"), e.g.
//	                    create:Vm:web, *:Database:*, delete:*:*
//	KYKU_SIM_SEED       seed of the latency and fault draws; 0 or unset: random ("seed")
//	KYKU_SIM_BULK       true: Open (and the registry's Factory) returns a Bulk, whose
//	                    ReadMany lists each type's objects under the deploy prefix in
//	                    pages; the engine then discovers through it ("bulk")
//	KYKU_SIM_PAGE_SIZE  objects per page of such a list, default 1000 ("pageSize");
//	                    every page is one call: it pays the latency and may fail
//
// Calls counts the requests served by kind (a list page is one), so tests
// and benchmarks can compare bulk and per-resource discovery.
//
// # Concurrency and crashes
//
// A Provider is safe for concurrent use by many goroutines, and several
// processes may share one directory. Objects of a type are created, updated
// and deleted under an exclusive flock of the type's index; IDs come from a
// counter file under flock. Create appends the index line before it writes
// the object, so a crash (even kill -9) leaves at worst a line without an
// object, which the next Create reclaims: never two objects with one name.
// Object files appear and change atomically (a file linked or renamed into
// place) but are not fsynced: a simulator. The zero-latency path does no
// directory scans; each process reads an index once, then only what other
// processes appended since.
package sim
