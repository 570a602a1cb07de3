// Package doctest holds the tests of the documentation: README.md,
// docs/**/*.md and the examples' READMEs. Every relative link and #anchor
// must resolve (with GitHub's heading slugs) and every external link be a
// well-formed https URL; the commands the getting-started and Action pages
// show are run against the CLI built from this checkout, and every block
// marked "<!-- output of: COMMAND -->" is compared with what COMMAND
// prints; the Action page's
// workflows and tables are checked against action.yml, and the bot's App
// manifest against its table. The package has no code beyond its tests.
package doctest
