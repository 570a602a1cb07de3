package tflayout

// BridgesBuilt is how many times b mapped a Terraform state into Kyku's
// model.
func BridgesBuilt(b *Backend) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.built
}

// AheadTaken is how many reads ahead b's reads took whole (the state and
// its bridge as decoded ahead).
func AheadTaken(b *Backend) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.taken
}

// AheadDone waits for b's read ahead, if one is pending, to finish.
func AheadDone(b *Backend) {
	b.mu.Lock()
	a := b.ahead
	b.mu.Unlock()
	if a != nil {
		<-a.done
	}
}
