//go:build !unix

package vfs

// lock on systems without flock(2) locks nothing.
func (osFS) lock(string) (func() error, error) { return func() error { return nil }, nil }
