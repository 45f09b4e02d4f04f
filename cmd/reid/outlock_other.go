//go:build !unix

package main

// lockOutDir does nothing where flock is not available.
func lockOutDir(dir string) (unlock func(), err error) { return func() {}, nil }
