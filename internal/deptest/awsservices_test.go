package deptest

import (
	"strings"
	"testing"
)

// generatedAWSClients are SDK service packages no Kyku binary links, each
// with what speaks its API instead: compiling them was most of a cold
// build (issue 38: service/rds 22 s, service/ssm 20 s,
// service/elasticloadbalancingv2 6.4 s, each again with -race) for a few
// calls each. kms, s3 and sts stay: the state backends use them.
var generatedAWSClients = map[string]string{
	"github.com/aws/aws-sdk-go-v2/service/rds":                    "internal/provider/aws/rdsapi",
	"github.com/aws/aws-sdk-go-v2/service/ssm":                    "internal/provider/aws/ssmapi",
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2": "internal/provider/aws/elbapi",
}

// TestNoGeneratedAWSClientLinked: none of the four binaries links a
// package of generatedAWSClients (nor one under it, such as its types).
func TestNoGeneratedAWSClientLinked(t *testing.T) {
	for _, cmd := range []string{"kyku", "kyku-engine", "action", "bot"} {
		for _, d := range deps(t, "github.com/kyku/action/cmd/"+cmd) {
			for svc, instead := range generatedAWSClients {
				if d == svc || strings.HasPrefix(d, svc+"/") {
					t.Errorf("cmd/%s links %s: the AWS provider speaks that API through %s", cmd, d, instead)
				}
			}
		}
	}
}
