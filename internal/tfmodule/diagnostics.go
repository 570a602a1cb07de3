package tfmodule

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Every text this package shows a person is built here, in OpenTofu's
// words ("kyku init" for "tofu init") unless Kyku refuses what OpenTofu
// allows.

const runInit = `Run "kyku init" to install all modules required by this configuration.`

func errorAt(subject *hcl.Range, summary, detail string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: subject}
}

// at is "file:line" of a call, as OpenTofu's details name it.
func at(c Call) string { return fmt.Sprintf("%s:%d", c.DeclRange.Filename, c.DeclRange.Start.Line) }

// moduleAddr is the module at path as OpenTofu writes it.
func moduleAddr(path []string) string { return "module." + strings.Join(path, ".module.") }

func diagInvalidConstraint(c Call) *hcl.Diagnostic {
	return errorAt(c.VersionRange.Ptr(), "Invalid version constraint", "This string does not use correct version constraint syntax.")
}

func diagDynamic(c Call) *hcl.Diagnostic {
	return errorAt(c.SourceRange.Ptr(), "Module source not evaluated",
		"The source or version of module %q reads variables, locals or functions, which this reading of the module blocks alone does not evaluate.", c.Name)
}

func diagInvalidSource(c Call, err error, registryOnly bool) *hcl.Diagnostic {
	if e, ok := err.(*MaybeRelativeError); ok {
		return errorAt(c.SourceRange.Ptr(), "Invalid module source address",
			"Kyku failed to determine your intended installation method for remote module package %q.\n\nIf you intended this as a path relative to the current module, use \"./%s\" instead. The \"./\" prefix indicates that the address is a relative filesystem path.",
			e.Addr, e.Addr)
	}
	if registryOnly {
		return errorAt(c.SourceRange.Ptr(), "Invalid registry module source address",
			"Failed to parse module registry address: %s.\n\nKyku assumed that you intended a module registry source address because you also set the argument \"version\", which applies only to registry modules.", err)
	}
	return errorAt(c.SourceRange.Ptr(), "Invalid module source address", "Failed to parse module source address: %s.", err)
}

func diagTooDeep(c Call, path []string) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Module nesting too deep",
		"%s is %d modules deep; Kyku installs at most %d levels (a module calling itself never ends).", moduleAddr(path), len(path), maxDepth)
}

func diagTooMany(c Call) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Too many module calls", "The configuration calls more than %d modules; Kyku stops there.", maxModules)
}

func diagInterrupted(c Call) *hcl.Diagnostic {
	return errorAt(nil, "Module installation was interrupted", "Received interrupt signal while installing module %q.", c.Name)
}

// Loading without installing (Check).

func diagNotInstalled(c Call) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Module not installed", "This module is not yet installed. "+runInit)
}

func diagSourceChanged(c Call, was, now string) *hcl.Diagnostic {
	return errorAt(c.SourceRange.Ptr(), "Module source has changed",
		"The source address was changed from %q to %q since this module was installed. "+runInit, was, now)
}

func diagVersionChanged(c Call, installed string) *hcl.Diagnostic {
	if installed == "" {
		return errorAt(c.SourceRange.Ptr(), "Module version requirements have changed",
			"The version requirements have changed since this module was installed and the installed version is no longer acceptable. "+runInit)
	}
	return errorAt(c.SourceRange.Ptr(), "Module version requirements have changed",
		"The version requirements have changed since this module was installed and the installed version (%s) is no longer acceptable. "+runInit, installed)
}

func diagCacheUnreadable(c Call, dir string) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Module not installed", "This module's local cache directory %s could not be read. "+runInit, dir)
}

func diagCacheMoved(c Call, dir string) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Module not installed",
		"The modules manifest puts this module in %s, which is not where kyku init installs it. "+runInit, dir)
}

// Local paths.

