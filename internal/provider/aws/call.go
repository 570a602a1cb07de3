package aws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/retry"
)

// throttleCodes are AWS's "slow down" answers.
var throttleCodes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"RequestLimitExceeded": true, "Throttling": true, "ThrottlingException": true,
		"TooManyRequestsException": true, "RequestThrottled": true, "RequestThrottledException": true,
	}
})

// settlingCodes are what AWS answers about an object created a moment ago
// that has not propagated yet (eventual consistency): EC2's (Amazon EC2
// API Reference, Eventual consistency), and ELBv2's and RDS's not-found
// answers, which terraform-provider-aws retries for a new resource too
// (RetryWhenNewResourceNotFound on its target group, load balancer,
// listener and DB instance reads).
var settlingCodes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"InvalidVpcID.NotFound": true, "InvalidSubnetID.NotFound": true, "InvalidGroup.NotFound": true,
		"InvalidInstanceID.NotFound": true, "InvalidInternetGatewayID.NotFound": true,
		"InvalidRouteTableID.NotFound": true, "InvalidKeyPair.NotFound": true,
		"TargetGroupNotFound": true, "LoadBalancerNotFound": true, "ListenerNotFound": true,
		"DBInstanceNotFound": true, "DBInstanceNotFoundFault": true,
	}
})

// notFoundCodes are the "no such object" codes of services whose codes do
// not end in ".NotFound".
var notFoundCodes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"DBInstanceNotFound": true, "DBInstanceNotFoundFault": true, "DBSubnetGroupNotFoundFault": true,
		"TargetGroupNotFound": true, "LoadBalancerNotFound": true, "ListenerNotFound": true,
		"ParameterNotFound": true,
	}
})

// inUseCodes say an object cannot go yet because something still uses
// it — often something being deleted a moment ago (a load balancer's
// network interfaces, a database leaving its subnet group).
var inUseCodes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"DependencyViolation": true, "ResourceInUse": true, "InvalidDBSubnetGroupStateFault": true,
		"InvalidDBSubnetGroupState": true,
	}
})

// mode says how a call treats "not found" answers and network errors.
type mode int

const (
	// plain: a not-found answer is provider.ErrNotFound (Read, Delete).
	plain mode = iota
	// settling: the call names objects created moments ago, so a
	// not-found answer is eventual consistency and retried.
	settling
	// once: the request creates something and is not idempotent
	// (CreateVpc, CreateInternetGateway, CreateRouteTable): a network
	// error is not resent, which could make a second object, but returned
	// as provider.Transient, so the engine retries the whole Create, which
	// first looks the object up by its tags. Eventual-consistency answers
	// are retried as in settling (the request was refused, nothing made).
	once
)

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func isNotFound(code string) bool {
	return strings.HasSuffix(code, ".NotFound") || notFoundCodes()[code]
}

func retryable(err error, m mode) bool {
	code := apiCode(err)
	if throttleCodes()[code] || (m != plain && settlingCodes()[code]) {
		return true
	}
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) && hs.HTTPStatusCode() >= 500 {
		return true
	}
	return m != once && networkError(err)
}

// networkError reports whether err is the network failing rather than AWS
// answering: the request could not be sent, the connection was reset or
// closed mid-answer, or timed out (the caller's own deadline is not one).
func networkError(err error) bool {
	if apiCode(err) != "" {
		return false
	}
	var send *smithyhttp.RequestSendError
	var ne net.Error
	return errors.As(err, &send) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// call runs one AWS request with Kyku's retry policy: throttling, 5xx and
// (in settling mode) eventual-consistency errors are retried with
// exponential backoff up to MaxAttempts, then returned as
// provider.Transient so the engine may retry the whole step. The SDK's own
// retryer is disabled (see New), so every retry here is one request.
func (p *Provider) call(ctx context.Context, op string, m mode, fn func(context.Context) error) error {
	return p.retry.Do(ctx, op, func(ctx context.Context) (retry.Verdict, error) {
		err := fn(ctx)
		if err == nil {
			return retry.Verdict{}, nil
		}
		if m == once && networkError(err) {
			return retry.Verdict{Final: provider.Transient(fmt.Errorf("%s: no answer, not resent (the object may exist): %w", op, err))}, err
		}
		return retry.Verdict{Retry: retryable(err, m), NotFound: isNotFound(apiCode(err))}, err
	})
}

// whileInUse runs a delete, and runs it again every PollInterval while AWS
// answers that the object is still in use (inUseCodes), at most MaxPolls
// times: on AWS that lasts minutes after a load balancer or a database
// went. Still in use after that is a permanent error.
func (p *Provider) whileInUse(ctx context.Context, op string, fn func(context.Context) error) error {
	var last error
	for i := 0; i < p.opts.MaxPolls; i++ {
		err := p.call(ctx, op, plain, fn)
		if !inUseCodes()[apiCode(err)] {
			return err
		}
		last = err
		p.retries.Add(1)
		if err := retry.Sleep(ctx, p.opts.PollInterval); err != nil {
			return fmt.Errorf("%s: %w (still in use: %v)", op, err, last)
		}
	}
	return fmt.Errorf("%s: still in use after %d attempts: %w", op, p.opts.MaxPolls, last)
}

// poll calls check every PollInterval until it reports done, at most
// MaxPolls times; what names the wait in the error.
func (p *Provider) poll(ctx context.Context, what string, check func(context.Context) (bool, error)) error {
	return retry.Poll{Interval: p.opts.PollInterval, Max: p.opts.MaxPolls}.Until(ctx, what, check)
}
