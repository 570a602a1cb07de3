package provider_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
)

func TestNewObject(t *testing.T) {
	got := provider.NewObject("4711", "kyku0001-web", map[string]any{"size": "small"}, map[string]any{"publicIp": "203.0.113.1"})
	want := provider.Object{
		ID: "4711", CloudName: "kyku0001-web", Properties: map[string]any{"size": "small"},
		Outputs: map[string]any{"id": "4711", "publicIp": "203.0.113.1"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("NewObject (-want +got):\n%s", d)
	}
	if got := provider.NewObject("vpc-1", "net", nil, nil); got.Outputs["id"] != "vpc-1" {
		t.Errorf("without outputs: %v; want the id output", got.Outputs)
	}
}

func TestNotFound(t *testing.T) {
	err := fmt.Errorf("read Vpc 4711: %w", provider.NotFound("network 4711"))
	if !provider.IsNotFound(err) || err.Error() != "read Vpc 4711: network 4711: not found" {
		t.Errorf("err = %v; want a wrapped ErrNotFound naming the network", err)
	}
	if provider.IsNotFound(fmt.Errorf("network 4711: locked")) || provider.IsNotFound(nil) {
		t.Error("IsNotFound holds for an error that is not ErrNotFound")
	}
}
