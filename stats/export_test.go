package stats

import "context"

// WithChunkStart returns a context under which resampling calls start as
// each chunk of replicates starts, after it has checked the context for
// cancellation, on the goroutine that runs the chunk.
func WithChunkStart(ctx context.Context, start func()) context.Context {
	return context.WithValue(ctx, chunkStartKey{}, start)
}
