// Package aws owns Kyku's AWS provider: every Kyku resource type mapped
// onto the EC2, ELBv2, RDS and SSM APIs, each through a small client of
// Kyku's own (ec2api, elbapi, rdsapi, ssmapi, on awswire), not the SDK's
// generated service packages; AWS's own endpoints are built for the aws,
// aws-cn and aws-us-gov partitions, FIPS and dual-stack ones are not
// (the endpoint setting or AWS_ENDPOINT_URL_<SERVICE> names them).
//
// # Mapping
//
//	Vpc            VPC (cidr) + an internet gateway, always created and attached
//	               (tagged like the VPC) so public subnets can route out.
//	               distributeAcrossAzs is the engine's (auto-subnets), kept in
//	               a tag so Read reports it. Zones() is DescribeAvailabilityZones
//	               of available zones of type availability-zone that need no
//	               opt-in, sorted: never a Local or Wavelength Zone.
//	Subnet         subnet (network, cidr, zone). public=true: MapPublicIpOnLaunch
//	               and a route table named like the subnet with 0.0.0.0/0 → IGW.
//	SecurityGroup  security group (name = cloud name) in network; ingress/egress
//	               updated by rule diff (Authorize/Revoke only the difference).
//	               Rule {protocol tcp|udp|icmp|all, port, cidr}: a port is
//	               FromPort=ToPort, no port is the whole range. egress is managed
//	               only when set; otherwise AWS's default allow-all stays and is
//	               not reported.
//	SshKey         ImportKeyPair named by the cloud name; ID is "key-…". EC2
//	               parses the key (ssh-ed25519, ssh-rsa): a malformed one is
//	               InvalidKey.Format. Read returns AWS's key material with the
//	               requested comment (kept in a tag).
//	Vm             RunInstances (with a client token, so a resent request
//	               starts no second instance); size small|medium|large →
//	               t3.small|medium|large (an instance type such as t3.micro is
//	               taken as is); image debian-12|debian-13|ubuntu-22.04|
//	               ubuntu-24.04|amazon-linux-2023 → AMI from the public SSM
//	               parameters, or an ami- ID. No subnet: the network's first
//	               public Kyku subnet. One sshKey at most (EC2 takes one key
//	               pair). Waits until running; an instance that terminates
//	               meanwhile fails the create at once with EC2's reason. Outputs
//	               publicIp, privateIp. A size change is stop → modify → start
//	               (resize.go): the start is tried again, the old type comes back
//	               if the new one cannot start, an interrupted resize is finished
//	               by the next update, and the public IP changes (the new one is
//	               the publicIp output).
//	Database       RDS instance: identifier = the cloud name in lower case, "db-"
//	               in front when it starts with a digit (names.go); DB subnet
//	               group of that name made of the network's private Kyku subnets
//	               (all its Kyku subnets when none is private), brought to the
//	               current subnets when it exists; PubliclyAccessible=false;
//	               VpcSecurityGroupIds = securityGroups; master user "kyku" with
//	               ManageMasterUserPassword (the password lives in Secrets
//	               Manager, never in Kyku's state; its ARN is the
//	               passwordSecretArn output). size → db.t3.*. Creates and
//	               updates wait until the change shows and the instance reads
//	               settled (available or storage-optimization, nothing pending)
//	               three times in a row; a new major version sets
//	               AllowMajorVersionUpgrade; storage that would shrink or grow by
//	               less than 10% is refused before any call. Delete skips the
//	               final snapshot, waits, and deletes the subnet group by name,
//	               also when the instance was already gone; a failed create
//	               removes the group it made.
//	TargetGroup    ELBv2 instance target group in the VPC of its first target
//	               (so at least one target is needed); targets updated by set
//	               diff; targets still draining are not members. port/protocol
//	               cannot change in place on AWS.
//	LoadBalancer   internet-facing ELBv2 (application; network for a tcp target
//	               group) in one public Kyku subnet per zone of the network (an
//	               application LB needs two zones), with securityGroups, one
//	               listener on port forwarding to targetGroup: HTTPS (TLS for
//	               tcp) with certificateArn, else the target group's protocol;
//	               an https target group without certificateArn is refused
//	               before any call. Outputs endpoint (DNS name).
//
// Provider IDs are AWS IDs: vpc-…, subnet-…, sg-…, key-…, i-…, and the
// RDS instance, target group and load balancer ARNs. References arrive
// resolved to them; a Kyku name sent where an ID belongs is rejected by AWS
// (InvalidVpcID.Malformed …).
//
// Every object is tagged kyku:managed=true, kyku:prefix, kyku:name and
// Name=<cloud name>, plus the tags property. Create is idempotent: it looks
// the object up first (EC2 by the Name and kyku:managed tags, key pairs,
// DB, target groups and load balancers by name) and finishes what an
// interrupted create left undone (IGW, route table). Read reports the Kyku
// vocabulary; size and image come back as written (kept in kyku:size and
// kyku:image tags) unless the object drifted; userData is not readable
// and omitted (the engine compares it with the last applied value);
// securityGroups of a load balancer or database only when Kyku manages
// them (kyku:securityGroups tag). Lists AWS returns unordered (security
// groups, targets, rules) are sorted.
//
// Names: CheckName (names.go) holds each service's rule; Create refuses a
// name its service would refuse before any call, and the engine asks it at
// plan time.
//
// Planning (check.go, rules.go): CheckResources refuses, before any
// request, what AWS documents it refuses — CIDR blocks of /16 to /28 with
// no host bits, 60 rules per direction of a security group, 5 security
// groups and one key pair per instance, RDS storage of 20 to 65,536 GB,
// ports, tags, certificate ARNs, and the names (with a stand-in deploy
// prefix); Schema's Rules say what a change of each property does;
// PlanChange refuses an RDS storage shrink, growth under 10%, a storage
// change during storage-optimization or within 6 hours of the last one
// (from the instance's events; Options.Now is the clock) and a version
// downgrade, replaces a load balancer whose target group changes kind or a
// network load balancer whose security groups come or go, and asks for
// target groups to be replaced create-before-destroy (a listener's cannot
// be deleted).
//
// Endpoints: the "endpoint" setting points every client at one URL;
// without it the SDK's own resolution stands (AWS_ENDPOINT_URL,
// AWS_ENDPOINT_URL_<SERVICE>, a profile's endpoint_url, else AWS). Update
// refuses what no API can change (kinds.Set.Fixed and the kinds' guards).
//
// Reading: every paginated Describe is read to its last page (list.go).
// ReadMany (bulk.go) reads a plan's objects in a few
// list calls: EC2 types by the kyku:prefix tag and then by ID, databases by
// ID, target groups and load balancers listed whole.
//
// Errors: the SDK's retryer is disabled; call retries throttling
// (RequestLimitExceeded, Throttling, ThrottlingException), 5xx, network
// errors (resets, requests unanswered for ResponseTimeout) and, for
// requests naming objects created moments ago, eventual-consistency codes
// (InvalidVpcID.NotFound, InvalidGroup.NotFound, TargetGroupNotFound,
// LoadBalancerNotFound, DBInstanceNotFound, …) with exponential
// backoff up to Options.MaxAttempts, then returns provider.Transient. A
// create that is not idempotent (CreateVpc, CreateInternetGateway,
// CreateRouteTable) is not resent after a network error but returned as
// provider.Transient, so the engine's retry looks the object up first. Any
// other "not found" code is provider.ErrNotFound. Deletes are retried while
// AWS says the object is still in use (DependencyViolation, ResourceInUse,
// InvalidDBSubnetGroupStateFault), and subnets and security groups wait
// for the network interfaces of deleted load balancers and databases to
// go. Waits poll every Options.PollInterval at most Options.MaxPolls times
// and stop when the context is cancelled. Decisions use smithy API error
// codes, never message text.
//
// Concurrency: a Provider holds only immutable clients and options and an
// atomic retry counter; it is safe for concurrent use.
package aws
