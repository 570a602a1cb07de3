// Package hetzner owns Kyku's Hetzner Cloud provider: every Kyku resource
// type mapped onto the Hetzner Cloud API through the official hcloud-go
// client (its own retries disabled; this package's policy is the only one).
//
// # Mapping
//
//	Vpc            network; cidr → IP range. distributeAcrossAzs is the
//	               engine's (auto-subnets), kept in the kyku-azs label.
//	               Zones() is the network zone of the configured location
//	               (fsn1 → eu-central): every auto-subnet lands in it.
//	Subnet         a subnet (type cloud) of its network; zone → network zone.
//	               Subnets have no ID of their own: the provider ID is
//	               "<network ID>/<cidr>" (e.g. "4711/10.0.1.0/24"); the cloud
//	               name and the public flag are labels of the network. Every
//	               server has a public interface whatever the flag says.
//	SecurityGroup  firewall (in/out rules) applied to the servers whose Vm
//	               lists it; the network reference is the kyku-network label.
//	SshKey         SSH key (unique per project by name and by fingerprint).
//	Vm             server in the location; size small|medium|large → the
//	               first of cx23|cpx22|cpx21, cx33|cpx32|cpx31,
//	               cx43|cpx42|cpx41 the location sells, or any server type
//	               it sells; image a Hetzner image
//	               name or ID; attached to its subnet's range (or network);
//	               firewalls; SSH keys; userData. Outputs publicIp,
//	               privateIp. A size change is a rescale (power off → change
//	               type, disk kept → power on); image and userData replace;
//	               SSH keys cannot change (Hetzner installs them at creation).
//	TargetGroup    no API object: the label kyku-tg/<cloud name> =
//	               "<protocol>-<port>" on its servers; the provider ID is that
//	               label key, which is the load balancer's label selector.
//	LoadBalancer   load balancer lb11 in the location, attached to network,
//	               one service on port → the group's port, one label-selector
//	               target (via the private network). Output endpoint: the
//	               public IPv4.
//	Database       none on Hetzner: CheckResources refuses it at plan time.
//
// Planning (check.go, catalog.go, rules.go): CheckResources refuses what
// Hetzner cannot carry and its documented limits (5 firewalls per server,
// 50 rules per firewall counting "all" as three, networks of /24 at least,
// firewall rules from or to private ranges, which never match on the
// public interface a firewall filters, attachments outside the location's
// network zone, label and name rules) before any request; CheckCloud
// reads the server types once per plan and refuses a size the location
// does not sell; Schema's Rules say what a change of each property does,
// PlanChange replaces a server whose new type has another architecture or
// storage type or a smaller disk than the server's, and asks for firewalls
// and subnets to be replaced create-before-destroy (the API does not
// delete them while servers use them). Update refuses what the API cannot
// change (kinds.Set.Fixed), and a rescale the API would refuse before the
// server is powered off. A rule from 0.0.0.0/0 covers ::/0 too.
//
// Every object carries the labels kyku-managed=true, kyku-prefix and
// kyku-name; Read never reports Kyku's own labels as tags. Create is idempotent
// by name: it looks the name up first, and a uniqueness_error from the
// create means another attempt got there first, so it finds that object;
// an object with the name but without kyku-managed=true is never adopted.
// Creates finish what an interrupted create left undone (network attach,
// power on, load balancer service and target).
//
// Errors and waits: locked, conflict, rate_limit_exceeded, 5xx and network
// errors are retried with exponential backoff up to Options.MaxAttempts,
// then returned as provider.TransientError (RetryAfter from the rate-limit
// headers) so the engine may retry the step. Rate limiting honours
// RateLimit-Limit/Remaining/Reset: once the bucket is empty every request
// of the provider queues for the next slot (one request per hour/limit)
// instead of hammering. The actions a request started are waited for
// together, one GET /actions?id=… per poll (hcloud-go's action waiter),
// and actions and server boots are polled Options.PollInterval apart at
// first, doubling up to Options.MaxPollInterval, at most Options.MaxPolls
// times, cancellable: a long action costs a few requests, so a large
// apply stays well within the 3,600 requests an hour.
// not_found is provider.ErrNotFound; a non-numeric ID (a stale Kyku name)
// reads as not found, and ValidID marks it stale for the engine's destroy.
//
// Bulk reads (ReadMany) list each kind by the kyku-prefix label selector,
// every page, instead of one request per object.
//
// What every cloud provider does the same way lives in shared packages:
// the dispatch to kinds (provider/kinds), the retry loop and polls
// (provider/retry), property values and tags (provider/property); what
// every Hetzner object does the same way (get, find by name, create by
// name, relabel, delete) is written once in api.go.
//
// Concurrency: a Provider holds an hcloud client, options, a pacer and
// per-object mutexes (label read-modify-writes, creates of one name,
// subnet changes of one network); it is safe for concurrent use.
package hetzner
