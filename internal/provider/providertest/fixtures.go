package providertest

import (
	"fmt"

	"github.com/kyku/action/internal/provider"
)

// Deps is what a fixture may reference: objects the suite already created.
type Deps struct {
	IDs   map[string]string // Kyku type → provider ID of one existing object of that type
	Zones []string          // the provider's zones, in its order
}

// Fixtures builds the resources the suite creates.
type Fixtures struct {
	// Types lists the Kyku types to exercise, in dependency order: a type
	// may reference only types listed before it. The first type is used for
	// the generic tests (idempotency, lookup, update, delete, concurrency),
	// so it should be cheap to create and must need no references.
	Types []string
	// Resource returns a small valid resource of typ with the given Kyku
	// name and cloud name. Every reference in it must be taken from
	// deps.IDs (never a Kyku name).
	Resource func(typ, name, cloudName string, deps Deps) provider.Resource
	// Mutate returns a copy of r with one mutable property changed, and the
	// name of that property.
	Mutate func(r provider.Resource) (provider.Resource, string)
	// Data, for a provider with data sources, returns a data source (its
	// type and configuration) that reads obj, made from r; nil: the
	// provider has none (ReadData answers ErrNotSupported).
	Data func(r provider.Resource, obj provider.Object) (typ string, props map[string]any)
	// Agreement, for a provider of Kyku's types, holds its rules to its
	// test server (agreement.go).
	Agreement *Agreement
	// InState says the provider's objects live in state alone (OpenTofu's
	// terraform_data): a deleted object is not read back, and an import
	// finds, for any ID, an object holding only that ID.
	InState bool
}

// Default returns fixtures for every Kyku type, using the schema's own
// vocabulary (CIDRs, sizes, images), for providers that accept it as is.
// Mutate changes the tags, which every type has and none treats as
// immutable.
func Default() Fixtures {
	return Fixtures{
		Types: []string{"Vpc", "SshKey", "Subnet", "SecurityGroup", "Vm", "Database", "TargetGroup", "LoadBalancer"},
		Resource: func(typ, name, cloudName string, deps Deps) provider.Resource {
			return provider.Resource{
				Name:       name,
				Type:       typ,
				CloudName:  cloudName,
				Prefix:     "kykutest",
				Properties: defaultProps(typ, deps),
			}
		},
		Mutate: func(r provider.Resource) (provider.Resource, string) {
			props := make(map[string]any, len(r.Properties)+1)
			for k, v := range r.Properties {
				props[k] = v
			}
			props["tags"] = map[string]any{"kyku-test": "updated"}
			r.Properties = props
			return r, "tags"
		},
	}
}

func defaultProps(typ string, deps Deps) map[string]any {
	zone := ""
	if len(deps.Zones) > 0 {
		zone = deps.Zones[0]
	}
	id := func(t string) any { return deps.IDs[t] }
	switch typ {
	case "Vpc":
		return map[string]any{"cidr": "10.42.0.0/16", "distributeAcrossAzs": float64(0)}
	case "SshKey":
		// A well-formed key (clouds parse it; its private half was thrown away).
		return map[string]any{"publicKey": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO8Wb8aHc8L936PFYkcSxDJxW2T11kEykGuD94m2FJ5j kyku@test"}
	case "Subnet":
		return map[string]any{"network": id("Vpc"), "cidr": "10.42.1.0/24", "zone": zone, "public": true}
	case "SecurityGroup":
		return map[string]any{"network": id("Vpc"), "ingress": []any{
			map[string]any{"protocol": "tcp", "port": float64(443), "cidr": "0.0.0.0/0"},
		}}
	case "Vm":
		return map[string]any{
			"network":        id("Vpc"),
			"subnet":         id("Subnet"),
			"securityGroups": []any{id("SecurityGroup")},
			"sshKeys":        []any{id("SshKey")},
			"size":           "small",
			"image":          "debian-12",
		}
	case "Database":
		return map[string]any{"network": id("Vpc"), "engine": "postgres", "version": "16", "size": "small", "storageGb": float64(20)}
	case "TargetGroup":
		return map[string]any{"port": float64(80), "protocol": "http", "targets": []any{id("Vm")}}
	case "LoadBalancer":
		return map[string]any{"network": id("Vpc"), "port": float64(80), "targetGroup": id("TargetGroup")}
	}
	panic(fmt.Sprintf("providertest: no default fixture for type %q", typ))
}
