package evaluate

// SetDefaultMaxHeldBytes sets the bound on the memory a reader holds when
// RankingOptions.MaxHeldBytes is 0, and that of FingerprintTargets, and
// returns a function that restores it. A test that calls it must not run
// in parallel.
func SetDefaultMaxHeldBytes(n int64) (restore func()) {
	old := defaultMaxHeld
	defaultMaxHeld = n
	return func() { defaultMaxHeld = old }
}

// DropItems has a reader of this package leave the predicted items and
// scores off its batches, as Run does when nothing reads them.
func DropItems(src Rankings) { src.(itemDropper).dropItems() }
