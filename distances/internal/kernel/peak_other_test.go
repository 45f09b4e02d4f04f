//go:build !amd64 || purego

package kernel

func measuredPeak() float64 { return 0 }
