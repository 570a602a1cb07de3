# No plan destroys or replaces a Database in prod: its data would be lost.
# (A replace that changes a resource's type destroys the old one: its
# priorType is the type destroyed.)
package kyku

db_destructive := {"destroy", "replace"}

db_destroyed(c) if c.type == "Database"

db_destroyed(c) if c.priorType == "Database"

deny contains msg if {
	input.environment == "prod"
	some c in input.changes
	c.action in db_destructive
	db_destroyed(c)
	msg := sprintf("this plan would %s the Database %q in prod, losing its data: restore the configuration, or have a policy owner approve after taking a backup", [c.action, c.resourceId])
}
