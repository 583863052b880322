package evaluate

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/verdict-ml/verdict/internal/input"
)

// The costs that heldMemory counts for the readers' structs are their
// sizes.
func TestHeldSizes(t *testing.T) {
	require.Equal(t, uintptr(runDocBytes), unsafe.Sizeof(runDoc{}))
	require.Equal(t, uintptr(tableSampleBytes), unsafe.Sizeof(tableSample{}))
	require.Equal(t, uintptr(heldQrelsQuery-heldMapEntry), unsafe.Sizeof(qrelsQuery{}))
	require.Equal(t, uintptr(heldRunQuery-heldMapEntry), unsafe.Sizeof(runQuery{}))
}

func TestHeldSizeText(t *testing.T) {
	for n, want := range map[int64]string{
		2 << 30:    "2 GiB",
		64 << 20:   "64 MiB",
		1536 << 20: "1536 MiB",
		3 << 10:    "3 KiB",
		1000:       "1000 bytes",
	} {
		require.Equal(t, want, input.ByteSize(n))
	}
}
