package local_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// BenchmarkTerraformWrite: an apply's write of a Terraform state of 5,000
// null_resources (2 MB) read just before, with one attribute changed, and
// one that changes nothing (no write: the serial stays). Reading is not
// timed.
func BenchmarkTerraformWrite(b *testing.B) {
	var insts []string
	for i := range 5000 {
		insts = append(insts, fmt.Sprintf(`{"index_key":%d,"schema_version":0,"attributes":{"id":"%d","triggers":{"cidr":"10.0.%d.0/24","name":"node-%04d"}},"sensitive_attributes":[]}`,
			i, 1000000+i, i%256, i))
	}
	data := fmt.Appendf(nil, `{"version":4,"terraform_version":"1.12.6","serial":2,"lineage":"bd48f5a8","outputs":{},"resources":[{"mode":"managed","type":"null_resource","name":"node","provider":"provider[\"registry.opentofu.org/hashicorp/null\"]","instances":[%s]}],"check_results":null}`,
		strings.Join(insts, ","))
	for _, change := range []bool{true, false} {
		b.Run(map[bool]string{true: "one change", false: "no change"}[change], func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "terraform.tfstate")
			b.ReportAllocs()
			var spent time.Duration
			for b.Loop() {
				b.StopTimer()
				put(b, path, data)
				be := newTF(b, dir, "")
				st, err := be.Read(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				if change {
					st.Resources["null_resource.node[7]"].Outputs["id"] = "changed"
				}
				st.Metadata.Serial++
				b.StartTimer()
				start := processCPU(b)
				if err := be.Write(b.Context(), st, statemgr.WriteOptions{}); err != nil {
					b.Fatal(err)
				}
				spent += processCPU(b) - start
			}
			b.ReportMetric(float64(spent.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// processCPU is this process's CPU time (user and system): on a shared
// machine it moves less than the wall time.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
