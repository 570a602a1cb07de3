// Package aws owns Kyku's AWS provider: every Kyku resource type mapped
// onto the EC2, ELBv2, RDS and SSM APIs through aws-sdk-go-v2.
//
// # Mapping
//
//	Vpc            VPC (cidr) + an internet gateway, always created and attached
//	               (tagged like the VPC) so public subnets can route out.
//	               distributeAcrossAzs is the engine's (auto-subnets), kept in
//	               a tag so Read reports it; Zones()
//	               is DescribeAvailabilityZones(state=available), sorted.
//	Subnet         subnet (network, cidr, zone). public=true: MapPublicIpOnLaunch
//	               and a route table named like the subnet with 0.0.0.0/0 → IGW.
//	SecurityGroup  security group (name = cloud name) in network; ingress/egress
//	               updated by rule diff (Authorize/Revoke only the difference).
//	               Rule {protocol tcp|udp|icmp|all, port, cidr}: a port is
//	               FromPort=ToPort, no port is the whole range. egress is managed
//	               only when set; otherwise AWS's default allow-all stays and is
//	               not reported.
//	SshKey         ImportKeyPair named by the cloud name; ID is "key-…". Read
//	               returns AWS's key material with the requested comment
//	               (kept in a tag).
//	Vm             RunInstances; size small|medium|large → t3.small|medium|large
//	               (an instance type such as t3.micro is taken as is); image
//	               debian-12|debian-13|ubuntu-22.04|ubuntu-24.04|amazon-linux-2023
//	               → AMI from the public SSM parameters (/aws/service/debian/…,
//	               /aws/service/canonical/…, /aws/service/ami-amazon-linux-latest/…),
//	               or an ami- ID. No subnet: the network's first public Kyku
//	               subnet. One sshKey at most (EC2 takes one key pair). Waits
//	               until running; outputs publicIp, privateIp. A size change is
//	               stop → ModifyInstanceAttribute → start.
//	Database       RDS instance identified by the cloud name, DB subnet group of
//	               the network's private Kyku subnets (all its Kyku subnets
//	               when none is private; never publicly accessible), master
//	               user "kyku" with
//	               ManageMasterUserPassword (the password lives in Secrets
//	               Manager, never in Kyku's state; its ARN is the
//	               passwordSecretArn output). size → db.t3.*. Outputs endpoint
//	               "address:port". Delete skips the final snapshot, then deletes
//	               the subnet group.
//	TargetGroup    ELBv2 instance target group in the VPC of its first target
//	               (so at least one target is needed); targets updated by set
//	               diff. port/protocol cannot change in place on AWS.
//	LoadBalancer   internet-facing ELBv2 (application; network for a tcp target
//	               group) in the network's public Kyku subnets, one listener on
//	               port forwarding to targetGroup. Outputs endpoint (DNS name).
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
// and omitted (the engine compares it with the last applied value). Lists AWS returns
// unordered (security groups, targets, rules) are sorted.
//
// Errors: the SDK's retryer is disabled; call retries throttling
// (RequestLimitExceeded, Throttling, ThrottlingException), 5xx and, for
// requests naming objects created moments ago, eventual-consistency codes
// (InvalidVpcID.NotFound, …) with exponential backoff up to
// Options.MaxAttempts, then returns provider.Transient. Any other
// "not found" code is provider.ErrNotFound. Waits poll every
// Options.PollInterval at most Options.MaxPolls times and stop when the
// context is cancelled. Decisions use smithy API error codes, never
// message text.
//
// Concurrency: a Provider holds only immutable clients and options and an
// atomic retry counter; it is safe for concurrent use.
package aws
