# VM sizes allowed per environment. An environment not listed here may use
# only the smallest size, and gets a warning saying so.
package kyku

vm_sizes := {
	"dev": {"small"},
	"staging": {"small", "medium"},
	"prod": {"small", "medium", "large"},
}

vm_allowed := object.get(vm_sizes, input.environment, {"small"})

deny contains msg if {
	some name, r in input.resources
	r.type == "Vm"
	not r.properties.size in vm_allowed
	msg := sprintf("Vm %q has size %q, which %s does not allow (allowed: %s)", [name, r.properties.size, vm_env_name, concat(", ", sort(vm_allowed))])
}

warn contains msg if {
	not input.environment in object.keys(vm_sizes)
	some _, r in input.resources
	r.type == "Vm"
	msg := sprintf("environment %s has no VM sizes listed in vm_sizes.rego: only \"small\" is allowed", [vm_env_name])
}

vm_env_name := sprintf("%q", [input.environment]) if input.environment != ""

vm_env_name := "the default environment" if input.environment == ""
