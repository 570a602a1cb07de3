package tflayout

// BridgesBuilt is how many times b mapped a Terraform state into Kyku's
// model.
func BridgesBuilt(b *Backend) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.built
}
