package awswire

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// maxAnswer bounds an answer's size: the largest Kyku reads (a page of
// EC2's DescribeInstances) is a few hundred kilobytes.
const maxAnswer = 64 << 20

// signer signs every client's requests: it keeps the signing keys it
// derived (four HMACs each, per day, region and service) for the requests
// after, as the SDK's own clients share theirs. It is safe for concurrent
// use.
var signer = v4.NewSigner()

// Client calls one AWS service. It is safe for concurrent use.
type Client struct {
	// HTTP sends the requests (aws.Config's HTTPClient).
	HTTP aws.HTTPClient
	// Credentials sign them (aws.Config's Credentials).
	Credentials aws.CredentialsProvider
	// Region is the region signed for and, without Endpoint, called.
	Region string
	// Endpoint is the service's base URL; empty is AWS's own endpoint for
	// Service in Region (see DefaultEndpoint).
	Endpoint string
	// Service is the service's endpoint prefix and signing name ("ec2",
	// "elasticloadbalancing", "rds", "ssm").
	Service string
	// Version is the API version a Query request names ("2016-11-15").
	Version string
	// TargetPrefix is what a JSON 1.1 operation's name follows in
	// X-Amz-Target ("AmazonSSM").
	TargetPrefix string
	// Now is the signing clock; nil is time.Now.
	Now func() time.Time
	// Skew is the offset from Now of AWS's clock, learnt from an answer
	// refusing a request signed too far from AWS's time and kept for the
	// requests after (shared by a configuration's clients); nil keeps none
	// between requests.
	Skew *Skew
}

// DefaultEndpoint is AWS's endpoint of service in region: its China
// regions are under amazonaws.com.cn, every other under amazonaws.com.
func DefaultEndpoint(service, region string) string {
	domain := "amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		domain = "amazonaws.com.cn"
	}
	return "https://" + service + "." + region + "." + domain
}

// Query calls action with params (without Action and Version, which it
// adds), checks that the XML answer is the action's own and decodes it
// into out (nil to ignore it).
func (c *Client) Query(ctx context.Context, action string, params url.Values, out any) error {
	form := url.Values{}
	for k, v := range params {
		form[k] = v
	}
	form.Set("Action", action)
	form.Set("Version", c.Version)
	body := []byte(form.Encode())
	header := http.Header{"Content-Type": {"application/x-www-form-urlencoded; charset=utf-8"}}
	answer, err := c.send(ctx, action, header, body, queryError)
	if err != nil {
		return err
	}
	// The answer must be the action's own (<ActionResponse>, in EC2's
	// dialect and the Query protocol alike): a page that is not, such as
	// a proxy's answering 200, fails rather than reads as an empty
	// listing or a done deletion.
	return decodeXML(action, answer, &rooted{action: action, out: out})
}

// JSON calls the JSON 1.1 operation op with in (marshalled with
// encoding/json) and decodes the answer into out (nil to ignore it).
func (c *Client) JSON(ctx context.Context, op string, in, out any) error {
	body, err := encodeJSON(in)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	header := http.Header{
		"Content-Type": {"application/x-amz-json-1.1"},
		"X-Amz-Target": {c.TargetPrefix + "." + op},
	}
	answer, err := c.send(ctx, op, header, body, jsonError)
	if err != nil {
		return err
	}
	return decodeJSON(op, answer, out)
}

// send signs and sends one POST of body with header and returns the
// answer's body, or the error refuseErr reads from an answer that is not
// a 2xx. Requests are signed at Now plus the Skew learnt. An answer
// refusing the signature whose Date says the signing time was more than
// skewThreshold off AWS's is read as a skewed clock, as the SDK's own
// clients do: the offset is kept and the request is sent once more,
// signed with the corrected time.
func (c *Client) send(ctx context.Context, op string, header http.Header, body []byte, refuseErr func(op string, status int, body []byte) error) ([]byte, error) {
	offset := c.Skew.Offset()
	for retried := false; ; retried = true {
		status, answer, h, err := c.attempt(ctx, op, header, body, offset)
		if err != nil {
			return nil, err
		}
		if status/100 == 2 {
			return answer, nil
		}
		err = refuseErr(op, status, answer)
		observed, ok := observedSkew(h, c.now())
		if retried || !ok || !skewed(err, offset, observed) {
			return nil, err
		}
		offset = observed
		c.Skew.set(offset)
	}
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// attempt signs one POST of body at Now plus offset, sends it and returns
// the answer's status, body and header.
func (c *Client) attempt(ctx context.Context, op string, header http.Header, body []byte, offset time.Duration) (int, []byte, http.Header, error) {
	endpoint := c.Endpoint
	if endpoint == "" {
		endpoint = DefaultEndpoint(c.Service, c.Region)
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s: endpoint %q: %w", op, endpoint, err)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", "kyku")
	if c.Credentials == nil {
		return 0, nil, nil, fmt.Errorf("%s: no AWS credentials", op)
	}
	creds, err := c.Credentials.Retrieve(ctx)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s: retrieve AWS credentials: %w", op, err)
	}
	sum := sha256.Sum256(body)
	if err := signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), c.Service, c.Region, c.now().Add(offset)); err != nil {
		return 0, nil, nil, fmt.Errorf("%s: sign the request: %w", op, err)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil, fmt.Errorf("%s: %w", op, ctx.Err())
		}
		return 0, nil, nil, fmt.Errorf("%s: %w", op, &smithyhttp.RequestSendError{Err: err})
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s: read the answer: %w", op, err)
	}
	if len(answer) > maxAnswer {
		return 0, nil, nil, fmt.Errorf("%s: the answer is over %d bytes", op, maxAnswer)
	}
	return resp.StatusCode, answer, resp.Header, nil
}
