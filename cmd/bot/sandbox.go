package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/tenancy"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/workspace"
)

// confinement is the sandbox of a repository's Terraform provider in the
// bot: a network of its own, reached through Kyku's proxy, which refuses
// the host's own addresses, KYKU_PROVIDER_DENY's and, unless the grant
// says metadata, the instance metadata addresses; the files the grant names; and as its
// whole environment the bot's variables the grant names, under the
// provider's names. A granted variable the bot does not have refuses the
// provider. It needs the bot to run as root.
func confinement(getenv func(string) string, g tenancy.ProviderGrant) (workspace.Confinement, error) {
	deny := tfplugin.DefaultDeny()
	if g.Metadata {
		deny = tfplugin.HostNets()
	}
	more, err := workspace.ParseDeny(getenv("KYKU_PROVIDER_DENY"))
	if err != nil {
		return workspace.Confinement{}, err
	}
	deny = append(deny, more...)
	env := make([]string, 0, len(g.Env))
	for _, name := range g.EnvNames() {
		v := getenv(g.Env[name])
		if v == "" {
			return workspace.Confinement{}, fmt.Errorf("%s, granted to it as %s by %s, is not set in the bot's environment", g.Env[name], name, bot.EnvPolicy)
		}
		env = append(env, name+"="+v)
	}
	return workspace.Confinement{
		Sandbox: tfplugin.Sandbox{Network: tfplugin.NetworkProxied, Deny: deny, Files: g.Files},
		Env:     env,
	}, nil
}

// warnWithoutSandbox logs, at start, why the Terraform providers a policy
// grants will be refused, when no sandbox can be had here.
func warnWithoutSandbox(ctx context.Context, log *slog.Logger, policy *tenancy.Policy) {
	if policy == nil {
		return
	}
	for _, r := range policy.Rules {
		if len(r.TerraformProviders) == 0 {
			continue
		}
		if err := tfplugin.CheckSandbox(ctx, &tfplugin.Sandbox{Network: tfplugin.NetworkProxied}); err != nil {
			log.Warn("Terraform providers will be refused: the bot runs every one sandboxed", "reason", err.Error())
		}
		return
	}
}
