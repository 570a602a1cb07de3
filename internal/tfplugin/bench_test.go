package tfplugin_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/tfschema"
)

// BenchmarkCreate is one resource's create as the engine makes it
// (configuration from properties, encoded straight from them, validate,
// plan with it as the proposed new state, apply, the new state decoded
// as properties): of a
// null_resource when KYKU_TEST_NULL_MIRROR names the benchmark mirror,
// of an fwtest_item otherwise. Time is wall time of the round trips,
// the provider's share included; allocations are Kyku's side only.
func BenchmarkCreate(b *testing.B) {
	ctx := b.Context()
	path, typ, cfg := tfplugintest.Build(b, tfplugintest.Framework), "fwtest_item", map[string]any{"dir": b.TempDir()}
	props := map[string]any{"name": "bench", "value": "v", "tags": map[string]any{"k": "v"}}
	if dir := os.Getenv("KYKU_TEST_NULL_MIRROR"); dir != "" {
		src, _ := tfinstall.ParseSource("hashicorp/null")
		in := &tfinstall.Installer{Mirror: dir, Platform: tfinstall.Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}}
		got, err := in.Install(ctx, []tfinstall.Requirement{{Source: src}}, &tfinstall.Lock{}, false)
		if err != nil {
			b.Fatal(err)
		}
		path, typ, cfg = got[0].Executable, "null_resource", map[string]any{}
		props = map[string]any{"triggers": map[string]any{"chain": "0", "index": "1"}}
	}
	p, err := tfplugin.Start(ctx, tfplugin.Config{Name: typ, Path: path})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	s, _ := p.Schema(ctx)
	pc, _ := tfschema.Config(s.Provider.Block, cfg)
	if ds, err := p.ConfigureProvider(ctx, pc, "1.12.6"); err != nil || ds.HasErrors() {
		b.Fatal(err, ds)
	}
	block := s.ResourceTypes[typ].Block
	null := cty.NullVal(block.ImpliedType())
	b.ReportAllocs()
	selfCPU, provCPU := cpuOf("self"), cpuOf(strconv.Itoa(p.Pid()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		config, ds, err := tfplugin.EncodeConfig(block, props)
		if err != nil || ds.HasErrors() {
			b.Fatal(err, ds.Err())
		}
		if ds, err := p.ValidateEncoded(ctx, typ, false, config.Msgpack); err != nil || ds.HasErrors() {
			b.Fatal(err, ds)
		}
		// a create's proposed new state is its configuration
		plan, err := p.PlanResourceChange(ctx, tfplugin.PlanRequest{TypeName: typ, PriorState: null,
			ConfigMsgpack: config.Msgpack, ProposedMsgpack: config.Msgpack, Values: true})
		if err != nil {
			b.Fatal(err)
		}
		applied, err := p.ApplyResourceChange(ctx, tfplugin.ApplyRequest{TypeName: typ, PriorState: null, ConfigMsgpack: config.Msgpack,
			PlannedMsgpack: plan.PlannedMsgpack, PlannedPrivate: plan.PlannedPrivate, Values: true})
		if err != nil || applied.Diagnostics.HasErrors() {
			b.Fatal(err, applied.Diagnostics)
		}
		_ = applied.NewValues
	}
	b.StopTimer()
	if selfCPU >= 0 && provCPU >= 0 {
		b.ReportMetric(float64(cpuOf("self")-selfCPU)/float64(b.N), "kyku-cpu-µs/op")
		b.ReportMetric(float64(cpuOf(strconv.Itoa(p.Pid()))-provCPU)/float64(b.N), "provider-cpu-µs/op")
	}
}

// cpuOf is the user and system CPU of a process so far, in
// microseconds, from /proc (-1 where there is none).
func cpuOf(pid string) int64 {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return -1
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return -1
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return (utime + stime) * 1e6 / 100 // clock ticks of 1/100 s
}
