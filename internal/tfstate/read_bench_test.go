package tfstate_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/tfstate"
)

// benchShapeState is the Terraform state .ci/bench-hcl's apply leaves:
// keys module instances of per null_resources each, their triggers
// built as the configuration builds them, and what Kyku keeps beside it
// for each (its configuration, cloud name and basis).
func benchShapeState(keys, per int) (stateJSON, extraJSON []byte) {
	var res, extra strings.Builder
	for k := range keys {
		site := fmt.Sprintf("site-%02d", k)
		labels, _ := json.Marshal(fmt.Sprintf(`{"cidr":"10.%d.0.0/16","env":"bench","index":"%d","owner":"platform"}`, k, k))
		var insts []string
		for i := range per {
			triggers := fmt.Sprintf(`{"cidr":"10.%d.%d.0/24","labels":%s,"name":"%s-%03d"}`, k, i, labels, site, i)
			insts = append(insts, fmt.Sprintf(`{"index_key":%d,"schema_version":0,"attributes":{"id":"%d","triggers":%s},"sensitive_attributes":[]}`,
				i, 1000000+k*per+i, triggers))
			addr := fmt.Sprintf(`module.site[\"%s\"].null_resource.node[%d]`, site, i)
			if extra.Len() > 0 {
				extra.WriteString(",")
			}
			fmt.Fprintf(&extra, `"%s":{"config":{"triggers":%s},"cloudName":"p-%s-%d","basis":{"config":"c%d","provider":"p","readAt":"2026-12-06T18:49:01Z","version":"3.3.1"}}`,
				addr, triggers, site, i, k*per+i)
		}
		if res.Len() > 0 {
			res.WriteString(",")
		}
		fmt.Fprintf(&res, `{"module":"module.site[\"%s\"]","mode":"managed","type":"null_resource","name":"node","provider":"provider[\"registry.opentofu.org/hashicorp/null\"]","instances":[%s]}`,
			site, strings.Join(insts, ","))
	}
	const lineage = "bd48f5a8dbf0008e82e8e28829f4ff40"
	stateJSON = fmt.Appendf(nil, `{"version":4,"terraform_version":"1.12.6","serial":2,"lineage":%q,"outputs":{"first":{"value":"1000000","type":"string"}},"resources":[%s],"check_results":null}`,
		lineage, res.String())
	extraJSON = fmt.Appendf(nil, `{"lineage":%q,"serial":2,"prefix":"p","resources":{%s}}`, lineage, extra.String())
	return stateJSON, extraJSON
}

// BenchmarkReadBenchShapeState: what a plan of .ci/bench-hcl's shape
// does with its Terraform state before planning (tflayout's load):
// decode the 5,000 instances' state and what Kyku keeps beside it, map
// them into Kyku's model and take the engine's copy.
func BenchmarkReadBenchShapeState(b *testing.B) {
	data, extraData := benchShapeState(50, 100)
	b.SetBytes(int64(len(data) + len(extraData)))
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		f, err := tfstate.Decode("terraform.tfstate", data)
		if err != nil {
			b.Fatal(err)
		}
		extra, err := tfstate.DecodeExtra("extra", extraData)
		if err != nil {
			b.Fatal(err)
		}
		br, err := tfstate.NewBridge(f, tfstate.BridgeOptions{Extra: extra})
		if err != nil {
			b.Fatal(err)
		}
		if st := br.State(); len(st.Resources) != 5000 || st.Resources[`module.site["site-49"].null_resource.node[99]`].Basis == nil {
			b.Fatalf("%d resources, or no basis", len(st.Resources))
		}
	}
	b.ReportMetric(float64((processCPU()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// processCPU is the CPU time (user + system) this process has used: on
// a shared machine it moves less than the wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEncodeExtra: what an apply of .ci/bench-hcl's shape keeps
// beside its Terraform state after its last write: the 5,000 instances'
// configurations, cloud names and bases, encoded.
func BenchmarkEncodeExtra(b *testing.B) {
	_, extraData := benchShapeState(50, 100)
	extra, err := tfstate.DecodeExtra("extra", extraData)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(extraData)))
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		if _, err := tfstate.EncodeExtra(extra); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
