package evaluate_test

import (
	"testing"

	"github.com/verdict-ml/verdict/store/storetest"
)

// TestMain stops the embedded PostgreSQL cluster that the tests of Run
// start, if they started one.
func TestMain(m *testing.M) { storetest.Main(m) }
