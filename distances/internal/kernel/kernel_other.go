//go:build !amd64 || purego

package kernel

// accelerated lists the assembly kernels this build can run: none.
func accelerated() []implementation { return nil }

// acceleratedOWA returns the assembly OWA kernel this build can run: none.
func acceleratedOWA() owaFunc { return nil }

// acceleratedChoquet returns the assembly Choquet kernel this build can run: none.
func acceleratedChoquet() choquetFunc { return nil }
