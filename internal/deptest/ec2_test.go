package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// sdkEC2 is the SDK's generated EC2 client: 30 MB of Go that a cold build
// spent a fifth of its time compiling, for the few dozen actions Kyku
// calls (internal/provider/aws/ec2api calls them instead).
const sdkEC2 = "github.com/aws/aws-sdk-go-v2/service/ec2"

// TestNothingLinksTheSDKsEC2Client: no package of Kyku, nor its tests,
// links service/ec2 or its types.
func TestNothingLinksTheSDKsEC2Client(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-test", "./...")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps -test ./...: %v\n%s", err, out)
	}
	for _, d := range strings.Fields(string(out)) {
		if d == sdkEC2 || strings.HasPrefix(d, sdkEC2+"/") {
			t.Errorf("%s is linked; call EC2 through internal/provider/aws/ec2api", d)
		}
	}
}
