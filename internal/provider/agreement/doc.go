// Package agreement holds the agreement test: for every provider (sim,
// aws, hetzner), every type it carries and every property of that type,
// a change of that property alone is planned through the engine and then
// carried out against the provider's test server (the sim's own store,
// awstest, hcloudtest).
//
// A property the plan updates must apply in place and converge (the next
// plan shows nothing to do). A property the plan replaces must say why,
// and the same change tried in place (Provider.Update, as an apply of an
// update would) must be refused, or leave the cloud object as it was; the
// replace itself must then apply. A change the plan refuses must be
// refused in place too. A property without a rule, or without a case here,
// fails the test: adding a property means saying what each cloud does
// with it.
//
// The package has no code of its own besides the test.
package agreement
