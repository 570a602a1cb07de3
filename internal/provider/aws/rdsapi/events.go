package rdsapi

import (
	"context"
	"net/url"
	"time"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// DescribeEventsInput selects the events of one source between StartTime
// and EndTime (or of the last Duration minutes), a page at a time.
type DescribeEventsInput struct {
	SourceType       SourceType
	SourceIdentifier *string
	StartTime        *time.Time
	EndTime          *time.Time
	Duration         *int32
	Marker           *string
}

// DescribeEventsOutput is one page; Marker is empty on the last.
type DescribeEventsOutput struct {
	Events []Event `xml:"DescribeEventsResult>Events>Event"`
	Marker *string `xml:"DescribeEventsResult>Marker"`
}

// DescribeEvents (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_DescribeEvents.html).
func (c *Client) DescribeEvents(ctx context.Context, in *DescribeEventsInput) (*DescribeEventsOutput, error) {
	p := url.Values{}
	if in.SourceType != "" {
		p.Set("SourceType", string(in.SourceType))
	}
	awswire.SetString(p, "SourceIdentifier", in.SourceIdentifier)
	awswire.SetTime(p, "StartTime", in.StartTime)
	awswire.SetTime(p, "EndTime", in.EndTime)
	awswire.SetInt32(p, "Duration", in.Duration)
	awswire.SetString(p, "Marker", in.Marker)
	return awswire.QueryAnswer[DescribeEventsOutput](ctx, c.wire, "DescribeEvents", p)
}
