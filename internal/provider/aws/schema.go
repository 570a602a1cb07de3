package aws

import (
	"context"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// Schema: AWS's rules and uses of typ (rules.go), and whether its objects
// can be renamed (rename.go).
func (p *Provider) Schema(typ string) provider.TypeSchema {
	return provider.TypeSchema{Provider: p.Name(), Rules: rules()[typ], KeptBy: keptBy(typ), Renames: renames(typ)}
}

// OwnType is "": AWS serves Kyku's types under their own names.
func (p *Provider) OwnType(context.Context, string) (string, error) { return "", nil }

// WriteOnly is nil: Kyku's types have no write-only properties.
func (p *Provider) WriteOnly(context.Context, string) ([]string, error) { return nil, nil }

// Empties is nil: Kyku's types are written to a Terraform state as their
// own attributes.
func (p *Provider) Empties(string) map[string]any { return nil }

// AttributeType is nil: Kyku's types declare no attribute types.
func (p *Provider) AttributeType(context.Context, string, bool, string, []value.Step) (any, error) {
	return nil, nil
}
