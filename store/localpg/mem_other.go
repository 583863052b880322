//go:build !linux

package localpg

// physicalMemory returns the machine's memory in bytes, 0 if unknown: the
// clusters of other systems get the least shared_buffers.
func physicalMemory() uint64 { return 0 }