func diagUnreadableLocal(c Call, dir string) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Unreadable module directory", "The directory %s could not be read for module %q at %s.", dir, c.Name, at(c))
}

func diagEscapesPackage(c Call, path []string, pkg string) *hcl.Diagnostic {
	return errorAt(c.SourceRange.Ptr(), "Local module path escapes module package",
		"The given source directory for %s would be outside of its containing package %q. Local source addresses starting with \"../\" must stay within the same package that the calling module belongs to.",
		moduleAddr(path), pkg)
}

func diagEscapesRepository(c Call, path []string, dir, boundary string) *hcl.Diagnostic {
	return errorAt(c.SourceRange.Ptr(), "Local module path escapes the repository",
		"The source directory of %s, %s, is outside the repository (%s): a module call may not read the runner's files.",
		moduleAddr(path), dir, boundary)
}

// Registries.

func diagModuleNotFound(c Call, p RegistryPackage) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Module not found", "Module %s (%q from %s) cannot be found in the module registry at %s.", p.forProtocol(), c.Name, at(c), p.Host)
}

func diagRegistryVersions(c Call, host string, err error) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Error accessing remote module registry", "Failed to retrieve available versions for module %q (%s) from %s: %s.", c.Name, at(c), host, err)
}

func diagRegistryInvalid(c Call, host string) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Invalid response from remote module registry",
		"The registry at %s returned an invalid response when Kyku requested available versions for module %q (%s).", host, c.Name, at(c))
}

func warnRegistryVersion(c Call, host, v string) *hcl.Diagnostic {
	d := errorAt(c.DeclRange.Ptr(), "Invalid response from remote module registry",
		"The registry at %s returned an invalid version string %q for module %q (%s), which Kyku ignored.", host, v, c.Name, at(c))
	d.Severity = hcl.DiagWarning
	return d
}

func diagNoVersions(c Call, src Source) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Module has no versions", "Module %q (%s) has no versions available on %s.", src, at(c), src.Registry.Host)
}

func diagUnresolvable(c Call, src Source, newest string) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Unresolvable module version constraint",
		"There is no available version of module %q (%s) which matches the given version constraint. The newest available version is %s.", src, at(c), newest)
}

func diagLocate(src Source, v string, err error) *hcl.Diagnostic {
	return errorAt(nil, "Error accessing remote module registry", "Failed to retrieve a download URL for %s %s from %s: %s", src, v, src.Registry.Host, err)
}

// Downloads.

func diagDownload(c Call, from string, err error, registry bool) *hcl.Diagnostic {
	end := ""
	if registry {
		end = "."
	}
	return errorAt(c.DeclRange.Ptr(), "Failed to download module", "Could not download module %q (%s) source code from %q: %s"+end, c.Name, at(c), from, err)
}

func diagSubdirGlob(err error) *hcl.Diagnostic {
	return errorAt(nil, "Failed to expand subdir globs", "%s", err)
}

func diagSubdirMissing(c Call, inst, subdir string) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Module subdirectory not found", "Cannot find directory %q in module %q.", subdir, inst)
}

func diagSubdirEscapes(c Call, subdir, real string) *hcl.Diagnostic {
	return errorAt(c.DeclRange.Ptr(), "Module directory outside its package",
		"The subdirectory %q of module %q resolves to %s, outside its package: a module call may not read the runner's files.", subdir, c.Name, real)
}

func diagRemoveCache(dir string, err error) *hcl.Diagnostic {
	return errorAt(nil, "Failed to remove local module cache", "Kyku tried to remove %s in order to reinstall this module, but encountered an error: %s", dir, err)
}

// The manifest.

func diagReadManifest(err error) *hcl.Diagnostic {
	return errorAt(nil, "Failed to read modules manifest file", "%s.", err)
}

func diagWriteManifest(err error) *hcl.Diagnostic {
	return errorAt(nil, "Failed to update module manifest", "Unable to write the module manifest file: %s", err)
}
