#!/usr/bin/env bash
# sandbox.sh — make this runner able to run Terraform providers in
# bubblewrap, as input provider-sandbox asks. action.yml runs it before
# kyku when the sandbox may be needed: the input is not off and the working
# directory holds a .kyku.lock.hcl (the configuration uses Terraform
# providers).
#
#  1. No bwrap: install Debian's and Ubuntu's package bubblewrap with
#     apt-get (through `sudo -n` unless already root; once more after
#     `apt-get update` when the runner's package lists are stale).
#  2. Not root, on a kernel that restricts unprivileged user namespaces
#     through AppArmor (Ubuntu 24.04's
#     kernel.apparmor_restrict_unprivileged_userns=1), which bubblewrap
#     needs then: the restriction is lifted on a GitHub-hosted runner (a
#     virtual machine of this job alone, gone after it), never on a
#     self-hosted one (its operator decides).
#  3. bwrap is tried the way kyku runs it, and one line says whether it
#     works.
#
# It never fails the step: where the sandbox cannot be had, a ::warning::
# says why, and kyku itself refuses the providers it must sandbox.
set -uo pipefail

mode=${KYKU_PROVIDER_SANDBOX:-pull-requests}
case $mode in
always) refused="every Terraform provider" ;;
*) refused="the Terraform providers of a configuration a pull request may have written (every event but a push to the default branch, schedule and a workflow_dispatch for no pull request)" ;;
esac

# refuse prints why the sandbox cannot be had, and what kyku will refuse.
refuse() {
	echo "::warning::Kyku's provider sandbox cannot run on this runner: $1. This run refuses $refused (input provider-sandbox: $mode)."
}

uid=$(id -u)
# as_root runs a command as root: directly when root, else through sudo
# without a password prompt.
as_root() {
	if [[ $uid == 0 ]]; then
		"$@"
	else
		sudo -n "$@"
	fi
}
can_root() { [[ $uid == 0 ]] || sudo -n true >/dev/null 2>&1; }

if ! command -v bwrap >/dev/null 2>&1; then
	if ! command -v apt-get >/dev/null 2>&1; then
		refuse "bubblewrap is not installed, and there is no apt-get to install it with; install bubblewrap (0.8 or later) in an earlier step"
		exit 0
	fi
	if ! can_root; then
		refuse "bubblewrap is not installed, and sudo here asks for a password, so it cannot be installed; install bubblewrap (0.8 or later) in an earlier step"
		exit 0
	fi
	echo "kyku: installing bubblewrap for the provider sandbox (apt-get install bubblewrap)"
	if ! as_root apt-get install -y -qq bubblewrap; then
		as_root apt-get update -qq && as_root apt-get install -y -qq bubblewrap
	fi
	hash -r
	if ! command -v bwrap >/dev/null 2>&1; then
		refuse "bubblewrap could not be installed (apt-get install bubblewrap failed; its messages are above)"
		exit 0
	fi
fi

# Not root, bubblewrap makes a user namespace (kyku's user inside and
# out); as root it needs none.
check=(bwrap --unshare-all --die-with-parent --ro-bind / / true)
restricted=""
if [[ $uid != 0 ]]; then
	check=(bwrap --unshare-all --unshare-user --disable-userns --die-with-parent --ro-bind / / true)
	key=kernel.apparmor_restrict_unprivileged_userns
	if [[ $(sysctl -n "$key" 2>/dev/null) == 1 ]]; then
		if [[ ${RUNNER_ENVIRONMENT:-} != github-hosted ]]; then
			restricted="$key=1 restricts the user namespaces bubblewrap makes, and Kyku lifts it only on GitHub-hosted runners (run sysctl -w $key=0 on this one, or give bwrap an AppArmor profile that allows them)"
		elif ! can_root; then
			restricted="$key=1 restricts the user namespaces bubblewrap makes, and sudo here asks for a password, so it cannot be lifted"
		elif as_root sysctl -w "$key=0" >/dev/null; then
			echo "kyku: lifted Ubuntu's AppArmor restriction of unprivileged user namespaces on this GitHub-hosted runner (sysctl -w $key=0), which the provider sandbox needs"
		else
			restricted="$key=1 restricts the user namespaces bubblewrap makes, and sysctl -w $key=0 failed"
		fi
	fi
fi

if out=$("${check[@]}" 2>&1); then
	version=$(bwrap --version 2>/dev/null)
	echo "kyku: the provider sandbox works on this runner (${version:-bubblewrap})"
	exit 0
fi
out=${out//$'\n'/; }
why="bwrap fails (${out:-no message})"
case $out in
*--disable-userns*) why="$why: Kyku needs bubblewrap 0.8 or later" ;;
esac
if [[ -n $restricted ]]; then
	why="$restricted; $why"
fi
refuse "$why"
exit 0
