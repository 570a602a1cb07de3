package aws

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/retry"
)

// startAttempts is how often a stopped instance is started before Kyku
// gives up on its type: EC2 refuses a start when the zone lacks capacity
// for the type (InsufficientInstanceCapacity), which often passes.
const startAttempts = 3

// resize changes the instance type, which EC2 allows only on a stopped
// instance: tag kyku:resizing, stop, change the type, start. The instance
// always ends running: a start that fails is tried again, and when the new
// type cannot start at all the old type is put back and started, and the
// update fails saying so. An instance stopped by an interrupted resize
// (still tagged) is started by the next update. A stop and start gives the
// instance a new public IPv4 address (there is no Elastic IP): the update
// returns it in the publicIp output, which the state records.
func (k vmKind) resize(ctx context.Context, in ec2api.Instance, typ string) error {
	p, id, from := k.p, aws.ToString(in.InstanceId), string(in.InstanceType)
	err := p.call(ctx, "tag instance resizing", settling, func(ctx context.Context) error {
		_, err := p.ec2.CreateTags(ctx, &ec2api.CreateTagsInput{Resources: []string{id}, Tags: ec2Tags(map[string]string{tagResizing: typ})})
		return err
	})
	if err != nil {
		return err
	}
	if err := k.stop(ctx, in); err != nil {
		return err
	}
	if err := k.setType(ctx, id, typ); err != nil {
		return err
	}
	startErr := k.start(ctx, id)
	if startErr != nil {
		if err := k.setType(ctx, id, from); err != nil {
			return fmt.Errorf("start as %s: %w; putting %s back failed too, the instance is stopped: %v", typ, startErr, from, err)
		}
		if err := k.start(ctx, id); err != nil {
			return fmt.Errorf("start as %s: %w; as %s again: %v; the instance is stopped", typ, startErr, from, err)
		}
	}
	err = p.call(ctx, "untag instance resizing", settling, func(ctx context.Context) error {
		_, err := p.ec2.DeleteTags(ctx, &ec2api.DeleteTagsInput{Resources: []string{id}, Tags: []ec2api.Tag{{Key: aws.String(tagResizing)}}})
		return err
	})
	if startErr != nil {
		return fmt.Errorf("the instance did not start as %s (%w); it runs as %s again", typ, startErr, from)
	}
	return err
}

func (k vmKind) stop(ctx context.Context, in ec2api.Instance) error {
	id := aws.ToString(in.InstanceId)
	if in.State != nil && in.State.Name == ec2api.InstanceStateNamePending {
		if err := k.wait(ctx, id, ec2api.InstanceStateNameRunning); err != nil {
			return err
		}
	}
	if in.State == nil || in.State.Name != ec2api.InstanceStateNameStopped {
		err := k.p.call(ctx, "stop instance", plain, func(ctx context.Context) error {
			_, err := k.p.ec2.StopInstances(ctx, &ec2api.StopInstancesInput{InstanceIds: []string{id}})
			return err
		})
		if err != nil && apiCode(err) != "IncorrectInstanceState" { // already stopping
			return err
		}
	}
	return k.wait(ctx, id, ec2api.InstanceStateNameStopped)
}

func (k vmKind) setType(ctx context.Context, id, typ string) error {
	return k.p.call(ctx, "set instance type", plain, func(ctx context.Context) error {
		_, err := k.p.ec2.ModifyInstanceAttribute(ctx, &ec2api.ModifyInstanceAttributeInput{
			InstanceId: aws.String(id), InstanceType: &ec2api.AttributeValue{Value: aws.String(typ)},
		})
		return err
	})
}

// start starts a stopped instance and waits until it runs, trying the
// start up to startAttempts times.
func (k vmKind) start(ctx context.Context, id string) error {
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		err = k.p.call(ctx, "start instance", plain, func(ctx context.Context) error {
			_, err := k.p.ec2.StartInstances(ctx, &ec2api.StartInstancesInput{InstanceIds: []string{id}})
			return err
		})
		if err == nil {
			return k.wait(ctx, id, ec2api.InstanceStateNameRunning)
		}
		if attempt < startAttempts {
			k.p.retries.Add(1)
			if serr := retry.Sleep(ctx, k.p.opts.PollInterval); serr != nil {
				return fmt.Errorf("%w (%v)", serr, err)
			}
		}
	}
	return err
}

// ensureRunning brings an instance found stopped or stopping (a resize
// interrupted after the stop) back to running, and removes the resizing
// tag.
func (k vmKind) ensureRunning(ctx context.Context, in ec2api.Instance) error {
	id := aws.ToString(in.InstanceId)
	var err error
	switch {
	case in.State == nil:
	case in.State.Name == ec2api.InstanceStateNameStopping:
		if err = k.wait(ctx, id, ec2api.InstanceStateNameStopped); err == nil {
			err = k.start(ctx, id)
		}
	case in.State.Name == ec2api.InstanceStateNameStopped:
		err = k.start(ctx, id)
	default:
		err = k.wait(ctx, id, ec2api.InstanceStateNameRunning)
	}
	if err != nil || fromEC2Tags(in.Tags)[tagResizing] == "" {
		return err
	}
	return k.p.call(ctx, "untag instance resizing", settling, func(ctx context.Context) error {
		_, err := k.p.ec2.DeleteTags(ctx, &ec2api.DeleteTagsInput{Resources: []string{id}, Tags: []ec2api.Tag{{Key: aws.String(tagResizing)}}})
		return err
	})
}
