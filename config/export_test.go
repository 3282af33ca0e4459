package config

// SetEUID makes FromEnv see uid as the effective user id until the test ends.
func SetEUID(t interface{ Cleanup(func()) }, uid int) {
	old := geteuid
	geteuid = func() int { return uid }
	t.Cleanup(func() { geteuid = old })
}
